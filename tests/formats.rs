//! Every definition format, from the seeds' own examples to the exact JSON Schema each describes,
//! through the public loading API.

use serde_json::{Value, json};
use tooldeck::catalog::{
    Authorization, Catalog, Diagnostic, Example, FieldCue, Format, LoadOptions, Severity, Tile, TileArg, Tool, Widget,
    load_paths, load_text,
};

/// Loads one document; JSON5 and YAML are chosen by the label's extension, as the loader does.
fn load_with(label: &str, text: &str, options: &LoadOptions) -> (Vec<Tool>, Vec<Diagnostic>) {
    let json5 = label.ends_with(".json5") || label.ends_with(".jsonc");
    let yaml = label.ends_with(".yaml") || label.ends_with(".yml");
    load_text(label, text, json5, yaml, true, options)
}

fn load(label: &str, text: &str) -> (Vec<Tool>, Vec<Diagnostic>) {
    load_with(label, text, &LoadOptions::default())
}

/// Loads a document that must give tools and no diagnostic at all.
fn clean(label: &str, text: &str) -> Vec<Tool> {
    let (tools, diagnostics) = load(label, text);
    assert!(diagnostics.is_empty(), "unexpected diagnostics: {diagnostics:#?}");
    assert!(!tools.is_empty(), "no tools loaded from {label}");
    tools
}

/// Loads a document that must hold exactly one tool and no diagnostic.
fn one(label: &str, text: &str) -> Tool {
    let mut tools = clean(label, text);
    assert_eq!(tools.len(), 1, "expected one tool, got {:?}", tools.iter().map(|t| &t.id).collect::<Vec<_>>());
    tools.remove(0)
}

fn errors(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    diagnostics.iter().filter(|d| d.severity == Severity::Error).collect()
}

fn warnings(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    diagnostics.iter().filter(|d| d.severity == Severity::Warning).collect()
}

fn ids(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.id.as_str()).collect()
}

/// 1-based line of the first line containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not in the text")) + 1
}

fn prompts(items: &[&str]) -> Vec<Example> {
    items.iter().map(|s| Example::Prompt(s.to_string())).collect()
}

mod jsonschema {
    use super::*;

