//! What a server says besides answers, end to end: its stderr (escapes and all) and log entries
//! reach the event sink, `logging/setLevel` reaches the server, `list_changed` is an event, a
//! crash is reported with its exit code and last stderr lines and a restart brings the server
//! back; an HTTP session the server forgets (400 as SDK servers send, or 404 as the spec says)
//! fails the next call at once and a new session works; the exchange is the JSON-RPC messages
//! with the HTTP status and headers, and its curl works against the live session.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use tooldeck::invoke::InvokeError;
use tooldeck::invoke::mcp::events::{EventSink, ServerEvent};
use tooldeck::invoke::mcp::http::McpHttpEndpoint;
use tooldeck::invoke::mcp::stdio::McpStdio;
use tooldeck::invoke::otc::CallRequest;

static LEVEL: Mutex<Option<Value>> = Mutex::new(None);

pub fn set_level(level: Value) {
    *LEVEL.lock().unwrap() = Some(level);
}

/// The tools `shout` (stderr lines, one with escape sequences), `log` (three entries; the level
/// the client set is in the last), `grow` (`notifications/tools/list_changed`).
#[allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); MCP 2025-06-18 has it.
pub async fn call(name: &str, context: &RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
    use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
    match name {
        "shout" => {
            eprintln!("first line on stderr");
            eprintln!("\x1b[31mred\x1b[0m and \x1b[2J a screen clear");
            eprintln!("last line on stderr");
        }
        "log" => {
            let level = LEVEL.lock().unwrap().clone().unwrap_or(Value::Null);
            for (severity, data) in [
                (LoggingLevel::Debug, json!("a debug entry")),
                (LoggingLevel::Warning, json!({"disk": "low"})),
                (LoggingLevel::Error, json!(format!("level set to {level}"))),
            ] {
                let mut entry = LoggingMessageNotificationParam::new(severity, data);
                entry.logger = Some("db".into());
                let _ = context.peer.notify_logging_message(entry).await;
            }
        }
        _ => {
            let _ = context.peer.notify_tool_list_changed().await;
        }
    }
    Ok(CallToolResult::success(vec![ContentBlock::text(format!("{name} done"))]).into())
}

/// Events from `sink` until `done` says they are enough, or five seconds pass.
async fn events_until(sink: &EventSink, done: impl Fn(&[ServerEvent]) -> bool) -> Vec<ServerEvent> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && !done(&seen) {
        seen.extend(sink.take());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    seen
}

