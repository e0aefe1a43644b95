//! Resources, prompts, completions and the traffic log against servers built here: rmcp's server
//! side (over an in-memory pipe, Streamable HTTP on 127.0.0.1, and stdio by re-running this test
//! binary), and a hand-written stdio server that knows only `initialize` and exits on any other
//! first message, as servers on the Python SDK 1.1 do.

use std::io::{BufRead, Write};
use std::time::Duration;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Map, Value, json};
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::mcp::asks::ClientSetup;
use tooldeck::invoke::mcp::completion::Reference;
use tooldeck::invoke::mcp::content::{ContentItem, Inline};
use tooldeck::invoke::mcp::events::ServerEvent;
use tooldeck::invoke::mcp::stdio::McpStdio;
use tooldeck::invoke::mcp::traffic::Direction;

/// Which server this test binary is when re-run as one: `faces` (rmcp) or `legacy`.
const MODE_ENV: &str = "TOOLDECK_TEST_FACES_SERVER";
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn typed<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid rmcp value")
}

/// A server with resources over two pages, templates, subscriptions, prompts and completions.
#[derive(Clone, Default)]
pub(crate) struct FacesServer;

impl ServerHandler for FacesServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_prompts()
                .enable_completions()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(match request.and_then(|r| r.cursor) {
            None => typed(json!({"resources": [
                {"uri": "test://notes", "name": "notes", "mimeType": "text/plain"},
                {"uri": "test://pixel", "name": "pixel", "mimeType": "image/png"}
            ], "nextCursor": "page2"})),
            Some(_) => typed(json!({"resources": [{"uri": "test://last", "name": "last"}]})),
        })
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(typed(json!({"resourceTemplates": [
            {"uriTemplate": "test://items/{id}", "name": "item"}
        ]})))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        let contents = match uri {
            "test://notes" => json!([{"uri": uri, "mimeType": "text/plain", "text": "line one\nline two"}]),
            "test://pixel" => json!([{"uri": uri, "mimeType": "image/png", "blob": PNG}]),
            _ if uri.starts_with("test://items/") => json!([{"uri": uri, "text": format!("item {}", &uri[13..])}]),
            _ => return Err(ErrorData::resource_not_found(format!("no resource {uri}"), None)),
        };
        Ok(typed::<rmcp::model::ReadResourceResult>(json!({ "contents": contents })).into())
    }

    #[allow(deprecated)] // resources/subscribe is the way before 2026-07-28
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let peer = context.peer.clone();
        let uri = request.uri.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let params = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
            let _ = peer.notify_resource_updated(params).await;
            // The list changed too (as when a subscription adds a resource): the app lists again.
            let _ = peer.notify_resource_list_changed().await;
        });
        Ok(())
    }

    #[allow(deprecated)] // resources/unsubscribe too
    async fn unsubscribe(
        &self,
        _request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(typed(json!({"prompts": [
            {"name": "simple", "description": "no arguments"},
            {"name": "greet", "arguments": [{"name": "language", "required": true}, {"name": "tone"}]}
        ]})))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let language = arguments.get("language").and_then(Value::as_str).unwrap_or("?").to_string();
        let result: rmcp::model::GetPromptResult = typed(json!({"description": "a greeting", "messages": [
            {"role": "user", "content": {"type": "text", "text": format!("greet me in {language}")}},
            {"role": "assistant", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}}
        ]}));
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let typed_so_far = request.argument.value.to_lowercase();
        let values: Vec<&str> =
            ["english", "esperanto", "french", "42"].into_iter().filter(|v| v.starts_with(&typed_so_far)).collect();
        Ok(typed(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})))
    }
}