    /// Seed 001's "Complex Example", verbatim.
    const SEARCH_PRODUCTS: &str = r#"{
"tool": {
"name": "search_products",
"description": "Search for products in the catalog",
"parameters": {
"type": "object",
"properties": {
"query": {
"type": "string",
"description": "Search text to match product names and descriptions"
},
"category": {
"type": "string",
"enum": ["electronics", "clothing", "home", "sports"],
"description": "Product category to filter by"
},
"priceRange": {
"type": "object",
"properties": {
"min": {
"type": "number",
"description": "Minimum price in USD"
},
"max": {
"type": "number",
"description": "Maximum price in USD"
}
},
"description": "Price range filter"
},
"tags": {
"type": "array",
"items": {
"type": "string"
},
"description": "Product tags to filter by"
},
"sortBy": {
"type": "string",
"enum": ["price_asc", "price_desc", "newest", "popular"],
"description": "How to sort results"
},
"limit": {
"type": "integer",
"description": "Maximum number of results (default: 20)"
}
},
"required": ["query"]
}
}
}"#;

    #[test]
    fn seed_001_search_products() {
        let tool = one("search_products.json", SEARCH_PRODUCTS);
        assert_eq!(tool.id, "search_products");
        assert_eq!(tool.name, "search_products");
        assert_eq!(tool.description.as_deref(), Some("Search for products in the catalog"));
        assert_eq!(tool.format, Format::JsonSchema);
        assert_eq!(tool.source.path, "search_products.json");
        assert_eq!(tool.source.line, 2, "the definition starts at the `tool` object");
        assert_eq!(tool.output_schema, None);
        assert!(tool.requirements.is_empty());
        assert_eq!(
            tool.input_schema,
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Search text to match product names and descriptions"},
                    "category": {
                        "type": "string",
                        "enum": ["electronics", "clothing", "home", "sports"],
                        "description": "Product category to filter by"
                    },
                    "priceRange": {
                        "type": "object",
                        "properties": {
                            "min": {"type": "number", "description": "Minimum price in USD"},
                            "max": {"type": "number", "description": "Maximum price in USD"}
                        },
                        "description": "Price range filter"
                    },
                    "tags": {"type": "array", "items": {"type": "string"}, "description": "Product tags to filter by"},
                    "sortBy": {
                        "type": "string",
                        "enum": ["price_asc", "price_desc", "newest", "popular"],
                        "description": "How to sort results"
                    },
                    "limit": {"type": "integer", "description": "Maximum number of results (default: 20)"}
                },
                "required": ["query"]
            })
        );
        assert_eq!(tool.parameter_count(), 6);
    }

    /// Seed 001's parameter-type snippets (string, number, integer, boolean, array, object, enum)
    /// gathered into one tool: each stays exactly as written.
    #[test]
    fn seed_001_parameter_types() {
        let properties = json!({
            "city": {"type": "string", "description": "City name (e.g., 'London', 'Tokyo')"},
            "temperature": {"type": "number", "description": "Temperature in Celsius"},
            "count": {"type": "integer", "description": "Number of items to return"},
            "includeDetails": {"type": "boolean", "description": "Whether to include detailed information"},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "List of tags to filter by"},
            "filters": {
                "type": "object",
                "properties": {"minPrice": {"type": "number"}, "maxPrice": {"type": "number"}},
                "description": "Filter criteria"
            },
            "action": {
                "type": "string",
                "enum": ["search", "read", "send", "delete"],
                "description": "The action to perform"
            }
        });
        let text = json!({"tool": {"name": "every_type", "description": "What the tool does", "parameters": {
            "type": "object", "properties": properties, "required": ["city"]
        }}})
        .to_string();
        let tool = one("every_type.json", &text);
        assert_eq!(tool.input_schema, json!({"type": "object", "properties": properties, "required": ["city"]}));
        assert_eq!(tool.parameter_count(), 7);
    }

    /// Seed 001's "Required Parameters" example, as a bare `{name, description, parameters}`.
    #[test]
    fn bare_name_description_parameters() {
        let text = r#"{
  "name": "gmail_search",
  "description": "Search mail",
  "parameters": {
    "type": "object",
    "properties": {
      "query": { "type": "string", "description": "Search query" },
      "maxResults": { "type": "integer", "description": "Max results" }
    },
    "required": ["query"]
  }
}"#;
        let tool = one("gmail.json", text);
        assert_eq!(tool.format, Format::JsonSchema);
        assert_eq!(tool.source.line, 1);
        assert_eq!(
            tool.input_schema,
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Search query"},
                    "maxResults": {"type": "integer", "description": "Max results"}
                },
                "required": ["query"]
            })
        );
    }

    #[test]
    fn anthropic_input_schema_list_with_examples() {
        let text = r#"[
  {
    "name": "get_weather",
    "description": "Get the current weather in a given location",
    "input_schema": {
      "type": "object",
      "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
      },
      "required": ["location"]
    },
    "input_examples": [{"location": "Paris, France", "unit": "celsius"}]
  },
  {
    "name": "get_time",
    "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}}
  }
]"#;
        let tools = clean("anthropic.json", text);
        assert_eq!(ids(&tools), ["get_weather", "get_time"]);
        assert!(tools.iter().all(|t| t.format == Format::JsonSchema));
        assert_eq!(
            tools[0].input_schema,
            json!({
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
                },
                "required": ["location"]
            })
        );
        assert_eq!(tools[0].examples, [Example::Arguments(json!({"location": "Paris, France", "unit": "celsius"}))]);
        assert_eq!(tools[1].description, None);
        assert_eq!(tools[1].input_schema, json!({"type": "object", "properties": {"tz": {"type": "string"}}}));
        assert_eq!((tools[0].source.line, tools[1].source.line), (2, 15));
    }

    #[test]
    fn no_parameters_means_an_empty_object_schema() {
        let tool = one("ping.json", r#"{"tool": {"name": "ping", "description": "Ping", "parameters": {}}}"#);
        assert_eq!(tool.input_schema, json!({"type": "object"}));
        assert_eq!(tool.parameter_count(), 0);
    }

    #[test]
    fn a_tool_without_a_name_is_an_error() {
        let (tools, diagnostics) = load("nameless.json", r#"{"tool": {"description": "x", "parameters": {}}}"#);
        assert!(tools.is_empty());
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        assert!(errors[0].message.contains("no `name`"), "{}", errors[0].message);
        assert_eq!((errors[0].line, errors[0].column), (1, 10));
    }
}

mod openai {
    use super::*;

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
}

mod mcp {
    use super::*;

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
}

mod genaiscript {
    use super::*;

    /// Seed 000: `parameters: { city: "", year: NaN }`.
    #[test]
    fn seed_000_bare_parameters_file_is_one_tool_named_after_the_file() {
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

    /// Seed 000: `defTool("weather", "current weather", { city: "" }, ...)`.
    #[test]
    fn seed_000_deftool_style() {
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

    /// Every transformation rule of seed 000 in one file.
    #[test]
    fn seed_000_every_rule() {
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

    /// Seed 000's UI cues: they stay in the schema and become the tool's field cues.
    #[test]
    fn seed_000_ui_cues() {
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
}

mod gloodata {
    use super::*;

    /// Seed 002's third example, verbatim.
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
    fn seed_002_show_map_at_address_and_zoom() {
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
        assert_eq!(
            tool.examples,
            prompts(&["Show map of london", "Show map of cairo at zoom 12", "map of rio zoom 13"])
        );
    }

    /// Seed 002's second example: a tool with no schema takes no arguments.
    #[test]
    fn seed_002_hello_world() {
        let text = r#"{"ns": "mynamespace", "title": "My Extension Title",
  "tools": {"helloWorld": {"title": "Hello World", "examples": ["Show Hello World", "Say hello"]}}}"#;
        let tool = one("hello.info.json", text);
        assert_eq!(tool.id, "mynamespace.helloWorld");
        assert_eq!(tool.title.as_deref(), Some("Hello World"));
        assert_eq!(tool.input_schema, json!({"type": "object", "properties": {}}));
        assert_eq!(tool.examples, prompts(&["Show Hello World", "Say hello"]));
        assert_eq!(tool.ui.tile, None);
    }

    /// Seed 002's first example: no tools at all is a warning, not an error.
    #[test]
    fn seed_002_empty_extension() {
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
}

mod otc {
    use super::*;

    /// The OTC RFC's Gmail example: 1.0 draft (`input_schema.parameters`), OAuth2 requirement.
    const GMAIL: &str = r#"{
  "id": "Gmail.GetEmails@1.2.0",
  "name": "Gmail_GetEmails",
  "description": "Retrieves emails from Gmail using OAuth 2.0 authentication.",
  "version": "1.2.0",
  "input_schema": {
    "parameters": {
      "type": "object",
      "properties": {
        "query": {
          "type": "string",
          "description": "Search query for filtering emails."
        }
      },
      "required": []
    }
  },
  "output_schema": {
    "type": "object",
    "properties": {
      "emails": {
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "id": { "type": "string" },
            "subject": { "type": "string" },
            "snippet": { "type": "string" }
          },
          "required": ["id", "subject", "snippet"]
        },
        "description": "List of retrieved emails."
      }
    },
    "required": ["emails"]
  },
  "requirements": {
    "authorization": [
      {
        "id": "google",
        "oauth2": {
          "scopes": ["https://www.googleapis.com/auth/gmail.readonly"]
        }
      }
    ],
    "user_id": true
  }
}"#;

    #[test]
    fn draft_1_0_input_schema_parameters() {
        let tool = one("gmail.json", GMAIL);
        assert_eq!(tool.id, "Gmail.GetEmails@1.2.0");
        assert_eq!(tool.name, "Gmail_GetEmails");
        assert_eq!(tool.format, Format::Otc);
        assert_eq!(
            tool.input_schema,
            json!({
                "type": "object",
                "properties": {"query": {"type": "string", "description": "Search query for filtering emails."}},
                "required": []
            })
        );
        assert_eq!(
            tool.output_schema,
            Some(json!({
                "type": "object",
                "properties": {
                    "emails": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"id": {"type": "string"}, "subject": {"type": "string"}, "snippet": {"type": "string"}},
                            "required": ["id", "subject", "snippet"]
                        },
                        "description": "List of retrieved emails."
                    }
                },
                "required": ["emails"]
            }))
        );
        assert_eq!(
            tool.requirements.authorization,
            [Authorization {
                id: "google".into(),
                provider_type: Some("oauth2".into()),
                scopes: vec!["https://www.googleapis.com/auth/gmail.readonly".into()],
            }]
        );
        assert!(tool.requirements.secrets.is_empty());
    }

    #[test]
    fn later_revision_bare_input_schema_and_null_output() {
        let text = r#"{
  "id": "Calculator.Add@2.0.0",
  "name": "Calculator_Add",
  "description": "Adds two numbers.",
  "version": "2.0.0",
  "input_schema": {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"]
  },
  "output_schema": null
}"#;
        let tool = one("add.json", text);
        assert_eq!(tool.id, "Calculator.Add@2.0.0");
        assert_eq!(tool.format, Format::Otc);
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]})
        );
        assert_eq!(tool.output_schema, None);
    }

    #[test]
    fn list_under_tools_or_items_with_secrets() {
        let tool = |id: &str, requirements: Value| {
            json!({
                "id": id, "name": id.split('@').next().unwrap().replace('.', "_"), "version": "1.0.0",
                "input_schema": {"parameters": {"type": "object", "properties": {"to": {"type": "string"}}}},
                "requirements": requirements
            })
        };
        let sms = tool(
            "SMS.Send@1.0.0",
            json!({"authorization": [{"id": "twilio", "oauth2": {"scopes": ["sms:send", "sms:read"]}}], "secrets": [{"id": "TWILIO_API_KEY"}]}),
        );
        let ring = tool("Doorbell.Ring@1.0.0", json!({"secrets": [{"id": "DOORBELL_TOKEN"}, "PLAIN_SECRET"]}));
        for key in ["tools", "items"] {
            let text = serde_json::to_string_pretty(&json!({ key: [sms, ring] })).unwrap();
            let tools = clean("otc.json", &text);
            assert_eq!(ids(&tools), ["SMS.Send@1.0.0", "Doorbell.Ring@1.0.0"], "under {key}");
            assert!(tools.iter().all(|t| t.format == Format::Otc));
            assert_eq!(
                tools[0].requirements.authorization,
                [Authorization {
                    id: "twilio".into(),
                    provider_type: Some("oauth2".into()),
                    scopes: vec!["sms:send".into(), "sms:read".into()],
                }]
            );
            assert_eq!(tools[0].requirements.secrets, ["TWILIO_API_KEY"]);
            assert!(tools[1].requirements.authorization.is_empty());
            assert_eq!(tools[1].requirements.secrets, ["DOORBELL_TOKEN", "PLAIN_SECRET"]);
            assert_eq!(tools[1].input_schema, json!({"type": "object", "properties": {"to": {"type": "string"}}}));
        }
        // A bare array of OTC definitions too (the `/tools` answer of some servers).
        let text = serde_json::to_string(&json!([sms, ring])).unwrap();
        assert_eq!(ids(&clean("otc.json", &text)), ["SMS.Send@1.0.0", "Doorbell.Ring@1.0.0"]);
    }

    /// Arcade's `input.parameters` list, `value_schema`, `output.value_schema` and the object form
    /// of `requirements.authorization`.
    #[test]
    fn arcade_parameter_list_and_object_authorization() {
        let text = r#"{
  "name": "SendMessage",
  "fully_qualified_name": "Slack.SendMessage@0.2.0",
  "description": "Send a message to a Slack channel.",
  "toolkit": {"name": "Slack", "description": null, "version": "0.2.0"},
  "input": {
    "parameters": [
      {"name": "channel", "required": true, "description": "Channel name",
       "value_schema": {"val_type": "string", "inner_val_type": null, "enum": null}, "inferrable": true},
      {"name": "priority", "required": false, "description": "How loud",
       "value_schema": {"val_type": "string", "inner_val_type": null, "enum": ["normal", "urgent"]}},
      {"name": "mentions", "required": false, "description": "User ids",
       "value_schema": {"val_type": "array", "inner_val_type": "string", "enum": null}},
      {"name": "levels", "required": false,
       "value_schema": {"val_type": "array", "inner_val_type": "integer", "enum": [1, 2, 3]}},
      {"name": "count", "required": true, "value_schema": {"val_type": "integer"}},
      {"name": "ratio", "value_schema": {"val_type": "number"}},
      {"name": "silent", "value_schema": {"val_type": "boolean"}},
      {"name": "meta", "value_schema": {"val_type": "json", "properties": {"k": {"val_type": "string", "description": "key"}}}}
    ]
  },
  "output": {
    "description": "The posted message",
    "available_modes": ["value", "error"],
    "value_schema": {"val_type": "json", "inner_val_type": null, "enum": null}
  },
  "requirements": {
    "authorization": {
      "provider_id": "slack",
      "provider_type": "oauth2",
      "oauth2": {"scopes": ["chat:write", "channels:read"]}
    },
    "secrets": null
  }
}"#;
        let tool = one("slack.json", text);
        assert_eq!(tool.id, "Slack.SendMessage@0.2.0");
        assert_eq!(tool.name, "SendMessage");
        assert_eq!(tool.format, Format::Otc);
        assert_eq!(
            tool.input_schema,
            json!({
                "type": "object",
                "properties": {
                    "channel": {"type": "string", "description": "Channel name"},
                    "priority": {"type": "string", "enum": ["normal", "urgent"], "description": "How loud"},
                    "mentions": {"type": "array", "items": {"type": "string"}, "description": "User ids"},
                    "levels": {"type": "array", "items": {"type": "integer", "enum": [1, 2, 3]}},
                    "count": {"type": "integer"},
                    "ratio": {"type": "number"},
                    "silent": {"type": "boolean"},
                    "meta": {"type": "object", "properties": {"k": {"type": "string", "description": "key"}}}
                },
                "required": ["channel", "count"]
            })
        );
        assert_eq!(tool.output_schema, Some(json!({"type": "object", "description": "The posted message"})));
        assert_eq!(
            tool.requirements.authorization,
            [Authorization {
                id: "slack".into(),
                provider_type: Some("oauth2".into()),
                scopes: vec!["chat:write".into(), "channels:read".into()],
            }]
        );
        assert!(tool.requirements.secrets.is_empty());
    }

    /// Arcade without `fully_qualified_name`: the id is built from the toolkit; `key` secrets.
    #[test]
    fn arcade_id_from_toolkit_and_key_secrets() {
        let text = r#"{
  "name": "HelloWorld",
  "description": "A hello world tool",
  "toolkit": {"name": "SampleApi", "version": "0.1.0"},
  "input": {"parameters": [{"name": "name", "required": true, "value_schema": {"val_type": "string"}}]},
  "output": {"value_schema": {"val_type": "json", "properties": {"message": {"val_type": "string"}}, "description": "The greeting"}},
  "requirements": {"authorization": null, "secrets": [{"key": "sample_api_key"}]}
}"#;
        let tool = one("hello.json", text);
        assert_eq!(tool.id, "SampleApi.HelloWorld@0.1.0");
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
        );
        assert_eq!(
            tool.output_schema,
            Some(
                json!({"type": "object", "properties": {"message": {"type": "string"}}, "description": "The greeting"})
            )
        );
        assert!(tool.requirements.authorization.is_empty());
        assert_eq!(tool.requirements.secrets, ["sample_api_key"]);
    }
}