#[tokio::test]
async fn stdio_stderr_logs_list_changes_a_crash_and_a_restart() {
    let server = McpStdio::connect(&super::stdio_command(), Duration::from_secs(30), Default::default())
        .await
        .expect("connects");
    let sink = server.events();
    let current = server.current().await;
    let info = current.info().expect("the handshake");
    assert!(info.logging && info.capability_summary.contains("tools (listChanged)"), "{info:?}");

    current.call(&CallRequest::new("shout", json!({}))).await.expect("shouts");
    let events =
        events_until(&sink, |e| e.iter().any(|e| matches!(e, ServerEvent::Stderr(l) if l.starts_with("last")))).await;
    let stderr: Vec<&str> =
        events.iter().filter_map(|e| if let ServerEvent::Stderr(l) = e { Some(l.as_str()) } else { None }).collect();
    let at = stderr.iter().position(|l| *l == "first line on stderr").expect("whole lines, the first kept");
    assert_eq!(stderr[at + 1], "\x1b[31mred\x1b[0m and \x1b[2J a screen clear", "kept as written: escaped where drawn");

    current.set_log_level("warning").await.expect("logging/setLevel");
    let (_, exchange) = current.call(&CallRequest::new("log", json!({}))).await.expect("logs");
    let events = events_until(&sink, |e| e.iter().filter(|e| matches!(e, ServerEvent::Log { .. })).count() >= 3).await;
    let logs: Vec<(String, Option<String>, String)> = events
        .into_iter()
        .filter_map(
            |e| if let ServerEvent::Log { level, logger, text } = e { Some((level, logger, text)) } else { None },
        )
        .collect();
    assert_eq!(logs[1], ("warning".into(), Some("db".into()), r#"{"disk":"low"}"#.into()));
    assert_eq!(logs[2].2, "level set to \"warning\"", "the server heard logging/setLevel");
    // The exchange is the JSON-RPC messages, with the log entries that came during the call.
    let request: Value = serde_json::from_str(&exchange.request_body).unwrap();
    assert_eq!((request["method"].as_str(), request["params"]["name"].as_str()), (Some("tools/call"), Some("log")));
    let response: Value = serde_json::from_str(&exchange.response_body).unwrap();
    assert_eq!(response["id"], request["id"]);
    assert_eq!(exchange.during.len(), 3, "{:?}", exchange.during);
    assert!(exchange.during[0].contains("notifications/message"));

    current.call(&CallRequest::new("grow", json!({}))).await.expect("grows");
    let events = events_until(&sink, |e| e.contains(&ServerEvent::ToolsChanged)).await;
    assert!(events.contains(&ServerEvent::ToolsChanged), "{events:?}");

    let error = current.call(&CallRequest::new("crash", json!({}))).await.unwrap_err();
    let InvokeError::Gone { reason, .. } = &error else { panic!("{error:?}") };
    assert!(reason.starts_with("the server exited with code 7 during tools/call"), "{reason}");
    assert!(reason.contains("its last stderr lines:\n  "), "whole lines, real newlines: {reason}");
    assert!(reason.ends_with("  test server: crashing on purpose"), "{reason}");
    let failed = current.take_failed_exchange(&CallRequest::new("x", json!({})).call_id);
    assert!(failed.is_none(), "only the failed call's id finds its exchange");
    let events = events_until(&sink, |e| e.iter().any(|e| matches!(e, ServerEvent::Exited { .. }))).await;
    let exited = events
        .iter()
        .find_map(|e| if let ServerEvent::Exited { how, last_lines } = e { Some((how, last_lines)) } else { None });
    let (how, last_lines) = exited.expect("the exit is reported");
    assert_eq!(how, "exited with code 7");
    assert_eq!(last_lines.last().map(String::as_str), Some("test server: crashing on purpose"));
    drop(current);

    server.reconnect().await.expect("starts again");
    let (outcome, _) = server.current().await.call(&CallRequest::new("add", json!({"a": 1, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 3.0})));
    server.close().await;
}

#[tokio::test]
async fn a_failed_call_keeps_its_exchange() {
    let server = McpStdio::connect(&super::stdio_command(), Duration::from_secs(30), Default::default())
        .await
        .expect("connects");
    let current = server.current().await;
    let request = CallRequest::new("crash", json!({}));
    assert!(current.call(&request).await.is_err());
    let exchange = current.take_failed_exchange(&request.call_id).expect("the failed call's exchange");
    assert!(exchange.request_body.contains("\"crash\""), "{}", exchange.request_body);
    assert!(exchange.response_body.is_empty(), "no answer came: {}", exchange.response_body);
}

/// A Streamable HTTP server built from the test server, behind a gate that can forget every
/// session seen so far (answering `status` for them, as a restarted server would).
async fn forgetful_server(status: u16) -> (String, Arc<Mutex<(HashSet<String>, HashSet<String>)>>) {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service = StreamableHttpService::new(
        || Ok(super::TestServer::default()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    // (seen, forgotten)
    let sessions: Arc<Mutex<(HashSet<String>, HashSet<String>)>> = Arc::default();
    let gate = Arc::clone(&sessions);
    let router = axum::Router::new().nest_service("/mcp", service).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let gate = Arc::clone(&gate);
            async move {
                let session = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string);
                if let Some(session) = session {
                    let mut sessions = gate.lock().unwrap();
                    if sessions.1.contains(&session) {
                        let status = axum::http::StatusCode::from_u16(status).unwrap();
                        let body = json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}, "id": null});
                        return axum::response::IntoResponse::into_response((status, axum::Json(body)));
                    }
                    sessions.0.insert(session);
                }
                next.run(request).await
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (format!("http://{address}/mcp"), sessions)
}

async fn an_expired_http_session_fails_at_once_and_a_new_one_works(status: u16) {
    let (url, sessions) = forgetful_server(status).await;
    // A minute to answer: the lost session must be said long before that.
    let endpoint =
        McpHttpEndpoint::connect(&url, vec![], Duration::from_secs(60), sessions_setup()).await.expect("connects");
    let sink = endpoint.events();
    let add = CallRequest::new("add", json!({"a": 2, "b": 2}));
    let (_, exchange) = endpoint.call_with_progress(&add, |_| {}).await.expect("a first call");
    // The exchange: the real POST, its status line and headers, the JSON-RPC messages.
    assert_eq!((exchange.method.as_str(), exchange.status), ("POST", Some(200)));
    let header = |headers: &[(String, String)], name: &str| {
        headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    };
    let session = header(&exchange.request_headers, "mcp-session-id").expect("the session id sent");
    assert!(header(&exchange.request_headers, "mcp-protocol-version").is_some(), "{:?}", exchange.request_headers);
    assert!(header(&exchange.response_headers, "content-type").is_some(), "{:?}", exchange.response_headers);
    // `c`'s curl, sent as curl would send it, works against the same live session.
    let curl = tooldeck::invoke::mcp::replay::command(&exchange).expect("a curl command");
    assert!(curl.contains(&session), "{curl}");
    let words = shlex::split(&curl).unwrap();
    let mut request = tooldeck::invoke::http::client_builder().build().unwrap().post(&url);
    for pair in words.windows(2).filter(|w| w[0] == "-H") {
        let (name, value) = pair[1].split_once(": ").unwrap();
        request = request.header(name, value);
    }
    let replayed = request.body(words.last().unwrap().clone()).send().await.unwrap();
    assert_eq!(replayed.status(), 200);
    assert!(replayed.text().await.unwrap().contains("\"sum\":4"), "the replay got the answer");

    {
        let mut sessions = sessions.lock().unwrap();
        let seen = std::mem::take(&mut sessions.0);
        sessions.1.extend(seen);
    }
    let started = Instant::now();
    let error = endpoint.call_with_progress(&add, |_| {}).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(30), "said at once, not after the timeout");
    assert!(
        matches!(&error, InvokeError::Gone { reason, .. } if reason.contains("no longer knows this session")),
        "{error:?}"
    );
    let events = events_until(&sink, |e| e.iter().any(|e| matches!(e, ServerEvent::Lost(_)))).await;
    assert!(
        events.iter().any(|e| matches!(e, ServerEvent::Lost(why) if why.contains(&format!("HTTP {status}")))),
        "{events:?}"
    );

    endpoint.reconnect().await.expect("a new session");
    let (outcome, _) = endpoint.call_with_progress(&add, |_| {}).await.expect("the call works again");
    assert_eq!(outcome.value, Some(json!({"sum": 4.0})));
}

