//! `tooldeck diff`: every class of change (breaking, compatible, docs; outputs the other way
//! round), `$ref` refactors that change nothing, snapshots, a live server, exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use tooldeck::catalog::{Catalog, LoadOptions, load_text};
use tooldeck::diff::{Class, diff_catalogs};

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

fn tool(input: Value) -> Value {
    json!({"tools": [{"name": "search", "description": "Search the catalog", "inputSchema": input}]})
}

fn with_output(output: Value) -> Value {
    json!({"tools": [{"name": "search", "description": "Search the catalog", "inputSchema": {"type": "object"}, "outputSchema": output}]})
}

/// The (class, kind) of every change from `old` to `new`.
fn changes(old: &Value, new: &Value) -> Vec<(Class, &'static str)> {
    let diff = diff_catalogs(&catalog(old), &catalog(new));
    diff.changed.iter().flat_map(|t| &t.changes).map(|c| (c.class, c.kind)).collect()
}

fn only(old: &Value, new: &Value, class: Class, kind: &str) {
    assert_eq!(changes(old, new), vec![(class, kind)], "{old}\n→ {new}");
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

#[test]
fn breaking_changes_for_callers() {
    let base = object(
        json!({"q": {"type": "string"}, "n": {"type": "number", "minimum": 1, "maximum": 100}, "sort": {"type": "string", "enum": ["a", "b"]}}),
        &["q"],
    );
    let change = |f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        tool(v)
    };
    let old = tool(base.clone());
    only(&old, &change(&|v| v["properties"]["x"] = json!({"type": "string"})), Class::Compatible, "property-added");
    let required_new = change(&|v| {
        v["properties"]["x"] = json!({"type": "string"});
        v["required"] = json!(["q", "x"]);
    });
    only(&old, &required_new, Class::Breaking, "required-added");
    only(&old, &change(&|v| v["required"] = json!(["q", "n"])), Class::Breaking, "required");
    only(
        &old,
        &change(&|v| {
            v["properties"].as_object_mut().unwrap().remove("sort");
        }),
        Class::Breaking,
        "property-removed",
    );
    only(&old, &change(&|v| v["properties"]["n"]["type"] = json!("integer")), Class::Breaking, "type");
    only(&old, &change(&|v| v["properties"]["sort"]["enum"] = json!(["a"])), Class::Breaking, "enum-member-removed");
    only(&old, &change(&|v| v["properties"]["n"]["maximum"] = json!(50)), Class::Breaking, "bound");
    only(&old, &change(&|v| v["properties"]["n"]["minimum"] = json!(5)), Class::Breaking, "bound");
    only(&old, &change(&|v| v["additionalProperties"] = json!(false)), Class::Breaking, "closed");
    only(&old, &change(&|v| v["properties"]["q"]["pattern"] = json!("^[a-z]+$")), Class::Breaking, "constraint");
    only(&old, &change(&|v| v["properties"]["n"]["default"] = json!(10)), Class::Breaking, "default");
}

#[test]
fn compatible_changes() {
    let base = object(
        json!({"q": {"type": "string"}, "n": {"type": "integer", "maximum": 100}, "sort": {"type": "string", "enum": ["a", "b"]}}),
        &["q", "n"],
    );
    let change = |f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        tool(v)
    };
    let old = tool(base.clone());
    only(&old, &change(&|v| v["properties"]["n"]["type"] = json!("number")), Class::Compatible, "type");
    only(&old, &change(&|v| v["properties"]["q"]["type"] = json!(["string", "null"])), Class::Compatible, "type");
    only(
        &old,
        &change(&|v| v["properties"]["sort"]["enum"] = json!(["a", "b", "c"])),
        Class::Compatible,
        "enum-member-added",
    );
    only(&old, &change(&|v| v["properties"]["n"]["maximum"] = json!(500)), Class::Compatible, "bound");
    only(&old, &change(&|v| v["required"] = json!(["q"])), Class::Compatible, "required");
    only(&old, &change(&|v| v["properties"]["page"] = json!({"type": "integer"})), Class::Compatible, "property-added");
}

#[test]
fn documentation_changes() {
    let old = tool(object(json!({"q": {"type": "string", "description": "Words"}}), &["q"]));
    only(
        &old,
        &tool(object(json!({"q": {"type": "string", "description": "Words to find"}}), &["q"])),
        Class::Docs,
        "docs",
    );
    let mut new = old.clone();
    new["tools"][0]["description"] = json!("Search the whole catalog by words");
    only(&old, &new, Class::Docs, "docs");
}

