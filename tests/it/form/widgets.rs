//! Every JSON Schema construct builds its widget.

use super::*;

#[test]
fn strings_with_format_pattern_and_lengths_are_single_line_text() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "email": {"type": "string", "format": "email"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3},
    }})));
    for pointer in ["/email", "/code"] {
        assert!(matches!(field(&form, pointer).widget, Widget::Text { multiline: false, .. }), "{pointer}");
    }
    assert_eq!(field(&form, "/email").schema["format"], "email");
    assert_eq!(field(&form, "/code").schema["maxLength"], 3);
}

#[test]
fn textarea_from_a_genaiscript_ui_type_and_from_a_value_with_newlines() {
    let tool = sample("customer-letter");
    let mut form = Form::new(&tool);
    assert!(matches!(field(&form, "/notes").widget, Widget::Text { multiline: true, .. }));
    assert!(matches!(field(&form, "/subject").widget, Widget::Text { multiline: false, .. }));
    let mut arguments = form.arguments().clone();
    arguments["subject"] = json!("line one\nline two");
    form.set_arguments(&arguments);
    assert!(matches!(field(&form, "/subject").widget, Widget::Text { multiline: true, .. }));
    assert_eq!(form.arguments()["subject"], "line one\nline two");
}

#[test]
fn enums_of_any_type_are_pickers() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "mixed": {"enum": ["a", 1, true, null, {"k": "v"}]},
    }})));
    let Widget::Choice { choices, selected } = &field(&form, "/mixed").widget else { panic!("not a picker") };
    assert_eq!(*selected, None);
    let values: Vec<&Value> = choices.iter().map(|c| &c.value).collect();
    assert_eq!(values, [&json!("a"), &json!(1), &json!(true), &json!(null), &json!({"k": "v"})]);
    let labels: Vec<&str> = choices.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["a", "1", "true", "null", r#"{"k":"v"}"#]);
    assert!(matches!(field(&form, "/unit").widget, Widget::Choice { .. }));
    assert!(matches!(field(&form, "/level").widget, Widget::Choice { .. }));
}

#[test]
fn one_of_consts_with_titles_is_an_enum_with_labels() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "size": {"oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
    }})));
    let Widget::Choice { choices, .. } = &field(&form, "/size").widget else { panic!("not a picker") };
    let pairs: Vec<(&Value, &str)> = choices.iter().map(|c| (&c.value, c.label.as_str())).collect();
    assert_eq!(pairs, [(&json!("s"), "Small"), (&json!("l"), "Large")]);
}

#[test]
fn gloodata_tag_values_label_the_picker() {
    let mut form = Form::new(&sample("servicedesk.serviceStatus"));
    let Widget::Choice { choices, .. } = &field(&form, "/service").widget else { panic!("not a picker") };
    let pairs: Vec<(&Value, &str)> = choices.iter().map(|c| (&c.value, c.label.as_str())).collect();
    assert_eq!(pairs[..2], [(&json!("api"), "Public API"), (&json!("web"), "Web App")]);
    let at = path(&form, "/service");
    form.choose(&at, 1);
    assert_eq!(form.arguments(), &json!({"service": "web"}));
}

#[test]
fn suggestions_from_ui_suggestions_and_examples() {
    let tool = load_one(
        "s.genai.json5",
        r#"{ model: { type: "string", uiSuggestions: ["gpt-4o", "o3-mini"] },
             city: { type: "string", examples: ["Lisbon", "Cairo"] } }"#,
    );
    let form = Form::new(&tool);
    let Widget::Suggest { suggestions, .. } = &field(&form, "/model").widget else { panic!("no suggestions") };
    assert_eq!(suggestions, &[json!("gpt-4o"), json!("o3-mini")]);
    let Widget::Suggest { suggestions, .. } = &field(&form, "/city").widget else { panic!("no suggestions") };
    assert_eq!(suggestions, &[json!("Lisbon"), json!("Cairo")]);
}

#[test]
fn const_is_fixed_and_numbers_know_if_they_are_integers() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "kind": {"const": "circle"},
        "count": {"type": "integer", "minimum": 1, "maximum": 9},
        "ratio": {"type": "number", "exclusiveMinimum": 0},
    }})));
    assert_eq!(field(&form, "/kind").widget, Widget::Const(json!("circle")));
    assert!(matches!(field(&form, "/count").widget, Widget::Number { integer: true, .. }));
    assert!(matches!(field(&form, "/ratio").widget, Widget::Number { integer: false, .. }));
}

#[test]
fn booleans_are_tri_state_without_a_default() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "maybe": {"type": "boolean"},
        "on": {"type": "boolean", "default": true},
    }})));
    assert_eq!(field(&form, "/maybe").widget, Widget::Bool(None));
    // A default is shown beside an unset checkbox, not set in it.
    let on = field(&form, "/on");
    assert_eq!(on.widget, Widget::Bool(None));
    assert_eq!(tooldeck::form::defaults::shown_default(on), Some(&json!(true)));
}

#[test]
fn run_options_are_marked() {
    let form = Form::new(&sample("customer-letter"));
    // Run options sit beside the Run hint: they are no rows of the form.
    assert!(form.rows().iter().all(|r| r.pointer != "/dryRun"));
    let options = form.run_options();
    assert_eq!(options.len(), 1);
    assert_eq!(options[0].1.name, "dryRun");
    assert_eq!(options[0].1.widget, Widget::Bool(None));
    assert!(!field(&form, "/subject").run_option);
}