#[tokio::test]
async fn an_http_session_answered_with_400_as_sdk_servers_do() {
    an_expired_http_session_fails_at_once_and_a_new_one_works(400).await;
}

#[tokio::test]
async fn an_http_session_answered_with_404_as_the_spec_says() {
    an_expired_http_session_fails_at_once_and_a_new_one_works(404).await;
}

/// `tooldeck test`: a server that dies mid-run is started again and the case sent again; the
/// report says so.
#[test]
fn tooldeck_test_reconnects_to_a_server_that_died() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = dir.path().join("mcp.yaml");
    let server = serde_json::to_string(&super::stdio_command()).unwrap();
    let text = format!(
        "mcp: {server}\ncases:\n  - name: dies\n    tool: crash\n    args: {{}}\n    expect: {{status: value}}\n  - name: adds\n    tool: add\n    args: {{a: 2, b: 3}}\n    expect: {{value: {{sum: 5}}}}\n"
    );
    std::fs::write(&cases, text).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["test", cases.to_str().unwrap(), "--jobs", "1"])
        .env("TOOLDECK_HISTORY", dir.path().join("h.jsonl"))
        .output()
        .expect("tooldeck runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("note  the server went away; reconnected to mcp:stdio env "), "{out}");
    assert!(out.contains("FAIL  dies") && out.contains("exited with code 7"), "{out}");
    assert!(out.contains("ok    adds"), "the case after the crash ran on a new server: {out}");
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"), "{out}");
}

