use super::common::*;
use serde_json::json;
use tooldeck::catalog::{Format, Tile, TileArg};

/// gloodata's extension-info documentation's third example, verbatim.
const SHOW_MAP: &str = r#"{
"ns": "mynamespace",
"title": "My Extension Title",
"tools": {
"showMapAtAddressAndZoom": {
"title": "Show Map at Address and Zoom",
"schema": {
"fields": {
"address": {
"type": "string",
"description": "the address to display in the map"
},
"zoom": {
"type": "integer",
"description": "the zoom level for the map, from 0 to 19, default to 12"
}
}
},
"ui": {
"prefix": "Show Map",
"args": {
"address": { "prefix": "Of" },
"zoom": { "prefix": "At Zoom Level"}
}
},
"examples": [
"Show map of london",
"Show map of cairo at zoom 12",
"map of rio zoom 13"
]
}
}
}"#;

#[test]
fn gloodata_docs_show_map_at_address_and_zoom() {
    let tool = one("maps.info.json", SHOW_MAP);
    assert_eq!(tool.id, "mynamespace.showMapAtAddressAndZoom");
    assert_eq!(tool.name, "showMapAtAddressAndZoom");
    assert_eq!(tool.title.as_deref(), Some("Show Map at Address and Zoom"));
    assert_eq!(tool.format, Format::Gloodata);
    assert_eq!(tool.source.line, 5);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "address": {"type": "string", "description": "the address to display in the map"},
                "zoom": {"type": "integer", "description": "the zoom level for the map, from 0 to 19, default to 12"}
            }
        })
    );
    assert_eq!(
        tool.ui.tile,
        Some(Tile {
            prefix: Some("Show Map".into()),
            args: vec![
                TileArg { name: "address".into(), prefix: Some("Of".into()), suffix: None },
                TileArg { name: "zoom".into(), prefix: Some("At Zoom Level".into()), suffix: None },
            ],
            suffix: None,
        })
    );
    assert_eq!(tool.examples, prompts(&["Show map of london", "Show map of cairo at zoom 12", "map of rio zoom 13"]));
}

/// gloodata's extension-info documentation's second example: a tool with no schema takes no arguments.
#[test]
fn gloodata_docs_hello_world() {
    let text = r#"{"ns": "mynamespace", "title": "My Extension Title",
  "tools": {"helloWorld": {"title": "Hello World", "examples": ["Show Hello World", "Say hello"]}}}"#;
    let tool = one("hello.info.json", text);
    assert_eq!(tool.id, "mynamespace.helloWorld");
    assert_eq!(tool.title.as_deref(), Some("Hello World"));
    assert_eq!(tool.input_schema, json!({"type": "object", "properties": {}}));
    assert_eq!(tool.examples, prompts(&["Show Hello World", "Say hello"]));
    assert_eq!(tool.ui.tile, None);
}

/// gloodata's extension-info documentation's first example: no tools at all is a warning, not an error.
#[test]
fn gloodata_docs_empty_extension() {
    let (tools, diagnostics) =
        load("empty.info.json", r#"{"ns": "mynamespace", "title": "My Extension Title", "tools": {}}"#);
    assert!(tools.is_empty());
    assert_eq!(errors(&diagnostics).len(), 0, "{diagnostics:#?}");
    assert_eq!(warnings(&diagnostics).len(), 1, "{diagnostics:#?}");
}

/// Arg order is the order of `ui.args`, not of the fields; suffixes and defaults/enums kept.
#[test]
fn tile_order_suffix_and_field_keywords() {
    let text = r#"{
  "ns": "weather",
  "title": "Weather",
  "tools": {
    "forecast": {
      "title": "Forecast",
      "schema": {"fields": {
        "days": {"type": "integer", "description": "days ahead", "default": 3},
        "city": {"type": "string", "enum": ["Lisbon", "Oslo"], "examples": ["Lisbon"]},
        "metric": {"type": "boolean", "default": true}
      }},
      "ui": {"prefix": "Forecast", "args": {"city": {"prefix": "For"}, "days": {"prefix": "Next", "suffix": "Days"}}, "suffix": "Please"}
    },
    "now": {"title": "Now", "schema": {"fields": {"city": {"type": "string"}}}}
  }
}"#;
    let tools = clean("weather.info.json", text);
    assert_eq!(ids(&tools), ["weather.forecast", "weather.now"]);
    assert_eq!(
        tools[0].input_schema,
        json!({"type": "object", "properties": {
            "days": {"type": "integer", "description": "days ahead", "default": 3},
            "city": {"type": "string", "enum": ["Lisbon", "Oslo"], "examples": ["Lisbon"]},
            "metric": {"type": "boolean", "default": true}
        }})
    );
    assert_eq!(
        tools[0].ui.tile,
        Some(Tile {
            prefix: Some("Forecast".into()),
            args: vec![
                TileArg { name: "city".into(), prefix: Some("For".into()), suffix: None },
                TileArg { name: "days".into(), prefix: Some("Next".into()), suffix: Some("Days".into()) },
            ],
            suffix: Some("Please".into()),
        })
    );
    assert_eq!((tools[0].source.line, tools[1].source.line), (5, 14));
}

#[test]
fn tile_arg_that_is_not_a_field_is_a_warning() {
    let text = r#"{"ns": "n", "title": "t", "tools": {"a": {
  "schema": {"fields": {"x": {"type": "string"}}},
  "ui": {"args": {"y": {"prefix": "Y"}}}
}}}"#;
    let (tools, diagnostics) = load("n.info.json", text);
    assert_eq!(ids(&tools), ["n.a"]);
    let warnings = warnings(&diagnostics);
    assert_eq!(warnings.len(), 1, "{diagnostics:#?}");
    assert!(warnings[0].message.contains("\"y\""), "{}", warnings[0].message);
    assert_eq!(warnings[0].line, 3);
}
