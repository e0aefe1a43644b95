//! A model for the tests: an axum server speaking OpenAI-compatible chat completions
//! (`/v1/chat/completions`) and Anthropic's Messages (`/v1/messages`), streaming when asked,
//! answering from a script. A script maps a case's prompt to its plans; each new conversation
//! takes the next plan (round robin), each plan a step per model turn. Which plan a conversation
//! follows rides in its tool calls' ids, so concurrent iterations keep to their own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One model turn.
#[derive(Debug, Clone)]
pub enum Step {
    /// Tool calls: (tool, arguments as the model writes them, JSON text or not).
    Call(Vec<(&'static str, String)>),
    /// A closing answer in text.
    Text(&'static str),
    /// An HTTP error status, with `Retry-After` seconds when given.
    Status(u16, Option<u32>),
    /// 429 with `Retry-After: 1` the first time this turn is asked, then the step given.
    RateLimitedOnce(Box<Step>),
    /// A streamed answer cut off half way (no finish, no [DONE]).
    BrokenStream,
    /// A body of this many bytes of text content.
    Huge(usize),
}

/// What every request asks and what the script answers.
#[derive(Default)]
pub struct Script {
    /// Prompt → plans.
    pub plans: HashMap<String, Vec<Vec<Step>>>,
    /// Prompt → conversations started so far.
    started: Mutex<HashMap<String, usize>>,
    /// (prompt, plan, turn) already refused once with 429.
    limited: Mutex<std::collections::HashSet<(String, usize, usize)>>,
    /// Every request's body and headers, as received.
    pub requests: Mutex<Vec<(HeaderMap, Value)>>,
}

impl Script {
    pub fn new(plans: Vec<(&str, Vec<Vec<Step>>)>) -> Arc<Script> {
        Arc::new(Script { plans: plans.into_iter().map(|(p, s)| (p.to_string(), s)).collect(), ..Script::default() })
    }

    /// A plan of `n` copies of `plan`.
    pub fn times(n: usize, plan: Vec<Step>) -> Vec<Vec<Step>> {
        vec![plan; n]
    }
}

/// A running scripted model; dropping it stops the server.
pub struct ScriptedModel {
    pub url: String,
    pub script: Arc<Script>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl ScriptedModel {
    /// Serves `script` on its own thread and runtime (so blocking tests can use it), on 127.0.0.1.
    pub fn start(script: Arc<Script>) -> ScriptedModel {
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = Arc::clone(&script);
        let handle = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let router = axum::Router::new()
                    .route("/v1/chat/completions", axum::routing::post(openai))
                    .route("/v1/messages", axum::routing::post(anthropic))
                    .with_state(served);
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                let _ = axum::serve(listener, router)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        let address = rx.recv().unwrap();
        ScriptedModel { url: format!("http://{address}/v1"), script, stop: Some(stop), handle: Some(handle) }
    }

    /// Stops the server and waits until it no longer listens.
    pub fn stop(mut self) {
        self.shut();
    }

    fn shut(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.shut();
    }
}

/// The case's prompt, the plan this conversation follows and its turn.
fn place(script: &Script, prompt: &str, turn: usize, plan_from_ids: Option<usize>) -> (usize, Option<Step>) {
    let Some(plans) = script.plans.get(prompt) else { return (0, Some(Step::Text("no script for this prompt"))) };
    let plan = match plan_from_ids {
        Some(plan) => plan,
        None => {
            let mut started = script.started.lock().unwrap();
            let n = started.entry(prompt.to_string()).or_default();
            *n += 1;
            (*n - 1) % plans.len()
        }
    };
    (plan, plans[plan].get(turn).cloned())
}

/// The plan an id like `p3t0c1` names.
fn plan_of(id: &str) -> Option<usize> {
    id.strip_prefix('p')?.split('t').next()?.parse().ok()
}

async fn openai(State(script): State<Arc<Script>>, headers: HeaderMap, body: axum::Json<Value>) -> Response {
    let body = body.0;
    script.requests.lock().unwrap().push((headers, body.clone()));
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let prompt = messages.iter().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or_default();
    let assistants: Vec<&Value> = messages.iter().filter(|m| m["role"] == "assistant").collect();
    let from_ids =
        assistants.first().and_then(|m| m.pointer("/tool_calls/0/id")).and_then(Value::as_str).and_then(plan_of);
    let (plan, step) = place(&script, prompt, assistants.len(), from_ids);
    let turn = assistants.len();
    let stream = body["stream"] == true;
    answer(&script, prompt, plan, turn, step.unwrap_or(Step::Text("done")), stream, Shape::OpenAi)
}

async fn anthropic(State(script): State<Arc<Script>>, headers: HeaderMap, body: axum::Json<Value>) -> Response {
    let body = body.0;
    script.requests.lock().unwrap().push((headers, body.clone()));
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let prompt = messages.first().and_then(|m| m["content"].as_str()).unwrap_or_default();
    let assistants: Vec<&Value> = messages.iter().filter(|m| m["role"] == "assistant").collect();
    let from_ids = assistants
        .first()
        .and_then(|m| m["content"].as_array())
        .and_then(|blocks| blocks.iter().find(|b| b["type"] == "tool_use"))
        .and_then(|b| b["id"].as_str())
        .and_then(plan_of);
    let (plan, step) = place(&script, prompt, assistants.len(), from_ids);
    let turn = assistants.len();
    let stream = body["stream"] == true;
    answer(&script, prompt, plan, turn, step.unwrap_or(Step::Text("done")), stream, Shape::Anthropic)
}

#[derive(Clone, Copy)]
enum Shape {
    OpenAi,
    Anthropic,
}

fn answer(script: &Script, prompt: &str, plan: usize, turn: usize, step: Step, stream: bool, shape: Shape) -> Response {
    match step {
        Step::Status(status, retry_after) => {
            let mut response = (StatusCode::from_u16(status).unwrap(), format!("{{\"error\": \"scripted {status}\"}}"))
                .into_response();
            if let Some(seconds) = retry_after {
                response.headers_mut().insert("retry-after", seconds.to_string().parse().unwrap());
            }
            response
        }
        Step::RateLimitedOnce(then) => {
            let first = script.limited.lock().unwrap().insert((prompt.to_string(), plan, turn));
            if first {
                return answer(script, prompt, plan, turn, Step::Status(429, Some(1)), stream, shape);
            }
            answer(script, prompt, plan, turn, *then, stream, shape)
        }
        Step::BrokenStream => {
            let chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half an ans\"}}]}\n\n";
            ([("content-type", "text/event-stream")], chunk.to_string()).into_response()
        }
        Step::Huge(bytes) => {
            let text = "x".repeat(bytes);
            let body = json!({"choices": [{"message": {"role": "assistant", "content": text}}]});
            axum::Json(body).into_response()
        }
        Step::Text(text) => whole_or_streamed(text_answer(shape, text), stream, shape),
        Step::Call(calls) => {
            let ids: Vec<String> = (0..calls.len()).map(|i| format!("p{plan}t{turn}c{i}")).collect();
            whole_or_streamed(call_answer(shape, &calls, &ids), stream, shape)
        }
    }
}

fn text_answer(shape: Shape, text: &str) -> Value {
    match shape {
        Shape::OpenAi => {
            json!({"id": "scripted", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
        }
        Shape::Anthropic => {
            json!({"id": "scripted", "role": "assistant", "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"})
        }
    }
}

fn call_answer(shape: Shape, calls: &[(&str, String)], ids: &[String]) -> Value {
    match shape {
        Shape::OpenAi => {
            let calls: Vec<Value> = calls
                .iter()
                .zip(ids)
                .map(|((name, args), id)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
                .collect();
            json!({"id": "scripted", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}]})
        }
        Shape::Anthropic => {
            let blocks: Vec<Value> = calls
                .iter()
                .zip(ids)
                .map(|((name, args), id)| {
                    let input = serde_json::from_str::<Value>(args).unwrap_or(Value::String(args.clone()));
                    json!({"type": "tool_use", "id": id, "name": name, "input": input})
                })
                .collect();
            json!({"id": "scripted", "role": "assistant", "content": blocks, "stop_reason": "tool_use"})
        }
    }
}

/// The answer whole, or as the API streams it.
fn whole_or_streamed(answer: Value, stream: bool, shape: Shape) -> Response {
    if !stream {
        return axum::Json(answer).into_response();
    }
    let mut events = String::new();
    match shape {
        Shape::OpenAi => {
            let message = &answer["choices"][0]["message"];
            if let Some(text) = message["content"].as_str() {
                for piece in [&text[..text.len() / 2], &text[text.len() / 2..]] {
                    let chunk = json!({"id": "scripted", "choices": [{"index": 0, "delta": {"content": piece}}]});
                    events.push_str(&format!("data: {chunk}\n\n"));
                }
            }
            for (index, call) in message["tool_calls"].as_array().into_iter().flatten().enumerate() {
                let args = call["function"]["arguments"].as_str().unwrap_or_default();
                let (a, b) = args.split_at(args.len() / 2);
                let head = json!({"index": index, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"], "arguments": a}});
                let tail = json!({"index": index, "function": {"arguments": b}});
                for delta in [head, tail] {
                    let chunk = json!({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]});
                    events.push_str(&format!("data: {chunk}\n\n"));
                }
            }
            let finish =
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": answer["choices"][0]["finish_reason"]}]});
            events.push_str(&format!("data: {finish}\n\ndata: [DONE]\n\n"));
        }
        Shape::Anthropic => {
            let mut event = |name: &str, data: Value| events.push_str(&format!("event: {name}\ndata: {data}\n\n"));
            event(
                "message_start",
                json!({"type": "message_start", "message": {"id": "scripted", "role": "assistant", "content": []}}),
            );
            for (index, block) in answer["content"].as_array().into_iter().flatten().enumerate() {
                if block["type"] == "text" {
                    event(
                        "content_block_start",
                        json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
                    );
                    event(
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}}),
                    );
                } else {
                    let start = json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}});
                    event(
                        "content_block_start",
                        json!({"type": "content_block_start", "index": index, "content_block": start}),
                    );
                    let input = match &block["input"] {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    event(
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": input}}),
                    );
                }
                event("content_block_stop", json!({"type": "content_block_stop", "index": index}));
            }
            event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": answer["stop_reason"]}}));
            event("message_stop", json!({"type": "message_stop"}));
        }
    }
    Response::builder().header("content-type", "text/event-stream").body(Body::from(events)).unwrap()
}
