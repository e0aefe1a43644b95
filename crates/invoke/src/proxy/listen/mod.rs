//! `tooldeck proxy --listen HOST:PORT -- COMMAND`: a stdio server reached over Streamable HTTP
//! (MCP 2025-06-18, "Streamable HTTP"). A POST's messages go to the server's stdin as one line;
//! a POST holding requests is answered as an SSE stream carrying their answers (and what the
//! server sends meanwhile), or as JSON when the client accepts only JSON; one holding only
//! answers or notifications gets 202. `initialize` starts a server of its own and names its
//! session in `Mcp-Session-Id`; a GET opens the stream for what the server sends unasked; DELETE
//! ends the session and its server. Recorded like the other modes: the client's POSTs with their
//! HTTP, the server's lines as it wrote them.

mod session;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::Value;

use super::intercept::{Interceptor, Verdict};
use super::{Keep, ProxyError};
use crate::sync::lock;
use crate::wire::{HttpDetails, Side, Tap, TapHandle};
use session::{Session, SessionDeliver};

const SESSION_HEADER: &str = "mcp-session-id";

struct Shared {
    command: String,
    tap: TapHandle,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    interceptor: Arc<Interceptor>,
}

/// Runs the proxy on `listen` in front of `command` (its words) until SIGINT or SIGTERM.
pub fn run(listen: &str, command: &[String], keep: &Keep) -> Result<u8, ProxyError> {
    let super::InFront { line, sinks, warn, holds } = super::in_front_of(command, keep)?;
    let tap = Tap::spawn(sinks, warn);
    let interceptor = super::interceptor(keep, holds, tap.handle());
    let shared =
        Arc::new(Shared { command: line, tap: tap.handle(), sessions: Mutex::new(HashMap::new()), interceptor });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ProxyError::Runtime)?;
    let served = runtime.block_on(async {
        let served = serve(listen, Arc::clone(&shared), keep.name.as_deref()).await;
        let sessions: Vec<Arc<Session>> = lock(&shared.sessions).drain().map(|(_, s)| s).collect();
        for session in sessions {
            session.end().await;
        }
        served
    });
    drop(runtime);
    tap.finish();
    served.map(|()| 0)
}

async fn serve(listen: &str, shared: Arc<Shared>, name: Option<&str>) -> Result<(), ProxyError> {
    let each = format!("each session a new {}", crate::redact::command(&shared.command));
    let bound = super::http::listen_on(listen, name, &each).await?;
    let router = axum::Router::new().fallback(pass).with_state(Arc::clone(&shared));
    let mut signals = crate::signals::StopSignals::new().map_err(ProxyError::Runtime)?;
    let stopped = async move {
        signals.recv().await;
        // Open streams (a GET stream never ends by itself) end now, so the shutdown does not
        // wait for them.
        let sessions: Vec<Arc<Session>> = lock(&shared.sessions).values().cloned().collect();
        for session in sessions {
            session.end().await;
        }
    };
    bound
        .serve(router)
        .run_until(stopped)
        .await
        .map_err(|source| ProxyError::Listen { addr: listen.to_string(), source })
}

fn refuse(status: StatusCode, why: &str) -> Response {
    (status, format!("tooldeck proxy: {why}")).into_response()
}

/// Why a request names no live session.
enum NoSession {
    NoId,
    Ended,
}

impl NoSession {
    /// The status and the words the client gets.
    fn said(&self) -> (StatusCode, &'static str) {
        match self {
            NoSession::NoId => (StatusCode::BAD_REQUEST, "no Mcp-Session-Id: initialize first"),
            NoSession::Ended => (StatusCode::NOT_FOUND, "no such session (it ended): initialize again"),
        }
    }
}

impl IntoResponse for NoSession {
    fn into_response(self) -> Response {
        let (status, why) = self.said();
        refuse(status, why)
    }
}