/// The command that starts this binary as the server `mode` names.
pub(crate) fn server_command(mode: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    format!(
        "env {MODE_ENV}={mode} '{}' --exact resources_prompts::server_mode --nocapture --test-threads=1",
        exe.display()
    )
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn server_mode() {
    let Ok(mode) = std::env::var(MODE_ENV) else { return };
    // libtest wrote "test server_mode ... " without a newline: the first message needs a line.
    let _ = std::io::stdout().write_all(b"\n").and_then(|()| std::io::stdout().flush());
    match mode.as_str() {
        "legacy" => legacy_server(),
        _ => {
            let transport = (tokio::io::stdin(), tokio::io::stdout());
            if let Ok(server) = FacesServer.serve(transport).await {
                let _ = server.waiting().await;
            }
        }
    }
    std::process::exit(0);
}

/// A server of the 2024-11-05 era written out by hand: `initialize` first or it exits (code 1,
/// a line on stderr). It offers a tool, resources (one of them 200 MB, written as it goes), and
/// a prompt whose messages hold an escape sequence and a content block of an unknown kind.
fn legacy_server() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut first = true;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let method = message["method"].as_str().unwrap_or_default().to_string();
        if first && method != "initialize" {
            eprintln!("Invalid request: unknown method {method}");
            std::process::exit(1);
        }
        first = false;
        let Some(id) = message.get("id").cloned() else { continue };
        let result = match method.as_str() {
            "initialize" => json!({"protocolVersion": "2024-11-05",
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                "serverInfo": {"name": "legacy", "version": "0.6.2"}}),
            "tools/list" => json!({"tools": [{"name": "git_status", "inputSchema": {"type": "object"}}]}),
            "tools/call" => json!({"content": [
                {"type": "text", "text": "on branch main"},
                {"type": "hologram", "data": "?"}
            ]}),
            "resources/list" => json!({"resources": [{"uri": "test://huge", "name": "huge"}, {"uri": 7}]}),
            "resources/read" => {
                write_huge(&mut out, &id);
                continue;
            }
            "prompts/list" => json!({"prompts": [{"name": "odd"}]}),
            "prompts/get" => json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "clear \u{1b}[2J the screen"}},
                {"role": "user", "content": {"type": "hologram", "data": "?"}},
                {"role": "assistant", "content": {"type": "text", "text": "still here"}}
            ]}),
            _ => {
                let error =
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}});
                let _ = writeln!(out, "{error}").and_then(|()| out.flush());
                continue;
            }
        };
        let _ = writeln!(out, "{}", json!({"jsonrpc": "2.0", "id": id, "result": result})).and_then(|()| out.flush());
    }
}

/// A 200 MB resource, written a megabyte at a time (never held whole).
fn write_huge(out: &mut impl Write, id: &Value) {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"contents":[{{"uri":"test://huge","text":""#);
    let chunk = vec![b'x'; 1 << 20];
    let mut written = out.write_all(head.as_bytes());
    for _ in 0..200 {
        written = written.and_then(|()| out.write_all(&chunk));
        if written.is_err() {
            return;
        }
    }
    let _ = out.write_all(b"\"}]}}\n").and_then(|()| out.flush());
}

async fn duplex() -> McpEndpoint {
    duplex_at(None).await
}

/// Connected over an in-memory pipe, at `protocol` if one is given.
async fn duplex_at(protocol: Option<&str>) -> McpEndpoint {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(server) = FacesServer.serve(server_side).await {
            let _ = server.waiting().await;
        }
    });
    let setup = ClientSetup { protocol: protocol.map(str::to_string), ..ClientSetup::default() };
    McpEndpoint::connect_io_with(client_side, "mcp:faces", setup).await.expect("connect over duplex")
}

#[tokio::test]
async fn resources_over_every_page_templates_read_and_subscribe() {
    let endpoint = duplex().await;
    assert!(endpoint.offers("resources") && endpoint.offers("prompts"));
    let (resources, warnings) = endpoint.list_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["test://notes", "test://pixel", "test://last"], "both pages");
    assert!(warnings.is_empty(), "{warnings:?}");
    let (templates, _) = endpoint.list_resource_templates().await.unwrap();
    assert_eq!(templates[0].variables(), ["id"]);
    let uri = templates[0].parsed.as_ref().unwrap().expand(&[("id".to_string(), "a b".to_string())].into());
    assert_eq!(uri, "test://items/a%20b");
    let read = endpoint.read(&uri).await.unwrap();
    assert!(matches!(&read.contents[0].body, Inline::Text(t) if &**t == "item a%20b"));
    let read = endpoint.read("test://pixel").await.unwrap();
    assert!(matches!(&read.contents[0].body, Inline::Base64(_)));
    assert_eq!(read.contents[0].size, 70, "the blob's decoded size");
    let error = endpoint.read("test://missing").await.unwrap_err().to_string();
    assert!(error.contains("no resource test://missing"), "{error}");

    // 2026-07-28 has no resources/subscribe: said, not sent.
    let error = endpoint.subscribe("test://notes").await.unwrap_err().to_string();
    assert!(error.contains("2025-11-25"), "{error}");
    let endpoint = duplex_at(Some("2025-11-25")).await;
    let events = endpoint.events();
    endpoint.subscribe("test://notes").await.unwrap();
    let updated = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let batch = events.next_batch().await;
            if batch.iter().any(|e| matches!(e, ServerEvent::ResourceUpdated { uri, .. } if uri == "test://notes")) {
                return;
            }
        }
    })
    .await;
    assert!(updated.is_ok(), "the update arrives as an event");
}

