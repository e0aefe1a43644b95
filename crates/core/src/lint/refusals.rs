//! What Anthropic, Gemini, OpenAI (outside strict mode) and MCP clients refuse in a tool's
//! schemas, checked on the schema as it is sent: before tooldeck inlines `$ref`s or reads
//! draft-4 forms as 2020-12. Each finding quotes the error the provider answers with.

use serde_json::Value;

use super::grouped::Grouped;
use super::walk::{Visit, walk};
use super::{Part, Sink};
use crate::catalog::Format;

/// A root that says it is an object; a type name the loader reads as `object` (`dict`, `map`)
/// was already reported when the file loaded, so it is not reported again here.
fn object_root(root: &Value) -> bool {
    match root.get("type") {
        Some(Value::String(t)) => t == "object" || !crate::catalog::schema::is_json_type(t),
        _ => false,
    }
}

/// Anthropic's answer to a schema that is not valid 2020-12 JSON Schema.
const ANTHROPIC_INVALID: &str = "input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12";

pub fn anthropic(sink: &mut Sink) {
    let root = sink.tool.sent_input_schema();
    if sink.on("anthropic/root") {
        let found: Vec<&str> = ["oneOf", "allOf", "anyOf"].into_iter().filter(|k| root.get(*k).is_some()).collect();
        if let Some(first) = found.first() {
            sink.push(
                "anthropic/root",
                Part::Input,
                &format!("/{first}"),
                format!("the input schema has `{}` at its top level, which Claude's API refuses (\"input_schema does not support oneOf, allOf, or anyOf at the top level\")", found.join("`, `")),
                "move the alternatives into the properties, or check the combination in the tool itself".into(),
            );
        }
    }
    if sink.on("anthropic/root-type") && !object_root(root) {
        let shown = root.get("type").map_or_else(|| "no `type`".to_string(), |t| format!("type {t}"));
        sink.push(
            "anthropic/root-type",
            Part::Input,
            "",
            format!("the input schema has {shown}; Claude's API refuses it (\"input_schema.type: Input should be 'object'\")"),
            "add \"type\": \"object\" at the top of the input schema".into(),
        );
    }
    draft4(sink, "anthropic/draft4", &format!("Claude's API refuses it (\"{ANTHROPIC_INVALID}\")"));
}

/// Draft 4's `exclusiveMinimum: true` and a property's own `required: true`: tooldeck reads them
/// as meant, but a provider that validates against 2020-12 refuses the schema.
pub fn draft4(sink: &mut Sink, rule: &'static str, consequence: &str) {
    if !sink.on(rule) {
        return;
    }
    let mut found = Grouped::default();
    walk(sink.tool.sent_input_schema(), &mut |visit: &Visit| {
        for keyword in ["exclusiveMinimum", "exclusiveMaximum"] {
            if visit.schema.get(keyword).is_some_and(Value::is_boolean) {
                found.add(&format!("`{keyword}: true|false`"), &format!("{}/{keyword}", visit.pointer));
            }
        }
        if visit.property.is_some() && visit.schema.get("required").is_some_and(Value::is_boolean) {
            found.add("`required: true|false` inside a property", &format!("{}/required", visit.pointer));
        }
    });
    for (form, pointer, n) in found.seen {
        sink.push(
            rule,
            Part::Input,
            &pointer,
            format!("{form}{} is draft-4 JSON Schema; {consequence}", Grouped::places(n)),
            "write the 2020-12 form: `exclusiveMinimum: N` in place of `minimum: N` + `exclusiveMinimum: true`; list required properties in the object's `required`".into(),
        );
    }
}

/// OpenAI's answer to a parameters schema that is not an object.
pub fn openai_root(sink: &mut Sink) {
    let root = sink.tool.sent_input_schema();
    if !sink.on("openai/root-type") || object_root(root) {
        return;
    }
    let got = root.get("type").and_then(Value::as_str).unwrap_or("None");
    sink.push(
        "openai/root-type",
        Part::Input,
        "",
        format!("the parameters are not declared an object; OpenAI refuses them (\"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{got}\"'\")"),
        "add \"type\": \"object\" at the top of the parameters".into(),
    );
}

/// MCP's `inputSchema` and `outputSchema` are object schemas: only for tools an MCP server lists.
pub fn mcp(sink: &mut Sink) {
    if sink.tool.format != Format::Mcp {
        return;
    }
    let root = sink.tool.sent_input_schema();
    if sink.on("mcp/input-root") && !object_root(root) {
        let shown = root.get("type").map_or_else(|| "no `type`".to_string(), |t| format!("type {t}"));
        sink.push(
            "mcp/input-root",
            Part::Input,
            "",
            format!("the inputSchema has {shown}; MCP requires `\"type\": \"object\"`, and the TypeScript SDK's client refuses the tool list (\"inputSchema.type: Invalid literal value, expected \\\"object\\\"\")"),
            "add \"type\": \"object\" at the top of inputSchema".into(),
        );
    }
    if sink.on("mcp/output-root")
        && let Some(Value::Object(output)) = &sink.tool.output_schema
        && let Some(kind) = output.get("type").filter(|t| t.as_str() != Some("object"))
    {
        sink.push(
            "mcp/output-root",
            Part::Output,
            "/type",
            format!("the output schema's type is {kind}; an MCP outputSchema describes an object"),
            "wrap the result in an object (e.g. {\"type\": \"object\", \"properties\": {\"result\": ...}})".into(),
        );
    }
}
