//! Instances valid under a schema go form → JSON unchanged; real-world definitions build and round-trip.

use super::*;

/// As deep as the loader lets a definition nest, on the 2 MiB stack of a spawned thread.
#[test]
fn nesting_as_deep_as_a_definition_can_go() {
    let depth = 190;
    let text = "{a:".repeat(depth) + "\"\"" + &"}".repeat(depth);
    let result = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let tool = load_one("deep.json5", &text);
            let mut instance = json!("leaf");
            for _ in 0..depth {
                instance = json!({"a": instance});
            }
            let mut form = Form::new(&tool);
            form.set_arguments(&instance);
            (form.arguments() == &instance, form.rows().len())
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert!(result.0, "round trip");
    assert!(result.1 >= 64, "{} rows", result.1);
}

#[test]
fn array_and_object_defaults() {
    let tool = tool(json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["a", "b"]},
        "opts": {"type": "object", "properties": {"x": {"type": "integer"}}, "default": {"x": 1}},
    }}));
    let mut form = Form::new(&tool);
    assert_eq!(form.arguments(), &json!({}), "optional defaults are not sent");
    form.fill_defaults();
    assert_eq!(form.arguments(), &json!({"tags": ["a", "b"], "opts": {"x": 1}}));
    round_trips(
        &tool,
        &[json!({}), json!({"tags": []}), json!({"opts": {}}), json!({"tags": ["c"], "opts": {"x": 2}})],
    );
}

#[test]
fn strings() {
    let tool = tool(json!({"type": "object", "properties": {
        "plain": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "site": {"type": "string", "format": "uri"},
        "id": {"type": "string", "format": "uuid"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "short": {"type": "string", "minLength": 2, "maxLength": 4},
    }}));
    round_trips(
        &tool,
        &[
            json!({}),
            json!({"plain": ""}),
            json!({"plain": "  spaced  ", "email": "a@example.com", "when": "2024-05-01T10:00:00Z"}),
            json!({"day": "2024-02-29", "site": "https://example.com/x?y=1", "id": "123e4567-e89b-12d3-a456-426614174000"}),
            json!({"code": "USD", "short": "ab", "plain": "unicode ✓ \u{1F600} \t tab"}),
            json!({"plain": "two\nlines", "short": "abcd"}),
        ],
    );
}

#[test]
fn textarea_and_suggestions() {
    let tool = load_one(
        "t.genai.json5",
        r#"{ notes: { type: "string", uiType: "textarea" },
             model: { type: "string", uiSuggestions: ["gpt-4o"] },
             city: { type: "string", examples: ["Lisbon"] } }"#,
    );
    round_trips(
        &tool,
        &[
            json!({}),
            json!({"notes": "a\nb\n\nc\n"}),
            json!({"model": "gpt-4o", "city": "not a suggestion"}),
            json!({"model": "", "notes": ""}),
        ],
    );
}

#[test]
fn enums_and_consts() {
    let tool = tool(json!({"type": "object", "properties": {
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "ratio": {"type": "number", "enum": [0.5, 1.5]},
        "mixed": {"enum": ["a", 1, true, null, {"k": "v"}, [1, 2]]},
        "size": {"oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "kind": {"const": "circle"},
        "nothing": {"type": "null"},
    }}));
    round_trips(
        &tool,
        &[
            json!({}),
            json!({"unit": "celsius", "level": 2, "ratio": 1.5, "size": "l", "kind": "circle"}),
            json!({"mixed": null, "nothing": null}),
            json!({"mixed": {"k": "v"}}),
            json!({"mixed": [1, 2]}),
            json!({"mixed": true, "unit": "fahrenheit"}),
        ],
    );
}

#[test]
fn numbers() {
    let tool = tool(json!({"type": "object", "properties": {
        "count": {"type": "integer", "minimum": -5, "maximum": 100},
        "big": {"type": "integer"},
        "ratio": {"type": "number"},
        "positive": {"type": "number", "exclusiveMinimum": 0},
    }}));
    round_trips(
        &tool,
        &[
            json!({}),
            json!({"count": 0}),
            json!({"count": -5, "ratio": -0.25, "positive": 1e-9}),
            json!({"big": 9_007_199_254_740_993_i64, "ratio": 3}),
            json!({"big": u64::MAX, "ratio": u64::MAX}),
            json!({"big": i64::MIN, "ratio": 1.5e300}),
            json!({"ratio": 3.0, "positive": 0.1}),
            json!({"big": 3.0}),
        ],
    );
}

#[test]
fn booleans() {
    let tool = load_one(
        "b.genai.json5",
        r#"{ maybe: { type: "boolean" }, on: { type: "boolean", default: true },
             dryRun: { type: "boolean", uiType: "runOption" } }"#,
    );
    round_trips(
        &tool,
        &[
            json!({}),
            json!({"maybe": false}),
            json!({"maybe": true, "on": false, "dryRun": true}),
            json!({"on": true, "dryRun": false}),
        ],
    );
}