#[test]
fn nested_objects_carry_required_markers_at_every_depth() {
    let form = Form::new(&tool(json!({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "object", "required": ["b"], "properties": {
            "b": {"type": "object", "required": ["c"], "properties": {
                "c": {"type": "string"}, "d": {"type": "string"},
            }},
        }},
    }})));
    let pointers: Vec<String> = form.rows().into_iter().map(|r| r.pointer).collect();
    assert_eq!(pointers, ["/a", "/a/b", "/a/b/c", "/a/b/d"]);
    let depths: Vec<usize> = form.rows().into_iter().map(|r| r.depth).collect();
    assert_eq!(depths, [0, 1, 2, 2]);
    for (pointer, required) in [("/a", true), ("/a/b", true), ("/a/b/c", true), ("/a/b/d", false)] {
        assert_eq!(field(&form, pointer).required, required, "{pointer}");
    }
}

#[test]
fn maps_arrays_variants_and_anything_else() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "extra": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": true},
        "closed": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "maybe": {"type": ["string", "null"]},
        "single": {"type": ["integer"]},
        "anything": {},
    }})));
    let Widget::Object { additional, .. } = &field(&form, "/labels").widget else { panic!() };
    assert_eq!(additional, &Some(json!({"type": "string"})));
    let Widget::Object { additional, .. } = &field(&form, "/extra").widget else { panic!() };
    assert!(additional.is_some());
    let Widget::Object { additional, .. } = &field(&form, "/closed").widget else { panic!() };
    assert!(additional.is_none());
    let Widget::Array { item_schema, items } = &field(&form, "/tags").widget else { panic!() };
    assert_eq!((item_schema, items.len()), (&json!({"type": "string"}), 0));
    let Widget::Variant { variants, .. } = &form.field(&variant_path(&form, "/either")).unwrap().widget else {
        panic!()
    };
    let labels: Vec<&str> = variants.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(labels, ["string", "integer"]);
    let Widget::Variant { variants, .. } = &form.field(&variant_path(&form, "/maybe")).unwrap().widget else {
        panic!()
    };
    let labels: Vec<&str> = variants.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(labels, ["string", "null"]);
    assert!(matches!(field(&form, "/single").widget, Widget::Number { integer: true, .. }));
    assert!(is_raw(field(&form, "/anything")));
}

#[test]
fn all_of_merges_into_one_object() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "p": {"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ]},
    }})));
    assert!(field(&form, "/p/a").required);
    assert!(matches!(field(&form, "/p/b").widget, Widget::Number { integer: true, .. }));
}

#[test]
fn recursive_refs_build_a_finite_form() {
    let schema = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}, "$defs": {
        "node": {"type": "object", "properties": {
            "value": {"type": "string"},
            "left": {"$ref": "#/$defs/node"},
            "right": {"$ref": "#/$defs/node"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        }},
    }});
    let form = Form::new(&tool(schema));
    assert!(form.rows().len() < 200, "{} rows", form.rows().len());
    assert!(matches!(field(&form, "/root/value").widget, Widget::Text { .. }));
}

#[test]
fn refs_that_double_at_every_level_build_quickly() {
    let mut defs = Map::new();
    defs.insert("d0".into(), json!({"type": "string"}));
    for i in 1..40 {
        let prev = format!("#/$defs/d{}", i - 1);
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
        );
    }
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d39"}}, "$defs": defs});
    let mut form = Form::new(&tool(schema));
    // 2^40 leaves would never finish: the form is built within its budget, not expanded whole
    // (how fast is the benches' business, not a test's).
    assert!(form.rows().len() < 10_000, "{} rows", form.rows().len());
    form.set_arguments(&json!({"x": {"a": {"b": {}}}}));
    assert_eq!(form.arguments(), &json!({"x": {"a": {"b": {}}}}));
}

/// A 4 KB file of `$ref`s that double at every level inlines to megabytes; a form of it would
/// hold hundreds of MB. It gets one JSON editor for the whole arguments, with a note saying why.
#[test]
fn a_schema_too_large_for_a_form_gets_the_json_editor_with_a_note() {
    let mut defs = serde_json::Map::new();
    defs.insert("d0".into(), json!({"type": "string", "description": "x".repeat(200)}));
    for i in 1..48 {
        let prev = format!("#/$defs/d{}", i - 1);
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
        );
    }
    let text = json!({"tools": [{"name": "bomb", "inputSchema": {
        "type": "object", "properties": {"x": {"$ref": "#/$defs/d47"}}, "$defs": defs
    }}]})
    .to_string();
    assert!(text.len() < 10_000);
    let tool = load_one("bomb.json", &text);
    let mut form = Form::new(&tool);
    let rows = form.rows();
    assert_eq!(rows.len(), 1, "one editor, not a form of thousands of fields");
    let root = form.field(&rows[0].path).expect("the editor");
    assert!(is_raw(root));
    assert!(root.description.as_deref().is_some_and(|d| d.contains("too large for a form")), "{:?}", root.description);
    type_text(&mut form, "", r#"{"x": {"a": "s"}}"#);
    assert_eq!(form.arguments(), &json!({"x": {"a": "s"}}));
}