#[tokio::test]
async fn prompts_and_completions() {
    let endpoint = duplex().await;
    let (prompts, _) = endpoint.list_prompts().await.unwrap();
    assert_eq!(prompts.len(), 2);
    assert!(prompts[1].arguments[0].required && !prompts[1].arguments[1].required);
    let arguments: Map<String, Value> = [("language".to_string(), json!("french"))].into_iter().collect();
    let got = endpoint.get_prompt("greet", &arguments).await.unwrap();
    assert_eq!(got.messages.len(), 2);
    assert!(matches!(&got.messages[0].content[0], ContentItem::Text(t) if t.text == "greet me in french"));
    assert!(matches!(&got.messages[1].content[0], ContentItem::Image(_)));
    let suggestions =
        endpoint.complete(&Reference::Prompt("greet".into()), "language", "e", &Map::new()).await.unwrap();
    assert_eq!(suggestions.values, ["english", "esperanto"]);
    let suggestions =
        endpoint.complete(&Reference::Resource("test://items/{id}".into()), "id", "4", &arguments).await.unwrap();
    assert_eq!(suggestions.values, ["42"]);
}

/// Every message of the session is in the traffic log: the handshake, list calls, and over HTTP
/// each POST's status.
#[tokio::test]
async fn the_traffic_log_holds_the_handshake_and_http_exchanges() {
    let url = serve_http().await;
    let headers = vec![("Authorization".to_string(), "Bearer hush-hush-token".to_string())];
    let endpoint = McpEndpoint::connect_http(&url, headers).await.unwrap();
    let (resources, _) = endpoint.list_resources().await.unwrap();
    assert_eq!(resources.len(), 3);
    let (entries, dropped) = endpoint.events().traffic().since(0);
    assert_eq!(dropped, 0);
    let first = &entries[0];
    assert_eq!(first.direction, Direction::ClientToServer);
    assert!(matches!(first.method.as_deref(), Some("server/discover" | "initialize")), "{:?}", first.method);
    let listed: Vec<_> = entries.iter().filter(|e| e.method.as_deref() == Some("resources/list")).collect();
    assert!(listed.iter().any(|e| e.direction == Direction::ClientToServer));
    assert!(listed.iter().any(|e| e.answer), "the answer is named by its request");
    let http: Vec<_> = entries.iter().filter(|e| e.direction == Direction::Http).collect();
    assert!(http.iter().any(|e| e.http.as_ref().and_then(|h| h.status) == Some(200)));
    assert!(entries.iter().all(|e| !e.shown_text().contains("hush-hush-token")), "secrets are masked");
}

/// No flag: a server that exits on `server/discover` is started again and met with
/// `initialize`; a line says so, and its exit on the probe is no news.
#[tokio::test]
async fn a_server_that_knows_only_initialize_is_reached_without_a_flag() {
    let stdio = McpStdio::connect(&server_command("legacy"), Duration::from_secs(30), ClientSetup::default())
        .await
        .expect("reached with initialize");
    assert_eq!(stdio.protocol_version().await.as_deref(), Some("2024-11-05"));
    let tools = stdio.current().await.list_tools().await.unwrap();
    assert!(tools.contains("git_status"), "{tools}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = stdio.events().take();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, ServerEvent::Note(n) if n.contains("initialize") && n.contains("2024-11-05"))),
        "{events:?}"
    );
    assert!(!events.iter().any(|e| matches!(e, ServerEvent::Exited { .. })), "the probe's exit is muted: {events:?}");
    // Started again, it is met with `initialize` at once.
    stdio.reconnect().await.expect("reconnects");
    assert_eq!(stdio.protocol_version().await.as_deref(), Some("2024-11-05"));
    stdio.close().await;

    // Pinned to a newer revision, its older answer is accepted with a note.
    let setup = ClientSetup { protocol: Some("2025-11-25".into()), ..ClientSetup::default() };
    let stdio = McpStdio::connect(&server_command("legacy"), Duration::from_secs(30), setup).await.unwrap();
    assert_eq!(stdio.protocol_version().await.as_deref(), Some("2024-11-05"));
    let events = stdio.events().take();
    assert!(events.iter().any(|e| matches!(e, ServerEvent::Note(n) if n.contains("older"))), "{events:?}");
    stdio.close().await;
}

