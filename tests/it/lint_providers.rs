//! Lint checks the schema each provider receives (before `$ref` inlining and draft-4 repairs),
//! quotes the provider's own refusal, applies rules only where the format has what they check,
//! and puts the findings that matter first.

use std::process::{Command, Output};

use serde_json::{Value, json};
use tooldeck::catalog::{Catalog, LoadOptions, Syntax, load_text};
use tooldeck::lint::{Finding, Options, Severity, Target, lint_catalog};

fn catalog_of(name: &str, document: &Value) -> Catalog {
    let text = serde_json::to_string_pretty(document).unwrap();
    let (tools, diagnostics) = load_text(name, &text, &LoadOptions::default());
    assert!(diagnostics.iter().all(|d| d.severity != tooldeck::catalog::Severity::Error), "{diagnostics:?}");
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    catalog
}

fn findings(document: &Value, options: &Options) -> Vec<Finding> {
    lint_catalog(&catalog_of("case.json", document), options).findings
}

fn mcp(input: Value) -> Value {
    json!({"tools": [{"name": "fetch", "description": "Fetch a URL from the internet and return its text.", "inputSchema": input}]})
}

fn only(targets: &[Target]) -> Options {
    Options { targets: targets.to_vec(), ..Options::default() }
}

fn find<'a>(found: &'a [Finding], rule: &str) -> Option<&'a Finding> {
    found.iter().find(|f| f.rule == rule)
}

#[test]
fn an_input_schema_without_type_object_is_refused_with_each_providers_words() {
    let found = findings(
        &mcp(json!({"properties": {"url": {"type": "string", "description": "The URL"}}})),
        &Options::default(),
    );
    let anthropic = find(&found, "anthropic/root-type").expect("anthropic/root-type");
    assert!(anthropic.message.contains("input_schema.type: Input should be 'object'"), "{}", anthropic.message);
    let openai = find(&found, "openai/root-type").expect("openai/root-type");
    assert!(openai.message.contains("schema must be a JSON Schema of 'type: \"object\"'"), "{}", openai.message);
    let mcp_rule = find(&found, "mcp/input-root").expect("mcp/input-root");
    assert!(mcp_rule.message.contains("expected \\\"object\\\""), "{}", mcp_rule.message);
    // The same schema with its type is fine.
    let typed =
        findings(&mcp(json!({"type": "object", "properties": {"url": {"type": "string"}}})), &Options::default());
    assert!(find(&typed, "anthropic/root-type").is_none() && find(&typed, "mcp/input-root").is_none());
}

#[test]
fn gemini_string_formats_other_than_enum_and_date_time_are_refused() {
    let input = json!({"type": "object", "properties": {
        "url": {"type": "string", "format": "uri", "description": "URL to fetch"},
        "when": {"type": "string", "format": "date-time", "description": "When"}}, "required": ["url"]});
    let found = findings(&mcp(input), &only(&[Target::Gemini]));
    let format: Vec<&Finding> = found.iter().filter(|f| f.rule == "gemini/format").collect();
    assert_eq!(format.len(), 1, "{found:?}");
    assert!(format[0].message.contains("only 'enum' and 'date-time' are supported for STRING type"));
    assert_eq!(format[0].pointer, "/properties/url/format");
}

#[test]
fn refs_are_checked_as_gemini_receives_them_not_as_tooldeck_inlined_them() {
    let input = json!({"type": "object", "$defs": {"parent": {"type": "object", "properties": {"page_id": {"type": "string"}}}},
        "properties": {"parent": {"$ref": "#/$defs/parent", "description": "Where the page goes"}}, "required": ["parent"]});
    let found = findings(&mcp(input), &only(&[Target::Gemini]));
    let keywords: Vec<&str> = found.iter().filter(|f| f.rule == "gemini/keyword").map(|f| f.message.as_str()).collect();
    assert!(keywords.iter().any(|m| m.contains("`$defs`") && m.contains("Unknown name \"$defs\"")), "{keywords:?}");
    assert!(keywords.iter().any(|m| m.contains("`$ref`")), "{keywords:?}");
}

#[test]
fn strict_mode_refuses_untyped_nodes_and_empty_items() {
    let input = json!({"type": "object", "additionalProperties": false, "required": ["tags"],
        "properties": {"tags": {"type": "array", "items": {}, "description": "Tags"}}});
    let found = findings(&mcp(input), &only(&[Target::OpenAiStrict]));
    let untyped = find(&found, "openai-strict/untyped").expect("openai-strict/untyped");
    assert_eq!(untyped.pointer, "/properties/tags/items");
    assert!(untyped.message.contains("schema must have a 'type' key"));
}

#[test]
fn draft_4_forms_are_anthropic_and_strict_findings_not_only_load_warnings() {
    let input = json!({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "description": "How many"},
        "q": {"type": "string", "required": true, "description": "What"}}});
    let found = findings(&mcp(input), &only(&[Target::Anthropic, Target::OpenAiStrict]));
    let anthropic: Vec<&Finding> = found.iter().filter(|f| f.rule == "anthropic/draft4").collect();
    assert_eq!(anthropic.len(), 2, "{found:?}");
    assert!(anthropic.iter().all(|f| f.message.contains("It must match JSON Schema draft 2020-12")));
    assert!(find(&found, "openai-strict/draft4").is_some());
}

