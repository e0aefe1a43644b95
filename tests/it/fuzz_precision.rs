//! Findings a server author believes (#36): a server built here with rmcp's server side, run
//! over stdio by re-running this test binary (`TOOLDECK_PRECISION_SERVER=1`). Its tools: one
//! that answers every input with a domain error (no finding, one note), one that refuses a
//! bound its schema allows (a finding), one whose output breaks its schema only at a large
//! negative number (found), one that asks for a sampling reply with a bad `maxTokens` (answered
//! -32602 at once, not blamed on the server; on a revision before 2026-07-28, which still lets a
//! server ask) and one behind a state check (`--pin`). And the patterns of real servers' runs:
//! a `["boolean", "string"]` field that takes only "true" and "false" of the strings
//! (server-sequential-thinking: a finding), a file system's name-length limit
//! (server-filesystem's ENAMETOOLONG: domain), a tool slow for every input (server-everything's
//! four-stage research task: a note) and one refusal drawn by many numbers (its
//! get-resource-reference: one finding, not one per number), and a tool that works, reporting
//! progress, for as long as it is asked to (server-everything's long-running operation: not a
//! hang when the run's `--timeout` is shorter, one note).

use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, ServerRequest, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

const SERVER_ENV: &str = "TOOLDECK_PRECISION_SERVER";

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    Arc::new(value.as_object().cloned().unwrap())
}

fn tools() -> Vec<Tool> {
    let tool = |name: &str, input: Value| {
        Tool::new(name.to_string(), format!("the {name} tool"), schema(input))
            .with_annotations(ToolAnnotations::new().read_only(true))
    };
    vec![
        tool("read_file", json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})),
        tool(
            "window",
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}}, "required": ["n"]}),
        ),
        tool(
            "kelvin",
            json!({"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]}),
        )
        .with_raw_output_schema(schema(json!({
            "type": "object",
            "properties": {"kelvin": {"type": "number", "minimum": 0}},
            "required": ["kelvin"]
        }))),
        tool("ask", json!({"type": "object", "properties": {"topic": {"type": "string"}}})),
        tool(
            "think",
            json!({"type": "object", "properties": {"more": {"type": ["boolean", "string"]}}, "required": ["more"]}),
        ),
        tool("mkdir", json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})),
        tool("research", json!({"type": "object", "properties": {"topic": {"type": "string"}}})),
        tool("resource", json!({"type": "object", "properties": {"resourceId": {"type": "number", "default": 1}}})),
        tool("countdown", json!({"type": "object", "properties": {"seconds": {"type": "number", "default": 10}}})),
        tool("stall", json!({"type": "object", "properties": {}})),
        tool(
            "stock",
            json!({"type": "object", "properties": {"id": {"type": "string"}, "qty": {"type": "integer"}}, "required": ["id", "qty"]}),
        ),
    ]
}

#[derive(Debug, Clone, Default)]
struct PreciseServer;

fn text(is_error: bool, t: String) -> Result<CallToolResponse, ErrorData> {
    let blocks = vec![ContentBlock::text(t)];
    Ok(if is_error { CallToolResult::error(blocks) } else { CallToolResult::success(blocks) }.into())
}