mod marketplace {
    use super::*;

    /// Seed 004's "Example: full schema", verbatim inside braces (it is JavaScript, so JSON5).
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
    fn seed_004_search_capability() {
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

    /// Seed 004's "Declaring a field" block as a capability of its own, named after the file.
    #[test]
    fn seed_004_declaring_a_field() {
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
}

mod yaml {
    use super::*;

    #[test]
    fn mcp_tools_list_in_yaml() {
        let text = "tools:\n  - name: echo\n    description: Echo text\n    inputSchema:\n      type: object\n      properties:\n        text: {type: string}\n      required: [text]\n";
        let tool = one("echo.yaml", text);
        assert_eq!(tool.format, Format::Mcp);
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
        );
    }

    #[test]
    fn invalid_yaml_is_an_error_with_a_position() {
        let (tools, diagnostics) = load("bad.yaml", "tools:\n  - name: [unclosed\n");
        assert!(tools.is_empty());
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        assert!(errors[0].message.contains("YAML"), "{}", errors[0].message);
        assert!(errors[0].line >= 1);
    }

    #[test]
    fn yaml_tools_know_their_lines() {
        let text =
            "tools:\n  - name: a\n    inputSchema: {type: object}\n  - name: b\n    inputSchema: {type: object}\n";
        let tools = clean("two.yaml", text);
        assert_eq!((tools[0].source.line, tools[1].source.line), (2, 4));
    }
}

mod sloppy {
    use super::*;

