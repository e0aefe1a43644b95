use super::common::*;
use serde_json::json;
use tooldeck::catalog::{FieldCue, Format, Widget};

/// GenAIScript's parameters-schema page: `parameters: { city: "", year: NaN }`.
#[test]
fn genaiscript_docs_bare_parameters_file_is_one_tool_named_after_the_file() {
    let text = "// defTool(\"weather\", ...)\n{\n  city: \"\", // e.g. Lisbon\n  year: NaN,\n}\n";
    let tool = one("samples/weather.json5", text);
    assert_eq!(tool.id, "weather");
    assert_eq!(tool.name, "weather");
    assert_eq!(tool.format, Format::GenAiScript);
    assert_eq!(tool.source.line, 2);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "year": {"type": "number"}},
            "required": ["city", "year"]
        })
    );
}

#[test]
fn genai_suffix_is_dropped_from_the_name() {
    let tool = one("scripts/summarize.genai.json5", "{ text: \"\" }");
    assert_eq!(tool.name, "summarize");
}

/// A plain `.json` file may use `NaN` too: that alone marks it as shorthand.
#[test]
fn nan_marks_a_json_file_as_shorthand() {
    let tool = one("weather.json", r#"{"city": "", "year": NaN}"#);
    assert_eq!(tool.name, "weather");
    assert_eq!(tool.input_schema["required"], json!(["city", "year"]));
    assert_eq!(tool.input_schema["properties"]["year"], json!({"type": "number"}));
}

/// GenAIScript's parameters-schema page: `defTool("weather", "current weather", { city: "" }, ...)`.
#[test]
fn genaiscript_docs_deftool_style() {
    let text = r#"{ name: "weather", description: "current weather", parameters: { city: "" } }"#;
    let tool = one("tools.json5", text);
    assert_eq!(tool.id, "weather");
    assert_eq!(tool.description.as_deref(), Some("current weather"));
    assert_eq!(tool.format, Format::GenAiScript);
    assert_eq!(
        tool.input_schema,
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    );
}

#[test]
fn deftool_list_in_json5() {
    let text = r#"[
  // two tools
  { name: "weather", description: "current weather", parameters: { city: "", year: NaN } },
  {
    name: "sum",
    description: "adds",
    parameters: { a: 1, b: 2 },
  },
]"#;
    let tools = clean("tools.json5", text);
    assert_eq!(ids(&tools), ["weather", "sum"]);
    assert_eq!(
        tools[1].input_schema,
        json!({
            "type": "object",
            "properties": {"a": {"type": "number", "default": 1}, "b": {"type": "number", "default": 2}},
            "required": []
        })
    );
    assert_eq!((tools[0].source.line, tools[1].source.line), (3, 4));
}

/// A script's `{title, description, parameters}` without a name is named after the file.
#[test]
fn script_parameters_without_a_name() {
    let text = r#"{ title: "Summarize", description: "summarize a file", parameters: { file: "", words: 100 } }"#;
    let tool = one("summarize.genai.json5", text);
    assert_eq!(tool.name, "summarize");
    assert_eq!(tool.title.as_deref(), Some("Summarize"));
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {"file": {"type": "string"}, "words": {"type": "number", "default": 100}},
            "required": ["file"]
        })
    );
}

/// Every transformation rule of GenAIScript's parameters-schema page in one file.
#[test]
fn genaiscript_docs_every_rule() {
    let text = r#"{
  schema: { type: "string" },
  required_string: "",
  city: "San Francisco",
  required_number: NaN,
  answer: 42,
  flag: true,
  tags: [""],
  place: { city: "" },
  item: { price: 42 },
}"#;
    let tool = one("rules.json5", text);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "schema": {"type": "string"},
                "required_string": {"type": "string"},
                "city": {"type": "string", "default": "San Francisco"},
                "required_number": {"type": "number"},
                "answer": {"type": "number", "default": 42},
                "flag": {"type": "boolean", "default": true},
                "tags": {"type": "array", "items": {"type": "string"}},
                "place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                "item": {"type": "object", "properties": {"price": {"type": "number", "default": 42}}, "required": []}
            },
            "required": ["required_string", "required_number"]
        })
    );
}

/// GenAIScript's UI cues: they stay in the schema and become the tool's field cues.
#[test]
fn genaiscript_docs_ui_cues() {
    let text = r#"{
  city: { type: "string", uiSuggestions: ["San Francisco", "New York"] },
  notes: { type: "string", uiType: "textarea" },
  dryRun: { type: "boolean", uiType: "runOption" },
  address: { street: { type: "string", uiType: "textarea" } },
}"#;
    let tool = one("cues.json5", text);
    assert_eq!(
        tool.input_schema["properties"]["city"],
        json!({"type": "string", "uiSuggestions": ["San Francisco", "New York"]})
    );
    assert_eq!(tool.input_schema["properties"]["dryRun"], json!({"type": "boolean", "uiType": "runOption"}));
    let fields = &tool.ui.fields;
    assert_eq!(
        fields.get("/city"),
        Some(&FieldCue { suggestions: vec![json!("San Francisco"), json!("New York")], ..FieldCue::default() })
    );
    assert_eq!(fields.get("/notes"), Some(&FieldCue { widget: Some(Widget::Textarea), ..FieldCue::default() }));
    assert_eq!(fields.get("/dryRun"), Some(&FieldCue { widget: Some(Widget::RunOption), ..FieldCue::default() }));
    assert_eq!(
        fields.get("/address/street"),
        Some(&FieldCue { widget: Some(Widget::Textarea), ..FieldCue::default() })
    );
    assert_eq!(fields.len(), 4, "{fields:?}");
}

/// A shorthand parameter may be called `tools` or `items`: in a bare `parameters` file it is
/// still a parameter, not a list of tool definitions.
#[test]
fn parameter_named_tools() {
    let text = "{\n  question: \"\",\n  tools: [\"fs\"],\n}\n";
    let tool = one("ask.json5", text);
    assert_eq!(tool.name, "ask");
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "question": {"type": "string"},
                "tools": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["question"]
        })
    );
}

#[test]
fn no_required_boolean_and_required_flag_moves_to_parent() {
    let text = r#"{ ok: false, n: { type: "integer", required: true }, m: { type: "integer", required: false } }"#;
    let tool = one("flags.json5", text);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "ok": {"type": "boolean", "default": false},
                "n": {"type": "integer"},
                "m": {"type": "integer"}
            },
            "required": ["n"]
        })
    );
}