impl ServerHandler for PreciseServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        match &*request.name {
            // A correct tool in a world without the file asked for.
            "read_file" => {
                let path = arguments["path"].as_str().unwrap_or_default();
                text(true, format!("ENOENT: no such file or directory, open '/srv/data/{path}'"))
            }
            // The planted bug: 10 is allowed by the schema, refused by the server.
            "window" => {
                let n = arguments["n"].as_i64().unwrap_or_default();
                if !(1..=10).contains(&n) {
                    return Err(ErrorData::invalid_params("n must be between 1 and 10", None));
                }
                text(n == 10, if n == 10 { "cannot do that".into() } else { format!("window {n}") })
            }
            // The planted bug: below absolute zero the result breaks `minimum: 0`.
            "kelvin" => {
                let Some(celsius) = arguments["celsius"].as_f64() else {
                    return Err(ErrorData::invalid_params("celsius must be a number", None));
                };
                let result = CallToolResult::structured(json!({"kelvin": celsius + 273.15}));
                Ok(result.into())
            }
            // Asks for a sampling reply with a `maxTokens` MCP does not allow.
            "ask" => {
                let params =
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": -1});
                let asked = context
                    .peer
                    .send_request(ServerRequest::CustomRequest(CustomRequest::new(
                        "sampling/createMessage",
                        Some(params),
                    )))
                    .await;
                match asked {
                    Err(rmcp::service::ServiceError::McpError(e)) => {
                        text(true, format!("sampling failed with code {}: {}", e.code.0, e.message))
                    }
                    other => text(false, format!("sampling answered: {other:?}")),
                }
            }
            // As zod's union of boolean and string with a transform: the schema allows any
            // string, the server only two.
            "think" => match &arguments["more"] {
                Value::Bool(_) => text(false, "ok".into()),
                Value::String(s) if s == "true" || s == "false" => text(false, "ok".into()),
                other => text(
                    true,
                    format!(
                        "MCP error -32602: Input validation error: Expected boolean or \"true\"/\"false\" string, received {other} at more"
                    ),
                ),
            },
            // A correct tool on a file system that limits a name to 255 bytes.
            "mkdir" => {
                let Some(path) = arguments["path"].as_str() else {
                    return text(true, "path must be a string".into());
                };
                if path.len() > 255 {
                    return text(true, format!("ENAMETOOLONG: name too long, mkdir '/srv/data/{path}'"));
                }
                text(false, format!("created /srv/data/{path}"))
            }
            // A task of stages: every answer takes its time.
            "research" => {
                if arguments.get("topic").is_some_and(|t| !t.is_string()) {
                    return text(true, "topic must be a string".into());
                }
                tokio::time::sleep(std::time::Duration::from_millis(150)).await;
                text(false, "done".into())
            }
            // The schema says number; the server wants a positive integer.
            "resource" => {
                let id = match arguments.get("resourceId") {
                    None => 1.0,
                    Some(id) => match id.as_f64() {
                        Some(id) => id,
                        None => return text(true, "resourceId must be a number".into()),
                    },
                };
                if id < 1.0 || id.fract() != 0.0 {
                    return text(
                        true,
                        format!("Invalid resourceId: {}. Must be a finite positive integer.", arguments["resourceId"]),
                    );
                }
                text(false, format!("resource {id}"))
            }
            "countdown" => countdown(&arguments, request.meta.as_ref(), &context).await,
            "stall" => stall(request.meta.as_ref(), &context).await,
            // Behind a state check: only the item that exists gets further, where a negative
            // quantity hits an internal error.
            "stock" => {
                if arguments["id"] != "item-7" {
                    return text(true, format!("item {} not found", arguments["id"]));
                }
                let Some(qty) = arguments["qty"].as_i64() else {
                    return Err(ErrorData::invalid_params("qty must be an integer", None));
                };
                match qty {
                    q if q < 0 => text(true, "Internal error: stock underflow".into()),
                    q => text(false, format!("{q} in stock")),
                }
            }
            other => Err(ErrorData::invalid_params(format!("no tool named {other}"), None)),
        }
    }
}

/// Works for `seconds`, reporting progress every 100 ms, until it is done or cancelled.
async fn countdown(
    arguments: &Value,
    meta: Option<&rmcp::model::RequestMetaObject>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let seconds = arguments["seconds"].as_f64().unwrap_or(10.0).clamp(0.0, 3600.0);
    let token = context.meta.get_progress_token().or_else(|| meta.and_then(|m| m.get_progress_token()));
    let steps = (seconds * 10.0) as u32;
    for step in 1..=steps {
        tokio::select! {
            () = tokio::time::sleep(std::time::Duration::from_millis(100)) => {}
            () = context.ct.cancelled() => return text(true, "cancelled".into()),
        }
        if let Some(token) = &token {
            let report = rmcp::model::ProgressNotificationParam::new(token.clone(), f64::from(step));
            let _ = context.peer.notify_progress(report).await;
        }
    }
    text(false, format!("counted down {seconds} s"))
}

