//! What real servers fuzz was never tuned on do, each as a tool of a server built here with
//! rmcp's server side, run over stdio by re-running this test binary
//! (`TOOLDECK_PATTERNS_SERVER=1`): a store whose "not found" repeats the random name it was
//! given (one cause, not one per name), a tool whose requirements depend on another field and
//! one with a rule between two fields (notes with the rule the schema could carry, not bugs),
//! an array-of-objects tool that saves items without their required fields (found by breaking
//! what is inside the items), a tool that answers its errors as successes (one note), and a
//! tool that fails alike for valid and invalid input (its finding, found with valid input,
//! shrinks only to valid input).

use std::sync::{Arc, Mutex};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

const SERVER_ENV: &str = "TOOLDECK_PATTERNS_SERVER";

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    Arc::new(value.as_object().cloned().unwrap())
}

fn tools() -> Vec<Tool> {
    let tool = |name: &str, input: Value| Tool::new(name.to_string(), format!("the {name} tool"), schema(input));
    let reads = ToolAnnotations::new().read_only(true);
    let writes = ToolAnnotations::new().read_only(false).destructive(false);
    vec![
        tool("find_task", json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}))
            .with_annotations(reads.clone()),
        tool(
            "manage",
            json!({
                "type": "object",
                "properties": {
                    "action": {"enum": ["create", "rename", "delete"]},
                    "name": {"type": "string", "description": "the task's name (required for create and rename)"},
                    "id": {"type": "string", "description": "the task's id (required for rename and delete)"}
                },
                "required": ["action"]
            }),
        )
        .with_annotations(writes.clone()),
        tool(
            "window_range",
            json!({"type": "object", "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}}),
        )
        .with_annotations(reads.clone()),
        tool(
            "save_tasks",
            json!({
                "type": "object",
                "properties": {
                    "tasks": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "properties": {"title": {"type": "string"}, "done": {"type": "boolean"}},
                            "required": ["title"]
                        }
                    }
                },
                "required": ["tasks"]
            }),
        )
        .with_annotations(writes),
        tool("list_tasks", json!({"type": "object", "properties": {}})).with_annotations(reads.clone()),
        tool("lookup", json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}))
            .with_annotations(reads.clone()),
        tool(
            "label",
            json!({"type": "object", "properties": {"text": {"type": "string", "minLength": 3}}, "required": ["text"]}),
        )
        .with_annotations(reads),
    ]
}

#[derive(Debug, Clone, Default)]
struct PatternServer {
    /// What `save_tasks` kept, as it came.
    tasks: Arc<Mutex<Vec<Value>>>,
}

fn text(is_error: bool, t: String) -> Result<CallToolResponse, ErrorData> {
    let blocks = vec![ContentBlock::text(t)];
    Ok(if is_error { CallToolResult::error(blocks) } else { CallToolResult::success(blocks) }.into())
}

impl ServerHandler for PatternServer {
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        match &*request.name {
            // As a store's low-level handler throws it: the name bare, as a JSON-RPC error.
            "find_task" => match arguments["name"].as_str() {
                Some(name) => Err(ErrorData::internal_error(format!("Task {name} not found"), None)),
                None => Err(ErrorData::invalid_params("name must be a string", None)),
            },
            "manage" => manage(&arguments),
            // Types checked as a validator would; the order of the two, as the schema cannot say.
            "window_range" if ["min", "max"].iter().any(|f| arguments.get(*f).is_some_and(|v| !v.is_i64())) => {
                Err(ErrorData::invalid_params("min and max must be integers", None))
            }
            "window_range" => match (arguments["min"].as_i64(), arguments["max"].as_i64()) {
                (Some(min), Some(max)) if min > max => text(true, "min must be at most max".into()),
                _ => text(false, "ok".into()),
            },
            // Saves whatever items it is given, checked no further than "a list".
            "save_tasks" => {
                let Some(tasks) = arguments["tasks"].as_array() else {
                    return text(true, "tasks must be an array".into());
                };
                crate_lock(&self.tasks).extend(tasks.iter().cloned());
                text(false, format!("saved {}", tasks.len()))
            }
            // Reads what was saved as if every item had its title: a TypeError for one without.
            "list_tasks" => {
                let tasks = crate_lock(&self.tasks).clone();
                if tasks.iter().any(|t| !t["title"].is_string()) {
                    return text(true, "TypeError: Cannot read properties of undefined (reading 'toUpperCase')".into());
                }
                text(false, format!("{} tasks", tasks.len()))
            }
            // Every error, even of the input, answered as a success.
            "lookup" => match arguments["key"].as_str() {
                Some("known") => text(false, "42".into()),
                Some(key) => text(false, format!("Error: no entry for {key}")),
                None => text(false, "Error: key must be a string".into()),
            },
            // Fails alike whatever it is given: valid input and invalid.
            "label" => Err(ErrorData::internal_error("label store failed", None)),
            other => Err(ErrorData::invalid_params(format!("no tool named {other}"), None)),
        }
    }
}

