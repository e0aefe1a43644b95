//! A call that cannot be made says which of the ways it failed: a refused connection, an HTTP
//! error status (an HTML page named as such), not one message for all.

use std::process::{Command, Output};

use axum::http::{StatusCode, header};
use axum::response::IntoResponse;

fn tooldeck(args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("temp dir");
    Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .env("HOME", home.path())
        .env("TOOLDECK_HISTORY", home.path().join("history.jsonl"))
        .output()
        .expect("the binary runs")
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_refused_connection_is_named_as_such() {
    // A port just freed: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let output = tooldeck(&["call", "--mcp-url", &url, "echo", "--arg", "text=hi"]);
    let text = said(&output);
    assert!(text.contains("connection refused, nothing listens there"), "{text}");
    assert!(!text.contains("did it exit or crash"), "{text}");
    assert!(!text.contains("tooldeck::") && !text.contains("rmcp::"), "no type names: {text}");
}

#[test]
fn an_http_error_page_is_named_with_its_status() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("runtime");
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let page = || async {
        let html = "<html><body><h1>Internal Server Error</h1>\n<p>the database is down</p></body></html>";
        (StatusCode::INTERNAL_SERVER_ERROR, [(header::CONTENT_TYPE, "text/html")], html).into_response()
    };
    runtime.spawn(async move { axum::serve(listener, axum::Router::new().fallback(page)).await });
    let output = tooldeck(&["call", "--mcp-url", &url, "echo", "--arg", "text=hi"]);
    let text = said(&output);
    assert!(text.contains("HTTP 500 Internal Server Error with an HTML page"), "{text}");
    assert!(text.contains("the database is down"), "{text}");
    assert!(!text.contains("did it exit or crash"), "{text}");
}