    /// BFCL-style definitions: `dict`, `float`, `any`, `tuple`, `int`, and `required: true`
    /// inside a property load with one warning each, at the offending line.
    #[test]
    fn sloppy_types_load_with_warnings() {
        let text = r#"{
  "name": "sloppy",
  "description": "non-standard types",
  "parameters": {
    "type": "dict",
    "properties": {
      "ratio": {"type": "float", "description": "a ratio"},
      "anything": {"type": "any"},
      "pair": {"type": "tuple", "items": {"type": "int"}},
      "name": {"type": "string", "required": true},
      "count": {"type": "int", "required": false}
    }
  }
}"#;
        let (tools, diagnostics) = load("sloppy.json", text);
        assert!(errors(&diagnostics).is_empty(), "{diagnostics:#?}");
        assert_eq!(ids(&tools), ["sloppy"]);
        assert_eq!(
            tools[0].input_schema,
            json!({
                "type": "object",
                "properties": {
                    "ratio": {"type": "number", "description": "a ratio"},
                    "anything": {},
                    "pair": {"type": "array", "items": {"type": "integer"}},
                    "name": {"type": "string"},
                    "count": {"type": "integer"}
                },
                "required": ["name"]
            })
        );
        let warnings = warnings(&diagnostics);
        let at = |needle: &str| {
            warnings
                .iter()
                .find(|w| w.message.contains(needle))
                .unwrap_or_else(|| panic!("no warning about {needle}: {warnings:#?}"))
                .line
        };
        assert_eq!(at("\"dict\""), 5);
        assert_eq!(at("\"float\""), 7);
        assert_eq!(at("\"any\""), 8);
        assert_eq!(at("\"tuple\""), 9);
        // `int` appears twice (pair.items and count): one grouped warning at the first place.
        assert!(warnings.iter().any(|w| w.message.contains("\"int\"") && w.message.contains("1 more place")));
        assert_eq!(at("\"int\""), 9);
        assert_eq!(at("`required: true`"), 10);
        assert_eq!(at("`required: false`"), 11);
        assert!(warnings.iter().all(|w| w.message.contains("tool \"sloppy\"")), "{warnings:#?}");
    }