/// Reports progress once, then says nothing until it is cancelled: stuck, whatever it said first.
async fn stall(
    meta: Option<&rmcp::model::RequestMetaObject>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let token = context.meta.get_progress_token().or_else(|| meta.and_then(|m| m.get_progress_token()));
    if let Some(token) = token {
        let _ = context.peer.notify_progress(rmcp::model::ProgressNotificationParam::new(token, 1.0)).await;
    }
    context.ct.cancelled().await;
    text(true, "cancelled".into())
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn precision_server_mode() {
    stdio_server::serve_if(SERVER_ENV, PreciseServer).await;
}

fn server_command() -> String {
    stdio_server::command(SERVER_ENV, "", "fuzz_precision::precision_server_mode")
}

#[path = "support/stdio_server.rs"]
mod stdio_server;

fn tooldeck(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(args).output().expect("the binary runs")
}

fn fuzz(extra: &[&str]) -> Value {
    fuzz_calls("60", extra)
}

fn fuzz_calls(calls: &str, extra: &[&str]) -> Value {
    let server = server_command();
    let mut args = vec!["fuzz", "--mcp", &server, "--seed", "5", "--max-calls", calls, "--timeout", "5", "--json"];
    args.extend_from_slice(extra);
    let output = tooldeck(&args);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    })
}

fn findings<'a>(report: &'a Value, tool: &str) -> Vec<&'a Value> {
    report["findings"].as_array().unwrap().iter().filter(|f| f["tool"] == tool).collect()
}

fn note<'a>(report: &'a Value, tool: &str) -> &'a str {
    let summary = report["tools"].as_array().unwrap().iter().find(|t| t["tool"] == tool).unwrap();
    summary["note"].as_str().unwrap_or_default()
}

#[test]
fn domain_errors_are_a_note_and_server_bugs_are_findings() {
    let report = fuzz(&["read_file", "window", "kelvin"]);
    assert!(findings(&report, "read_file").is_empty(), "{report:#}");
    let said = note(&report, "read_file");
    assert!(said.starts_with("the tool refuses most inputs"), "{said}");
    assert!(said.contains("ENOENT"), "{said}");

    let window = findings(&report, "window");
    assert_eq!(window.len(), 1, "{window:?}");
    assert_eq!((&window[0]["kind"], &window[0]["arguments"]), (&json!("refuses-valid"), &json!({"n": 10})));

    let kelvin = findings(&report, "kelvin");
    assert_eq!(kelvin.len(), 1, "{kelvin:?}");
    assert_eq!(kelvin[0]["kind"], "output-schema", "{kelvin:?}");
    let celsius = kelvin[0]["arguments"]["celsius"].as_f64().unwrap();
    assert!(celsius < -273.15, "{celsius}");
    assert!(kelvin[0]["message"].as_str().unwrap().contains("/kelvin"), "{kelvin:?}");
    assert!(kelvin[0]["count"].as_u64().unwrap() >= 1, "{kelvin:?}");
}

#[test]
fn a_sampling_request_with_a_bad_max_tokens_is_refused_at_once_and_not_blamed() {
    let server = server_command();
    let output = tooldeck(&["call", "ask", "--mcp", &server, "--args-json", "{}", "--protocol", "2025-11-25"]);
    let call: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    });
    let said = call.to_string();
    assert!(said.contains("code -32602"), "{call:#}");
    // Not the 1.3 s the call used to wait for the ask to be taken up.
    assert!(call["duration_ms"].as_u64().is_some_and(|ms| ms < 1000), "{call:#}");
    let report = fuzz(&["ask", "--protocol", "2025-11-25"]);
    assert!(findings(&report, "ask").is_empty(), "{report:#}");
}