#[test]
fn nested_objects_three_deep() {
    let tool = tool(json!({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "object", "required": ["b"], "properties": {
            "b": {"type": "object", "required": ["c"], "properties": {
                "c": {"type": "string"},
                "d": {"type": "integer"},
            }},
            "e": {"type": "boolean"},
        }},
        "opt": {"type": "object", "properties": {
            "inner": {"type": "object", "required": ["z"], "properties": {"z": {"type": "string"}}},
        }},
        "opt2": {"type": "object", "required": ["inner"], "properties": {
            "inner": {"type": "object", "properties": {"z": {"type": "string"}}},
        }},
    }}));
    round_trips(
        &tool,
        &[
            json!({"a": {"b": {"c": ""}}}),
            json!({"a": {"b": {"c": "x", "d": 4}, "e": false}}),
            json!({"a": {"b": {"c": "x"}}, "opt": {}}),
            json!({"a": {"b": {"c": "x"}}, "opt": {"inner": {"z": "q"}}}),
            json!({"a": {"b": {"c": "x"}}, "opt2": {"inner": {}}}),
            json!({"a": {"b": {"c": "x"}}, "opt2": {"inner": {"z": ""}}}),
        ],
    );
}

#[test]
fn maps() {
    let tool = tool(json!({"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "free": {"type": "object", "additionalProperties": true},
        "mixed": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": true},
        "nested": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"],
        }},
    }}));
    round_trips(
        &tool,
        &[
            json!({"labels": {}}),
            json!({"labels": {"env": "prod", "": "empty key", "a/b~c": "escaped"}}),
            json!({"counts": {"x": 1, "y": -2}, "free": {"any": [1, {"deep": null}], "s": "t"}}),
            json!({"mixed": {"x": "declared", "y": "extra", "z": 5}}),
            json!({"nested": {"first": {"on": true}, "second": {"on": false}}}),
        ],
    );
}

#[test]
fn arrays() {
    let tool = tool(json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "numbers": {"type": "array", "items": {"type": "number"}},
        "flags": {"type": "array", "items": {"type": "boolean"}},
        "people": {"type": "array", "items": {
            "type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        }},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        "loose": {"type": "array"},
        "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
    }}));
    round_trips(
        &tool,
        &[
            json!({"tags": ["a"]}),
            json!({"tags": ["a", "", "c"], "numbers": [1, 2.5, -3], "flags": [true, false]}),
            json!({"people": []}),
            json!({"people": [{"name": "Ann"}, {"name": "Bo", "age": 7}]}),
            json!({"grid": [[1, 2], [], [3]], "loose": [1, "two", null, {"x": [3]}]}),
            json!({"tuple": ["x", 1]}),
        ],
    );
}