    #[test]
    fn sloppy_types_in_an_openai_list_keep_the_other_tools() {
        let text = r#"[
  {"type": "function", "function": {"name": "a", "parameters": {"type": "dict", "properties": {"m": {"type": "HashMap"}}}}},
  {"type": "function", "function": {"name": "b", "parameters": {"type": "object", "properties": {"x": {"type": "double"}}}}}
]"#;
        let (tools, diagnostics) = load("bfcl.json", text);
        assert!(errors(&diagnostics).is_empty(), "{diagnostics:#?}");
        assert_eq!(ids(&tools), ["a", "b"]);
        assert_eq!(tools[0].input_schema, json!({"type": "object", "properties": {"m": {"type": "object"}}}));
        assert_eq!(tools[1].input_schema, json!({"type": "object", "properties": {"x": {"type": "number"}}}));
        assert_eq!(warnings(&diagnostics).len(), 3, "{diagnostics:#?}");
    }
}

mod invalid {
    use super::*;

    /// `"type": 5` spoils only its own tool; the sibling loads; the error points at the `5`.
    #[test]
    fn invalid_type_is_an_error_for_that_tool_alone() {
        let text = r#"{
  "tools": [
    {
      "name": "bad",
      "inputSchema": {
        "type": "object",
        "properties": {
          "a": {"type": 5}
        }
      }
    },
    {
      "name": "good",
      "inputSchema": {"type": "object", "properties": {"b": {"type": "string"}}}
    }
  ]
}"#;
        let (tools, diagnostics) = load("mixed.json", text);
        assert_eq!(ids(&tools), ["good"]);
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        let error = errors[0];
        assert_eq!(error.path, "mixed.json");
        assert_eq!((error.line, error.column), (8, 25), "{error}");
        assert!(error.message.contains("tool \"bad\""), "{}", error.message);
        assert!(error.message.contains("not loaded"), "{}", error.message);
        assert!(error.to_string().starts_with("mixed.json:8:25: error: "), "{error}");
    }

    /// `"type": 5` at the root of an input schema is one problem: one diagnostic.
    #[test]
    fn root_type_number_is_reported_once() {
        let (tools, diagnostics) = load("root.json", r#"{"tools": [{"name": "bad", "inputSchema": {"type": 5}}]}"#);
        assert!(tools.is_empty());
        assert_eq!(errors(&diagnostics).len(), 1, "{diagnostics:#?}");
    }

    /// `"required": "x"` is not a list: error at the `required` value.
    #[test]
    fn required_must_be_a_list() {
        let text = r#"[
  {"name": "ok1", "parameters": {"type": "object", "properties": {}}},
  {"name": "bad", "parameters": {"type": "object", "properties": {"x": {"type": "string"}},
    "required": "x"}},
  {"name": "ok2", "parameters": {"type": "object", "properties": {}}}
]"#;
        let (tools, diagnostics) = load("list.json", text);
        assert_eq!(ids(&tools), ["ok1", "ok2"]);
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        assert_eq!(errors[0].line, 4);
        assert!(errors[0].message.contains("tool \"bad\""), "{}", errors[0].message);
        assert!(errors[0].message.contains("required"), "{}", errors[0].message);
    }

    #[test]
    fn non_object_input_schema_is_an_error() {
        let text = r#"[{"name": "s", "parameters": {"type": "string"}}, {"name": "n", "parameters": 7}, {"name": "ok", "parameters": {}}]"#;
        let (tools, diagnostics) = load("roots.json", text);
        assert_eq!(ids(&tools), ["ok"]);
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 2, "{diagnostics:#?}");
        assert!(errors[0].message.contains("must describe an object"), "{}", errors[0].message);
    }

    #[test]
    fn invalid_output_schema_drops_the_tool() {
        let text = r#"{"tools": [
  {"name": "bad_out", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": "x"}},
  {"name": "fine", "inputSchema": {"type": "object"}}
]}"#;
        let (tools, diagnostics) = load("out.json", text);
        assert_eq!(ids(&tools), ["fine"]);
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        assert!(errors[0].message.contains("output schema"), "{}", errors[0].message);
    }

    #[test]
    fn unrecognised_item_in_a_list_is_an_error_for_that_item() {
        let text = r#"[
  {"hello": "world"},
  42,
  {"name": "ok", "parameters": {"type": "object"}}
]"#;
        let (tools, diagnostics) = load("list.json", text);
        assert_eq!(ids(&tools), ["ok"]);
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 2, "{diagnostics:#?}");
        assert_eq!((errors[0].line, errors[1].line), (2, 3));
        assert!(errors[0].message.contains("not a tool definition"), "{}", errors[0].message);
    }
}