#[test]
fn a_tool_that_asks_for_strict_mode_has_its_strict_findings_as_errors() {
    let document = |strict: bool| {
        json!([{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city, now.",
            "strict": strict, "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City"}}}}}])
    };
    let strict = findings(&document(true), &Options::default());
    let open = find(&strict, "openai-strict/open-object").expect("open-object");
    assert_eq!(open.severity, Severity::Error);
    let relaxed = findings(&document(false), &Options::default());
    assert_eq!(find(&relaxed, "openai-strict/open-object").map(|f| f.severity), Some(Severity::Warning));
}

#[test]
fn strict_and_parameters_only_findings_are_one_note_per_catalog_unless_all() {
    let tool = |name: &str| {
        json!({"name": name, "description": "Search the product catalog by text and price.", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"q": {"type": "string", "description": "Words to match, e.g. 'red shoes'"}}, "required": ["q"]}})
    };
    let document = json!({"tools": [tool("a"), tool("b"), tool("c")]});
    let summarised = findings(&document, &Options { summarise: true, ..Options::default() });
    let open: Vec<&Finding> = summarised.iter().filter(|f| f.rule == "openai-strict/open-object").collect();
    assert_eq!(open.len(), 1, "{summarised:?}");
    assert_eq!(open[0].severity, Severity::Note);
    assert!(open[0].message.starts_with("3 tools"), "{}", open[0].message);
    assert_eq!(summarised.iter().filter(|f| f.rule == "gemini/json-schema-only").count(), 1);
    let listed = findings(&document, &Options::default());
    assert_eq!(listed.iter().filter(|f| f.rule == "openai-strict/open-object").count(), 3);
}

#[test]
fn a_server_that_lists_properties_alphabetically_gets_one_note() {
    let tool = |name: &str| {
        json!({"name": name, "description": "Search the product catalog by text and price.", "inputSchema": {
        "type": "object", "properties": {
            "limit": {"type": "integer", "description": "How many results to return at most (default 10)"},
            "query": {"type": "string", "description": "Words to match, e.g. 'red shoes'"}}, "required": ["query"]}})
    };
    let document = json!({"tools": [tool("a"), tool("b"), tool("c")]});
    let found = findings(&document, &Options::default());
    let order: Vec<&Finding> = found.iter().filter(|f| f.rule == "tips/required-after-optional").collect();
    assert_eq!(order.len(), 1, "{found:?}");
    assert_eq!(order[0].severity, Severity::Note);
    assert!(order[0].message.contains("alphabetical"));
}

#[test]
fn default_null_is_a_warning_with_the_fix() {
    let input = json!({"type": "object", "properties": {"q": {"type": "string", "default": null, "description": "Words to match"}}});
    let found = findings(&mcp(input), &Options::default());
    let null = find(&found, "schema/null-default").expect("schema/null-default");
    assert_eq!(null.severity, Severity::Warning);
    assert!(null.fix.contains("drop"));
    assert!(find(&found, "schema/invalid-default").is_none());
}

#[test]
fn mcp_output_rules_apply_to_mcp_tools_only() {
    let otc = json!({"id": "Calc.Add@1.0.0", "name": "Add", "description": "Add two numbers and return the sum of both.",
        "version": "1.0.0", "input_schema": {"type": "object", "properties": {}}, "output_schema": {"type": "number"}});
    assert!(find(&findings(&otc, &Options::default()), "mcp/output-root").is_none());
    let mcp_tool = json!({"tools": [{"name": "add", "description": "Add two numbers and return the sum of both.",
        "inputSchema": {"type": "object"}, "outputSchema": {"type": "number"}}]});
    assert!(find(&findings(&mcp_tool, &Options::default()), "mcp/output-root").is_some());
}

#[test]
fn arcade_tools_are_named_as_the_model_sees_them_and_have_no_default_rule() {
    let arcade = json!({"name": "Say Hello", "fully_qualified_name": "Greeter.Say Hello@1.0.0",
        "description": "Say hello to someone by name, politely.",
        "toolkit": {"name": "Greeter", "version": "1.0.0"},
        "input": {"parameters": [{"name": "who", "required": false,
            "description": "Who to greet (default: world)", "value_schema": {"val_type": "string"}}]}});
    let found = findings(&arcade, &only(&[Target::OpenAi]));
    let name = find(&found, "openai/name").expect("openai/name");
    assert!(name.message.contains("Greeter_Say Hello"), "{}", name.message);
    assert!(find(&found, "schema/description-default").is_none(), "{found:?}");
}

#[test]
fn names_made_up_from_file_names_get_no_name_rules() {
    let text = "{ city: \"\", year: NaN }";
    let (tools, _) =
        load_text("weird name!.json5", text, &LoadOptions { syntax: Syntax::Json5, ..LoadOptions::default() });
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    let found = lint_catalog(&catalog, &Options::default()).findings;
    assert!(!found.iter().any(|f| f.rule.ends_with("/name")), "{found:?}");
}

#[test]
fn lint_all_lists_what_the_default_summarises() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.json");
    let tool = |name: &str| {
        json!({"name": name, "description": "Search the product catalog by text and price.", "inputSchema": {
        "type": "object", "properties": {"q": {"type": "string", "description": "Words to match, e.g. 'red shoes'"}}, "required": ["q"]}})
    };
    std::fs::write(&path, json!({"tools": [tool("a"), tool("b")]}).to_string()).unwrap();
    let run = |extra: &[&str]| -> Output {
        let mut args = vec!["lint", "--json", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(&args)
            .env("TOOLDECK_CONFIG", "/nonexistent/tooldeck-lint-test.toml")
            .output()
            .unwrap()
    };
    let count = |output: &Output| {
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "openai-strict/open-object").count()
    };
    assert_eq!(count(&run(&[])), 1);
    assert_eq!(count(&run(&["--all"])), 2);
}