#[test]
fn variants_at_a_property() {
    let tool = tool(json!({"type": "object", "properties": {
        "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "any": {"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind"]},
        ]},
        "shape": {"oneOf": [
            {"type": "object", "title": "Circle", "properties": {"r": {"type": "number"}}, "required": ["r"], "additionalProperties": false},
            {"type": "object", "title": "Square", "properties": {"side": {"type": "number"}}, "required": ["side"], "additionalProperties": false},
        ]},
        "num": {"type": ["integer", "string"]},
    }}));
    round_trips(
        &tool,
        &[
            json!({}),
            json!({"either": "42"}),
            json!({"either": 42}),
            json!({"any": {"kind": "a", "x": "hi"}}),
            json!({"any": {"kind": "b", "y": 3}}),
            json!({"shape": {"r": 1.5}}),
            json!({"shape": {"side": 2}}),
            json!({"num": 1, "either": ""}),
            json!({"num": "one"}),
        ],
    );
}

#[test]
fn variants_at_the_root() {
    let tool = tool(json!({"type": "object", "oneOf": [
        {"title": "By id", "properties": {"id": {"type": "integer"}}, "required": ["id"], "additionalProperties": false},
        {"title": "By name", "properties": {"name": {"type": "string"}, "exact": {"type": "boolean"}}, "required": ["name"], "additionalProperties": false},
    ]}));
    round_trips(&tool, &[json!({"id": 1}), json!({"name": "x"}), json!({"name": "x", "exact": true})]);
    let root_any = openai(json!({"anyOf": [
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    ]}));
    round_trips(&root_any, &[json!({"q": "x"}), json!({"n": 2}), json!({"n": 2, "q": "both"})]);
}

#[test]
fn nullable() {
    let tool = tool(json!({"type": "object", "properties": {
        "maybe": {"type": ["string", "null"]},
        "count": {"type": ["integer", "null"], "minimum": 0},
        "obj": {"type": ["object", "null"], "properties": {"a": {"type": "string"}}},
        "pick": {"type": ["string", "null"], "enum": ["a", "b", null]},
        "any_null": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
    }}));
    round_trips(
        &tool,
        &[
            json!({}),
            json!({"maybe": null, "count": null, "obj": null, "pick": null, "any_null": null}),
            json!({"maybe": "", "count": 0, "obj": {}, "pick": "b", "any_null": "2024-01-31"}),
            json!({"maybe": "null", "obj": {"a": "x"}}),
        ],
    );
}