mod lines {
    use super::*;

    #[test]
    fn each_tool_knows_its_line() {
        let text = r#"{
  "tools": [
    {
      "name": "first",
      "inputSchema": {"type": "object"}
    },
    {"name": "second", "inputSchema": {"type": "object"}},

    // a comment line in JSONC
    {
      "name": "third",
      "inputSchema": {
        "type": "object"
      }
    }
  ]
}"#;
        let tools = clean("three.jsonc", text);
        assert_eq!(ids(&tools), ["first", "second", "third"]);
        let lines: Vec<usize> = tools.iter().map(|t| t.source.line).collect();
        assert_eq!(lines, [3, 7, 10]);
        assert!(tools.iter().all(|t| t.source.path == "three.jsonc"));
    }

    #[test]
    fn diagnostic_columns_count_characters() {
        // "é" is two bytes but one column.
        let text = "[{\"name\": \"é\", \"parameters\": {\"type\": \"object\", \"required\": 1}}]";
        let (_, diagnostics) = load("cols.json", text);
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        let expected = text[..text.find("1}").unwrap()].chars().count() + 1;
        assert_eq!((errors[0].line, errors[0].column), (1, expected));
    }
}

mod duplicates {
    use super::*;

    #[test]
    fn catalog_add_suffixes_clashing_ids() {
        let text = r#"{"name": "dup", "parameters": {"type": "object"}}"#;
        let tool = one("a.json", text);
        let mut catalog = Catalog::default();
        assert_eq!(catalog.add(tool.clone()), None);
        let message = catalog.add(tool.clone()).expect("a clash is reported");
        assert!(message.contains("\"dup#2\""), "{message}");
        assert!(message.contains("a.json:1"), "{message}");
        assert!(catalog.add(tool).expect("a clash").contains("\"dup#3\""));
        assert_eq!(ids(catalog.tools()), ["dup", "dup#2", "dup#3"]);
        assert_eq!(catalog.get("dup#2").map(|t| t.name.as_str()), Some("dup"));
        // By name alone it is ambiguous; by id each is reachable.
        assert!(catalog.find("dup#3").is_some());
    }

