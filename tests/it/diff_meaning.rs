//! `tooldeck diff` judges changes by meaning: edits of form only are no change, widenings are
//! compatible, behaviour hints that make a tool riskier are breaking; a real release pair
//! (mcp-server-fetch 2025.4.7 → 2026.10.24, reduced to its tool list); a live server against its
//! own `list --json`; a missing path; renamed tools.

use std::process::{Command, Output};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use tooldeck::catalog::{Catalog, LoadOptions, load_text};
use tooldeck::diff::{Class, diff_catalogs};

const SERVER_ENV: &str = "TOOLDECK_TEST_DIFF_MEANING_SERVER";

fn tooldeck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(args).env("TOOLDECK_CONFIG", "/nonexistent").output().unwrap()
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn catalog(document: &Value) -> Catalog {
    let text = serde_json::to_string_pretty(document).unwrap();
    let (tools, diagnostics) = load_text("case.json", &text, &LoadOptions::default());
    assert!(diagnostics.iter().all(|d| d.severity != tooldeck::catalog::Severity::Error), "{diagnostics:?}");
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    catalog
}

fn with_parameter(parameter: Value) -> Value {
    json!({"tools": [{"name": "fetch", "description": "Fetch a page", "inputSchema": {
        "type": "object", "properties": {"p": parameter}, "required": ["p"]}}]})
}

fn changes(old: &Value, new: &Value) -> Vec<(Class, &'static str)> {
    let diff = diff_catalogs(&catalog(old), &catalog(new));
    diff.changed.iter().flat_map(|t| &t.changes).map(|c| (c.class, c.kind)).collect()
}

#[test]
fn edits_of_form_only_are_no_change() {
    let same = [
        (json!({"type": "integer", "exclusiveMinimum": 0}), json!({"type": "integer", "minimum": 1})),
        (json!({"type": "integer", "exclusiveMaximum": 1000000}), json!({"type": "integer", "maximum": 999999})),
        (
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ),
        (json!({"type": ["string", "null"]}), json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
        (json!({"type": "string", "nullable": true}), json!({"type": ["null", "string"]})),
        (
            json!({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                             {"type": "object", "properties": {"b": {"type": "integer"}}}]}),
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}),
        ),
        // Branches of different types cannot both match: oneOf and anyOf mean the same.
        (
            json!({"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
            json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
        ),
        (json!({"const": "page"}), json!({"enum": ["page"]})),
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": 9_007_199_254_740_991_i64})),
    ];
    for (old, new) in same {
        let found = changes(&with_parameter(old.clone()), &with_parameter(new.clone()));
        assert_eq!(found, vec![], "{old} → {new}");
        let back = changes(&with_parameter(new.clone()), &with_parameter(old.clone()));
        assert_eq!(back, vec![], "{new} → {old}");
    }
}