#[test]
fn recursive_refs_kept_with_their_defs() {
    let tool = tool(json!({"type": "object", "required": ["tree"], "properties": {"tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "next": {"$ref": "#/$defs/node"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        }}},
    }));
    let deep = json!({"name": "a", "next": {"name": "b", "next": {"name": "c", "next": {"name": "d", "next": {"name": "e"}}}}});
    round_trips(
        &tool,
        &[
            json!({"tree": {"name": "root"}}),
            json!({"tree": {"name": "root", "children": [{"name": "x", "children": [{"name": "y", "children": []}]}]}}),
            json!({"tree": deep}),
        ],
    );
    let form = {
        let mut form = Form::new(&tool);
        form.set_arguments(
            &json!({"tree": {"name": "a", "next": {"name": "b", "next": {"name": "c", "next": {"name": "d"}}}}}),
        );
        form
    };
    // A value deeper than the levels built up front fills real widgets all the way down.
    assert!(matches!(field(&form, "/tree/next/next/next").widget, Widget::Object { .. }));
    assert!(matches!(field(&form, "/tree/next/next/next/name").widget, Widget::Text { .. }));
}

#[test]
fn recursion_stubs_expand_on_request_keeping_what_they_hold() {
    let tool = tool(json!({"type": "object", "properties": {"tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "next": {"$ref": "#/$defs/node"},
        }}},
    }));
    let mut form = Form::new(&tool);
    let stub = path(&form, "/tree/next/next");
    assert!(is_raw(form.field(&stub).unwrap()));
    assert_eq!(form.pointer(&stub).as_deref(), Some("/tree/next/next"));
    type_text(&mut form, "/tree/next/next", r#"{"name": "deep"}"#);
    assert_eq!(form.arguments(), &json!({"tree": {"next": {"next": {"name": "deep"}}}}));
    assert!(form.expand(&stub));
    assert!(matches!(field(&form, "/tree/next/next/name").widget, Widget::Text { .. }));
    assert_eq!(form.arguments(), &json!({"tree": {"next": {"next": {"name": "deep"}}}}));
    type_text(&mut form, "/tree/next/next/next/name", "deeper");
    assert_eq!(form.arguments()["tree"]["next"]["next"]["next"], json!({"name": "deeper"}));
    assert!(is_raw(field(&form, "/tree/next/next/next/next")), "one more round of levels, no more");
    let name = path(&form, "/tree/name");
    assert!(!form.expand(&name), "not a stub");
    let stub = path(&form, "/tree/next/next/next/next");
    type_text(&mut form, "/tree/next/next/next/next", r#"{"name": "#);
    assert!(!form.expand(&stub), "half-typed JSON is not thrown away");
    assert_eq!(form.field(&stub).unwrap().input().unwrap().text(), r#"{"name": "#);
}

#[test]
fn definitions_refs_in_variants() {
    let tool = tool(json!({"type": "object", "properties": {"pet": {"oneOf": [
        {"$ref": "#/definitions/cat"}, {"$ref": "#/definitions/dog"},
    ]}}, "definitions": {
        "cat": {"type": "object", "properties": {"meow": {"type": "boolean"}}, "required": ["meow"], "additionalProperties": false},
        "dog": {"type": "object", "properties": {"bark": {"type": "integer"}}, "required": ["bark"], "additionalProperties": false},
    }}));
    round_trips(&tool, &[json!({"pet": {"meow": true}}), json!({"pet": {"bark": 3}})]);
    let mut form = Form::new(&tool);
    form.set_arguments(&json!({"pet": {"bark": 3}}));
    assert!(!any_raw(&form.root), "the dog variant is picked, not raw JSON");
    let Widget::Variant { selected, .. } = form.field(&variant_path(&form, "/pet")).unwrap().widget else { panic!() };
    assert_eq!(selected, 1);
}

#[test]
fn anything_and_all_of() {
    let tool = tool(json!({"type": "object", "properties": {
        "anything": {},
        "also": true,
        "merged": {"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer", "minimum": 0}}},
        ]},
    }}));
    round_trips(
        &tool,
        &[
            json!({"anything": null}),
            json!({"anything": "s", "also": [1, {"x": {}}]}),
            json!({"anything": {"nested": [true, 1.5]}, "also": 0}),
            json!({"merged": {"a": "x"}}),
            json!({"merged": {"a": "x", "b": 2, "c": "extra"}}),
        ],
    );
}

#[test]
fn property_names_that_need_escaping() {
    let tool = tool(json!({"type": "object", "required": ["a/b"], "properties": {
        "a/b": {"type": "string"},
        "c~d": {"type": "object", "properties": {"": {"type": "integer"}}},
        "type": {"type": "string"},
    }}));
    round_trips(&tool, &[json!({"a/b": "x"}), json!({"a/b": "x", "c~d": {"": 1}, "type": "t"})]);
}

mod real_world {
    use super::*;

    /// The corpus's tools, or `None` (said on stderr) where this checkout has no corpus.
    fn corpus() -> Option<Vec<Tool>> {
        let path = crate::form::corpus_dir::find()?;
        let loaded = load_paths(&[path], &LoadOptions::default());
        Some(loaded.catalog.tools().to_vec())
    }

    fn samples() -> Vec<Tool> {
        load_samples(&LoadOptions::default()).catalog.tools().to_vec()
    }

