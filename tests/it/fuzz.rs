//! `tooldeck fuzz` end to end against a server built here with rmcp's server side, run over stdio
//! by re-running this test binary (`TOOLDECK_FUZZ_SERVER=1`). Its tools have bugs planted at a
//! bound, in non-ASCII text, in a refused valid input, an accepted invalid input, an output
//! schema break, a crash and a hang; two tools are correct, and one is destructive and must
//! never be called. With `TOOLDECK_FUZZ_FIXED=1` every bug is fixed, so the saved cases pass.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

const SERVER_ENV: &str = "TOOLDECK_FUZZ_SERVER";
/// Set: every planted bug is fixed.
const FIXED_ENV: &str = "TOOLDECK_FUZZ_FIXED";
/// A file the destructive tool writes to when it is called.
const NOTES_ENV: &str = "TOOLDECK_FUZZ_NOTES";

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    Arc::new(value.as_object().cloned().unwrap())
}

fn input_schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "bounded",
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 100}}, "required": ["n"]}),
        ),
        (
            "greet",
            json!({"type": "object", "properties": {"name": {"type": "string", "maxLength": 40}}, "required": ["name"]}),
        ),
        (
            "paint",
            json!({"type": "object", "properties": {"colour": {"enum": ["red", "green", "blue"]}, "coats": {"type": "integer", "minimum": 1, "maximum": 3}}, "required": ["colour"]}),
        ),
        (
            "order",
            json!({"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}, "note": {"type": "string"}}, "required": ["count"], "additionalProperties": false}),
        ),
        ("stats", json!({"type": "object", "properties": {"verbose": {"type": "boolean"}}})),
        (
            "divide",
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        ),
        (
            "wait",
            json!({"type": "object", "properties": {"seconds": {"type": "integer", "minimum": 0, "maximum": 10}}, "required": ["seconds"]}),
        ),
        (
            "add",
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"], "additionalProperties": false}),
        ),
        (
            "echo",
            json!({"type": "object", "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[a-z ]+$"}, "times": {"type": "integer", "minimum": 1, "maximum": 3}, "email": {"type": "string", "format": "email"}}, "required": ["text"]}),
        ),
        ("wipe", json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})),
    ]
}

fn all_tools() -> Vec<Tool> {
    input_schemas()
        .into_iter()
        .map(|(name, input)| {
            let tool = Tool::new(name, format!("the {name} tool"), schema(input));
            match name {
                "stats" => tool.with_raw_output_schema(schema(
                    json!({"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]}),
                )),
                "add" => tool.with_raw_output_schema(schema(
                    json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}),
                )),
                "wipe" => tool.with_annotations(ToolAnnotations::new().destructive(true)),
                _ => tool.with_annotations(ToolAnnotations::new().read_only(true)),
            }
        })
        .collect()
}

#[derive(Debug, Clone, Default)]
struct BuggyServer {
    fixed: bool,
}

impl ServerHandler for BuggyServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(all_tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let Some((_, input)) = input_schemas().into_iter().find(|(name, _)| *name == &*request.name) else {
            return Err(ErrorData::invalid_params(format!("no tool named {}", request.name), None));
        };
        // The planted accepted-invalid bug: `order` checks nothing.
        let checks = self.fixed || &*request.name != "order";
        let validator = jsonschema::options().should_validate_formats(true).build(&input).unwrap();
        if checks && !validator.is_valid(&arguments) {
            return Ok(CallToolResult::error(vec![ContentBlock::text("invalid arguments")]).into());
        }
        let text = |t: String| Ok(CallToolResult::success(vec![ContentBlock::text(t)]).into());
        let bug = !self.fixed;
        match &*request.name {
            "bounded" if bug && arguments["n"] == 100 => {
                Ok(CallToolResult::error(vec![ContentBlock::text("n is out of range")]).into())
            }
            "greet" if bug && !arguments["name"].as_str().unwrap_or_default().is_ascii() => {
                Err(ErrorData::internal_error("cannot encode the name", None))
            }
            "paint" if bug && arguments["colour"] == "blue" => {
                Ok(CallToolResult::error(vec![ContentBlock::text("no blue paint")]).into())
            }
            "stats" if bug && arguments["verbose"] == true => {
                Ok(CallToolResult::structured(json!({"total": "many"})).into())
            }
            "stats" => Ok(CallToolResult::structured(json!({"total": 3})).into()),
            "divide" if bug && arguments["b"].as_f64() == Some(0.0) => std::process::exit(3),
            "wait" if bug && arguments["seconds"].as_i64().unwrap_or_default() > 5 => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                text("done".into())
            }
            "add" => {
                let sum = arguments["a"].as_f64().unwrap_or_default() + arguments["b"].as_f64().unwrap_or_default();
                Ok(CallToolResult::structured(json!({"sum": sum})).into())
            }
            "wipe" => {
                if let Ok(path) = std::env::var(NOTES_ENV) {
                    std::fs::write(path, "wipe was called").unwrap();
                }
                text("wiped".into())
            }
            _ => text(arguments.to_string()),
        }
    }
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn fuzz_server_mode() {
    stdio_server::serve_if(SERVER_ENV, BuggyServer { fixed: std::env::var_os(FIXED_ENV).is_some() }).await;
}

fn server_command(env: &str) -> String {
    stdio_server::command(SERVER_ENV, env, "fuzz::fuzz_server_mode")
}

fn tooldeck(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(args).output().expect("the binary runs")
}

fn finding<'a>(report: &'a Value, tool: &str) -> Vec<&'a Value> {
    report["findings"].as_array().unwrap().iter().filter(|f| f["tool"] == tool).collect()
}

