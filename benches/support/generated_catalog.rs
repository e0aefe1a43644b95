//! A generated catalog of 1,000 tools in mixed formats, ~20 parameters each, with nested objects
//! and `$ref`s, shared by the benchmarks that load one.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

const TOOLS_PER_FILE: usize = 100;

fn parameters(seed: usize) -> Value {
    let mut properties = serde_json::Map::new();
    for p in 0..14 {
        let schema = match p % 7 {
            0 => json!({"type": "string", "description": format!("free text {p}"), "minLength": 1, "maxLength": 200}),
            1 => json!({"type": "string", "enum": ["alpha", "beta", "gamma", "delta"], "default": "alpha"}),
            2 => json!({"type": "integer", "minimum": 0, "maximum": 1000, "description": "a count"}),
            3 => json!({"type": "number", "description": "a ratio"}),
            4 => json!({"type": "boolean", "default": false}),
            5 => json!({"type": "string", "format": "date-time"}),
            _ => json!({"type": "array", "items": {"type": "string"}, "maxItems": 10}),
        };
        properties.insert(format!("param_{p}"), schema);
    }
    properties.insert(
        "filters".into(),
        json!({"type": "object", "properties": {
            "min": {"type": "number"}, "max": {"type": "number"},
            "range": {"type": "object", "properties": {"from": {"type": "string", "format": "date"}, "to": {"type": "string", "format": "date"}}}
        }}),
    );
    properties.insert("home".into(), json!({"$ref": "#/$defs/Address"}));
    properties.insert("work".into(), json!({"$ref": "#/$defs/Address", "description": "office"}));
    properties.insert("contacts".into(), json!({"type": "array", "items": {"$ref": "#/$defs/Contact"}}));
    properties.insert("mode".into(), json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}));
    properties
        .insert("note".into(), json!({"type": ["string", "null"], "description": format!("note for tool {seed}")}));
    json!({
        "type": "object",
        "properties": properties,
        "required": ["param_0", "param_2"],
        "$defs": {
            "Address": {"type": "object", "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["street"]},
            "Contact": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}, "address": {"$ref": "#/$defs/Address"}}}
        }
    })
}

fn flat_fields(seed: usize) -> Value {
    let mut fields = serde_json::Map::new();
    for p in 0..20 {
        let field = match p % 4 {
            0 => {
                json!({"type": "string", "required": p == 0, "minLength": 1, "description": format!("field {p} of {seed}")})
            }
            1 => json!({"type": "number", "min": 0, "max": 100, "default": 5}),
            2 => json!({"type": "string", "enum": ["json", "text", "markdown"], "default": "json"}),
            _ => json!({"type": "boolean"}),
        };
        fields.insert(format!("field_{p}"), field);
    }
    Value::Object(fields)
}

fn document(format: usize, file: usize) -> Value {
    let tool = |i: usize| file * TOOLS_PER_FILE + i;
    let range = 0..TOOLS_PER_FILE;
    match format {
        0 => json!(
            range
                .map(|i| json!({"name": format!("js_tool_{}", tool(i)), "description": "A JSON Schema tool", "parameters": parameters(tool(i))}))
                .collect::<Vec<_>>()
        ),
        1 => json!(range.map(|i| json!({"type": "function", "function": {"name": format!("oa_tool_{}", tool(i)), "description": "An OpenAI function", "parameters": parameters(tool(i))}})).collect::<Vec<_>>()),
        2 => json!({"tools": range.map(|i| json!({"name": format!("mcp_tool_{}", tool(i)), "title": "MCP tool", "inputSchema": parameters(tool(i)), "annotations": {"readOnlyHint": true}})).collect::<Vec<_>>()}),
        3 => json!({"tools": range.map(|i| json!({
            "id": format!("Bench.Tool{}@1.0.0", tool(i)), "name": format!("Bench_Tool{}", tool(i)), "description": "An OTC tool", "version": "1.0.0",
            "input_schema": {"parameters": parameters(tool(i))},
            "requirements": {"authorization": [{"id": "google", "oauth2": {"scopes": ["email"]}}]}
        })).collect::<Vec<_>>()}),
        4 => {
            let tools: serde_json::Map<String, Value> = range
                .map(|i| {
                    let fields = flat_fields(tool(i));
                    let args: serde_json::Map<String, Value> = fields.as_object().map(|f| f.keys().take(3).map(|k| (k.clone(), json!({"prefix": k}))).collect()).unwrap_or_default();
                    (format!("tool{}", tool(i)), json!({"title": "Gloodata tool", "schema": {"fields": fields}, "ui": {"prefix": "Show", "args": args}, "examples": ["show it"]}))
                })
                .collect();
            json!({"ns": format!("bench{file}"), "title": "Bench", "tools": tools})
        }
        _ => {
            let capabilities: serde_json::Map<String, Value> = range
                .map(|i| (format!("cap_{}", tool(i)), json!({"description": "A capability", "input_schema": flat_fields(tool(i)), "output_schema": {"summary": {"type": "string"}}})))
                .collect();
            json!({"capabilities": capabilities})
        }
    }
}

/// Writes 10 files of 100 tools: two each of JSON Schema, OpenAI, MCP and OTC (schemas with
/// nested objects and `$ref`s), one gloodata and one marketplace (flat field maps).
pub fn write_catalog(dir: &Path) -> PathBuf {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).expect("create bench dir");
    let formats = [0, 0, 1, 1, 2, 2, 3, 3, 4, 5];
    for (file, format) in formats.iter().enumerate() {
        let text = serde_json::to_string_pretty(&document(*format, file)).expect("serialise");
        fs::write(dir.join(format!("tools-{file:02}.json")), text).expect("write bench file");
    }
    dir.to_path_buf()
}