/// Bad input: a 200 MB resource is cut at the answer cap with a clear line; a prompt with an
/// escape sequence and a block of an unknown kind keeps its valid messages; a list entry that
/// cannot be read keeps the others.
#[tokio::test]
async fn a_huge_resource_and_odd_prompts_from_an_old_server() {
    let stdio =
        McpStdio::connect(&server_command("legacy"), Duration::from_secs(30), ClientSetup::default()).await.unwrap();
    let endpoint = stdio.current().await;
    let (resources, warnings) = endpoint.list_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let got = endpoint.get_prompt("odd", &Map::new()).await.unwrap();
    assert_eq!(got.messages.len(), 3);
    assert!(matches!(&got.messages[1].content[0], ContentItem::Unreadable(_)));
    assert!(matches!(&got.messages[2].content[0], ContentItem::Text(t) if t.text == "still here"));
    let started = std::time::Instant::now();
    let error = endpoint.read("test://huge").await.unwrap_err().to_string();
    assert!(error.contains("MiB"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(30), "nothing hangs");
    drop(endpoint);
    stdio.close().await;
}

fn tooldeck(args: &[&str]) -> std::process::Output {
    let history = std::env::temp_dir().join(format!("tooldeck-faces-{}.jsonl", std::process::id()));
    std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .env("TOOLDECK_HISTORY", history)
        .output()
        .expect("tooldeck runs")
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn headless_resources_read_prompts_and_prompt() {
    let server = server_command("faces");
    let output = tooldeck(&["resources", "--mcp", &server, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listed["resources"].as_array().unwrap().len(), 3);
    assert_eq!(listed["templates"][0]["uriTemplate"], "test://items/{id}");

    let output = tooldeck(&["read", "test://notes", "--mcp", &server]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "line one\nline two\n");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pixel.png");
    let output = tooldeck(&["read", "test://pixel", "--mcp", &server, "--output", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(&std::fs::read(&file).unwrap()[1..4], b"PNG");
    let output = tooldeck(&["read", "test://missing", "--mcp", &server]);
    assert_eq!(output.status.code(), Some(1), "the server refused: {}", stderr(&output));

    let output = tooldeck(&["prompts", "--mcp", &server]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("greet(language*, tone)"));
    let output = tooldeck(&["prompt", "greet", "--mcp", &server, "--arg", "language=french", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let got: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(got["messages"][0]["content"][0]["text"], "greet me in french");
    assert_eq!(tooldeck(&["prompt", "greet", "--mcp", &server]).status.code(), Some(3), "a required argument");
    assert_eq!(tooldeck(&["prompt", "nope", "--mcp", &server]).status.code(), Some(2), "no such prompt");
    assert_eq!(tooldeck(&["resources"]).status.code(), Some(2), "no server named");
}

/// `list` on a server that knows only `initialize` works with no flag; `call --strict` turns a
/// content block of an unknown kind into exit 6 (without it, the valid text is kept, exit 0).
#[test]
fn list_and_strict_call_on_an_old_server() {
    let server = server_command("legacy");
    let output = tooldeck(&["list", "--mcp", &server]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("git_status"));
    let output = tooldeck(&["call", "git_status", "--mcp", &server]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(outcome["content"][0]["text"], "on branch main");
    let output = tooldeck(&["call", "git_status", "--mcp", &server, "--strict"]);
    assert_eq!(output.status.code(), Some(6), "{}", stderr(&output));
    assert!(stderr(&output).contains("hologram"), "{}", stderr(&output));
}

/// The faces server over streamable HTTP on 127.0.0.1; its `/mcp` URL.
pub(crate) async fn serve_http() -> String {
    crate::mcp::serve_http_with(|| FacesServer).await
}