#[test]
fn one_of_to_any_of_accepts_more_so_it_is_compatible() {
    let one_of = json!({"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]});
    let any_of = json!({"anyOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]});
    assert_eq!(
        changes(&with_parameter(one_of.clone()), &with_parameter(any_of.clone())),
        vec![(Class::Compatible, "one-of-any-of")]
    );
    assert_eq!(changes(&with_parameter(any_of), &with_parameter(one_of)), vec![(Class::Breaking, "one-of-any-of")]);
}

#[test]
fn a_changed_branch_among_reordered_ones_is_still_found() {
    let old = json!({"anyOf": [{"type": "string", "maxLength": 10}, {"type": "integer"}]});
    let new = json!({"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 5}]});
    assert_eq!(changes(&with_parameter(old), &with_parameter(new)), vec![(Class::Breaking, "bound")]);
}

#[test]
fn hints_that_make_a_tool_riskier_are_breaking_and_named() {
    let tool = |annotations: Value| json!({"tools": [{"name": "rm", "description": "Remove", "inputSchema": {"type": "object"}, "annotations": annotations}]});
    let found =
        changes(&tool(json!({"readOnlyHint": true})), &tool(json!({"readOnlyHint": false, "destructiveHint": true})));
    assert!(found.contains(&(Class::Breaking, "read-only")), "{found:?}");
    assert!(found.contains(&(Class::Breaking, "destructive")), "{found:?}");
    let found = changes(&tool(json!({"openWorldHint": false})), &tool(json!({})));
    assert_eq!(found, vec![(Class::Breaking, "open-world")]);
    // Saying explicitly what the spec's default already says changes nothing.
    assert_eq!(changes(&tool(json!({})), &tool(json!({"destructiveHint": true, "openWorldHint": true}))), vec![]);
    assert_eq!(changes(&tool(json!({})), &tool(json!({"readOnlyHint": true})))[0].0, Class::Compatible);
}

#[test]
fn the_real_fetch_release_pair_is_not_breaking() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let old = format!("{dir}/tests/diff/fetch/mcp-server-fetch-2025.4.7.tools.json");
    let new = format!("{dir}/tests/diff/fetch/mcp-server-fetch-2026.10.24.tools.json");
    let output = tooldeck(&["diff", &old, &new, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["breaking"], 0, "{report}");
    let kinds: Vec<&str> =
        report["changed"][0]["changes"].as_array().unwrap().iter().filter_map(|c| c["kind"].as_str()).collect();
    // The bounds went from exclusive to inclusive: no change; the new hints make it safer.
    assert!(!kinds.iter().any(|k| k.starts_with("bound") || *k == "constraint"), "{kinds:?}");
    assert!(kinds.contains(&"read-only"), "{kinds:?}");
}

#[test]
fn a_missing_path_is_a_usage_error_not_every_tool_removed() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let old = format!("{dir}/tests/diff/fetch/mcp-server-fetch-2025.4.7.tools.json");
    let output = tooldeck(&["diff", &old, "/no/such/tooldeck/snapshot.json"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("no such file"), "{}", text(&output));
    assert!(!text(&output).contains("removed:"), "{}", text(&output));
}

#[test]
fn a_removed_and_an_added_tool_that_match_are_asked_about() {
    let old = json!({"tools": [{"name": "getTinyImage", "description": "Returns a tiny image", "inputSchema": {"type": "object"}}]});
    let new = json!({"tools": [{"name": "get-tiny-image", "description": "Returns the MCP logo", "inputSchema": {"type": "object"}}]});
    let diff = diff_catalogs(&catalog(&old), &catalog(&new));
    assert_eq!(diff.renamed.len(), 1);
    assert_eq!((diff.renamed[0].from.as_str(), diff.renamed[0].to.as_str()), ("getTinyImage", "get-tiny-image"));
    // Still a removal: callers of the old name break.
    assert_eq!(diff.count(Class::Breaking), 1);
}

#[test]
fn a_live_server_against_its_own_snapshot_has_no_change() {
    let server = server_command();
    let listed = tooldeck(&["list", "--json", "--mcp", &server]);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed));
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("snapshot.json");
    std::fs::write(&snapshot, &listed.stdout).unwrap();
    let output = tooldeck(&[
        "diff",
        snapshot.to_str().unwrap(),
        "--new-mcp",
        &server,
        "--fail-on",
        "any",
        "--protocol",
        "2025-06-18",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("no changes"), "{}", text(&output));
}

// --- a live MCP server: this test binary again, serving tools with hints over stdio ---

#[derive(Debug, Clone, Default)]
struct HintedServer;

fn schema(value: Value) -> std::sync::Arc<serde_json::Map<String, Value>> {
    std::sync::Arc::new(value.as_object().cloned().unwrap())
}

impl ServerHandler for HintedServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let input = json!({"type": "object", "properties": {"path": {"type": "string", "description": "A file"}}, "required": ["path"]});
        let mut read = Tool::new("read_file", "Read a file", schema(input.clone()))
            .annotate(ToolAnnotations::with_title("Read File").read_only(true));
        read.output_schema = Some(schema(json!({"type": "object", "properties": {"content": {"type": "string"}}})));
        let remove = Tool::new("remove_file", "Remove a file", schema(input))
            .annotate(ToolAnnotations::new().read_only(false).destructive(true));
        Ok(ListToolsResult::with_all_items(vec![read, remove]))
    }
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn diff_meaning_server_mode() {
    stdio_server::serve_if(SERVER_ENV, HintedServer).await;
}

fn server_command() -> String {
    stdio_server::command(SERVER_ENV, "", "diff_meaning::diff_meaning_server_mode")
}

#[path = "support/stdio_server.rs"]
mod stdio_server;