/// `tooldeck call`: a server that dies says how, with its last stderr lines whole (the first
/// one kept, real newlines, escapes shown).
#[cfg(unix)] // `sh`
#[test]
fn tooldeck_call_reports_a_dead_server_readably() {
    let run = |server: &str, tool: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(["call", "--mcp", server, tool])
            .env("TOOLDECK_HISTORY", dir.path().join("h.jsonl"))
            .output()
            .expect("tooldeck runs");
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let server = r#"sh -c 'echo "Error: Cannot find module x" >&2; printf "  at \033[31mmain\n" >&2; exit 1'"#;
    let (code, said) = run(server, "anything");
    assert_eq!(code, Some(5), "{said}");
    assert!(said.contains("the server exited with code 1 during initialize; its last stderr lines:\n"), "{said}");
    assert!(said.contains("\n  Error: Cannot find module x\n    at ␛[31mmain"), "{said}");
    let (code, said) = run(&super::stdio_command(), "crash");
    assert_eq!(code, Some(5), "{said}");
    assert!(said.contains("exited with code 7 during tools/call; its last stderr lines:\n"), "{said}");
    assert!(said.trim_end().ends_with("  test server: crashing on purpose"), "{said}");
}

/// An answer over the 16 MiB cap on Streamable HTTP ends that answer's stream: the call fails
/// with a reason, not after the timeout, and the session goes on.
#[tokio::test]
async fn an_oversized_http_answer_fails_the_call_and_the_session_goes_on() {
    let (url, _) = forgetful_server(404).await;
    let endpoint =
        McpHttpEndpoint::connect(&url, vec![], Duration::from_secs(60), sessions_setup()).await.expect("connects");
    let started = Instant::now();
    let error = endpoint.call_with_progress(&CallRequest::new("huge", json!({})), |_| {}).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(30), "said before the timeout: {error}");
    assert!(error.to_string().contains("larger than 16 MiB, so it was cut off (tools/call)"), "{error}");
    let (outcome, _) =
        endpoint.call_with_progress(&CallRequest::new("add", json!({"a": 1, "b": 1})), |_| {}).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 2.0})));
}

/// Headers that are secrets by where they came from (the config file, the environment) are
/// masked in the exchange and its curl whatever their names; the session id is shown.
#[tokio::test]
async fn an_http_exchange_masks_headers_secret_by_origin() {
    let (url, _) = forgetful_server(404).await;
    let headers = vec![("X-Tenant".to_string(), "tenant-secret-42".to_string())];
    let endpoint = McpHttpEndpoint::connect(&url, headers, Duration::from_secs(60), sessions_setup())
        .await
        .expect("connects")
        .masking(vec!["X-Tenant".into()]);
    let (_, exchange) =
        endpoint.call_with_progress(&CallRequest::new("add", json!({"a": 1, "b": 1})), |_| {}).await.unwrap();
    let shown = exchange.request_json().to_string();
    let curl = tooldeck::invoke::mcp::replay::command(&exchange).unwrap();
    for text in [&shown, &curl] {
        assert!(!text.contains("tenant-secret-42"), "{text}");
        assert!(text.contains("Mcp-Session-Id"), "{text}");
    }
}

/// A revision with HTTP sessions (2026-07-28 has none, and these tests are about sessions).
fn sessions_setup() -> tooldeck::invoke::mcp::asks::ClientSetup {
    tooldeck::invoke::mcp::asks::ClientSetup { protocol: Some("2025-11-25".into()), ..Default::default() }
}
