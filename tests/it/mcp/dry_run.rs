//! `--dry-run` over MCP's Streamable HTTP shows the headers that will be sent (the given ones, the
//! content types, the revision agreed), secrets masked by the one rule, not `"headers": {}`.

use std::time::Duration;

use serde_json::json;
use tooldeck::invoke::mcp::http::McpHttpEndpoint;
use tooldeck::invoke::otc::CallRequest;

/// The test server over Streamable HTTP on 127.0.0.1; its URL.
async fn http_server() -> String {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service = StreamableHttpService::new(
        || Ok(super::TestServer::default()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

#[tokio::test]
async fn a_dry_run_over_http_shows_the_headers_masked() {
    let url = http_server().await;
    let headers =
        vec![("X-Team".to_string(), "blue".to_string()), ("Authorization".into(), "Bearer s3cret-t0ken".into())];
    let setup = tooldeck::invoke::mcp::asks::ClientSetup { protocol: Some("2025-11-25".into()), ..Default::default() };
    let endpoint = McpHttpEndpoint::connect(&url, headers, Duration::from_secs(30), setup).await.expect("connects");
    let shown = endpoint.describe(&CallRequest::new("add", json!({"a": 1, "b": 2}))).request_json();
    let headers = shown["headers"].as_object().expect("headers");
    assert_eq!(headers["X-Team"], "blue", "{shown}");
    assert_eq!(headers["MCP-Protocol-Version"], "2025-11-25", "{shown}");
    assert!(headers["Accept"].as_str().unwrap_or_default().contains("text/event-stream"), "{shown}");
    let authorization = headers["Authorization"].as_str().unwrap_or_default();
    assert!(!authorization.is_empty() && !shown.to_string().contains("s3cret-t0ken"), "masked: {shown}");
    // The body is the JSON-RPC message as sent, not only its params.
    assert_eq!(shown["body"]["jsonrpc"], "2.0", "{shown}");
    assert_eq!(shown["body"]["method"], "tools/call", "{shown}");
    assert_eq!(shown["body"]["params"]["name"], "add", "{shown}");
    // A token given for the call replaces the given header, as it does when sent; still masked.
    let mut request = CallRequest::new("add", json!({}));
    request.tokens = vec![("mcp".into(), "call-t0ken".into())];
    let shown = endpoint.describe(&request).request_json();
    assert_eq!(shown["headers"].as_object().map(|h| h.len()), Some(5), "{shown}");
    assert!(!shown.to_string().contains("call-t0ken") && !shown.to_string().contains("s3cret"), "{shown}");
    endpoint.close().await;
}
