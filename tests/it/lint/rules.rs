//! Every lint rule with a definition that breaks it and one that does not.

use serde_json::{Value, json};
use tooldeck::catalog::{LoadOptions, Tool, load_text};
use tooldeck::lint::{Options, RULES, Severity, Target, lint_catalog, lint_tool};

/// The tools of one definition document (MCP `tools/list` shape unless it says otherwise).
pub fn tools(document: &Value) -> Vec<Tool> {
    let text = serde_json::to_string_pretty(document).unwrap();
    let (tools, diagnostics) = load_text("case.json", &text, &LoadOptions::default());
    assert!(diagnostics.iter().all(|d| d.severity != tooldeck::catalog::Severity::Error), "{diagnostics:?}");
    tools
}

/// A tool that follows every tip: the base each case changes one thing in.
fn tool(name: &str, input: Value) -> Value {
    json!({
        "name": name,
        "description": "Search the product catalog by text and return the matching products with their prices.",
        "inputSchema": input,
    })
}

fn params(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn query() -> Value {
    json!({"type": "string", "description": "Words to match in product names, e.g. 'red shoes'"})
}

fn rules_of(document: &Value, options: &Options) -> Vec<&'static str> {
    let tools = tools(document);
    let mut catalog = tooldeck::catalog::Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    let mut findings = lint_catalog(&catalog, options).findings;
    // The apps rules that need a server's resources: as if it served these two.
    use tooldeck::lint::apps::{Served, check_resources};
    let served = [
        Served { uri: "ui://shop/view".into(), mime_type: Some("text/html;profile=mcp-app".into()) },
        Served { uri: "ui://shop/plain".into(), mime_type: Some("text/html".into()) },
    ];
    findings.extend(check_resources(catalog.tools(), &served, options));
    findings.into_iter().map(|f| f.rule).collect()
}

/// A tool that follows every tip, with an app view at `uri` seen by `visibility`.
fn app(uri: &str, visibility: Value) -> Value {
    let mut app = tool("shop_search", params(json!({"query": query()}), &["query"]));
    app["_meta"] = json!({"ui": {"resourceUri": uri, "visibility": visibility}});
    app
}

fn one(tool: Value) -> Value {
    json!({"tools": [tool]})
}

struct Case {
    rule: &'static str,
    bad: Value,
    good: Value,
}

fn case(rule: &'static str, bad: Value, good: Value) -> Case {
    Case { rule, bad, good }
}