fn crate_lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Each action wants its own fields, which the schema leaves optional (its descriptions say so).
fn manage(arguments: &Value) -> Result<CallToolResponse, ErrorData> {
    if ["name", "id"].iter().any(|f| arguments.get(*f).is_some_and(|v| !v.is_string())) {
        return Err(ErrorData::invalid_params("name and id must be strings", None));
    }
    let action = arguments["action"].as_str().unwrap_or_default();
    let wants: &[&str] = match action {
        "create" => &["name"],
        "rename" => &["id", "name"],
        "delete" => &["id"],
        _ => return Err(ErrorData::invalid_params("action must be create, rename or delete", None)),
    };
    for field in wants {
        if !arguments.get(*field).is_some_and(Value::is_string) {
            return text(true, format!("{field} is required for {action}"));
        }
    }
    text(false, format!("{action} done"))
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn patterns_server_mode() {
    stdio_server::serve_if(SERVER_ENV, PatternServer::default()).await;
}

#[path = "support/stdio_server.rs"]
mod stdio_server;

fn fuzz(extra: &[&str]) -> (Value, Option<i32>) {
    let server = stdio_server::command(SERVER_ENV, "", "fuzz_patterns::patterns_server_mode");
    let mut args = vec!["fuzz", "--mcp", &server, "--seed", "3", "--max-calls", "60", "--timeout", "5", "--json"];
    args.extend_from_slice(extra);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(&args).output().expect("runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    });
    (report, output.status.code())
}

fn findings<'a>(report: &'a Value, tool: &str) -> Vec<&'a Value> {
    report["findings"].as_array().unwrap().iter().filter(|f| f["tool"] == tool).collect()
}

#[test]
fn a_store_that_repeats_the_names_it_was_given_is_one_cause() {
    let (report, _) = fuzz(&["find_task"]);
    let found = findings(&report, "find_task");
    assert_eq!(found.len(), 1, "one cause whatever the name: {report:#}");
    assert!(found[0]["count"].as_u64().unwrap() > 20, "{report:#}");
    assert_eq!(found[0]["severity"], "bug", "{report:#}");
}