#[test]
fn every_planted_bug_is_found_shrunk_and_saved_as_a_failing_case() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    let cases = dir.path().join("cases.yaml");
    let junit = dir.path().join("junit.xml");
    let server = server_command(&format!("{NOTES_ENV}='{}'", notes.display()));
    let output = tooldeck(&[
        "fuzz",
        "--mcp",
        &server,
        "--seed",
        "7",
        "--max-calls",
        "60",
        "--timeout",
        "1",
        "--json",
        "--save-cases",
        cases.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["seed"], 7);
    assert!(report["calls"].as_u64().unwrap() > 300, "{}", report["calls"]);
    let only = |tool: &str, kind: &str| {
        let found = finding(&report, tool);
        assert_eq!(found.len(), 1, "{tool}: {found:?}");
        assert_eq!(found[0]["kind"], kind, "{tool}: {found:?}");
        assert!(!found[0]["message"].as_str().unwrap().is_empty());
        found[0]["arguments"].clone()
    };
    assert_eq!(only("bounded", "refuses-valid"), json!({"n": 100}));
    let name = only("greet", "protocol-error")["name"].as_str().unwrap().to_string();
    assert!(name.chars().count() == 1 && !name.is_ascii(), "{name:?}");
    assert_eq!(only("paint", "refuses-valid"), json!({"colour": "blue"}));
    // A server that checks nothing breaks several rules: each is a cause of its own.
    let accepted = finding(&report, "order");
    assert!(!accepted.is_empty() && accepted.iter().all(|f| f["kind"] == "accepts-invalid"), "{accepted:?}");
    assert!(accepted.iter().all(|f| f["arguments"].as_object().unwrap().len() <= 1), "{accepted:?}");
    assert!(accepted.iter().all(|f| f["message"].as_str().unwrap().contains("it breaks")), "{accepted:?}");
    // The bugs: the test server's one note (the test harness's line on its stdout) is no
    // failure and is not saved.
    let found = report["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == "bug").count();
    let server_notes = finding(&report, "(server)");
    assert_eq!(server_notes.len(), 1, "{server_notes:?}");
    assert_eq!(server_notes[0]["kind"], "stdout-not-json-rpc", "{server_notes:?}");
    assert_eq!(only("stats", "output-schema"), json!({"verbose": true}));
    assert_eq!(only("divide", "crash"), json!({"a": 0, "b": 0}));
    assert_eq!(only("wait", "hang"), json!({"seconds": 6}));
    for correct in ["add", "echo"] {
        assert!(finding(&report, correct).is_empty(), "{correct}: {:?}", finding(&report, correct));
    }
    assert!(!notes.exists(), "the destructive tool was called");
    let wipe = report["tools"].as_array().unwrap().iter().find(|t| t["tool"] == "wipe").unwrap();
    assert!(wipe["skipped"].as_str().unwrap().contains("destructive"), "{wipe}");
    let reproducer = finding(&report, "bounded")[0]["reproducer"].as_str().unwrap();
    assert!(
        reproducer.starts_with("tooldeck call bounded --mcp ") && reproducer.contains("'{\"n\":100}'"),
        "{reproducer}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<failure").count(), found, "{xml}");

    // The saved cases fail against the server as it is, and pass once its bugs are fixed.
    let buggy = tooldeck(&["test", cases.to_str().unwrap(), "--json"]);
    let results: Value = serde_json::from_slice(&buggy.stdout).unwrap();
    assert_eq!(buggy.status.code(), Some(1), "{results}");
    assert_eq!(results["failed"], found, "{results}");
    let fixed_server = server_command(&format!("{FIXED_ENV}=1"));
    let fixed = tooldeck(&["test", cases.to_str().unwrap(), "--mcp", &fixed_server, "--json"]);
    let results: Value = serde_json::from_slice(&fixed.stdout).unwrap();
    assert_eq!(fixed.status.code(), Some(0), "{results}");
    assert_eq!(results["passed"], found, "{results}");
}

#[test]
fn the_same_seed_gives_the_same_findings() {
    let server = server_command("");
    let run = || {
        let output =
            tooldeck(&["fuzz", "bounded", "paint", "--mcp", &server, "--seed", "11", "--max-calls", "40", "--json"]);
        let mut report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report.as_object_mut().unwrap().remove("elapsed_ms");
        report
    };
    let first = run();
    let of_tools = first["findings"].as_array().unwrap().iter().filter(|f| f["tool"] != "(server)").count();
    assert_eq!(of_tools, 2, "{first}");
    assert_eq!(first, run());
}

#[test]
fn the_built_in_demo_server_is_fuzzed_over_open_tool_calling() {
    let tools = "convert_currency,cancel_calendar_event,git_log,list_directory,Math.Add@1.0.0";
    let output = tooldeck(&["fuzz", "--tools", tools, "--seed", "3", "--max-calls", "30", "--json"]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    });
    let fuzzed = report["tools"].as_array().unwrap().iter().filter(|t| t["skipped"].is_null()).count();
    assert_eq!(fuzzed, 5, "{report}");
    assert!(report["calls"].as_u64().unwrap() >= 120, "{report}");
    // Whatever it finds, each finding is one the demo server's own answers explain.
    for finding in report["findings"].as_array().unwrap() {
        assert_ne!(finding["kind"], "crash", "{finding}");
        assert_ne!(finding["kind"], "hang", "{finding}");
    }
}

#[path = "fuzz/seeds.rs"]
mod seeds;

#[path = "support/stdio_server.rs"]
mod stdio_server;