    #[test]
    fn duplicate_id_across_files_is_a_warning_and_both_stay() {
        let dir = tempfile::tempdir().unwrap();
        let text = r#"{"tools": [{"name": "same", "inputSchema": {"type": "object"}}]}"#;
        std::fs::write(dir.path().join("a.json"), text).unwrap();
        std::fs::write(dir.path().join("b.json"), text).unwrap();
        let loaded = load_paths(&[dir.path().to_path_buf()], &LoadOptions::default());
        assert_eq!(loaded.files, 2);
        assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
        assert_eq!(ids(loaded.catalog.tools()), ["same", "same#2"]);
        let warnings: Vec<_> = loaded.warnings().collect();
        assert_eq!(warnings.len(), 1, "{warnings:#?}");
        let warning = warnings[0];
        assert!(warning.path.ends_with("b.json"), "{warning}");
        assert_eq!(warning.line, 1);
        assert!(warning.message.contains("same#2"), "{}", warning.message);
        assert!(warning.message.contains("a.json:1"), "{}", warning.message);
        assert_eq!(loaded.catalog.get("same#2").unwrap().source.path, warning.path);
    }
}

mod refs {
    use super::*;

    #[test]
    fn local_refs_are_inlined_and_defs_dropped() {
        let text = r##"{"name": "ship", "parameters": {
  "type": "object",
  "properties": {
    "from": {"$ref": "#/$defs/Address"},
    "to": {"$ref": "#/$defs/Address", "description": "destination"},
    "parcel": {"$ref": "#/definitions/Parcel"}
  },
  "required": ["from", "to"],
  "$defs": {
    "Address": {"type": "object", "properties": {"street": {"type": "string"}, "country": {"$ref": "#/$defs/Country"}}},
    "Country": {"type": "string", "enum": ["PT", "NO"]}
  },
  "definitions": {"Parcel": {"type": "object", "properties": {"kg": {"type": "number"}}}}
}}"##;
        let tool = one("ship.json", text);
        let address = json!({
            "type": "object",
            "properties": {"street": {"type": "string"}, "country": {"type": "string", "enum": ["PT", "NO"]}}
        });
        let mut to = address.clone();
        to["description"] = json!("destination");
        assert_eq!(
            tool.input_schema,
            json!({
                "type": "object",
                "properties": {
                    "from": address,
                    "to": to,
                    "parcel": {"type": "object", "properties": {"kg": {"type": "number"}}}
                },
                "required": ["from", "to"]
            })
        );
    }

    #[test]
    fn recursive_refs_are_kept_with_their_defs() {
        let text = r##"{"name": "tree", "parameters": {
  "type": "object",
  "properties": {"root": {"$ref": "#/$defs/Node"}},
  "$defs": {"Node": {"type": "object", "properties": {
    "label": {"type": "string"},
    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
  }}}
}}"##;
        let tool = one("tree.json", text);
        let schema = &tool.input_schema;
        assert_eq!(
            schema["properties"]["root"],
            json!({"type": "object", "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }})
        );
        assert_eq!(
            schema["$defs"]["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"}),
            "the $defs a kept $ref needs stay"
        );
    }

    #[test]
    fn a_ref_to_nothing_is_an_error_for_that_tool() {
        let text = r##"[
  {"name": "broken", "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}}},
  {"name": "fine", "parameters": {"type": "object"}}
]"##;
        let (tools, diagnostics) = load("refs.json", text);
        assert_eq!(ids(&tools), ["fine"]);
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        assert!(errors[0].message.contains("#/$defs/Missing"), "{}", errors[0].message);
        assert_eq!(errors[0].line, 2);
    }
}

