use super::common::*;
use serde_json::json;
use tooldeck::catalog::Format;

/// The marketplace schema guide's "Example: full schema", verbatim inside braces (it is JavaScript, so JSON5).
const FULL_SCHEMA: &str = r#"{
capabilities: {
search: {
description: "Search for information and return a summary.",
pricing: { model: "per_job", amount: "0.05", currency: "USDC" },
input_schema: {
query: {
type: "string",
required: true,
description: "What to search for",
minLength: 3,
maxLength: 500,
},
limit: {
type: "number",
required: false,
default: 5,
description: "Max results",
min: 1,
max: 20,
},
},
output_schema: {
summary: {
type: "string",
description: "Concise summary of findings",
},
sources: {
type: "array",
description: "URLs consulted",
},
resultCount: {
type: "number",
description: "Total number of results found",
},
},
},
}
}"#;

#[test]
fn marketplace_guide_search_capability() {
    let tool = one("agent.capabilities.json5", FULL_SCHEMA);
    assert_eq!(tool.id, "search");
    assert_eq!(tool.name, "search");
    assert_eq!(tool.format, Format::Marketplace);
    assert_eq!(tool.description.as_deref(), Some("Search for information and return a summary."));
    assert_eq!(tool.source.line, 3);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to search for", "minLength": 3, "maxLength": 500},
                "limit": {"type": "number", "default": 5, "description": "Max results", "minimum": 1, "maximum": 20}
            },
            "required": ["query"]
        })
    );
    assert_eq!(
        tool.output_schema,
        Some(json!({
            "type": "object",
            "properties": {
                "summary": {"type": "string", "description": "Concise summary of findings"},
                "sources": {"type": "array", "description": "URLs consulted"},
                "resultCount": {"type": "number", "description": "Total number of results found"}
            },
            "required": []
        }))
    );
}

/// The marketplace schema guide's "Declaring a field" block as a capability of its own, named after the file.
#[test]
fn marketplace_guide_declaring_a_field() {
    let text = r#"{
input_schema: {
query: {
type: "string", // required
required: true, // fails if missing
description: "Search term", // shown in marketplace UI
minLength: 3,
maxLength: 500,
},
limit: {
type: "number",
required: false,
default: 10, // used if field is absent
min: 1,
max: 100,
},
format: {
type: "string",
required: false,
enum: ["json", "text", "markdown"], // allowed values only
default: "json",
},
}
}"#;
    let tool = one("lookup.json5", text);
    assert_eq!(tool.name, "lookup");
    assert_eq!(tool.format, Format::Marketplace);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Search term", "minLength": 3, "maxLength": 500},
                "limit": {"type": "number", "default": 10, "minimum": 1, "maximum": 100},
                "format": {"type": "string", "enum": ["json", "text", "markdown"], "default": "json"}
            },
            "required": ["query"]
        })
    );
}

#[test]
fn several_capabilities_in_order_with_lines() {
    let text = r#"{
  "capabilities": {
    "summarize": {
      "description": "Summarize text",
      "input_schema": {"text": {"type": "string", "required": true}}
    },
    "translate": {
      "input_schema": {"text": {"type": "string", "required": true}, "to": {"type": "string", "enum": ["en", "fr"], "default": "en"}}
    }
  }
}"#;
    let tools = clean("agent.json", text);
    assert_eq!(ids(&tools), ["summarize", "translate"]);
    assert_eq!(
        tools[1].input_schema,
        json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "to": {"type": "string", "enum": ["en", "fr"], "default": "en"}},
            "required": ["text"]
        })
    );
    assert_eq!((tools[0].source.line, tools[1].source.line), (3, 7));
}

/// A capability that carries a `version` is still a marketplace capability: its field map
/// must not be taken for an OTC JSON Schema (which silently drops every field).
#[test]
fn capability_with_a_version() {
    let text = r#"{"name": "lookup", "version": "1.0.0", "description": "d",
  "input_schema": {"query": {"type": "string", "required": true, "minLength": 3}}}"#;
    let (tools, diagnostics) = load("lookup.json", text);
    assert_eq!(ids(&tools), ["lookup"], "{diagnostics:#?}");
    assert_eq!(
        tools[0].input_schema,
        json!({"type": "object", "properties": {"query": {"type": "string", "minLength": 3}}, "required": ["query"]})
    );
}

/// A field map whose fields happen to be named like JSON Schema keywords (`items`, `enum`)
/// is still a field map: each field's value is a field declaration, not a keyword's value.
#[test]
fn field_named_like_a_keyword() {
    let text = r#"{
  "capabilities": {
    "invoice": {
      "input_schema": {
        "customer": {"type": "string", "required": true},
        "items": {"type": "array", "required": true, "description": "Line items"}
      }
    }
  }
}"#;
    let (tools, diagnostics) = load("invoice.json", text);
    assert!(errors(&diagnostics).is_empty(), "{diagnostics:#?}");
    assert_eq!(ids(&tools), ["invoice"]);
    assert_eq!(
        tools[0].input_schema,
        json!({
            "type": "object",
            "properties": {
                "customer": {"type": "string"},
                "items": {"type": "array", "description": "Line items"}
            },
            "required": ["customer", "items"]
        })
    );
}
