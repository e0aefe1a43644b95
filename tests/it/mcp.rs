//! MCP endpoints against a server built here with rmcp's server side: over an in-memory duplex
//! pipe, over Streamable HTTP on 127.0.0.1, and over stdio by re-running this test binary as the
//! server (`TOOLDECK_TEST_MCP_SERVER=1`).

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    Annotations, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, EmbeddedResource,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, Role, ServerCapabilities, ServerConfig, TextContent, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Value, json};
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::mcp::content::Inline;
use tooldeck::invoke::otc::CallRequest;
use tooldeck::invoke::{ContentItem, InvokeError, Status};

const SERVER_ENV: &str = "TOOLDECK_TEST_MCP_SERVER";
/// A file the stdio server writes its pid to, and then "input closed" when its input closes.
const NOTES_ENV: &str = "TOOLDECK_TEST_MCP_NOTES";
/// Set: the stdio server stays on after its input closes, as some servers do.
const LINGER_ENV: &str = "TOOLDECK_TEST_MCP_LINGER";
/// Set: the stdio server ignores SIGTERM (only SIGKILL ends it).
const STUBBORN_ENV: &str = "TOOLDECK_TEST_MCP_STUBBORN";
/// Set: the stdio server is `asks::AskServer` (2025-11-25), which asks back during calls.
pub(crate) const ASKS_ENV: &str = "TOOLDECK_TEST_MCP_ASKS";
/// Set: the stdio server starts a child of its own (`sleep 600`) and notes its pid.
const FORK_ENV: &str = "TOOLDECK_TEST_MCP_FORK";

#[path = "mcp/asks.rs"]
mod asks;
#[path = "mcp/dry_run.rs"]
mod dry_run;
#[path = "mcp/elicit_check.rs"]
mod elicit_check;
#[path = "mcp/lifecycle.rs"]
mod lifecycle;
#[path = "mcp/traffic_pane.rs"]
mod traffic_pane;
#[path = "mcp/voice.rs"]
mod voice;
/// A 1×1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
/// The start of a WAV file, base64 ("RIFF", a size, "WAVE").
const WAV: &str = "UklGRiQAAABXQVZF";
/// A resource `resources/read` answers with text.
const NOTES_URI: &str = "test://notes/today";
const NOTES: &str = "first line\nsecond line";
/// tools/list pages hold this many tools.
const PAGE: usize = 2;

#[derive(Debug, Clone, Default)]
pub(crate) struct TestServer {
    /// The reasons given in every `notifications/cancelled` this server received.
    cancelled: Arc<std::sync::Mutex<Vec<String>>>,
}

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    Arc::new(value.as_object().cloned().unwrap())
}

fn all_tools() -> Vec<Tool> {
    let numbers = json!({
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"]
    });
    vec![
        Tool::new("add", "Adds two numbers", schema(numbers))
            .with_raw_output_schema(schema(json!({"type": "object", "properties": {"sum": {"type": "number"}}}))),
        Tool::new("fail", "Always fails", schema(json!({"type": "object"}))),
        Tool::new("image", "Returns a tiny PNG", schema(json!({"type": "object"}))),
        Tool::new("crash", "Exits the server process mid-call", schema(json!({"type": "object"}))),
        Tool::new("slow", "Takes ten seconds", schema(json!({"type": "object"}))),
        Tool::new("count", "Counts to three, reporting progress", schema(json!({"type": "object"}))),
        Tool::new("everything", "Returns one content item of every kind", schema(json!({"type": "object"})))
            .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new("wipe", "Deletes everything it is given", schema(json!({"type": "object"})))
            .with_annotations(ToolAnnotations::new().destructive(true).idempotent(true)),
    ]
}