#[test]
fn outputs_are_judged_the_other_way_round() {
    let base = json!({"type": "object", "properties": {"items": {"type": "array"}, "total": {"type": "integer"}, "state": {"type": "string", "enum": ["ok", "partial"]}}, "required": ["items", "total"]});
    let change = |f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        with_output(v)
    };
    let old = with_output(base.clone());
    // A removed or loosened output field breaks callers that read it.
    only(
        &old,
        &change(&|v| {
            v["properties"].as_object_mut().unwrap().remove("total");
        }),
        Class::Breaking,
        "property-removed",
    );
    only(&old, &change(&|v| v["required"] = json!(["items"])), Class::Breaking, "required");
    only(&old, &change(&|v| v["properties"]["total"]["type"] = json!(["integer", "null"])), Class::Breaking, "type");
    only(
        &old,
        &change(&|v| v["properties"]["state"]["enum"] = json!(["ok", "partial", "failed"])),
        Class::Breaking,
        "enum-member-added",
    );
    // A narrower output is still what callers handle.
    only(
        &old,
        &change(&|v| v["properties"]["state"]["enum"] = json!(["ok"])),
        Class::Compatible,
        "enum-member-removed",
    );
    only(&old, &change(&|v| v["properties"]["extra"] = json!({"type": "string"})), Class::Compatible, "property-added");
    let mut dropped = old.clone();
    dropped["tools"][0].as_object_mut().unwrap().remove("outputSchema");
    only(&old, &dropped, Class::Breaking, "output-schema-removed");
}

#[test]
fn refactors_that_change_nothing_are_no_change() {
    let inline = tool(json!({"type": "object", "required": ["home", "q"], "properties": {
        "q": {"type": "string"},
        "home": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}}
    }}));
    // Reordered properties and `required`, the address moved into $defs behind a $ref.
    let refactored = tool(json!({"type": "object", "required": ["q", "home"], "properties": {
        "home": {"$ref": "#/$defs/Address"},
        "q": {"type": "string"}
    }, "$defs": {"Address": {"type": "object", "properties": {"zip": {"type": "string"}, "city": {"type": "string"}}}}}));
    assert!(diff_catalogs(&catalog(&inline), &catalog(&refactored)).is_empty());
    // A recursive $ref (kept by the loader) against the same schema written out one level.
    let recursive = tool(
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}),
    );
    assert!(diff_catalogs(&catalog(&recursive), &catalog(&recursive.clone())).is_empty());
}

#[test]
fn tools_added_and_removed() {
    let old = json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}, {"name": "b", "inputSchema": {"type": "object"}}]});
    let new = json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}, {"name": "c", "inputSchema": {"type": "object"}}]});
    let diff = diff_catalogs(&catalog(&old), &catalog(&new));
    assert_eq!(diff.removed, ["a"]);
    assert_eq!(diff.added, ["c"]);
    assert!(diff.changed.is_empty());
    assert_eq!(diff.count(Class::Breaking), 1);
}

// --- the command ---

fn tooldeck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .env("TOOLDECK_CONFIG", "/nonexistent/tooldeck-diff-test.toml")
        .output()
        .expect("the binary runs")
}

fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited normally")
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn exit_codes_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let base = object(json!({"q": {"type": "string", "description": "Words"}}), &["q"]);
    let old = write(dir.path(), "old.json", &tool(base.clone()));
    let docs = write(
        dir.path(),
        "docs.json",
        &tool(object(json!({"q": {"type": "string", "description": "Words to find"}}), &["q"])),
    );
    let mut breaking = base.clone();
    breaking["properties"]["n"] = json!({"type": "integer"});
    breaking["required"] = json!(["q", "n"]);
    let breaking = write(dir.path(), "breaking.json", &tool(breaking));
    let p = |p: &Path| p.to_str().unwrap().to_string();

    let same = tooldeck(&["diff", &p(&old), &p(&old)]);
    assert_eq!(code(&same), 0);
    assert_eq!(text(&same).trim(), "no changes");
    assert_eq!(code(&tooldeck(&["diff", &p(&old), &p(&docs)])), 0);
    assert_eq!(code(&tooldeck(&["diff", &p(&old), &p(&docs), "--fail-on", "any"])), 1);
    let output = tooldeck(&["diff", &p(&old), &p(&breaking)]);
    assert_eq!(code(&output), 1);
    let shown = text(&output);
    assert!(shown.contains("changed: search"), "{shown}");
    assert!(shown.contains("breaking    input: new required parameter \"n\""), "{shown}");
    assert!(shown.lines().last().unwrap().contains("1 breaking"), "{shown}");

    let json: Value = serde_json::from_slice(&tooldeck(&["diff", &p(&old), &p(&breaking), "--json"]).stdout).unwrap();
    assert_eq!(json["summary"]["breaking"], 1);
    assert_eq!(json["changed"][0]["changes"][0]["kind"], "required-added");
    assert_eq!(json["changed"][0]["changes"][0]["pointer"], "/properties/n");

    assert_eq!(code(&tooldeck(&["diff", &p(&old)])), 2);
    assert_eq!(code(&tooldeck(&["diff", &p(&old), &p(&old), "--fail-on", "some"])), 2);
}

