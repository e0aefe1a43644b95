use super::common::*;
use serde_json::json;
use tooldeck::catalog::{Catalog, Format, LoadOptions, load_paths};

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
