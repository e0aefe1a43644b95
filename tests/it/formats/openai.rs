use super::common::*;
use serde_json::json;
use tooldeck::catalog::Format;

const CHAT_COMPLETIONS: &str = r#"[
  {
    "type": "function",
    "function": {
      "name": "get_weather",
      "description": "Get current temperature for a given location.",
      "parameters": {
        "type": "object",
        "properties": {
          "location": {"type": "string", "description": "City and country e.g. Bogotá, Colombia"},
          "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null]}
        },
        "required": ["location", "units"],
        "additionalProperties": false
      },
      "strict": true
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_stock_price",
      "parameters": {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}
    }
  }
]"#;

#[test]
fn chat_completions_list() {
    let tools = clean("tools.json", CHAT_COMPLETIONS);
    assert_eq!(ids(&tools), ["get_weather", "get_stock_price"]);
    assert!(tools.iter().all(|t| t.format == Format::OpenAi));
    let weather = &tools[0];
    assert_eq!(weather.name, "get_weather");
    assert_eq!(weather.description.as_deref(), Some("Get current temperature for a given location."));
    assert_eq!(
        weather.input_schema,
        json!({
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City and country e.g. Bogotá, Colombia"},
                "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null]}
            },
            "required": ["location", "units"],
            "additionalProperties": false
        })
    );
    assert_eq!(weather.annotations, Some(json!({"strict": true})));
    assert_eq!(tools[1].annotations, None);
    assert_eq!(
        tools[1].input_schema,
        json!({"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]})
    );
    assert_eq!(weather.source.line, line_of(CHAT_COMPLETIONS, "\"function\": {"));
    assert!(tools[1].source.line > weather.source.line);
}

#[test]
fn single_chat_completions_tool() {
    let text = r#"{"type": "function", "function": {"name": "noop", "description": "does nothing"}}"#;
    let tool = one("noop.json", text);
    assert_eq!(tool.format, Format::OpenAi);
    assert_eq!(tool.input_schema, json!({"type": "object", "properties": {}}));
}

#[test]
fn responses_flat_form() {
    let text = r#"{
  "tools": [
    {
      "type": "function",
      "name": "get_weather",
      "description": "Get current temperature for a given location.",
      "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
        "additionalProperties": false
      },
      "strict": true
    },
    {
      "type": "function",
      "name": "send_email",
      "parameters": {"type": "object", "properties": {"to": {"type": "string", "format": "email"}, "body": {"type": "string"}}}
    }
  ]
}"#;
    let tools = clean("responses.json", text);
    assert_eq!(ids(&tools), ["get_weather", "send_email"]);
    assert!(tools.iter().all(|t| t.format == Format::OpenAi));
    assert_eq!(
        tools[0].input_schema,
        json!({
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
            "additionalProperties": false
        })
    );
    assert_eq!(tools[0].annotations, Some(json!({"strict": true})));
    assert_eq!(
        tools[1].input_schema,
        json!({"type": "object", "properties": {"to": {"type": "string", "format": "email"}, "body": {"type": "string"}}})
    );
    assert_eq!((tools[0].source.line, tools[1].source.line), (3, 15));
}