mod format_override {
    use super::*;

    fn forced(format: Format) -> LoadOptions {
        LoadOptions { format: Some(format), ..LoadOptions::default() }
    }

    #[test]
    fn openai_override_on_a_bare_function() {
        let text = r#"{"name": "f", "description": "d", "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}"#;
        let auto = one("f.json", text);
        assert_eq!(auto.format, Format::JsonSchema);
        let (tools, diagnostics) = load_with("f.json", text, &forced(Format::OpenAi));
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].format, Format::OpenAi);
        assert_eq!(tools[0].input_schema, auto.input_schema);
    }

    /// A plain JSON file of shorthand is not guessed at, but `--format genaiscript` reads it.
    #[test]
    fn genaiscript_override_on_plain_json() {
        let text = r#"{"city": "", "units": "metric"}"#;
        let (tools, diagnostics) = load("weather.json", text);
        assert!(tools.is_empty());
        assert_eq!(errors(&diagnostics).len(), 1, "{diagnostics:#?}");
        let (tools, diagnostics) = load_with("weather.json", text, &forced(Format::GenAiScript));
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        assert_eq!(ids(&tools), ["weather"]);
        assert_eq!(tools[0].format, Format::GenAiScript);
        assert_eq!(
            tools[0].input_schema,
            json!({
                "type": "object",
                "properties": {"city": {"type": "string"}, "units": {"type": "string", "default": "metric"}},
                "required": ["city"]
            })
        );
    }

    #[test]
    fn forced_format_applies_to_every_list_item() {
        let text = r#"{"tools": [{"name": "a", "parameters": {"type": "object"}}, {"name": "b", "parameters": {"type": "object"}}]}"#;
        let (tools, diagnostics) = load_with("l.json", text, &forced(Format::OpenAi));
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        assert_eq!(ids(&tools), ["a", "b"]);
        assert!(tools.iter().all(|t| t.format == Format::OpenAi));
    }

    #[test]
    fn gloodata_override_on_a_document_that_is_not_one_is_an_error() {
        let text = r#"{"name": "f", "parameters": {"type": "object"}}"#;
        let (tools, diagnostics) = load_with("f.json", text, &forced(Format::Gloodata));
        assert!(tools.is_empty());
        let errors = errors(&diagnostics);
        assert_eq!(errors.len(), 1, "{diagnostics:#?}");
        assert!(errors[0].message.contains("ns"), "{}", errors[0].message);
    }

    #[test]
    fn format_names() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Format::from_name("OpenAI"), Some(Format::OpenAi));
        assert_eq!(Format::from_name("nope"), None);
    }
}
