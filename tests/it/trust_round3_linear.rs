//! Trust, round three: what a server sends is read in time linear in its size, and a flood of
//! suggestions is bounded. A hostile MCP server over Streamable HTTP on 127.0.0.1, made here: a
//! resource template of 100,000 variables (800 KB), a prompt of 100,000 arguments, and
//! `completion/complete` answered with 100,000 values (some of a megabyte) or never.
//! No timing is asserted: the benchmark (`benches/linear.rs`) measures; these check that each
//! completes and says what it did.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Map, Value, json};
use tooldeck::app::{App, Effect, EffectError, FaceMsg, InputMsg, Msg, ServerEffect, update};
use tooldeck::catalog::Catalog;
use tooldeck::form::Widget;
use tooldeck::invoke::endpoint::EndpointOptions;
use tooldeck::invoke::mcp::completion::{ANSWER_WITHIN, MAX_SUGGESTIONS, Reference};
use tooldeck::invoke::{Endpoint, InvokeError};

const VARIABLES: usize = 100_000;

/// `test://x/{v00000}{v00001}...`: 800 KB.
fn wide_template() -> String {
    let mut text = String::from("test://x/");
    for i in 0..VARIABLES {
        text.push_str(&format!("{{v{i:05}}}"));
    }
    text
}

fn wide_prompt() -> Value {
    let arguments: Vec<Value> = (0..VARIABLES).map(|i| json!({"name": format!("a{i:05}"), "required": true})).collect();
    json!({"name": "wide", "arguments": arguments})
}

/// 100,000 values, every thousandth 64 KiB long, of 1,000,000 the server says it has (6.5 MB in
/// all, under the 16 MiB an answer may be).
fn flood() -> Value {
    let values: Vec<String> =
        (0..VARIABLES).map(|i| if i % 1000 == 7 { "m".repeat(1 << 16) } else { format!("v{i}") }).collect();
    json!({"completion": {"values": values, "total": 1_000_000, "hasMore": true}})
}

/// How the server answers `completion/complete`.
#[derive(Clone, Copy)]
enum Completes {
    Flood,
    Never,
}

/// The hostile server: JSON answers over Streamable HTTP. Every notification it gets is kept in
/// `heard` (to see a request cancelled).
fn serve(runtime: &tokio::runtime::Runtime, completes: Completes, heard: Arc<Mutex<Vec<Value>>>) -> String {
    let template = Arc::new(wide_template());
    let prompt = Arc::new(wide_prompt());
    let handler = move |axum::Json(message): axum::Json<Value>| {
        let (template, prompt, heard) = (template.clone(), prompt.clone(), heard.clone());
        async move {
            let id = message["id"].clone();
            let answer = |result: Value| -> Response {
                let mut response = axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response();
                response.headers_mut().insert("mcp-session-id", "s-1".parse().expect("header"));
                response
            };
            match message["method"].as_str().unwrap_or_default() {
                "initialize" => answer(json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"resources": {}, "prompts": {}, "completions": {}},
                    "serverInfo": {"name": "wide", "version": "1"}
                })),
                "tools/list" => answer(json!({"tools": []})),
                "resources/list" => answer(json!({"resources": []})),
                "resources/templates/list" => answer(json!({"resourceTemplates": [
                    {"uriTemplate": *template, "name": "wide"},
                    {"uriTemplate": "test://items/{id}", "name": "item"}
                ]})),
                "prompts/list" => answer(json!({"prompts": [*prompt]})),
                "completion/complete" => match completes {
                    Completes::Flood => answer(flood()),
                    Completes::Never => {
                        tokio::time::sleep(Duration::from_secs(600)).await;
                        answer(json!({"completion": {"values": []}}))
                    }
                },
                _ if message.get("id").is_none() => {
                    heard.lock().expect("lock").push(message);
                    StatusCode::ACCEPTED.into_response()
                }
                _ => answer(json!({})),
            }
        }
    };
    let router = axum::Router::new().route("/mcp", axum::routing::post(handler));
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    runtime.spawn(async move { axum::serve(listener, router).await });
    url
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

use super::trust_round2::{text, tooldeck};

