//! Trust, round three, on the wire: nothing a run started outlives it (fuzz's restarts
//! included), a Streamable HTTP server that dies mid-call is noticed at once, and a server's
//! deviations (a result without `content`, a line no JSON parser takes) are named, not
//! defaulted or waited out. Every server here is made by the test: a POSIX `sh` script in a
//! temp folder, or axum on 127.0.0.1.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::trust_round2::{text, tooldeck};

/// A stdio MCP server in POSIX sh, written to `dir`: `start` runs once first; it answers
/// `initialize` (2025-06-18) and `tools/list` (one tool, `echo`), any other request with
/// "method not found" (so the `server/discover` probe falls back at once), and runs `on_call`
/// (sh, with `$id` set) for `tools/call`. Returns the command line.
#[cfg(unix)]
fn sh_server(dir: &std::path::Path, start: &str, on_call: &str) -> String {
    let script = format!(
        r#"{start}
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^.*"id":\([0-9]*\).*$/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}}}\n' "$id";;
    *'"method":"tools/list"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"tools":[{{"name":"echo","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string"}}}}}}}}]}}}}\n' "$id";;
    *'"method":"tools/call"'*)
      {on_call};;
    *'"id":'*)
      printf '{{"jsonrpc":"2.0","id":%s,"error":{{"code":-32601,"message":"no such method"}}}}\n' "$id";;
  esac
done
"#
    );
    let path = dir.join("server.sh");
    std::fs::write(&path, script).expect("script written");
    format!("sh {}", path.display())
}

/// The processes still running (zombies, dead and waiting for init to reap them, do not count)
/// that are `pid` or in the process group it led.
#[cfg(unix)]
fn running(pid: &str) -> Vec<String> {
    let listed = Command::new("ps").args(["-A", "-o", "pid=,pgid=,stat="]).output().expect("ps runs");
    text(&listed.stdout)
        .lines()
        .filter(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            matches!(fields.as_slice(), [p, g, stat] if (*p == pid || *g == pid) && !stat.starts_with('Z'))
        })
        .map(str::to_string)
        .collect()
}

#[cfg(unix)]
#[test]
fn fuzz_leaves_no_server_process_running() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pids = dir.path().join("pids");
    // Each start writes its pid; a call is never answered (the tool hangs in a child of its own,
    // as a server busy in a subprocess would, not reading its input meanwhile).
    let server = sh_server(dir.path(), &format!("echo $$ >> '{}'", pids.display()), "sleep 600");
    let output = tooldeck(&["fuzz", "--mcp", &server, "--timeout", "1", "--max-calls", "3", "--seed", "1"], dir.path());
    let said = text(&output.stdout) + &text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "a hang is a finding: {said}");
    assert!(said.contains("hang"), "{said}");
    let started = std::fs::read_to_string(&pids).expect("the server started");
    let started: Vec<&str> = started.lines().collect();
    assert!(started.len() >= 2, "the server was started again after the hang: {started:?}");
    let left: Vec<String> = started.iter().flat_map(|pid| running(pid)).collect();
    assert!(left.is_empty(), "still running after tooldeck exited (pid pgid stat): {left:?} of {started:?}\n{said}");
}

/// A tool result with no `content`, then a line with a lone surrogate escape, as `sh` prints them
/// for `tools/call` (`$id` set).
#[cfg(unix)]
const NO_CONTENT: &str = r#"printf '{"jsonrpc":"2.0","id":%s,"result":{"isError":false}}\n' "$id""#;
#[cfg(unix)]
const LONE_SURROGATE: &str =
    r#"printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"\\udcbb"}]}}\n' "$id""#;

/// How long a call may wait in these tests: far longer than any of them should take.
const LONG: &str = "120";

#[cfg(unix)]
#[test]
fn a_stdio_result_without_content_is_a_deviation_not_a_silent_success() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = sh_server(dir.path(), "", NO_CONTENT);
    let output = tooldeck(&["call", "echo", "--mcp", &server], dir.path());
    let printed = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let outcome: Value = serde_json::from_str(&printed).expect("JSON");
    assert!(outcome["warnings"].to_string().contains("has no content"), "{printed}");
    let strict = tooldeck(&["call", "echo", "--mcp", &server, "--strict"], dir.path());
    let said = text(&strict.stderr);
    assert_eq!(strict.status.code(), Some(6), "{said}");
    assert!(said.contains("--strict") && said.contains("no content"), "{said}");
}