    /// Builds the form, and round-trips the fresh arguments (defaults), `{}` where nothing is
    /// required, and constructed examples with the required and with all properties.
    fn exercise(tool: &Tool) {
        let mut form = Form::new(tool);
        let fresh = form.arguments().clone();
        assert!(fresh.is_object(), "{}: {fresh}", tool.id);
        let mut candidates = vec![fresh];
        if tool.input_schema.get("required").is_none_or(|r| r.as_array().is_some_and(Vec::is_empty)) {
            candidates.push(json!({}));
        }
        candidates.push(example(&tool.input_schema, &tool.input_schema, 0, false));
        candidates.push(example(&tool.input_schema, &tool.input_schema, 0, true));
        let validator = jsonschema::options().should_validate_formats(true).build(&tool.input_schema).ok();
        for example in candidates {
            form.set_arguments(&example);
            assert_eq!(form.arguments(), &example, "{} ({})", tool.id, tool.source);
            if validator.as_ref().is_some_and(|v| v.is_valid(&example)) {
                assert_eq!(form.validation.error_count, 0, "{}: {example}: {:#?}", tool.id, form.validation.errors);
            }
        }
        for row in form.rows() {
            assert!(form.field(&row.path).is_some(), "{}: row {row:?}", tool.id);
        }
    }

    #[test]
    fn every_sample_tool() {
        let tools = samples();
        assert!(tools.len() >= 10);
        tools.iter().for_each(exercise);
    }

    #[test]
    fn every_corpus_tool() {
        let Some(tools) = corpus() else { return };
        assert!(tools.len() >= 50, "{} tools", tools.len());
        tools.iter().for_each(exercise);
    }

    /// Examples the definitions ship with are valid inputs: they go through the form unchanged.
    /// Without a corpus the samples' examples are still checked.
    #[test]
    fn shipped_argument_examples() {
        for tool in samples().iter().chain(&corpus().unwrap_or_default()) {
            for example in &tool.examples {
                if let tooldeck::catalog::Example::Arguments(arguments) = example
                    && arguments.is_object()
                {
                    let mut form = Form::new(tool);
                    form.set_arguments(arguments);
                    assert_eq!(form.arguments(), arguments, "{}", tool.id);
                }
            }
        }
    }
}

/// Builds an instance of `schema` the way a careful user would fill the form in: required
/// properties always, the others when `full`. Not always valid (patterns), always representable.
fn example(schema: &Value, root: &Value, depth: usize, full: bool) -> Value {
    let mut schema = schema.clone();
    for _ in 0..8 {
        let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| root.pointer(r.strip_prefix('#')?))
        else {
            break;
        };
        schema = target.clone();
    }
    if let Some(value) = schema.get("const").or_else(|| schema.get("default")) {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(first) = ["oneOf", "anyOf"].iter().find_map(|k| schema.get(*k)?.as_array()?.first().cloned()) {
        let mut merged = schema.as_object().cloned().unwrap_or_default();
        merged.remove("oneOf");
        merged.remove("anyOf");
        if let Value::Object(own) = first {
            merged.extend(own);
        }
        return example(&Value::Object(merged), root, depth, full);
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null").into(),
        _ if schema.get("properties").is_some() => "object".into(),
        _ => "any".into(),
    };
    match kind.as_str() {
        "string" => json!(match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => "2024-01-02T03:04:05Z",
            Some("date") => "2024-01-02",
            Some("email") => "someone@example.com",
            Some("uri") => "https://example.com/",
            Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
            _ => "text",
        }),
        "integer" => schema.get("minimum").cloned().unwrap_or(json!(1)),
        "number" => json!(1.5),
        "boolean" => json!(true),
        "null" => Value::Null,
        "array" if depth < 4 => match schema.get("items") {
            Some(items @ Value::Object(_)) => json!([example(items, root, depth + 1, full)]),
            _ => json!([]),
        },
        "array" => json!([]),
        "object" => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut map = Map::new();
            for (name, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
                if required.contains(&name.as_str()) || (full && depth < 4) {
                    map.insert(name.clone(), example(property, root, depth + 1, full));
                }
            }
            Value::Object(map)
        }
        _ => json!("anything"),
    }
}