#[test]
fn a_template_of_100k_variables_and_a_prompt_of_100k_arguments_list_through_the_commands() {
    let runtime = runtime();
    let url = serve(&runtime, Completes::Flood, Arc::default());
    let home = tempfile::tempdir().expect("temp dir");

    let listed = tooldeck(&["resources", "--mcp-url", &url], home.path());
    let (out, err) = (text(&listed.stdout), text(&listed.stderr));
    assert!(listed.status.success(), "{err}");
    assert!(out.starts_with("test://x/{v00000}{v00001}"), "{}", &out[..out.len().min(200)]);
    let line = out.lines().next().unwrap_or_default();
    let said = &line[line.len().saturating_sub(200)..];
    assert!(said.contains("(template: 100000 variables: v00000, v00001"), "{said}");

    let listed = tooldeck(&["resources", "--mcp-url", &url, "--json"], home.path());
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let json: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(json["templates"][0]["uriTemplate"].as_str().map(str::len), Some(9 + 8 * VARIABLES));

    let listed = tooldeck(&["prompts", "--mcp-url", &url], home.path());
    let out = text(&listed.stdout);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert!(out.starts_with("wide(a00000*, a00001*"), "{}", &out[..out.len().min(200)]);
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn connect(runtime: &tokio::runtime::Runtime, url: &str) -> Endpoint {
    let options = EndpointOptions { mcp_url: Some(url.into()), ..EndpointOptions::default() };
    runtime.block_on(options.connect(Vec::new(), None)).expect("connects")
}

#[test]
fn in_the_app_100k_variables_are_a_form_by_name_and_a_flood_of_suggestions_offers_100() {
    let runtime = runtime();
    let url = serve(&runtime, Completes::Flood, Arc::default());
    let endpoint = connect(&runtime, &url);
    let faces = runtime.block_on(endpoint.list_faces()).expect("an MCP server");
    let mut app = App::new(Catalog::default(), &[], (120, 40));
    update(&mut app, Msg::Face(FaceMsg::Listed { label: "mcp:wide".into(), faces: Box::new(faces) }));
    for entry in ["template:", "prompt:"] {
        let tool = app.catalog.tools().iter().find(|t| t.id.starts_with(entry)).expect("listed");
        let about = tool.description.as_deref().unwrap_or_default();
        assert!(about.contains("100000") && about.contains("more than a form holds"), "{entry} {about}");
        assert_eq!(tool.input_schema["additionalProperties"], json!({"type": "string"}), "{entry}");
    }

    // A small template of the same server: its variable typed in asks for suggestions, answered
    // with the flood.
    for _ in 0..5 {
        if app.selected_tool().is_some_and(|t| t.name == "item") {
            break;
        }
        key(&mut app, KeyCode::Down);
    }
    let asked = [KeyCode::Enter, KeyCode::Enter, KeyCode::Char('v')].into_iter().flat_map(|k| key(&mut app, k)).last();
    let Some(Effect::Server(ServerEffect::Complete { tool_id, reference, argument, typed, context })) = asked else {
        panic!("typing in the item's variable asks for suggestions: {asked:?}");
    };
    let answer = runtime.block_on(endpoint.complete(&reference, &argument, &typed, &context, ANSWER_WITHIN));
    let suggestions = answer.clone().expect("the flood is read");
    assert_eq!(suggestions.values.len(), MAX_SUGGESTIONS);
    assert!(suggestions.values.iter().all(|v| v.len() < 100), "the long values are left out");
    assert_eq!(suggestions.too_long, 100);
    assert_eq!(suggestions.more(), Some(1_000_000 - 200), "of the total, all but those kept or too long");

    update(
        &mut app,
        Msg::Face(FaceMsg::Completed { tool_id, argument, typed, result: answer.map_err(EffectError::from) }),
    );
    let status = app.status().map(str::to_string).unwrap_or_default();
    assert!(status.contains("100 suggestions from the server, 999800 more"), "{status}");
    assert!(status.contains("100 over 4.0 KiB left out"), "{status}");
    let field = app.form().and_then(|f| f.root.children().into_iter().find(|f| f.name == "id").cloned());
    let offered = field.map(|f| f.widget);
    assert!(matches!(&offered, Some(Widget::Suggest { suggestions, .. }) if suggestions.len() == 100), "{offered:?}");
}

#[test]
fn a_completion_never_answered_is_given_up_and_cancelled() {
    let runtime = runtime();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let url = serve(&runtime, Completes::Never, heard.clone());
    let endpoint = connect(&runtime, &url);
    let reference = Reference::Prompt("wide".into());
    let within = Duration::from_millis(300);
    let answer = runtime.block_on(endpoint.complete(&reference, "a00000", "x", &Map::new(), within));
    let error = answer.expect_err("no answer");
    assert!(matches!(error, InvokeError::Timeout { .. }), "{error:?}");
    assert!(error.to_string().contains("for suggestions"), "{error}");
    // The app says it, for the question still asked.
    let said = EffectError::from(error).to_string();
    assert!(said.contains("within 0.3 s"), "{said}");
    let mut cancelled = false;
    for _ in 0..50 {
        let heard = heard.lock().expect("lock").clone();
        cancelled = heard.iter().any(|m| m["method"] == "notifications/cancelled");
        if cancelled {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(cancelled, "the server was told the question was given up: {:?}", heard.lock().expect("lock"));
}

#[test]
fn entries_of_one_id_each_get_the_next_free_suffix_and_keep_their_definition() {
    let tools: Vec<Value> = ["t", "t#3", "t", "t", "t"]
        .iter()
        .enumerate()
        .map(|(i, name)| json!({"name": name, "description": format!("number {i}"), "inputSchema": {"type": "object"}}))
        .collect();
    let text = json!({ "tools": tools }).to_string();
    let mut catalog = Catalog::default();
    let said: Vec<Option<String>> =
        tooldeck::invoke::endpoint::server_tools("mcp:x", &text).into_iter().map(|t| catalog.add(t)).collect();
    let ids: Vec<&str> = catalog.tools().iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t", "t#3", "t#2", "t#4", "t#5"]);
    assert!(said[2].as_deref().is_some_and(|s| s.contains("reachable as \"t#2\"")), "{said:?}");
    // Each keeps the definition the server sent under its name (the first of that name).
    let raw = catalog.get("t#3").and_then(|t| t.written.raw.clone()).expect("raw kept");
    assert_eq!(raw["description"], "number 1");

    // 100,000 of one id: each gets its own.
    let mut catalog = Catalog::default();
    let one = tooldeck::invoke::endpoint::server_tools("mcp:x", &json!({"tools": [tools[0]]}).to_string());
    for _ in 0..VARIABLES {
        catalog.add(one[0].clone());
    }
    assert_eq!(catalog.len(), VARIABLES);
    assert!(catalog.get(&format!("t#{VARIABLES}")).is_some());
}