#[cfg(unix)]
#[test]
fn a_stdio_answer_that_is_not_json_fails_the_call_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = sh_server(dir.path(), "", LONE_SURROGATE);
    let started = Instant::now();
    let output = tooldeck(&["call", "echo", "--mcp", &server, "--timeout", LONG], dir.path());
    let said = text(&output.stderr);
    assert_eq!(output.status.code(), Some(5), "{said}");
    assert!(said.contains("not valid JSON") && said.contains("deviation"), "{said}");
    assert!(!said.contains("no answer"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(100), "waited out the timeout: {said}");
}

/// The line as it came is in the session's traffic log (secrets masked), and the exchange keeps
/// it as the answer.
#[cfg(unix)]
#[test]
fn the_line_that_is_not_json_is_kept_in_the_traffic_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = sh_server(dir.path(), "", LONE_SURROGATE);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let endpoint = tooldeck::invoke::mcp::McpEndpoint::connect_stdio_with_timeout(&server, Duration::from_secs(60))
            .await
            .expect("connects");
        let request = tooldeck::invoke::request::CallRequest::new("echo", serde_json::json!({}));
        let error = endpoint.call(&request).await.expect_err("not JSON is no answer");
        assert!(error.to_string().contains("not valid JSON"), "{error}");
        let (entries, _) = endpoint.events().traffic().since(0);
        let raw = entries.iter().find(|e| e.text.contains(r"\udcbb")).expect("the raw line is logged");
        assert_eq!(raw.method.as_deref(), Some("tools/call"), "{raw:?}");
        let exchange = endpoint.take_failed_exchange(&request.call_id).expect("the exchange is kept");
        assert!(exchange.response_body.contains(r"\udcbb"), "{}", exchange.response_body);
        endpoint.close().await;
    });
}

#[cfg(unix)]
#[test]
fn fuzz_names_both_deviations_malformed_results_never_hangs() {
    for on_call in [NO_CONTENT, LONE_SURROGATE] {
        let dir = tempfile::tempdir().expect("temp dir");
        let server = sh_server(dir.path(), "", on_call);
        let started = Instant::now();
        let output = tooldeck(
            &["fuzz", "--mcp", &server, "--timeout", LONG, "--max-calls", "2", "--seed", "1", "--json"],
            dir.path(),
        );
        let printed = text(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{printed}{}", text(&output.stderr));
        let report: Value = serde_json::from_str(&printed).expect("JSON");
        let kinds: Vec<&str> =
            report["findings"].as_array().expect("findings").iter().filter_map(|f| f["kind"].as_str()).collect();
        assert_eq!(kinds, ["malformed-result"], "{printed}");
        assert!(started.elapsed() < Duration::from_secs(100), "waited out the timeout: {printed}");
    }
}

// --- Over Streamable HTTP: axum on 127.0.0.1 ---

/// A runtime of its own for the servers of one test (the binary under test runs beside it).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime")
}

/// An MCP server over Streamable HTTP on `runtime` that speaks properly (JSON answers) until
/// `tools/call`, which `on_call` answers (given the request's id).
fn mcp_server(
    runtime: &tokio::runtime::Runtime,
    on_call: impl Fn(Value) -> axum::response::Response + Clone + Send + Sync + 'static,
) -> String {
    use axum::response::IntoResponse;
    let handler = move |axum::Json(message): axum::Json<Value>| {
        let on_call = on_call.clone();
        async move {
            let id = message["id"].clone();
            let answer = |result: Value| {
                let mut response =
                    axum::Json(serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response();
                response.headers_mut().insert("mcp-session-id", "s-1".parse().expect("header"));
                response
            };
            match message["method"].as_str().unwrap_or_default() {
                "initialize" => answer(serde_json::json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "dying", "version": "1"}
                })),
                "tools/list" => {
                    answer(serde_json::json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}))
                }
                "tools/call" => on_call(message["id"].clone()),
                _ if message.get("id").is_none() => axum::http::StatusCode::ACCEPTED.into_response(),
                _ => answer(serde_json::json!({})),
            }
        }
    };
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let router = axum::Router::new().route("/mcp", axum::routing::post(handler));
    runtime.spawn(async move { axum::serve(listener, router).await });
    url
}

/// An event stream that sends `first` (SSE text), then goes as `then` says.
fn sse(
    first: String,
    then: impl futures_util::Stream<Item = Result<String, std::io::Error>> + Send + 'static,
) -> axum::response::Response {
    use futures_util::StreamExt;
    let body = futures_util::stream::once(async move { Ok::<_, std::io::Error>(first) }).chain(then);
    axum::response::Response::builder()
        .header("content-type", "text/event-stream")
        .body(axum::body::Body::from_stream(body))
        .expect("a response")
}

