//! `tooldeck proxy --listen HOST:PORT -- COMMAND`: a stdio server (rmcp's server side, this test
//! binary) reached over Streamable HTTP by rmcp's streamable-http client (tooldeck's endpoint),
//! and the session rules checked by hand with reqwest.

use std::process::Command;

use serde_json::{Value, json};
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::otc::CallRequest;

const ACCEPT: &str = "application/json, text/event-stream";

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "by-hand", "version": "1"}}})
}

#[tokio::test]
async fn a_stdio_server_is_reached_over_streamable_http_through_the_proxy() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("listen.jsonl");
    let server = crate::mcp::stdio_command_with("");
    let words = shlex::split(&server).unwrap();
    let mut args = vec!["--record".as_ref(), record.as_os_str(), "--".as_ref()];
    args.extend(words.iter().map(std::ffi::OsStr::new));
    let (mut proxy, listen, _stderr) = super::listening_proxy(&args);
    let url = format!("http://{listen}/mcp");

    // rmcp's client: list, call, progress notifications on the call's own stream.
    let endpoint = McpEndpoint::connect_http(&url, Vec::new()).await.unwrap();
    assert!(!endpoint.list_tools().await.unwrap().is_empty());
    let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": 40, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 42.0})));
    let reports = std::sync::Arc::new(std::sync::Mutex::new(0));
    let seen = std::sync::Arc::clone(&reports);
    let (outcome, _) = endpoint
        .call_with_progress(&CallRequest::new("count", json!({})), move |_| *seen.lock().unwrap() += 1)
        .await
        .unwrap();
    assert_eq!(outcome.value, Some(json!(3)));
    assert!(*reports.lock().unwrap() > 0, "the progress reached the client");
    endpoint.close().await;

    // The session rules, by hand.
    let http = tooldeck::invoke::http::client_builder().build().unwrap();
    let post = |body: Value, session: Option<&str>| {
        let mut request = http.post(&url).header("accept", ACCEPT).json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(post(ping.clone(), None).await.unwrap().status(), 400, "no session id");
    assert_eq!(post(ping.clone(), Some("nope")).await.unwrap().status(), 404, "an unknown session");
    let answer = post(initialize(), None).await.unwrap();
    assert_eq!(answer.status(), 200);
    let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_string();
    assert!(answer.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let text = answer.text().await.unwrap();
    assert!(text.contains("\"protocolVersion\"") && text.starts_with("event: message\ndata: "), "{text}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(initialized, Some(&session)).await.unwrap().status(), 202);
    // JSON when the client accepts only JSON.
    let answer = http
        .post(&url)
        .header("accept", "application/json")
        .header("mcp-session-id", &session)
        .json(&ping)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["content-type"], "application/json");
    assert_eq!(answer.json::<Value>().await.unwrap()["id"], 2);
    let get =
        |session: String| http.get(&url).header("accept", "text/event-stream").header("mcp-session-id", session).send();
    let stream = get(session.clone()).await.unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(get(session.clone()).await.unwrap().status(), 409, "one GET stream a session");
    drop(stream);
    let deleted = http.delete(&url).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(deleted.status(), 200);
    assert_eq!(post(ping, Some(&session)).await.unwrap().status(), 404, "the session ended");

    assert!(Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));
    let lines = super::record_lines(&record);
    let call = lines.iter().find(|l| l["message"]["method"] == "tools/call").expect("the call recorded");
    assert_eq!(call["http"]["method"], "POST");
    assert!(
        lines.iter().any(|l| l["from"] == "server" && l["message"]["result"]["structuredContent"]["sum"] == 42.0),
        "the answer recorded"
    );
    // The proxy's own refusals are the record's answers too (a client probing before it
    // initializes learns why from the record), and an HTTP body is never "not JSON-RPC".
    // (tooldeck's own client probes first too: a 2026 `server/discover`, refused the same way.)
    let refused: Vec<&Value> = lines.iter().filter(|l| l["from"] == "server" && l["http"]["status"] == 400).collect();
    assert!(!refused.is_empty(), "{lines:#?}");
    for line in refused {
        assert_eq!(line["text"], "tooldeck proxy: no Mcp-Session-Id: initialize first", "{line:#}");
        assert!(line.get("note").is_none(), "{line:#}");
    }
    assert!(lines.iter().any(|l| l["from"] == "server" && l["http"]["status"] == 404), "the unknown session's 404");
}

/// The server's own questions cross the bridge too: a form elicitation and a sampling request
/// asked during a `tools/call` reach the HTTP client on the call's stream, and its answers
/// (POSTed back) reach the stdio server, which echoes them in its result.
#[test]
fn a_servers_elicitation_and_sampling_cross_the_bridge_both_ways() {
    let server = crate::mcp::stdio_command_with(&format!("{}=1", crate::mcp::ASKS_ENV));
    let words = shlex::split(&server).unwrap();
    let mut args = vec!["--".as_ref()];
    args.extend(words.iter().map(std::ffi::OsStr::new));
    let (mut proxy, listen, _stderr) = super::listening_proxy(&args);
    let url = format!("http://{listen}/mcp");
    let call = |args: &[&str]| {
        let output = Command::new(super::tooldeck())
            .args(["call", "--mcp-url", &url])
            .args(args)
            .env("TOOLDECK_HISTORY", std::env::temp_dir().join(format!("tooldeck-bridge-{}.jsonl", std::process::id())))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_str::<Value>(&stdout).expect("JSON")
    };
    let outcome = call(&["form", "--elicit-json", r#"{"name": "Ada"}"#]);
    assert_eq!(outcome["value"]["content"]["name"], "Ada", "{outcome}");
    assert_eq!(outcome["asked"][0]["answer"], "accepted", "{outcome}");
    let outcome = call(&["sample", "--sample-text", "4"]);
    assert_eq!(outcome["value"]["content"]["text"], "4", "the sampled text came back: {outcome}");
    assert_eq!(outcome["asked"][0]["method"], "sampling/createMessage", "{outcome}");
    assert!(Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));
}