/// The session a request names, or why there is none.
fn session_of(shared: &Shared, headers: &HeaderMap) -> Result<Arc<Session>, NoSession> {
    let id = headers.get(SESSION_HEADER).ok_or(NoSession::NoId)?;
    let id = id.to_str().unwrap_or_default();
    lock(&shared.sessions).get(id).cloned().ok_or(NoSession::Ended)
}

async fn pass(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    match parts.method {
        Method::POST => post(&shared, &parts, body).await,
        Method::GET => get(&shared, &parts.headers),
        Method::DELETE => match session_of(&shared, &parts.headers) {
            Ok(session) => {
                if let Some(id) = parts.headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
                    lock(&shared.sessions).remove(id);
                }
                session.end().await;
                StatusCode::OK.into_response()
            }
            Err(refused) => refused.into_response(),
        },
        _ => refuse(StatusCode::METHOD_NOT_ALLOWED, "POST, GET or DELETE"),
    }
}

/// The requests of a POST's messages: their ids and progress tokens; and whether it initializes.
struct Asked {
    ids: Vec<Value>,
    tokens: Vec<Value>,
    initialize: bool,
}

fn asked(message: &Value) -> Asked {
    let messages = match message {
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    let mut asked = Asked { ids: Vec::new(), tokens: Vec::new(), initialize: false };
    for message in messages {
        let Some(method) = message.get("method").and_then(Value::as_str) else { continue };
        asked.initialize |= method == "initialize";
        if let Some(id) = message.get("id").filter(|id| !id.is_null()) {
            asked.ids.push(id.clone());
        }
        if let Some(token) = message.pointer("/params/_meta/progressToken") {
            asked.tokens.push(token.clone());
        }
    }
    asked
}

async fn post(shared: &Arc<Shared>, parts: &axum::http::request::Parts, body: Body) -> Response {
    let Ok(body) = axum::body::to_bytes(body, session::MAX_LINE).await else {
        return refuse(StatusCode::PAYLOAD_TOO_LARGE, "the request body is too large");
    };
    let headers = super::http::kept_headers(&parts.headers);
    let path = parts.uri.path_and_query().map(|p| p.as_str().to_string());
    let details = HttpDetails { method: Some("POST".into()), path, status: None, headers };
    // Armed, the body is recorded once judged (a fault marks it); else at once, as it came.
    let armed = shared.interceptor.armed();
    let record = || shared.tap.send(Side::Client, body.clone(), Some(details.clone()));
    if !armed {
        record();
    }
    let message = match crate::wire::parse_json(&body) {
        Ok(message) => message,
        Err(unread) => {
            if armed {
                record();
            }
            let why = match unread {
                crate::wire::Unread::NotJson => "Parse error: the body is not JSON",
                crate::wire::Unread::TooDeep => "Parse error: the body nests deeper than 512 levels",
            };
            let error = crate::wire::jsonrpc::error_answer(&Value::Null, crate::wire::jsonrpc::PARSE_ERROR, why);
            let error = crate::json_out::to_line(&error).unwrap_or_default();
            return super::http::answer_recorded(&shared.tap, StatusCode::BAD_REQUEST, "application/json", error);
        }
    };
    let asked = asked(&message);
    let (session, new_id) = if asked.initialize && parts.headers.get(SESSION_HEADER).is_none() {
        match start_session(shared) {
            Ok((session, id)) => (session, Some(id)),
            Err(e) => {
                if armed {
                    record();
                }
                return super::http::refuse_recorded(
                    &shared.tap,
                    StatusCode::BAD_GATEWAY,
                    &format!("the server cannot be started: {e}"),
                );
            }
        }
    } else {
        match session_of(shared, &parts.headers) {
            Ok(session) => (session, None),
            Err(refused) => {
                if armed {
                    record();
                }
                let (status, why) = refused.said();
                return super::http::refuse_recorded(&shared.tap, status, why);
            }
        }
    };
    // One message a line: a body spread over lines is written compact.
    let line = if memchr::memchr(b'\n', &body).is_some() {
        crate::json_out::to_line(&message).map(Bytes::from).unwrap_or(body.clone())
    } else {
        body.clone()
    };
    let accept = parts.headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let events = accept.contains("text/event-stream") || !accept.contains("application/json");
    let receiver = (!asked.ids.is_empty()).then(|| session.open_post(&asked.ids, &asked.tokens, events));
    let verdict = match armed {
        true => shared.interceptor.judge(session.conversation(), Side::Client, &line, Some(&details)),
        false => Verdict::Pass,
    };
    let written = match verdict {
        Verdict::Pass => {
            if armed {
                record();
            }
            session.write(&line).await
        }
        // Not written as it came: what the fault or the breakpoint makes of it goes through
        // the session (an answer to the client on this POST's stream).
        verdict => {
            let deliver = Arc::new(SessionDeliver { session: Arc::clone(&session), from_the_server: false });
            shared.interceptor.carry_out(verdict, deliver, &tokio::runtime::Handle::current());
            Ok(())
        }
    };
    if let Err(e) = written {
        return super::http::refuse_recorded(
            &shared.tap,
            StatusCode::BAD_GATEWAY,
            &format!("the server's input is closed: {e}"),
        );
    }
    let mut response = match receiver {
        None => StatusCode::ACCEPTED.into_response(),
        Some(receiver) if events => sse(receiver),
        Some(receiver) => json(receiver, asked.ids.len()).await,
    };
    if let Some(id) = new_id.and_then(|id| id.parse().ok()) {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

fn start_session(shared: &Arc<Shared>) -> Result<(Arc<Session>, String), crate::invoke::InvokeError> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let weak = Arc::downgrade(shared);
    let ended_id = id.clone();
    let session = Session::start(&shared.command, shared.tap.clone(), Arc::clone(&shared.interceptor), move || {
        // The server exited: its session is gone (the next request with its id gets 404).
        if let Some(shared) = weak.upgrade() {
            lock(&shared.sessions).remove(&ended_id);
        }
    })?;
    lock(&shared.sessions).insert(id.clone(), Arc::clone(&session));
    Ok((session, id))
}

fn get(shared: &Arc<Shared>, headers: &HeaderMap) -> Response {
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !accept.contains("text/event-stream") {
        return refuse(StatusCode::METHOD_NOT_ALLOWED, "a GET stream needs Accept: text/event-stream");
    }
    let session = match session_of(shared, headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    match session.open_get() {
        Some(receiver) => sse(receiver),
        None => refuse(StatusCode::CONFLICT, "this session has a GET stream open already"),
    }
}

/// Each message an SSE event, the stream ending with the receiver.
fn sse(receiver: tokio::sync::mpsc::Receiver<Bytes>) -> Response {
    let events = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let message = receiver.recv().await?;
        let mut event = Vec::with_capacity(message.len() + 24);
        event.extend_from_slice(b"event: message\ndata: ");
        event.extend_from_slice(&message);
        event.extend_from_slice(b"\n\n");
        Some((Ok::<_, std::convert::Infallible>(Bytes::from(event)), receiver))
    });
    let mut response = Response::new(Body::from_stream(events.boxed()));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-cache"));
    response
}

/// The answers as one JSON body (an array when the POST asked more than once).
async fn json(mut receiver: tokio::sync::mpsc::Receiver<Bytes>, asked: usize) -> Response {
    let mut answers = Vec::with_capacity(asked);
    while let Some(answer) = receiver.recv().await {
        answers.push(answer);
    }
    let body = match answers.len() {
        0 => return refuse(StatusCode::BAD_GATEWAY, "the server ended before it answered"),
        1 if asked == 1 => answers.swap_remove(0),
        _ => {
            let mut joined = vec![b'['];
            for (n, answer) in answers.iter().enumerate() {
                if n > 0 {
                    joined.push(b',');
                }
                joined.extend_from_slice(answer);
            }
            joined.push(b']');
            Bytes::from(joined)
        }
    };
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(all(test, unix))]
#[path = "session_tasks_tests.rs"]
mod session_tasks_tests;