#[test]
fn a_pinned_field_gets_past_a_state_check() {
    let without = fuzz(&["stock"]);
    assert!(findings(&without, "stock").is_empty(), "{without:#}");
    assert!(note(&without, "stock").contains("not found"), "{without:#}");
    let with = fuzz(&["stock", "--pin", "stock.id=item-7"]);
    let found = findings(&with, "stock");
    assert_eq!(found.len(), 1, "{with:#}");
    assert_eq!(found[0]["arguments"], json!({"id": "item-7", "qty": -1}), "{with:#}");

    // A pin no tool of the run declares is said, not silently ignored.
    let server = server_command();
    let typo = ["fuzz", "--mcp", &server, "--max-calls", "2", "--json", "stock", "--pin", "stok.id=item-7"];
    let stderr = String::from_utf8_lossy(&tooldeck(&typo).stderr).into_owned();
    assert!(stderr.contains("--pin stok.id sets nothing: no tool fuzzed declares that field"), "{stderr}");
}

#[test]
fn patterns_of_real_servers_are_judged_as_their_sources_say() {
    // Four calls: coverage alone, no random input that might happen on a string.
    let covered = fuzz_calls("4", &["think"]);
    let think = findings(&covered, "think");
    assert_eq!(think.len(), 1, "{covered:#}");
    assert_eq!(think[0]["kind"], "refuses-valid", "{think:?}");
    assert!(think[0]["arguments"]["more"].is_string(), "{think:?}");

    let report = fuzz(&["mkdir", "resource"]);
    assert!(findings(&report, "mkdir").is_empty(), "{report:#}");
    assert!(note(&report, "mkdir").contains("ENAMETOOLONG"), "{report:#}");

    let resource = findings(&report, "resource");
    assert_eq!(resource.len(), 1, "one bug, however many numbers drew it: {resource:#?}");
    assert!(resource[0]["count"].as_u64().unwrap() > 1, "{resource:?}");
}

#[test]
fn a_tool_slow_for_every_input_is_a_note() {
    let report = fuzz(&["research", "--slow", "100"]);
    assert!(findings(&report, "research").is_empty(), "{report:#}");
    assert!(note(&report, "research").starts_with("the tool answers slowly for most inputs"), "{report:#}");
}

#[test]
fn a_tool_still_reporting_progress_at_the_timeout_is_a_note_not_a_hang() {
    let server = server_command();
    let args = ["fuzz", "--mcp", &server, "--seed", "5", "--max-calls", "6", "--timeout", "1", "--json", "countdown"];
    let output = tooldeck(&args);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    });
    assert!(findings(&report, "countdown").is_empty(), "{report:#}");
    let said = note(&report, "countdown");
    assert!(said.contains("ran out of --timeout while still reporting progress: not judged"), "{said}");
    // Its default of 10 s, cut at 1 s: the smallest such input is kept as the example.
    assert!(said.contains("e.g. {}"), "{said}");
    // Each costs the whole --timeout: three in a row set the tool aside, as hangs do.
    assert!(said.starts_with("set aside after it ran out of --timeout still working 3 times in a row"), "{said}");

    // Progress once, then silence for the whole timeout: that is a hang.
    let args = ["fuzz", "--mcp", &server, "--seed", "5", "--max-calls", "2", "--timeout", "1", "--json", "stall"];
    let report: Value = serde_json::from_slice(&tooldeck(&args).stdout).expect("a report");
    let stall = findings(&report, "stall");
    assert_eq!(stall.len(), 1, "{report:#}");
    assert_eq!(stall[0]["kind"], "hang", "{report:#}");
}
