use super::common::*;
use serde_json::json;
use tooldeck::catalog::{Format, LoadOptions};

const TOOLS_LIST: &str = r#"{
  "tools": [
    {
      "name": "get_weather_data",
      "title": "Weather Data Retriever",
      "description": "Get current weather data for a location",
      "inputSchema": {
        "type": "object",
        "properties": {
          "location": {"type": "string", "description": "City name or zip code"}
        },
        "required": ["location"]
      },
      "outputSchema": {
        "type": "object",
        "properties": {
          "temperature": {"type": "number", "description": "Temperature in celsius"},
          "conditions": {"type": "string", "description": "Weather conditions description"},
          "humidity": {"type": "number", "description": "Humidity percentage"}
        },
        "required": ["temperature", "conditions", "humidity"]
      },
      "annotations": {"readOnlyHint": true, "openWorldHint": true}
    },
    {
      "name": "delete_file",
      "description": "Delete a file",
      "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
      "annotations": {"title": "Delete File", "destructiveHint": true}
    }
  ],
  "nextCursor": "abc"
}"#;

#[test]
fn tools_list_result() {
    let tools = clean("server.tools-list.json", TOOLS_LIST);
    assert_eq!(ids(&tools), ["get_weather_data", "delete_file"]);
    assert!(tools.iter().all(|t| t.format == Format::Mcp));
    let weather = &tools[0];
    assert_eq!(weather.title.as_deref(), Some("Weather Data Retriever"));
    assert_eq!(weather.display_title(), "Weather Data Retriever");
    assert_eq!(
        weather.input_schema,
        json!({
            "type": "object",
            "properties": {"location": {"type": "string", "description": "City name or zip code"}},
            "required": ["location"]
        })
    );
    assert_eq!(
        weather.output_schema,
        Some(json!({
            "type": "object",
            "properties": {
                "temperature": {"type": "number", "description": "Temperature in celsius"},
                "conditions": {"type": "string", "description": "Weather conditions description"},
                "humidity": {"type": "number", "description": "Humidity percentage"}
            },
            "required": ["temperature", "conditions", "humidity"]
        }))
    );
    assert_eq!(weather.annotations, Some(json!({"readOnlyHint": true, "openWorldHint": true})));
    // With no `title`, the annotations' title is the title.
    assert_eq!(tools[1].title.as_deref(), Some("Delete File"));
    assert_eq!(tools[1].output_schema, None);
    assert_eq!(tools[1].annotations, Some(json!({"title": "Delete File", "destructiveHint": true})));
    assert_eq!((weather.source.line, tools[1].source.line), (3, 25));
}

#[test]
fn json_rpc_response_around_the_result() {
    let text = format!(r#"{{"jsonrpc": "2.0", "id": 2, "result": {TOOLS_LIST}}}"#);
    let tools = clean("response.json", &text);
    assert_eq!(ids(&tools), ["get_weather_data", "delete_file"]);
    assert!(tools.iter().all(|t| t.format == Format::Mcp));
}

#[test]
fn missing_input_schema_is_a_warning() {
    let (tools, diagnostics) = load("x.json", r#"{"tools": [{"name": "a", "inputSchema": {}}, {"name": "b"}]}"#);
    // `{"name": "b"}` alone has no format marker: it is an error for that item only.
    assert_eq!(ids(&tools), ["a"]);
    assert_eq!(tools[0].input_schema, json!({"type": "object"}));
    assert_eq!(errors(&diagnostics).len(), 1, "{diagnostics:#?}");
    let (tools, diagnostics) = load_with(
        "x.json",
        r#"{"tools": [{"name": "b", "description": "no schema"}]}"#,
        &LoadOptions { format: Some(Format::Mcp), ..LoadOptions::default() },
    );
    assert_eq!(ids(&tools), ["b"]);
    let warnings = warnings(&diagnostics);
    assert_eq!(warnings.len(), 1, "{diagnostics:#?}");
    assert!(warnings[0].message.contains("inputSchema"), "{}", warnings[0].message);
}
