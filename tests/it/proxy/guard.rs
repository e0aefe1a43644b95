//! The proxy's listeners answer only this machine's clients (DNS rebinding, other sites), in
//! both `--listen` modes and in `serve-mock --record --port`, and a refused request never
//! reaches the server; what the proxy keeps of a request's path has its secrets masked.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

/// A server that answers every POST with a JSON-RPC result and counts the requests it got.
async fn counting_upstream() -> (String, Arc<AtomicUsize>) {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let router = axum::Router::new().fallback(move || {
        let counter = Arc::clone(&counter);
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            axum::Json(json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (format!("http://{addr}/mcp"), seen)
}

fn ping() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
}

#[tokio::test]
async fn listen_before_a_url_refuses_foreign_hosts_and_origins_and_masks_the_query() {
    let (upstream, seen) = counting_upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("r.jsonl");
    let (mut proxy, listen, _stderr) =
        super::listening_proxy(&["--mcp-url".as_ref(), upstream.as_ref(), "--record".as_ref(), record.as_os_str()]);
    let http = tooldeck::invoke::http::client_builder().build().unwrap();
    let url = format!("http://{listen}/mcp?api_key=q-s3cret&token=t-s3cret&page=2");

    let rebound = http.post(&url).header("host", format!("evil.example:{}", listen.port())).json(&ping()).send();
    let rebound = rebound.await.unwrap();
    assert_eq!(rebound.status(), 403, "DNS rebinding: a foreign Host");
    assert!(rebound.text().await.unwrap().contains("Host 127.0.0.1"));
    let foreign = http.post(&url).header("origin", "https://evil.example").json(&ping()).send().await.unwrap();
    assert_eq!(foreign.status(), 403, "a page of another site");
    assert_eq!(seen.load(Ordering::SeqCst), 0, "a refused request never reaches the server");

    let local = http.post(&url).header("origin", format!("http://localhost:{}", listen.port())).json(&ping());
    assert_eq!(local.send().await.unwrap().status(), 200, "this machine's own page");
    assert_eq!(seen.load(Ordering::SeqCst), 1);

    assert!(Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(!text.contains("q-s3cret") && !text.contains("t-s3cret"), "{text}");
    let lines = super::record_lines(&record);
    let request = lines.iter().find(|l| l["from"] == "client").expect("the request recorded");
    assert_eq!(request["http"]["path"], "/mcp?api_key=••••&token=••••&page=2");
}

#[test]
fn listen_before_a_command_refuses_foreign_hosts_and_origins() {
    let (mut proxy, listen, _stderr) = super::listening_proxy(&["--".as_ref(), "cat".as_ref()]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let http = tooldeck::invoke::http::client_builder().build().unwrap();
    let url = format!("http://{listen}/mcp");
    let status = |request: reqwest::RequestBuilder| runtime.block_on(request.send()).unwrap().status();
    assert_eq!(status(http.post(&url).header("host", "evil.example").json(&ping())), 403);
    assert_eq!(status(http.post(&url).header("origin", "http://evil.example").json(&ping())), 403);
    assert_eq!(status(http.post(&url).json(&ping())), 400, "this machine's client reaches the bridge");
    assert!(Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));
}

#[test]
fn serve_mock_over_http_refuses_foreign_hosts_and_origins() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("r.jsonl");
    let lines = [
        json!({"time": "2026-05-02T10:00:00.000000Z", "from": "client", "size": 1, "message": ping()}),
        json!({"time": "2026-05-02T10:00:00.000001Z", "from": "server", "size": 1,
               "message": {"jsonrpc": "2.0", "id": 1, "result": {}}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&record, text).unwrap();
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let mut mock = Command::new(super::tooldeck())
        .args(["serve-mock", "--port", &port.to_string(), "--record"])
        .arg(&record)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    std::io::BufReader::new(mock.stderr.take().unwrap()).read_line(&mut said).unwrap();
    assert!(said.contains("serving"), "{said}");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let http = tooldeck::invoke::http::client_builder().build().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let status = |request: reqwest::RequestBuilder| runtime.block_on(request.send()).unwrap().status();
    assert_eq!(status(http.post(&url).header("host", "evil.example").json(&ping())), 403);
    assert_eq!(status(http.post(&url).header("origin", "https://evil.example").json(&ping())), 403);
    assert_eq!(status(http.post(&url).json(&ping())), 200);
    assert!(Command::new("kill").args(["-INT", &mock.id().to_string()]).status().unwrap().success());
    assert_eq!(mock.wait().unwrap().code(), Some(0));
}