#[test]
fn rules_the_schema_does_not_express_are_notes_with_the_rule_suggested() {
    let (report, code) = fuzz(&["manage", "window_range"]);
    let all: Vec<&Value> = report["findings"].as_array().unwrap().iter().filter(|f| f["tool"] != "(server)").collect();
    assert!(!all.is_empty(), "{report:#}");
    for finding in all {
        assert_eq!((&finding["kind"], &finding["severity"]), (&json!("unstated-rule"), &json!("note")), "{report:#}");
    }
    let manage = findings(&report, "manage");
    let said: Vec<&str> = manage.iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert!(said.iter().any(|m| m.contains(r#"{"if":{"properties":{"action":{"const":"#)), "{said:?}");
    let range = findings(&report, "window_range");
    assert_eq!(range.len(), 1, "{report:#}");
    assert!(range[0]["message"].as_str().unwrap().contains("min and max must be in order"), "{range:?}");
    assert_eq!(code, Some(0), "notes alone do not fail the run");
    let (_, strict) = fuzz(&["manage", "window_range", "--strict"]);
    assert_eq!(strict, Some(1), "--strict makes notes count");
}

#[test]
fn a_tool_that_saves_items_without_their_required_fields_is_found() {
    let (report, _) = fuzz(&["save_tasks"]);
    let accepted: Vec<&str> = findings(&report, "save_tasks")
        .iter()
        .filter(|f| f["kind"] == "accepts-invalid")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(accepted.iter().any(|m| m.contains("\"required\" at /tasks/0")), "{report:#}");
}

#[test]
fn a_read_that_fails_after_invalid_input_was_saved_is_a_finding_of_the_save() {
    let (report, _) = fuzz(&["save_tasks", "list_tasks"]);
    let broke: Vec<&Value> =
        findings(&report, "save_tasks").into_iter().filter(|f| f["kind"] == "breaks-state").collect();
    assert_eq!(broke.len(), 1, "{report:#}");
    assert_eq!((&broke[0]["severity"], &broke[0]["valid"]), (&json!("bug"), &json!(false)), "{broke:?}");
    let message = broke[0]["message"].as_str().unwrap();
    assert!(
        message.contains("list_tasks {} fails where it did not before") && message.contains("TypeError"),
        "{message}"
    );
    assert_eq!(broke[0]["then"], json!({"tool": "list_tasks", "arguments": {}}), "{broke:?}");
    let reproducer = broke[0]["reproducer"].as_str().unwrap();
    assert!(
        reproducer.starts_with("tooldeck call save_tasks ")
            && reproducer.contains("--no-validate && tooldeck call list_tasks "),
        "{reproducer}"
    );
}

#[test]
fn errors_answered_as_successes_are_one_note_not_invalid_input_accepted() {
    let (report, code) = fuzz(&["lookup"]);
    let found = findings(&report, "lookup");
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!((&found[0]["kind"], &found[0]["severity"]), (&json!("error-as-success"), &json!("note")));
    assert!(found[0]["message"].as_str().unwrap().contains("isError"), "{found:?}");
    assert_eq!(code, Some(0));
}

#[test]
fn a_finding_found_with_valid_input_shrinks_only_to_valid_input() {
    let (report, code) = fuzz(&["label"]);
    let found = findings(&report, "label");
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(found[0]["valid"], true, "{report:#}");
    assert!(found[0]["arguments"]["text"].as_str().is_some_and(|t| t.chars().count() >= 3), "{report:#}");
    assert!(!found[0]["reproducer"].as_str().unwrap().contains("--no-validate"), "{report:#}");
    assert_eq!(code, Some(1));
}

#[test]
fn the_text_report_lists_bugs_first_and_notes_after() {
    let server = stdio_server::command(SERVER_ENV, "", "fuzz_patterns::patterns_server_mode");
    let args = ["fuzz", "--mcp", &server, "--seed", "3", "--max-calls", "30", "lookup", "label"];
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(args).output().expect("runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    let bug = printed.find("protocol-error").expect(&printed);
    let notes = printed.find("notes (not bugs):").expect(&printed);
    let note = printed.find("error-as-success").expect(&printed);
    assert!(bug < notes && notes < note, "{printed}");
    // The server's own note too: the test harness writes a line to its stdout before serving.
    assert!(printed.contains("1 bug and 2 notes in 2 tools"), "{printed}");
}

#[test]
fn a_line_on_stdout_that_is_not_json_rpc_is_named_once_by_fuzz_call_and_list() {
    let server = stdio_server::command(SERVER_ENV, "", "fuzz_patterns::patterns_server_mode");
    let (report, _) = fuzz(&["lookup"]);
    let said = findings(&report, "(server)");
    assert_eq!(said.len(), 1, "{report:#}");
    assert_eq!((&said[0]["kind"], &said[0]["severity"]), (&json!("stdout-not-json-rpc"), &json!("note")));
    let message = said[0]["message"].as_str().unwrap();
    assert!(message.starts_with("the server wrote to stdout: `") && message.ends_with("`: strict clients fail here"));
    assert!(said[0].get("reproducer").is_none(), "{said:?}");
    for args in
        [vec!["call", "lookup", "--args-json", r#"{"key":"known"}"#, "--mcp", &server], vec!["list", "--mcp", &server]]
    {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(&args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert_eq!(stderr.matches("the server wrote to stdout: `").count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains("strict clients fail here"), "{stderr}");
    }
}
