//! `fuzz --seed-from` mutates the seeds: a server whose bug sits right beside the value a real
//! client sent (an order id one past the one in the record) is found only by changing the seed,
//! never by the schema's own phases.

use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

const SEEDED_ENV: &str = "TOOLDECK_FUZZ_SEEDED_SERVER";

fn input() -> Value {
    json!({"type": "object", "properties": {
        "order_id": {"type": "integer", "minimum": 1}, "region": {"type": "string"}}, "required": ["order_id"]})
}

/// `find_order` fails with an internal error for order 90211 only, the one after the seed's.
#[derive(Debug, Clone, Default)]
struct NearBug;

impl ServerHandler for NearBug {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tool = Tool::new("find_order", "Finds an order", Arc::new(input().as_object().cloned().unwrap()))
            .with_annotations(ToolAnnotations::new().read_only(true));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        if !jsonschema::is_valid(&input(), &arguments) {
            return Ok(CallToolResult::error(vec![ContentBlock::text("invalid arguments")]).into());
        }
        if arguments["order_id"] == 90211 {
            return Err(ErrorData::internal_error("the order index is off by one", None));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text("no such order")]).into())
    }
}

/// Not a test: the stdio server the test below starts (does nothing in a normal run).
#[tokio::test]
async fn seeded_server_mode() {
    super::stdio_server::serve_if(SEEDED_ENV, NearBug).await;
}

fn fuzz(server: &str, extra: &[&str]) -> Value {
    let mut args = vec!["fuzz", "--mcp", server, "--seed", "5", "--max-calls", "60", "--json"];
    args.extend_from_slice(extra);
    let output = super::tooldeck(&args);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("a JSON report: {}", String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn a_bug_beside_a_seeds_value_is_found_by_mutating_the_seed() {
    let server = super::stdio_server::command(SEEDED_ENV, "", "fuzz::seeds::seeded_server_mode");
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("session.jsonl");
    let call = json!({"time": "2026-05-02T10:00:00.000000Z", "from": "client", "message": {"jsonrpc": "2.0", "id": 3,
        "method": "tools/call", "params": {"name": "find_order", "arguments": {"order_id": 90210, "region": "eu"}}}});
    std::fs::write(&record, format!("{call}\n")).unwrap();

    // Without the seed, the schema's phases do not reach it.
    let plain = fuzz(&server, &[]);
    assert!(super::finding(&plain, "find_order").is_empty(), "{plain:#}");

    let seeded = fuzz(&server, &["--seed-from", record.to_str().unwrap()]);
    let found = super::finding(&seeded, "find_order");
    assert_eq!(found.len(), 1, "{seeded:#}");
    assert_eq!(found[0]["kind"], "protocol-error", "{seeded:#}");
    assert_eq!(found[0]["arguments"]["order_id"], 90211, "the input that reached it: {seeded:#}");
    assert_eq!(found[0]["phase"], "seeds", "{seeded:#}");
}