/// A log entry as an event, with an event id: the stream can be resumed from it (as real
/// servers' can), which is what kept a client reconnecting to a server long dead.
fn progress_event() -> String {
    let note = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}});
    format!("id: 1\ndata: {note}\n\n")
}

/// `call` against `url` with a long timeout: it must fail well before it, as a server gone.
fn call_fails_at_once(url: &str) -> String {
    let home = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let output = tooldeck(&["call", "echo", "--mcp-url", url, "--timeout", LONG], home.path());
    let said = text(&output.stdout) + &text(&output.stderr);
    assert_eq!(output.status.code(), Some(5), "{said}");
    assert!(!said.contains("no answer"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(100), "waited out the timeout: {said}");
    said
}

#[test]
fn an_answers_stream_that_ends_without_it_fails_the_call_at_once() {
    let runtime = runtime();
    let url = mcp_server(&runtime, |_| sse("data: {}\n\n".to_string(), futures_util::stream::empty()));
    let said = call_fails_at_once(&url);
    assert!(said.contains("is gone") && said.contains("ended its answer's stream without answering"), "{said}");
}

#[test]
fn a_refused_reconnect_to_the_answers_stream_fails_the_call_at_once() {
    let runtime = runtime();
    // The stream ends after an event the client may resume from; the server refuses the GET
    // that resumes it (this server takes only POST).
    let url = mcp_server(&runtime, |_| sse(progress_event(), futures_util::stream::empty()));
    let said = call_fails_at_once(&url);
    assert!(said.contains("refused to resume the stream"), "{said}");
}

#[test]
fn a_connection_reset_mid_answer_fails_the_call_at_once() {
    let runtime = runtime();
    let url = mcp_server(&runtime, |_| {
        // The answer's stream is under way when the connection breaks.
        let reset = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Err(std::io::Error::other("reset"))
        };
        sse(progress_event(), futures_util::stream::once(reset))
    });
    let said = call_fails_at_once(&url);
    assert!(said.contains("is gone") && said.contains("stream broke before its answer came"), "{said}");
}

#[test]
fn a_server_that_dies_mid_call_is_noticed_at_once() {
    let runtime = runtime();
    let (called, on_call) = std::sync::mpsc::channel::<()>();
    let called = std::sync::Arc::new(std::sync::Mutex::new(called));
    let url = mcp_server(&runtime, move |_| {
        let _ = called.lock().map(|called| called.send(()));
        sse(progress_event(), futures_util::stream::pending())
    });
    // The whole server goes, its connections with it, once the call is under way.
    let killer = std::thread::spawn(move || {
        if on_call.recv_timeout(Duration::from_secs(100)).is_ok() {
            std::thread::sleep(Duration::from_millis(300));
        }
        runtime.shutdown_background();
    });
    let said = call_fails_at_once(&url);
    killer.join().expect("the server was ended");
    assert!(said.contains("is gone"), "{said}");
}

/// A JSON answer to request `id` whose body is `body` with `ID` replaced by the id.
fn json_answer(body: &'static str) -> impl Fn(Value) -> axum::response::Response + Clone + Send + Sync + 'static {
    move |id| {
        axum::response::Response::builder()
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.replace("ID", &id.to_string())))
            .expect("a response")
    }
}

#[test]
fn an_http_result_without_content_is_a_deviation_not_a_silent_success() {
    let runtime = runtime();
    let url = mcp_server(&runtime, json_answer(r#"{"jsonrpc":"2.0","id":ID,"result":{"isError":false}}"#));
    let home = tempfile::tempdir().expect("temp dir");
    let output = tooldeck(&["call", "echo", "--mcp-url", &url], home.path());
    let printed = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(printed.contains("has no content"), "{printed}");
    let strict = tooldeck(&["call", "echo", "--mcp-url", &url, "--strict"], home.path());
    assert_eq!(strict.status.code(), Some(6), "{}", text(&strict.stderr));
}

#[test]
fn an_http_answer_that_is_not_json_fails_the_call_at_once_in_a_body_or_an_event() {
    let body = r#"{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"\udcbb"}]}}"#;
    let runtime = runtime();
    let in_body = mcp_server(&runtime, json_answer(body));
    let said = call_fails_at_once(&in_body);
    assert!(said.contains("not valid JSON") && said.contains("deviation"), "{said}");
    let in_event = mcp_server(&runtime, |id| {
        sse(format!("data: {}\n\n", body.replace("ID", &id.to_string())), futures_util::stream::pending())
    });
    let said = call_fails_at_once(&in_event);
    assert!(said.contains("not valid JSON") && said.contains("deviation"), "{said}");
}