// A table, one bad and one good definition per rule: it grows with the rules, not with logic.
#[allow(clippy::too_many_lines)]
fn cases() -> Vec<Case> {
    let many = |name: &str| {
        (0..129)
            .map(|i| tool(&format!("{name}_{i}"), params(json!({"query": query()}), &["query"])))
            .collect::<Vec<_>>()
    };
    let enum_values: Vec<String> = (0..1001).map(|i| format!("value_{i}")).collect();
    vec![
        case(
            "tips/required-after-optional",
            one(tool(
                "s",
                params(
                    json!({"limit": {"type": "integer", "description": "Most results to return", "default": 10}, "query": query()}),
                    &["query"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"query": query(), "limit": {"type": "integer", "description": "Most results to return", "default": 10}}),
                    &["query"],
                ),
            )),
        ),
        case(
            "tips/undocumented-optional",
            one(tool("s", params(json!({"limit": {"type": "integer", "description": "Most results to return"}}), &[]))),
            one(tool(
                "s",
                params(
                    json!({"limit": {"type": "integer", "description": "Most results to return (defaults to 20)"}}),
                    &[],
                ),
            )),
        ),
        case(
            "tips/opaque-enum",
            one(tool(
                "s",
                params(
                    json!({"priority": {"type": "integer", "enum": [1, 2, 3], "description": "Ticket priority"}}),
                    &["priority"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"priority": {"type": "integer", "enum": [1, 2, 3], "description": "Ticket priority: 1 = low, 2 = normal, 3 = urgent"}}),
                    &["priority"],
                ),
            )),
        ),
        case(
            "tips/missing-description",
            one(tool("s", params(json!({"query": {"type": "string"}}), &["query"]))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "tips/short-description",
            one(tool("s", params(json!({"query": {"type": "string", "description": "Search query"}}), &["query"]))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "tips/deep-nesting",
            one(tool(
                "s",
                params(
                    json!({"a": {"type": "object", "description": "Level one", "additionalProperties": false, "properties": {"b": {"type": "object", "description": "Level two", "additionalProperties": false, "properties": {"c": {"type": "object", "description": "Level three", "additionalProperties": false, "properties": {"d": query()}, "required": ["d"]}}, "required": ["c"]}}, "required": ["b"]}}),
                    &["a"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"a": {"type": "object", "description": "Level one", "additionalProperties": false, "properties": {"b": {"type": "object", "description": "Level two", "additionalProperties": false, "properties": {"d": query()}, "required": ["d"]}}, "required": ["b"]}}),
                    &["a"],
                ),
            )),
        ),
        case(
            "schema/invalid-default",
            one(tool(
                "s",
                params(
                    json!({"page": {"type": "integer", "minimum": 1, "default": 0, "description": "Page of results"}}),
                    &[],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"page": {"type": "integer", "minimum": 1, "default": 1, "description": "Page of results"}}),
                    &[],
                ),
            )),
        ),
        case(
            "schema/invalid-example",
            one(tool(
                "s",
                params(
                    json!({"zip": {"type": "string", "pattern": "^[0-9]{5}$", "examples": ["abcde"], "description": "Five-digit US ZIP code"}}),
                    &["zip"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"zip": {"type": "string", "pattern": "^[0-9]{5}$", "examples": ["02139"], "description": "Five-digit US ZIP code"}}),
                    &["zip"],
                ),
            )),
        ),
        case(
            "schema/invalid-enum",
            one(tool(
                "s",
                params(
                    json!({"sort": {"type": "string", "enum": ["price", 5], "description": "Order of the results by price or name"}}),
                    &["sort"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"sort": {"type": "string", "enum": ["price", "name"], "description": "Order of the results by price or name"}}),
                    &["sort"],
                ),
            )),
        ),
        case(
            "schema/description-default",
            one(tool(
                "s",
                params(
                    json!({"limit": {"type": "integer", "default": 30, "description": "Most results to return (default: 20)"}}),
                    &[],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"limit": {"type": "integer", "default": 20, "description": "Most results to return (default: 20)"}}),
                    &[],
                ),
            )),
        ),
        case(
            "schema/required-missing",
            one(tool("s", params(json!({"query": query()}), &["query", "qeury"]))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "schema/min-above-max",
            one(tool(
                "s",
                params(
                    json!({"n": {"type": "integer", "minimum": 10, "maximum": 1, "description": "How many products to return"}}),
                    &["n"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"n": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many products to return"}}),
                    &["n"],
                ),
            )),
        ),
        case(
            "schema/invalid-pattern",
            one(tool(
                "s",
                params(
                    json!({"sku": {"type": "string", "pattern": "^(?P<sku>[A-Z]+)$", "description": "Stock keeping unit, e.g. ABC"}}),
                    &["sku"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"sku": {"type": "string", "pattern": "^(?<sku>[A-Z]+)$", "description": "Stock keeping unit, e.g. ABC"}}),
                    &["sku"],
                ),
            )),
        ),
        case(
            "schema/unknown-format",
            one(tool(
                "s",
                params(
                    json!({"at": {"type": "string", "format": "datetime", "description": "When the order was placed"}}),
                    &["at"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"at": {"type": "string", "format": "date-time", "description": "When the order was placed"}}),
                    &["at"],
                ),
            )),
        ),
        case(
            "schema/open-object",
            one(tool(
                "s",
                params(
                    json!({"filters": {"type": "object", "description": "Filters on product fields"}}),
                    &["filters"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"filters": {"type": "object", "description": "Filters on product fields", "additionalProperties": {"type": "string"}}}),
                    &["filters"],
                ),
            )),
        ),
        case(
            "catalog/duplicate-name",
            json!({"tools": [tool("search", params(json!({}), &[])), tool("search", params(json!({}), &[]))]}),
            json!({"tools": [tool("search", params(json!({}), &[])), tool("find", params(json!({}), &[]))]}),
        ),
        case(
            "catalog/name-collision",
            json!({"tools": [tool("shop.search", params(json!({}), &[])), tool("shop_search", params(json!({}), &[]))]}),
            json!({"tools": [tool("shop_search", params(json!({}), &[])), tool("shop_find", params(json!({}), &[]))]}),
        ),
        case(
            "openai/name",
            one(tool("shop search", params(json!({}), &[]))),
            one(tool("shop_search", params(json!({}), &[]))),
        ),
        case(
            "schema/null-default",
            one(tool(
                "s",
                params(json!({"note": {"type": "string", "default": null, "description": "A note to add"}}), &[]),
            )),
            one(tool("s", params(json!({"note": {"type": "string", "description": "A note to add"}}), &[]))),
        ),
        case(
            "gemini/format",
            one(tool(
                "s",
                params(
                    json!({"url": {"type": "string", "format": "uri", "description": "The page to fetch"}}),
                    &["url"],
                ),
            )),
            one(tool(
                "s",
                params(json!({"url": {"type": "string", "description": "The page to fetch, a URI"}}), &["url"]),
            )),
        ),
        case(
            "mcp/input-root",
            one(tool("s", json!({"properties": {"query": query()}, "required": ["query"]}))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "openai/root-type",
            one(tool("s", json!({"properties": {"query": query()}, "required": ["query"]}))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "anthropic/root-type",
            one(tool("s", json!({"properties": {"query": query()}, "required": ["query"]}))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "openai-strict/untyped",
            one(tool("s", params(json!({"query": {"description": "Words to match in product names"}}), &["query"]))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "openai-strict/draft4",
            one(tool(
                "s",
                params(
                    json!({"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "description": "How many, above zero"}}),
                    &["n"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"n": {"type": "number", "exclusiveMinimum": 0, "description": "How many, above zero"}}),
                    &["n"],
                ),
            )),
        ),
        case(
            "anthropic/draft4",
            one(tool(
                "s",
                params(
                    json!({"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "description": "How many, above zero"}}),
                    &["n"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"n": {"type": "number", "exclusiveMinimum": 0, "description": "How many, above zero"}}),
                    &["n"],
                ),
            )),
        ),
        case(
            "gemini/json-schema-only",
            one(tool("s", params(json!({"query": query()}), &["query"]))),
            one(tool("s", json!({"type": "object", "properties": {"query": query()}, "required": ["query"]}))),
        ),
        case("openai/too-many-tools", json!({"tools": many("s")}), json!({"tools": many("s")[..128]})),
        case(
            "openai-strict/optional-property",
            one(tool("s", json!({"type": "object", "properties": {"query": query()}, "additionalProperties": false}))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "openai-strict/open-object",
            one(tool("s", json!({"type": "object", "properties": {"query": query()}, "required": ["query"]}))),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "openai-strict/keyword",
            one(tool(
                "s",
                params(
                    json!({"query": {"type": "string", "minLength": 1, "description": "Words to match, e.g. 'red shoes'"}}),
                    &["query"],
                ),
            )),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
        case(
            "openai-strict/root",
            one(tool(
                "s",
                json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": query(), "b": query()}}),
            )),
            one(tool("s", params(json!({"a": query(), "b": query()}), &["a", "b"]))),
        ),
        case(
            "openai-strict/format",
            one(tool(
                "s",
                params(
                    json!({"url": {"type": "string", "format": "uri", "description": "Page to fetch, e.g. https://example.com"}}),
                    &["url"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"day": {"type": "string", "format": "date", "description": "Day of the order, e.g. 2024-05-01"}}),
                    &["day"],
                ),
            )),
        ),
        case(
            "openai-strict/limits",
            one(tool(
                "s",
                params(
                    json!({"v": {"type": "string", "enum": enum_values, "description": "One of the catalog's value names"}}),
                    &["v"],
                ),
            )),
            one(tool(
                "s",
                params(
                    json!({"v": {"type": "string", "enum": enum_values[..1000], "description": "One of the catalog's value names"}}),
                    &["v"],
                ),
            )),
        ),
        case(
            "anthropic/name",
            one(tool("shop.search", params(json!({}), &[]))),
            one(tool("shop-search", params(json!({}), &[]))),
        ),
        case(
            "anthropic/root",
            one(tool(
                "s",
                json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": query(), "b": query()}}),
            )),
            one(tool("s", params(json!({"a": query(), "b": query()}), &["a"]))),
        ),
        case(
            "gemini/name",
            one(tool("shop/search", params(json!({}), &[]))),
            one(tool("shop.search:v2", params(json!({}), &[]))),
        ),
        case(
            "gemini/keyword",
            one(tool(
                "s",
                json!({"type": "object", "properties": {"query": query()}, "required": ["query"], "patternProperties": {"^x-": {"type": "string"}}}),
            )),
            one(tool("s", json!({"type": "object", "properties": {"query": query()}, "required": ["query"]}))),
        ),
        case(
            "gemini/type-list",
            one(tool(
                "s",
                json!({"type": "object", "properties": {"note": {"type": ["string", "null"], "description": "A note for the courier"}}}),
            )),
            one(tool(
                "s",
                json!({"type": "object", "properties": {"note": {"type": "string", "nullable": true, "description": "A note for the courier"}}}),
            )),
        ),
        case(
            "gemini/enum",
            one(tool(
                "s",
                json!({"type": "object", "properties": {"size": {"type": "integer", "enum": [10, 20], "description": "Page size: 10 or 20"}}, "required": ["size"]}),
            )),
            one(tool(
                "s",
                json!({"type": "object", "properties": {"size": {"type": "string", "enum": ["10", "20"], "description": "Page size: 10 or 20"}}, "required": ["size"]}),
            )),
        ),
        case(
            "mcp/name",
            one(tool("shop search", params(json!({}), &[]))),
            one(tool("shop.search", params(json!({}), &[]))),
        ),
        case(
            "mcp/output-root",
            one(
                json!({"name": "s", "description": "Count the products in the catalog that match a text.", "inputSchema": params(json!({}), &[]), "outputSchema": {"type": "number"}}),
            ),
            one(
                json!({"name": "s", "description": "Count the products in the catalog that match a text.", "inputSchema": params(json!({}), &[]), "outputSchema": {"type": "object", "properties": {"count": {"type": "number"}}}}),
            ),
        ),
        case(
            "apps/resource-scheme",
            one(app("https://shop/view", json!(["model"]))),
            one(app("ui://shop/view", json!(["model"]))),
        ),
        case(
            "apps/legacy-key",
            one({
                let mut legacy = tool("shop_search", params(json!({"query": query()}), &["query"]));
                legacy["_meta"] = json!({"ui/resourceUri": "ui://shop/view"});
                legacy
            }),
            one(app("ui://shop/view", json!(["model", "app"]))),
        ),
        case(
            "apps/visibility",
            one(app("ui://shop/view", json!(["user"]))),
            one(app("ui://shop/view", json!(["app"]))),
        ),
        case("apps/app-only", one(app("ui://shop/view", json!(["app"]))), one(app("ui://shop/view", json!(["model"])))),
        case(
            "apps/missing-resource",
            one(app("ui://shop/none", json!(["model"]))),
            one(app("ui://shop/view", json!(["model"]))),
        ),
        case(
            "apps/resource-mime",
            one(app("ui://shop/plain", json!(["model"]))),
            one(app("ui://shop/view", json!(["model"]))),
        ),
        case(
            "cost/large-tool",
            one(
                json!({"name": "s", "description": "Search the catalog. ".repeat(400), "inputSchema": params(json!({}), &[])}),
            ),
            one(tool("s", params(json!({"query": query()}), &["query"]))),
        ),
    ]
}

#[test]
fn every_rule_has_a_failing_and_a_passing_definition() {
    let cases = cases();
    for rule in RULES {
        assert!(cases.iter().any(|c| c.rule == rule.id), "no case for {}", rule.id);
    }
    let options = Options::default();
    for case in &cases {
        let bad = rules_of(&case.bad, &options);
        assert!(bad.contains(&case.rule), "{}: the failing definition is not reported; found {bad:?}", case.rule);
        let good = rules_of(&case.good, &options);
        assert!(!good.contains(&case.rule), "{}: the passing definition is reported", case.rule);
    }
}

#[test]
fn pie_guidance_own_bad_and_good_descriptions() {
    // PIE's tool-parameter guidance: "Search query" is its example of a bad description, the Gmail syntax one of a good.
    let bad = one(tool("s", params(json!({"query": {"type": "string", "description": "Search query"}}), &["query"])));
    let good = one(tool(
        "s",
        params(
            json!({"query": {"type": "string", "description": "Gmail search query using Gmail's search syntax (e.g., 'from:[email protected] subject:meeting newer_than:7d')"}}),
            &["query"],
        ),
    ));
    assert!(rules_of(&bad, &Options::default()).contains(&"tips/short-description"));
    assert!(!rules_of(&good, &Options::default()).contains(&"tips/short-description"));
}

#[test]
fn severities_follow_targets_and_the_users_patterns() {
    let dotted = tools(&one(tool("shop.search", params(json!({}), &[]))));
    let severity = |options: &Options, rule: &str| {
        lint_tool(&dotted[0], options).into_iter().find(|f| f.rule == rule).map(|f| f.severity)
    };
    let all = Options::default();
    assert_eq!(severity(&all, "openai/name"), Some(Severity::Warning));
    let openai = Options { targets: vec![Target::OpenAi], targets_chosen: true, ..Options::default() };
    assert_eq!(severity(&openai, "openai/name"), Some(Severity::Error));
    assert_eq!(severity(&openai, "anthropic/name"), None, "only the targets named are checked");
    let off = Options { off: vec!["openai".into()], ..Options::default() };
    assert_eq!(severity(&off, "openai/name"), None);
    let raised = Options { error: vec!["anthropic/*".into()], ..Options::default() };
    assert_eq!(severity(&raised, "anthropic/name"), Some(Severity::Error));
}

#[test]
fn descriptions_that_document_absence_or_explain_codes_are_left_alone() {
    let fine = one(tool(
        "s",
        params(
            json!({
                "query": query(),
                "state": {"type": "string", "enum": ["open", "closed", "all"], "description": "Which issues to list; all when omitted"},
                "body": {"type": "string", "description": "Text of the comment, in Markdown"},
                "after_id": {"type": "integer", "description": "Cursor from a previous page"},
                "verbose": {"type": "boolean", "description": "Whether to include each product's full description"},
                "unit": {"type": "string", "enum": ["C", "F"], "description": "Unit: C for Celsius, F for Fahrenheit", "default": "C"},
            }),
            &["query"],
        ),
    ));
    let found = rules_of(&fine, &Options::default());
    for rule in ["tips/undocumented-optional", "tips/opaque-enum", "tips/missing-description", "tips/short-description"]
    {
        assert!(!found.contains(&rule), "{rule} in {found:?}");
    }
}

#[test]
fn a_refactor_into_refs_lints_like_the_inline_schema() {
    let inline = one(tool(
        "s",
        params(
            json!({"home": {"type": "object", "description": "Home address", "properties": {"city": {"type": "string"}}}}),
            &["home"],
        ),
    ));
    let with_ref = one(tool(
        "s",
        json!({"type": "object", "additionalProperties": false, "required": ["home"], "properties": {"home": {"$ref": "#/$defs/Address", "description": "Home address"}}, "$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}}}),
    ));
    let mut a = rules_of(&inline, &Options::default());
    let mut b = rules_of(&with_ref, &Options::default());
    // Gemini sees the refs as they are sent, and refuses `$ref` and `$defs`: those findings are
    // the refactor's own; every other rule reads both the same.
    assert_eq!(b.iter().filter(|r| **r == "gemini/keyword").count(), 2, "{b:?}");
    b.retain(|r| *r != "gemini/keyword");
    a.sort();
    b.sort();
    assert_eq!(a, b);
}