#[test]
fn a_list_json_snapshot_is_the_same_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("snapshot.json");
    let listed = tooldeck(&["list", "--json"]);
    std::fs::write(&snapshot, &listed.stdout).unwrap();
    let output = tooldeck(&["diff", "sample-tools", snapshot.to_str().unwrap()]);
    assert_eq!(code(&output), 0, "{}", text(&output));
    assert!(!text(&output).contains("breaking "), "{}", text(&output));
}

#[test]
fn a_server_side_that_cannot_be_reached_is_exit_5_and_named() {
    let output = tooldeck(&["diff", "--old-mcp", "no-such-command-for-tooldeck-diff", "sample-tools"]);
    assert_eq!(code(&output), 5);
    assert!(String::from_utf8_lossy(&output.stderr).contains("the old side"));
    let output = tooldeck(&["diff", "sample-tools", "--new-mcp-url", "http://127.0.0.1:9/mcp"]);
    assert_eq!(code(&output), 5);
    assert!(String::from_utf8_lossy(&output.stderr).contains("the new side"));
}

#[test]
fn a_live_server_against_the_files_it_serves() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let catalog = tooldeck::catalog::load_samples(&LoadOptions::default()).catalog;
    let server = runtime.block_on(tooldeck::invoke::mock::MockServer::start(catalog, 0)).unwrap();
    let url = server.url().to_string();
    let output = tooldeck(&["diff", "sample-tools", "--new-endpoint", &url, "--json"]);
    runtime.block_on(server.shutdown());
    assert_eq!(code(&output), 0, "{}", text(&output));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["summary"]["breaking"], 0, "{json}");
    assert_eq!(json["added"], json!([]));
    assert_eq!(json["removed"], json!([]));
}

/// Two proxy records are two sessions' tools: `diff` compares their last `tools/list` answers,
/// `list` reads one; a record that never listed tools says so.
#[test]
fn records_are_diffed_and_listed_by_their_last_tool_listing() {
    let dir = tempfile::tempdir().unwrap();
    let record = |name: &str, input: Value| {
        let lines = [
            json!({"time": "2026-12-01T10:00:00Z", "from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}),
            json!({"time": "2026-12-01T10:00:01Z", "from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": tool(input)}}),
        ];
        let path = dir.path().join(name);
        std::fs::write(&path, lines.map(|l| l.to_string()).join("\n")).unwrap();
        path.display().to_string()
    };
    let monday = record("monday.jsonl", object(json!({"q": {"type": "string"}}), &[]));
    let tuesday = record("tuesday.jsonl", object(json!({"q": {"type": "string"}}), &["q"]));
    let diffed = tooldeck(&["diff", &monday, &tuesday]);
    let said = String::from_utf8_lossy(&diffed.stdout);
    assert_eq!(diffed.status.code(), Some(1), "a new required parameter breaks: {said}");
    assert!(said.contains("search") && said.contains("q"), "{said}");
    let listed = tooldeck(&["list", &monday]);
    assert!(String::from_utf8_lossy(&listed.stdout).contains("search"), "{listed:?}");
    let empty = dir.path().join("empty.jsonl");
    let line = json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 0, "method": "initialize"}});
    std::fs::write(&empty, line.to_string()).unwrap();
    let refused = tooldeck(&["check", &empty.display().to_string()]);
    let said = format!("{}{}", String::from_utf8_lossy(&refused.stdout), String::from_utf8_lossy(&refused.stderr));
    assert!(said.contains("holds no tools/list answer"), "{refused:?}");
}
