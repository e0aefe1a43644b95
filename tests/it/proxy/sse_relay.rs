//! `tooldeck proxy --listen --mcp-url`: an SSE answer reaches the client byte for byte (ids,
//! `retry`, comments, CRLF line ends, events cut across chunks), and the record holds each
//! event's data.

use std::process::Command;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};

/// The answer's body in the chunks it is written in: every rule of SSE the proxy must pass on.
const CHUNKS: &[&str] = &[
    ": keep-alive\n\n",
    "retry: 3000\n\n",
    "id: 1\nevent: message\nda",
    "ta: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n",
    "\n",
    "id: 2\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\"result\":{}}\r\n\r\n",
];

#[tokio::test]
async fn an_sse_answer_reaches_the_client_unchanged_and_each_events_data_is_recorded() {
    let answer = || async {
        let chunks = futures_util::stream::iter(CHUNKS).then(|chunk| async move {
            // Each chunk on its own: the proxy sees them apart.
            tokio::time::sleep(Duration::from_millis(5)).await;
            Ok::<_, std::convert::Infallible>(bytes::Bytes::from_static(chunk.as_bytes()))
        });
        ([("content-type", "text/event-stream")], axum::body::Body::from_stream(chunks))
    };
    let router = axum::Router::new().route("/mcp", axum::routing::post(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("sse.jsonl");
    let upstream = format!("http://{server}/mcp");
    let (mut proxy, listen, _stderr) =
        super::listening_proxy(&["--mcp-url".as_ref(), upstream.as_ref(), "--record".as_ref(), record.as_os_str()]);

    let http = tooldeck::invoke::http::client_builder().build().unwrap();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let reached = http.post(format!("http://{listen}/mcp")).json(&ping).send().await.unwrap().text().await.unwrap();
    assert_eq!(reached, CHUNKS.concat());
    assert!(Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));

    let lines: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|line: &Value| line["from"] == "server")
        .collect();
    let messages: Vec<&Value> = lines.iter().map(|line| &line["message"]).collect();
    assert_eq!(
        messages,
        [
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        ],
        "{lines:?}"
    );
}