impl ServerHandler for TestServer {
    #[allow(deprecated)] // logging: deprecated by rmcp (SEP-2577), offered by MCP 2025-06-18 servers
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .build(),
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match request.uri.as_str() {
            NOTES_URI => Ok(ReadResourceResult::new(vec![ResourceContents::text(NOTES, NOTES_URI)]).into()),
            other => Err(ErrorData::resource_not_found(format!("no resource {other}"), None)),
        }
    }

    #[allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); clients still use it.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        voice::set_level(serde_json::to_value(request.level).unwrap_or_default());
        Ok(())
    }

    async fn on_cancelled(
        &self,
        notification: rmcp::model::CancelledNotificationParam,
        _context: rmcp::service::NotificationContext<RoleServer>,
    ) {
        self.cancelled.lock().unwrap().push(notification.reason.unwrap_or_default());
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = all_tools();
        let start: usize = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor.parse().map_err(|_| ErrorData::invalid_params("bad cursor", None))?,
        };
        let end = (start + PAGE).min(tools.len());
        let mut page = ListToolsResult::with_all_items(tools[start.min(end)..end].to_vec());
        if end < tools.len() {
            page.next_cursor = Some(end.to_string());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let result = match &*request.name {
            "add" => {
                let number = |key: &str| arguments.get(key).and_then(Value::as_f64);
                match (number("a"), number("b")) {
                    (Some(a), Some(b)) => CallToolResult::structured(json!({"sum": a + b})),
                    _ => CallToolResult::error(vec![ContentBlock::text("a and b must be numbers")]),
                }
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text("it failed, as it always does")]),
            "image" => CallToolResult::success(vec![ContentBlock::image(PNG, "image/png")]),
            "everything" => CallToolResult::success(every_kind()),
            "wipe" => CallToolResult::success(vec![ContentBlock::text("wiped")]),
            "crash" => {
                eprintln!("test server: crashing on purpose");
                std::process::exit(7)
            }
            "count" => {
                let token = context
                    .meta
                    .get_progress_token()
                    .or_else(|| request.meta.as_ref().and_then(|m| m.get_progress_token()));
                if let Some(token) = token {
                    for step in 1..=3 {
                        let mut report = rmcp::model::ProgressNotificationParam::new(token.clone(), f64::from(step));
                        report.total = Some(3.0);
                        report.message = Some(format!("step {step}"));
                        let _ = context.peer.notify_progress(report).await;
                    }
                }
                CallToolResult::success(vec![ContentBlock::text("3")])
            }
            // Not listed: what the server says besides answers (tests/it/mcp/voice.rs).
            "shout" | "log" | "grow" => return voice::call(&request.name, &context).await,
            // Not listed: an answer over tooldeck's 16 MiB cap.
            "huge" => CallToolResult::success(vec![ContentBlock::text("x".repeat(17 << 20))]),
            "slow" => {
                tokio::time::sleep(Duration::from_secs(10)).await;
                CallToolResult::success(vec![ContentBlock::text("finally")])
            }
            // Not listed: the arguments said back in a text, beside a credential of the server's
            // own (tests/it/proxy/redact.rs: what the record keeps of them).
            "echo" => CallToolResult::success(vec![ContentBlock::text(format!(
                "you sent {} and I use Bearer srv0Token4567abcdef",
                Value::Object(arguments.clone())
            ))]),
            // Not listed: the server's own internal error, with data.
            "internal" => return Err(ErrorData::internal_error("boom", Some(json!({"at": "step 2"})))),
            other => return Err(ErrorData::invalid_params(format!("no tool named {other}"), None)),
        };
        Ok(result.into())
    }
}

/// One content item of every kind MCP has, in this order: text (two lines, for the user, important),
/// image, audio, a link to a resource `resources/read` answers, another to one it does not, an
/// embedded text resource, an embedded blob.
fn every_kind() -> Vec<ContentBlock> {
    let for_user = Annotations::default().with_audience(vec![Role::User]).with_priority(0.9);
    vec![
        ContentBlock::Text(TextContent::new("line one\nline two").with_annotations(for_user)),
        ContentBlock::image(PNG, "image/png"),
        ContentBlock::audio(WAV, "audio/wav"),
        ContentBlock::resource_link(
            Resource::new(NOTES_URI, "today.txt").with_mime_type("text/plain").with_size(NOTES.len() as u64),
        ),
        ContentBlock::resource_link(Resource::new("test://gone", "gone.txt")),
        ContentBlock::embedded_text("test://embedded/readme", "embedded text"),
        ContentBlock::Resource(EmbeddedResource::new(
            ResourceContents::blob("AAEC/w==", "test://embedded/blob").with_mime_type("application/octet-stream"),
        )),
    ]
}

/// Not a test: the stdio server that `stdio_command` starts (does nothing in a normal run).
#[tokio::test]
async fn stdio_server_mode() {
    if std::env::var(SERVER_ENV).is_err() {
        return;
    }
    // libtest has written "test stdio_server_mode ... " without a newline: end that line so that
    // the first JSON-RPC message starts a line of its own.
    {
        use std::io::Write;
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(b"\n").and_then(|()| stdout.flush());
    }
    let notes = std::env::var(NOTES_ENV).ok();
    let mut first_notes = format!("{}\n", std::process::id());
    // Kept alive (not waited for) for as long as this process runs.
    let _forked = std::env::var_os(FORK_ENV).map(|_| {
        let child = std::process::Command::new("sleep").arg("600").spawn().expect("sleep starts");
        first_notes.push_str(&format!("child {}\n", child.id()));
        child
    });
    // Listening for SIGTERM replaces its default action (ending the process) with nothing.
    #[cfg(unix)]
    let _stubborn = std::env::var_os(STUBBORN_ENV)
        .map(|_| tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler"));
    if let Some(path) = &notes {
        std::fs::write(path, first_notes).expect("write the notes");
    }
    if std::env::var_os(ASKS_ENV).is_some() {
        let server = asks::stdio_ask_server().await;
        let _ = server.waiting().await;
        std::process::exit(0);
    }
    let server = TestServer::default().serve(rmcp::transport::stdio()).await.expect("serve stdio");
    let _ = server.waiting().await;
    if let Some(path) = &notes {
        let mut text = std::fs::read_to_string(path).unwrap_or_default();
        text.push_str("input closed\n");
        std::fs::write(path, text).expect("write the notes");
    }
    if std::env::var_os(LINGER_ENV).is_some() {
        std::thread::sleep(Duration::from_secs(600));
    }
    std::process::exit(0);
}

/// The command line that runs this test binary as a stdio MCP server. libtest's own "running 1
/// test" line lands on stdout before the server starts: the client must shrug off such garbage.
fn stdio_command() -> String {
    stdio_command_with("")
}

/// `stdio_command` with more environment for the server (`NAME=value ...`).
pub(crate) fn stdio_command_with(env: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    format!("env {SERVER_ENV}=1 {env} '{}' --exact mcp::stdio_server_mode --nocapture --test-threads=1", exe.display())
}

/// An endpoint talking to a `TestServer` over an in-memory pipe.
async fn duplex_endpoint() -> McpEndpoint {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(server) = TestServer::default().serve(server_side).await {
            let _ = server.waiting().await;
        }
    });
    McpEndpoint::connect_io(client_side, "mcp:test").await.expect("connect over duplex")
}

/// Esc in the app aborts the call's task: the server hears `notifications/cancelled`.
#[tokio::test]
async fn an_abandoned_call_is_cancelled_at_the_server() {
    let server = TestServer::default();
    let cancelled = Arc::clone(&server.cancelled);
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let endpoint = Arc::new(McpEndpoint::connect_io(client_side, "mcp:test").await.expect("connect"));
    let calling = Arc::clone(&endpoint);
    let call = tokio::spawn(async move { calling.call(&CallRequest::new("slow", json!({}))).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    call.abort();
    for _ in 0..250 {
        if !cancelled.lock().unwrap().is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server never heard notifications/cancelled");
}

fn tool_names(list: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(list).expect("list_tools gives JSON");
    value["tools"].as_array().expect("a tools array").iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn list_tools_follows_every_page() {
    let endpoint = duplex_endpoint().await;
    let list = endpoint.list_tools().await.unwrap();
    assert_eq!(tool_names(&list), ["add", "fail", "image", "crash", "slow", "count", "everything", "wipe"]);
    let value: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(value["tools"][0]["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(value["tools"][0]["outputSchema"]["properties"]["sum"]["type"], "number");
    assert_eq!(value["tools"][0]["description"], "Adds two numbers");
}

#[tokio::test]
async fn a_value_call() {
    let endpoint = duplex_endpoint().await;
    let request = CallRequest::new("add", json!({"a": 2, "b": 3}));
    let (outcome, exchange) = endpoint.call(&request).await.unwrap();
    assert_eq!(outcome.status, Status::Value, "{outcome:?}");
    assert!(outcome.success);
    assert_eq!(outcome.value, Some(json!({"sum": 5.0})));
    assert_eq!(outcome.call_id, request.call_id);
    // The exchange is the JSON-RPC messages as they went over the wire.
    assert_eq!(exchange.method, "JSON-RPC");
    assert_eq!(exchange.url, "mcp:test");
    let sent: Value = serde_json::from_str(&exchange.request_body).unwrap();
    assert_eq!((sent["jsonrpc"].as_str(), sent["method"].as_str()), (Some("2.0"), Some("tools/call")));
    assert_eq!(sent["params"]["arguments"], json!({"a": 2, "b": 3}));
    let received: Value = serde_json::from_str(&exchange.response_body).unwrap();
    assert_eq!(received["id"], sent["id"]);
    assert_eq!(received["result"]["structuredContent"], json!({"sum": 5.0}));
}

#[tokio::test]
async fn is_error_is_an_error_outcome() {
    let endpoint = duplex_endpoint().await;
    let (outcome, exchange) = endpoint.call(&CallRequest::new("fail", json!({}))).await.unwrap();
    assert_eq!(outcome.status, Status::Error, "{outcome:?}");
    assert!(!outcome.success);
    assert!(outcome.error.as_ref().unwrap().message.contains("it failed"), "{outcome:?}");
    assert!(exchange.response_body.contains("\"isError\": true"), "{}", exchange.response_body);

    // A bad argument is an isError result too, not a transport failure.
    let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": "x"}))).await.unwrap();
    assert_eq!(outcome.status, Status::Error);
}

#[tokio::test]
async fn an_image_is_a_content_item_with_its_data() {
    let endpoint = duplex_endpoint().await;
    let (outcome, _) = endpoint.call(&CallRequest::new("image", Value::Null)).await.unwrap();
    assert_eq!(outcome.status, Status::Artifact);
    let [ContentItem::Image(image)] = outcome.content.as_slice() else { panic!("{outcome:?}") };
    assert_eq!((image.mime_type.as_deref(), &*image.data), (Some("image/png"), PNG));
}

#[tokio::test]
async fn every_content_kind_in_order_and_a_link_read_with_resources_read() {
    let endpoint = duplex_endpoint().await;
    let (outcome, _) = endpoint.call(&CallRequest::new("everything", json!({}))).await.unwrap();
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let kinds: Vec<&str> = outcome.content.iter().map(ContentItem::kind).collect();
    assert_eq!(kinds, ["text", "image", "audio", "resource_link", "resource_link", "resource", "resource"]);
    let annotations = outcome.content[0].annotations().expect("the text's annotations");
    assert_eq!((annotations.audience.as_slice(), annotations.priority), (&["user".to_string()][..], Some(0.9)));
    let Some(uri) = outcome.content[3].uri() else { panic!() };
    let (contents, warnings) = endpoint.read_resource(uri).await.expect("resources/read");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(contents.len(), 1);
    assert_eq!(contents[0].body, Inline::Text(NOTES.into()));
    let error = endpoint.read_resource("test://gone").await.unwrap_err();
    assert!(error.to_string().contains("no resource test://gone"), "{error}");
}

#[tokio::test]
async fn json_rpc_errors_and_bad_arguments_are_protocol_errors() {
    let endpoint = duplex_endpoint().await;
    let error = endpoint.call(&CallRequest::new("nope", json!({}))).await.unwrap_err();
    assert!(
        matches!(&error, InvokeError::Protocol { message, .. } if message.contains("no tool named nope")),
        "{error:?}"
    );
    let error = endpoint.call(&CallRequest::new("add", json!([1, 2]))).await.unwrap_err();
    assert!(matches!(&error, InvokeError::NotSent(m) if m.contains("must be a JSON object")), "{error:?}");
}

#[tokio::test]
async fn a_slow_call_times_out() {
    let endpoint = duplex_endpoint().await.with_timeout(Duration::from_millis(300));
    let error = endpoint.call(&CallRequest::new("slow", json!({}))).await.unwrap_err();
    assert!(matches!(error, InvokeError::Timeout { .. }), "{error:?}");
    assert!(error.to_string().ends_with("within 0.3 s (--timeout)"), "the limit is named: {error}");
    // The connection is still usable afterwards.
    let endpoint = endpoint.with_timeout(Duration::from_secs(30));
    let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": 1, "b": 1}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 2.0})));
}

#[tokio::test]
async fn stdio_list_and_call() {
    let endpoint = McpEndpoint::connect_stdio(&stdio_command()).await.unwrap();
    assert!(endpoint.label().starts_with("mcp:stdio env "));
    assert_eq!(tool_names(&endpoint.list_tools().await.unwrap()).len(), 8);
    let (outcome, exchange) = endpoint.call(&CallRequest::new("add", json!({"a": 40, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 42.0})));
    assert_eq!(exchange.url, endpoint.label());
    endpoint.close().await;
}

/// True while `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test]
async fn dropping_the_endpoint_kills_the_child() {
    let endpoint = McpEndpoint::connect_stdio(&stdio_command()).await.unwrap();
    let pid = endpoint.child_pid().expect("a child pid");
    // `env` execs the test binary, so the pid is the server itself.
    assert!(alive(pid));
    drop(endpoint);
    for _ in 0..100 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the MCP child {pid} outlived its endpoint");
}

#[tokio::test]
async fn stdio_server_crashing_mid_call_is_a_transport_error() {
    let endpoint = McpEndpoint::connect_stdio(&stdio_command()).await.unwrap();
    let error = endpoint.call(&CallRequest::new("crash", json!({}))).await.unwrap_err();
    let InvokeError::Gone { reason, .. } = &error else { panic!("{error:?}") };
    assert!(reason.contains("exited with code 7 during tools/call"), "{reason}");
    // A second call fails the same way rather than hanging.
    let error = endpoint.call(&CallRequest::new("add", json!({"a": 1, "b": 1}))).await.unwrap_err();
    assert!(matches!(error, InvokeError::Gone { .. }), "{error:?}");
}

/// A JSON-RPC error keeps its code, message and data from the wire to fuzz's judge, which
/// sorts it by the code alone: no words are read back.
#[tokio::test]
async fn a_json_rpc_code_reaches_the_fuzz_judge_from_the_wire() {
    use tooldeck::fuzz::{Judge, Kind};
    let endpoint = duplex_endpoint().await;
    let invalid = endpoint.call(&CallRequest::new("nope", json!({}))).await.unwrap_err();
    assert!(
        matches!(&invalid, InvokeError::Protocol { code: -32602, method, .. } if method == "tools/call"),
        "{invalid:?}"
    );
    let internal = endpoint.call(&CallRequest::new("internal", json!({}))).await.unwrap_err();
    let InvokeError::Protocol { code: -32603, message, data: Some(data), .. } = &internal else {
        panic!("{internal:?}")
    };
    assert_eq!((message.as_str(), data.as_ref()), ("boom", &json!({"at": "step 2"})));
    assert_eq!(
        internal.to_string(),
        r#"mcp:test: tools/call failed with JSON-RPC error -32603: boom ({"at":"step 2"})"#
    );

    let judge = Judge::new(&json!({"type": "object"}), None, Duration::from_secs(5)).expect("a judge");
    let kind = |valid: bool, error: &InvokeError| judge.judge(&json!({}), valid, &Err(error.clone())).map(|v| v.kind);
    assert_eq!(kind(true, &invalid), Some(Kind::RefusesValid), "valid input refused as invalid params");
    assert_eq!(kind(false, &invalid), None, "invalid params for invalid input is the right answer");
    assert_eq!(kind(true, &internal), Some(Kind::ProtocolError));
}

#[tokio::test]
async fn a_command_that_does_not_exist() {
    let error = McpEndpoint::connect_stdio("tooldeck-no-such-command-xyz --flag").await.unwrap_err();
    let InvokeError::Connect { url, reason, .. } = &error else { panic!("{error:?}") };
    assert_eq!(url, "mcp:stdio tooldeck-no-such-command-xyz --flag");
    assert!(reason.contains("cannot start"), "{reason}");
}

#[cfg(unix)] // `sh` and `false`
#[tokio::test]
async fn a_child_that_exits_at_once() {
    let error = McpEndpoint::connect_stdio("sh -c 'echo going away >&2; exit 3'").await.unwrap_err();
    let InvokeError::Connect { reason, .. } = &error else { panic!("{error:?}") };
    assert!(reason.contains("during initialize"), "{reason}");
    assert!(reason.contains("going away"), "{reason}");
    let error = McpEndpoint::connect_stdio("false").await.unwrap_err();
    assert!(matches!(error, InvokeError::Connect { .. }), "{error:?}");
}

#[cfg(unix)] // `sh`
#[tokio::test]
async fn a_child_that_only_prints_garbage_times_out() {
    let error = McpEndpoint::connect_stdio_with_timeout(
        "sh -c 'echo this is not JSON-RPC; echo {oops; exec sleep 30'",
        Duration::from_millis(500),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, InvokeError::Timeout { .. }), "{error:?}");
}

#[tokio::test]
async fn empty_and_unbalanced_commands() {
    let error = McpEndpoint::connect_stdio("   ").await.unwrap_err();
    assert!(matches!(&error, InvokeError::Connect { reason, .. } if reason.contains("empty")), "{error:?}");
    let error = McpEndpoint::connect_stdio("node 'server.js").await.unwrap_err();
    assert!(matches!(&error, InvokeError::Connect { reason, .. } if reason.contains("unclosed")), "{error:?}");
}

/// The server `make` makes (one a session) over Streamable HTTP on 127.0.0.1, for the rest of the
/// test; its `/mcp` URL.
pub(crate) async fn serve_http_with<S: ServerHandler>(make: fn() -> S) -> String {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service = StreamableHttpService::new(
        move || Ok(make()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

#[tokio::test]
async fn streamable_http() {
    let url = serve_http_with(TestServer::default).await;
    let headers = vec![("x-test".to_string(), "1".to_string())];
    let endpoint = McpEndpoint::connect_http(&url, headers).await.unwrap();
    assert_eq!(tool_names(&endpoint.list_tools().await.unwrap()).len(), 8);
    let (outcome, exchange) = endpoint.call(&CallRequest::new("add", json!({"a": 1, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 3.0})));
    assert_eq!(exchange.url, url);
    let (outcome, _) = endpoint.call(&CallRequest::new("fail", json!({}))).await.unwrap();
    assert_eq!(outcome.status, Status::Error);
}

#[tokio::test]
async fn http_connection_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let error =
        McpEndpoint::connect_http_with_timeout(&format!("http://{address}/mcp"), vec![], Duration::from_secs(10))
            .await
            .unwrap_err();
    assert!(matches!(error, InvokeError::Connect { .. } | InvokeError::Timeout { .. }), "{error:?}");
}

/// `tooldeck call --mcp` end to end: the real binary starts this test binary as its MCP server,
/// reads its tools into the catalog and calls one.
#[test]
fn tooldeck_call_with_mcp_stdio() {
    let history = tempfile::tempdir().expect("temp dir");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(args)
            .env("TOOLDECK_HISTORY", history.path().join("h.jsonl"))
            .output()
            .expect("tooldeck runs")
    };
    let server = stdio_command();
    let output = run(&["call", "add", "--mcp", &server, "--arg", "a=2", "--arg", "b=3"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let outcome: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON outcome");
    assert_eq!(outcome["status"], "value");
    assert_eq!(outcome["value"]["sum"], 5.0);
    let output = run(&["call", "fail", "--mcp", &server]);
    assert_eq!(output.status.code(), Some(1), "isError is a tool error");
}

/// `tooldeck call` prints every content item of an MCP result, in order, each with its data.
#[test]
fn tooldeck_call_prints_every_content_item_with_its_data() {
    let history = tempfile::tempdir().expect("temp dir");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "everything", "--mcp", &stdio_command()])
        .env("TOOLDECK_HISTORY", history.path().join("h.jsonl"))
        .output()
        .expect("tooldeck runs");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let outcome: Value = serde_json::from_slice(&output.stdout).expect("JSON outcome");
    let content = outcome["content"].as_array().expect("content items");
    assert_eq!(
        content[0],
        json!({"type": "text", "text": "line one\nline two", "annotations": {"audience": ["user"], "priority": 0.9}})
    );
    assert_eq!(content[1], json!({"type": "image", "mimeType": "image/png", "data": PNG, "size": 70}));
    assert_eq!(content[2], json!({"type": "audio", "mimeType": "audio/wav", "data": WAV, "size": 12}));
    assert_eq!(
        content[3],
        json!({"type": "resource_link", "uri": NOTES_URI, "name": "today.txt", "mimeType": "text/plain", "size": 22})
    );
    assert_eq!(content[4], json!({"type": "resource_link", "uri": "test://gone", "name": "gone.txt"}));
    assert_eq!(
        content[5],
        json!({"type": "resource", "uri": "test://embedded/readme", "mimeType": "text/plain", "text": "embedded text", "size": 13})
    );
    assert_eq!(
        content[6],
        json!({"type": "resource", "uri": "test://embedded/blob", "mimeType": "application/octet-stream", "blob": "AAEC/w==", "size": 4})
    );
    assert_eq!(content.len(), 7);
    assert_eq!(outcome["value"], "line one\nline two");
    assert_eq!(outcome.get("artifacts"), None, "no second copy of the data");
}

/// Runs `tooldeck call add` against a stdio server started with `env`, and returns the server's
/// notes (its pid, then whether it saw its input close) once tooldeck has exited.
fn call_and_read_notes(env: &str) -> (std::process::Output, u32, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let notes = dir.path().join("notes");
    let server = stdio_command_with(&format!("{NOTES_ENV}='{}' {env}", notes.display()));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "add", "--mcp", &server, "--arg", "a=2", "--arg", "b=3"])
        .env("TOOLDECK_HISTORY", dir.path().join("h.jsonl"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tooldeck runs");
    // The lingering server sleeps for ten minutes: tooldeck must not wait for it.
    for _ in 0..600 {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if child.try_wait().expect("wait").is_none() {
        let _ = child.kill();
        panic!("tooldeck call did not exit within 30 s of a server that outlives its input");
    }
    let output = child.wait_with_output().expect("output");
    let text = std::fs::read_to_string(&notes).expect("the server wrote its notes");
    let pid = text.lines().next().and_then(|line| line.parse().ok()).expect("a pid");
    (output, pid, text)
}

/// The spec's shutdown: after the outcome, the server sees its input close and exits by itself
/// (it is not killed first), and tooldeck waits for that.
#[test]
fn tooldeck_call_lets_the_server_exit_by_itself() {
    let (output, pid, notes) = call_and_read_notes("");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(notes.ends_with("input closed\n"), "the server never saw its input close: {notes:?}");
    assert!(!alive(pid), "the server {pid} outlived tooldeck");
}

/// A server that stays on after its input closes is killed, not waited for.
#[test]
fn tooldeck_call_kills_a_server_that_stays_on() {
    let (output, pid, notes) = call_and_read_notes(&format!("{LINGER_ENV}=1"));
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let outcome: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON outcome");
    assert_eq!(outcome["value"]["sum"], 5.0, "the outcome is printed whatever the server does after");
    assert!(notes.ends_with("input closed\n"), "{notes:?}");
    // Killed before tooldeck exited; the kernel may take a moment to show it gone.
    for _ in 0..100 {
        if !alive(pid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the lingering server {pid} outlived tooldeck");
}

/// `tooldeck test` with the MCP server named in the case file: cases run over one stdio
/// connection, several at a time, and an `isError` result is an error to expect.
#[test]
fn tooldeck_test_against_an_mcp_stdio_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = dir.path().join("mcp.yaml");
    let server = serde_json::to_string(&stdio_command()).unwrap();
    let text = format!(
        "mcp: {server}\ncases:\n  - name: adds\n    tool: add\n    args: {{a: 2, b: 3}}\n    expect: {{value: {{sum: 5}}}}\n  - name: fails\n    tool: fail\n    expect: {{status: error, error_contains: always}}\n  - name: wrong\n    tool: add\n    args: {{a: 1, b: 1}}\n    expect: {{pointer: {{\"/sum\": 3}}}}\n"
    );
    std::fs::write(&cases, text).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["test", cases.to_str().unwrap(), "--jobs", "3"])
        .env("TOOLDECK_HISTORY", dir.path().join("h.jsonl"))
        .output()
        .expect("tooldeck runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{out}{}", String::from_utf8_lossy(&output.stderr));
    assert!(out.contains("ok    adds") && out.contains("ok    fails"), "{out}");
    assert!(out.contains("FAIL  wrong") && out.contains("/sum: expected 3, got 2"), "{out}");
    assert_eq!(out.lines().last(), Some("2 passed, 1 failed"));
}

/// A call asks for progress (its call id is the token) and every report reaches the caller.
#[tokio::test]
async fn progress_reports_reach_the_caller() {
    let endpoint = duplex_endpoint().await;
    let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&reports);
    let request = CallRequest::new("count", json!({}));
    let (outcome, _) = endpoint
        .call_with_progress(&request, move |p| sink.lock().unwrap().push((p.progress, p.total, p.message)))
        .await
        .expect("an answer");
    assert_eq!(outcome.value, Some(json!(3)));
    let reports = reports.lock().unwrap().clone();
    // Reports are sent before the result; each carries the count, the total and a message.
    assert!(!reports.is_empty(), "no progress reached the caller");
    for (progress, total, message) in &reports {
        assert_eq!(*total, Some(3.0));
        assert_eq!(message.as_deref(), Some(format!("step {progress}").as_str()));
    }
}

/// An MCP HTTP server that wants a token says so in words, with what its WWW-Authenticate asks.
#[tokio::test]
async fn http_401_says_authorization_is_needed() {
    use axum::http::{HeaderMap, StatusCode};
    let router = axum::Router::new().fallback(|| async {
        let mut headers = HeaderMap::new();
        headers.insert("www-authenticate", "Bearer realm=\"tools\", scope=\"files:read\"".parse().unwrap());
        (StatusCode::UNAUTHORIZED, headers, "sign in first")
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let error = McpEndpoint::connect_http(&format!("http://{address}/mcp"), Vec::new()).await.unwrap_err();
    let message = error.to_string();
    assert!(message.contains("wants authorization: HTTP 401"), "{message}");
    assert!(message.contains("scope=\"files:read\""), "{message}");
    assert!(message.contains("--header 'Authorization: Bearer"), "{message}");
}

/// An rmcp server over Streamable HTTP that answers 401 without `Authorization: Bearer s3cret`.
async fn http_server_wanting_a_token() -> String {
    use axum::extract::Request;
    use axum::http::StatusCode;
    use axum::middleware::Next;
    use axum::response::IntoResponse;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    async fn bearer(request: Request, next: Next) -> axum::response::Response {
        let given = request.headers().get("authorization").and_then(|v| v.to_str().ok());
        if given == Some("Bearer s3cret") {
            return next.run(request).await;
        }
        let challenge =
            r#"Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource", scope="tools:call""#;
        (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)], "sign in first").into_response()
    }

    let service = StreamableHttpService::new(
        || Ok(TestServer::default()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service).layer(axum::middleware::from_fn(bearer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

/// A 401 is an authorization prompt, not a dead end: the endpoint waits for a token, a wrong
/// token is refused in words, and the right one makes the same call work.
#[tokio::test]
async fn http_401_then_a_token() {
    use tooldeck::invoke::mcp::http::McpHttpEndpoint;
    let url = http_server_wanting_a_token().await;
    let endpoint = McpHttpEndpoint::connect(&url, Vec::new(), Duration::from_secs(10), Default::default())
        .await
        .expect("waits for a token");
    assert!(matches!(endpoint.list_tools().await, Err(InvokeError::Unauthorized { .. })));

    let mut request = CallRequest::new("add", json!({"a": 1, "b": 2}));
    let (outcome, exchange) = endpoint.call_with_progress(&request, |_| {}).await.expect("an outcome");
    assert_eq!(outcome.status, Status::RequiresAuthorization);
    let auth = outcome.authorization.expect("a prompt");
    assert_eq!(auth.provider.as_deref(), Some("mcp"));
    assert_eq!(auth.scopes, ["tools:call"]);
    assert_eq!(auth.url.as_deref(), Some("http://127.0.0.1/.well-known/oauth-protected-resource"));
    assert_eq!(exchange.status, Some(401));

    request.tokens = vec![("mcp".into(), "wrong".into())];
    let (outcome, _) = endpoint.call_with_progress(&request, |_| {}).await.expect("an outcome");
    assert!(outcome.authorization.expect("a prompt").message.contains("refused the token"));

    request.tokens = vec![("mcp".into(), "s3cret".into())];
    let (outcome, _) = endpoint.call_with_progress(&request, |_| {}).await.expect("an outcome");
    assert_eq!(outcome.value, Some(json!({"sum": 3.0})));
    // The token given once serves the listing and later calls too.
    assert_eq!(tool_names(&endpoint.list_tools().await.unwrap()).len(), 8);
    let (outcome, _) = endpoint.call_with_progress(&CallRequest::new("fail", json!({})), |_| {}).await.unwrap();
    assert_eq!(outcome.status, Status::Error);
}

/// `tooldeck call --mcp-url`: exit 4 without the token, the value with `--token mcp=…`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tooldeck_call_with_mcp_http_and_a_token() {
    let url = http_server_wanting_a_token().await;
    let history = tempfile::tempdir().expect("temp dir");
    let run = move |args: Vec<String>| {
        let history = history.path().join("h.jsonl");
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
                .args(args)
                .env("TOOLDECK_HISTORY", history)
                .output()
                .expect("tooldeck runs")
        })
    };
    let args = |extra: &[&str]| {
        let mut args: Vec<String> =
            ["call", "add", "--mcp-url", &url, "--arg", "a=1", "--arg", "b=2"].map(String::from).to_vec();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let without = run(args(&[])).await.unwrap();
    assert_eq!(without.status.code(), Some(4), "{}", String::from_utf8_lossy(&without.stderr));
    let printed: Value = serde_json::from_slice(&without.stdout).expect("JSON");
    assert_eq!(printed["status"], "requires_authorization");
    assert_eq!(printed["authorization"]["scopes"], json!(["tools:call"]));
    let with = run(args(&["--token", "mcp=s3cret"])).await.unwrap();
    assert_eq!(with.status.code(), Some(0), "{}", String::from_utf8_lossy(&with.stderr));
    let printed: Value = serde_json::from_slice(&with.stdout).expect("JSON");
    assert_eq!(printed["value"], json!({"sum": 3.0}));
}

/// `tooldeck list --mcp` and `check --mcp`: the server's own tools, as a table, as a snapshot that
/// loads back as a definition file, and checked; a server that cannot start is exit 5.
#[test]
fn tooldeck_list_and_check_a_live_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(args)
            .env("TOOLDECK_HISTORY", dir.path().join("h.jsonl"))
            .output()
            .expect("tooldeck runs")
    };
    let server = stdio_command();
    let table = run(&["list", "--mcp", &server]);
    assert_eq!(table.status.code(), Some(0), "{}", String::from_utf8_lossy(&table.stderr));
    let table = String::from_utf8_lossy(&table.stdout).to_string();
    for name in ["add", "fail", "image", "crash", "slow", "count", "everything", "wipe"] {
        assert!(table.lines().any(|line| line.starts_with(name)), "{name} missing:\n{table}");
    }
    let snapshot = run(&["list", "--json", "--mcp", &server]);
    assert_eq!(snapshot.status.code(), Some(0));
    let path = dir.path().join("snapshot.json");
    std::fs::write(&path, &snapshot.stdout).expect("snapshot written");
    let listed = run(&["list", "--json", path.to_str().expect("utf-8 path")]);
    let tools: Vec<Value> = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(tools.len(), 8, "the snapshot loads back");
    assert_eq!(tools[0]["input_schema"]["required"], json!(["a", "b"]));
    let checked = run(&["check", "--mcp", &server]);
    assert_eq!(checked.status.code(), Some(0), "{}", String::from_utf8_lossy(&checked.stdout));
    assert!(String::from_utf8_lossy(&checked.stdout).contains("8 tools, 0 errors"));
    let missing = run(&["list", "--mcp", "no-such-command-for-tooldeck"]);
    assert_eq!(missing.status.code(), Some(5), "{}", String::from_utf8_lossy(&missing.stderr));
}

/// The server is told who is calling: tooldeck and its version, not the MCP library's name.
#[tokio::test]
async fn the_client_introduces_itself_as_tooldeck() {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let (told, heard) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        if let Ok(server) = TestServer::default().serve(server_side).await {
            let _ = told.send(server.peer_info().map(|info| info.client_info.clone()));
            let _ = server.waiting().await;
        }
    });
    // Pinned to a revision with `initialize`: that is where the client introduces itself once
    // (2026-07-28 says it in every request's `_meta`, and rmcp's server `serve` waits for an
    // `initialize` that never comes).
    let setup = tooldeck::invoke::mcp::asks::ClientSetup { protocol: Some("2025-11-25".into()), ..Default::default() };
    let _endpoint = McpEndpoint::connect_io_with(client_side, "mcp:test", setup).await.expect("connect over duplex");
    let client = heard.await.expect("the server started").expect("the client said who it is");
    assert_eq!((client.name.as_str(), client.version.as_str()), ("tooldeck", env!("CARGO_PKG_VERSION")));
}

/// A server that took `server/discover` keeps the whole timeout for its calls: the probe's short
/// limit (5 s) once stayed on the session, so a call that sends no progress while it waits (on a
/// person answering the server's question) failed after 5 s.
#[tokio::test]
async fn a_quiet_call_gets_the_whole_timeout_after_the_probe() {
    let endpoint = McpEndpoint::connect_stdio(&stdio_command()).await.unwrap();
    let done = endpoint.call(&CallRequest::new("slow", json!({}))).await;
    assert!(done.is_ok(), "the 10 s call is answered within the 60 s timeout: {done:?}");
}
