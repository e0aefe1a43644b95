//! Unset semantics and the editing operations the keys map to.

use super::*;

fn optional_tool() -> Tool {
    tool(json!({"type": "object", "properties": {
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "flag": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {"type": "object", "properties": {"x": {"type": "string"}}},
        "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "anything": {},
    }}))
}

#[test]
fn a_fresh_form_of_optional_fields_is_empty() {
    let form = Form::new(&optional_tool());
    assert_eq!(form.arguments(), &json!({}));
    assert!(form.validation.is_valid());
    assert!(form.rows().iter().all(|r| !form.field(&r.path).unwrap().set || r.pointer == "/either"));
}

#[test]
fn optional_defaults_are_shown_not_sent_until_filled() {
    let mut form = Form::new(&tool(json!({"type": "object", "required": ["size"], "properties": {
        "name": {"type": "string"},
        "tone": {"type": "string", "default": "friendly"},
        "words": {"type": "integer", "default": 250},
        "round": {"type": "boolean", "default": false},
        "mode": {"enum": ["a", "b"], "default": "b"},
        "size": {"type": "integer", "default": 3},
    }})));
    // The server applies an optional field's default when it is absent; a required one is sent.
    assert_eq!(form.arguments(), &json!({"size": 3}));
    assert!(field(&form, "/size").from_default);
    for pointer in ["/tone", "/words", "/round", "/mode"] {
        assert!(!field(&form, pointer).set, "{pointer}");
        assert!(tooldeck::form::defaults::shown_default(field(&form, pointer)).is_some(), "{pointer}");
    }
    assert_eq!(form.fill_defaults(), 4);
    assert_eq!(form.arguments(), &json!({"tone": "friendly", "words": 250, "round": false, "mode": "b", "size": 3}));
    assert_eq!(form.fill_defaults(), 0, "nothing left to fill");
}

#[test]
fn a_required_object_inside_an_unset_optional_one_is_left_out() {
    let form = Form::new(&tool(json!({"type": "object", "properties": {
        "outer": {"type": "object", "required": ["inner", "k"], "properties": {
            "inner": {"type": "object", "properties": {"z": {"type": "string"}}},
            "k": {"const": 1},
        }},
    }})));
    assert_eq!(form.arguments(), &json!({}));
}

#[test]
fn editing_a_default_clears_its_mark() {
    let mut form = Form::new(&tool(json!({"type": "object", "properties": {
        "tone": {"type": "string", "default": "friendly"},
    }})));
    type_text(&mut form, "/tone", "stern");
    assert!(!field(&form, "/tone").from_default);
    assert_eq!(form.arguments(), &json!({"tone": "stern"}));
}

#[test]
fn an_empty_string_only_when_typed_and_deleted() {
    let mut form = Form::new(&optional_tool());
    let at = path(&form, "/name");
    form.edit_text(&at, |input, _| input.insert_char('a'));
    assert_eq!(form.arguments(), &json!({"name": "a"}));
    form.edit_text(&at, |input, _| input.backspace());
    assert_eq!(form.arguments(), &json!({"name": ""}));
    form.unset(&at);
    assert_eq!(form.arguments(), &json!({}));
    assert!(!form.field(&at).unwrap().set);
}

/// Cursor keys (and deleting nothing) in an empty optional field are no edit: it stays unset
/// and without an error. Through the public API with the keys' own text operations.
#[test]
fn moving_the_cursor_leaves_an_optional_field_unset() {
    let mut form = Form::new(&optional_tool());
    for pointer in ["/name", "/count", "/anything"] {
        let at = path(&form, pointer);
        form.edit_text(&at, |input, _| {
            input.left();
            input.right();
            input.word_left();
            input.home();
            input.end();
            input.backspace();
            input.delete();
            input.delete_word_left();
        });
        assert!(!form.field(&at).unwrap().set, "{pointer}");
    }
    assert_eq!(form.arguments(), &json!({}));
    assert!(form.validation.is_valid(), "{:#?}", form.validation.errors);
    let count = path(&form, "/count");
    form.edit_text(&count, |input, _| input.insert_char('7'));
    assert_eq!(form.arguments(), &json!({"count": 7}));
}

#[test]
fn unset_removes_any_kind_of_field() {
    let mut form = Form::new(&optional_tool());
    let all = json!({"name": "n", "count": 3, "flag": false, "mode": "b", "tags": ["t"], "opts": {"x": "y"},
        "either": 5, "anything": [1]});
    form.set_arguments(&all);
    assert_eq!(form.arguments(), &all);
    for key in ["name", "count", "flag", "mode", "tags", "opts", "anything"] {
        let at = path(&form, &format!("/{key}"));
        form.unset(&at);
        assert!(form.arguments().get(key).is_none(), "{key} still in {}", form.arguments());
    }
    let at = variant_path(&form, "/either");
    form.unset(&at);
    assert_eq!(form.arguments(), &json!({}));
}

#[test]
fn editing_inside_an_optional_object_brings_it_in() {
    let mut form = Form::new(&optional_tool());
    type_text(&mut form, "/opts/x", "v");
    assert_eq!(form.arguments(), &json!({"opts": {"x": "v"}}));
    let at = path(&form, "/opts");
    form.unset(&at);
    assert_eq!(form.arguments(), &json!({}));
}

#[test]
fn unsetting_a_variant_field_unsets_the_variant() {
    let mut form = Form::new(&tool(json!({"type": "object", "properties": {
        "target": {"anyOf": [
            {"type": "object", "properties": {"id": {"type": "integer"}}},
            {"type": "object", "properties": {"name": {"type": "string"}}},
        ]},
    }})));
    type_text(&mut form, "/target/id", "3");
    assert_eq!(form.arguments(), &json!({"target": {"id": 3}}));
    // The variant's object shows its fields straight under the picker: the row is the picker.
    let picker = path(&form, "/target");
    assert!(matches!(form.field(&picker).unwrap().widget, Widget::Variant { .. }));
    let mut inner = picker.clone();
    inner.push(0);
    assert!(matches!(form.field(&inner).unwrap().widget, Widget::Object { .. }));
    form.unset(&inner);
    assert_eq!(form.arguments(), &json!({}));
}

#[test]
fn editing_inside_a_variant_brings_it_in() {
    let mut form = Form::new(&optional_tool());
    type_text(&mut form, "/either", "x");
    assert_eq!(form.arguments(), &json!({"either": "x"}));
}

mod ops {
    use super::*;

    #[test]
    fn optional_checkbox_cycles_through_unset() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {"flag": {"type": "boolean"}}})));
        let at = path(&form, "/flag");
        let mut seen = Vec::new();
        for _ in 0..4 {
            form.toggle_bool(&at);
            seen.push(form.arguments().get("flag").cloned());
        }
        assert_eq!(seen, [Some(json!(true)), Some(json!(false)), None, Some(json!(true))]);
    }

    #[test]
    fn required_checkbox_flips() {
        let mut form = Form::new(&tool(
            json!({"type": "object", "required": ["flag"], "properties": {"flag": {"type": "boolean"}}}),
        ));
        assert_eq!(form.errors_at("/flag"), ["required"]);
        let at = path(&form, "/flag");
        let mut seen = Vec::new();
        for _ in 0..3 {
            form.toggle_bool(&at);
            seen.push(form.arguments()["flag"].clone());
        }
        assert_eq!(seen, [json!(true), json!(false), json!(true)]);
        assert!(form.validation.is_valid());
    }

    #[test]
    fn checkbox_with_a_default() {
        let mut form =
            Form::new(&tool(json!({"type": "object", "properties": {"on": {"type": "boolean", "default": true}}})));
        let at = path(&form, "/on");
        // Unset (the default shows) → true → false → unset.
        assert_eq!(form.arguments(), &json!({}));
        form.toggle_bool(&at);
        assert_eq!(form.arguments(), &json!({"on": true}));
        form.toggle_bool(&at);
        assert_eq!(form.arguments(), &json!({"on": false}));
        form.toggle_bool(&at);
        assert_eq!(form.arguments(), &json!({}));
    }

    #[test]
    fn choose_picks_an_enum_value() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {"mode": {"enum": ["a", 2, null]}}})));
        let at = path(&form, "/mode");
        form.choose(&at, 1);
        assert_eq!(form.arguments(), &json!({"mode": 2}));
        form.choose(&at, 2);
        assert_eq!(form.arguments(), &json!({"mode": null}));
        form.choose(&at, 9);
        assert_eq!(form.arguments(), &json!({"mode": null}));
    }

    fn variant_tool() -> Tool {
        tool(json!({"type": "object", "properties": {
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]},
            "maybe": {"type": ["string", "null"]},
            "shape": {"oneOf": [
                {"type": "object", "properties": {"name": {"type": "string"}, "r": {"type": "number"}}},
                {"type": "object", "properties": {"name": {"type": "string"}, "side": {"type": "number"}}},
            ]},
        }}))
    }

    #[test]
    fn switching_variant_keeps_a_number_typed_as_text() {
        let mut form = Form::new(&variant_tool());
        type_text(&mut form, "/either", "42");
        assert_eq!(form.arguments(), &json!({"either": "42"}));
        let at = variant_path(&form, "/either");
        form.pick_variant(&at, 1);
        assert_eq!(form.arguments(), &json!({"either": 42}));
        assert!(matches!(field(&form, "/either").widget, Widget::Number { .. }));
        form.pick_variant(&at, 0);
        assert_eq!(form.arguments(), &json!({"either": "42"}));
        form.pick_variant(&at, 2);
        assert_eq!(form.arguments(), &json!({}), "42 does not fit a boolean: the new variant starts empty");
    }

    #[test]
    fn switching_variant_of_an_untouched_field_invents_nothing() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "x": {"oneOf": [{"type": "string"}, {}]},
        }})));
        let at = variant_path(&form, "/x");
        form.pick_variant(&at, 1);
        assert!(field(&form, "/x").input().is_some_and(|i| i.text().is_empty()));
        assert_eq!(form.arguments(), &json!({}));
    }

    #[test]
    fn switching_nullable_to_null_and_back() {
        let mut form = Form::new(&variant_tool());
        type_text(&mut form, "/maybe", "text");
        let at = variant_path(&form, "/maybe");
        form.pick_variant(&at, 1);
        assert_eq!(form.arguments(), &json!({"maybe": null}));
        form.pick_variant(&at, 0);
        // The user picked "string": an empty one, as when a text is typed and deleted.
        assert_eq!(form.arguments(), &json!({"maybe": ""}));
        type_text(&mut form, "/maybe", "again");
        assert_eq!(form.arguments(), &json!({"maybe": "again"}));
    }

    #[test]
    fn switching_object_variants_keeps_shared_properties() {
        let mut form = Form::new(&variant_tool());
        type_text(&mut form, "/shape/name", "box");
        type_text(&mut form, "/shape/r", "2");
        assert_eq!(form.arguments(), &json!({"shape": {"name": "box", "r": 2}}));
        let at = variant_path(&form, "/shape");
        form.pick_variant(&at, 1);
        // `r` has no place in a square.
        assert_eq!(form.arguments(), &json!({"shape": {"name": "box"}}));
        assert!(matches!(field(&form, "/shape/side").widget, Widget::Number { .. }));
    }

    #[test]
    fn switching_object_variants_keeps_the_new_defaults() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "job": {"oneOf": [
                {"type": "object", "title": "Once", "properties": {"name": {"type": "string"}}},
                {"type": "object", "title": "Repeat", "properties": {
                    "name": {"type": "string"}, "every": {"type": "integer", "default": 60},
                }},
            ]},
        }})));
        type_text(&mut form, "/job/name", "backup");
        let at = variant_path(&form, "/job");
        form.pick_variant(&at, 1);
        assert_eq!(form.arguments(), &json!({"job": {"name": "backup"}}), "the default shows, not sent");
        form.fill_defaults();
        assert_eq!(form.arguments(), &json!({"job": {"name": "backup", "every": 60}}));
    }

    #[test]
    fn array_items_add_remove_move_and_renumber() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        }})));
        let tags = path(&form, "/tags");
        for text in ["a", "b", "c"] {
            let item = form.add_item(&tags, None).expect("an item");
            form.edit_text(&item, |input, _| input.insert_str(text, false));
        }
        assert_eq!(form.arguments(), &json!({"tags": ["a", "b", "c"]}));
        let names: Vec<String> = form.field(&tags).unwrap().children().iter().map(|f| f.name.clone()).collect();
        assert_eq!(names, ["[0]", "[1]", "[2]"]);
        let first = path(&form, "/tags/0");
        assert!(form.is_item(&first));
        assert!(!form.is_item(&tags));
        let moved = form.move_item(&first, 1).unwrap();
        assert_eq!(form.arguments(), &json!({"tags": ["b", "a", "c"]}));
        assert_eq!(form.field(&moved).unwrap().name, "[1]");
        assert_eq!(form.move_item(&moved, 2), None);
        let last = path(&form, "/tags/2");
        form.move_item(&last, -2).unwrap();
        assert_eq!(form.arguments(), &json!({"tags": ["c", "b", "a"]}));
        assert!(form.remove_item(&path(&form, "/tags/1")));
        assert_eq!(form.arguments(), &json!({"tags": ["c", "a"]}));
        let names: Vec<String> = form.field(&tags).unwrap().children().iter().map(|f| f.name.clone()).collect();
        assert_eq!(names, ["[0]", "[1]"]);
        let pointers: Vec<String> = form.rows().into_iter().map(|r| r.pointer).collect();
        assert_eq!(pointers, ["/tags", "/tags/0", "/tags/1"]);
        form.remove_item(&path(&form, "/tags/0"));
        form.remove_item(&path(&form, "/tags/0"));
        assert_eq!(form.arguments(), &json!({"tags": []}));
        form.unset(&tags);
        assert_eq!(form.arguments(), &json!({}));
    }

    #[test]
    fn picking_a_tagged_option_fills_in_its_tag() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "event": {"oneOf": [
                {"type": "object", "required": ["kind", "at"], "properties": {"kind": {"const": "timer"}, "at": {"type": "string"}}},
                {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "manual"}}},
            ]},
        }})));
        assert_eq!(form.arguments(), &json!({}));
        let event = variant_path(&form, "/event");
        form.pick_variant(&event, 1);
        assert_eq!(form.arguments(), &json!({"event": {"kind": "manual"}}));
        assert!(form.validation.is_valid(), "{:#?}", form.validation.errors);
        form.pick_variant(&event, 0);
        assert_eq!(form.arguments(), &json!({"event": {"kind": "timer"}}));
        assert_eq!(form.errors_at("/event/at"), ["required"]);
    }

    #[test]
    fn added_checkboxes_start_unticked() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "flags": {"type": "array", "items": {"type": "boolean"}},
            "switches": {"type": "object", "additionalProperties": {"type": "boolean"}},
        }})));
        let flags = path(&form, "/flags");
        let item = form.add_item(&flags, None).unwrap();
        assert_eq!(form.arguments(), &json!({"flags": [false]}));
        form.toggle_bool(&item);
        assert_eq!(form.arguments(), &json!({"flags": [true]}));
        form.toggle_bool(&item);
        assert_eq!(form.arguments(), &json!({"flags": [false]}), "an item is never unset");
        let switches = path(&form, "/switches");
        form.add_item(&switches, Some("on")).unwrap();
        assert_eq!(form.arguments()["switches"], json!({"on": false}));
        assert!(form.validation.is_valid());
    }

    #[test]
    fn adding_to_a_nullable_array_from_its_variant_row() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
        }})));
        let tags = variant_path(&form, "/tags");
        let item = form.add_item(&tags, None).expect("an item");
        assert_eq!(form.pointer(&item).as_deref(), Some("/tags/0"));
        form.edit_text(&item, |input, _| input.insert_str("x", false));
        assert_eq!(form.arguments(), &json!({"tags": ["x"]}));
    }

    #[test]
    fn array_of_objects_items() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "people": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "age": {"type": "integer"},
            }}},
        }})));
        let people = path(&form, "/people");
        form.add_item(&people, None).unwrap();
        assert_eq!(form.arguments(), &json!({"people": [{}]}));
        assert_eq!(form.errors_at("/people/0/name"), ["required"]);
        type_text(&mut form, "/people/0/name", "Ann");
        type_text(&mut form, "/people/0/age", "7");
        assert_eq!(form.arguments(), &json!({"people": [{"name": "Ann", "age": 7}]}));
        assert!(form.validation.is_valid());
    }

    #[test]
    fn item_cues_do_not_come_from_top_level_properties() {
        let tool = load_one(
            "c.genai.json5",
            r#"{ notes: { type: "string", uiType: "textarea" },
                 list: { type: "array", items: { type: "object", properties: { notes: { type: "string" } } } } }"#,
        );
        let mut form = Form::new(&tool);
        assert_eq!(tool.ui.fields.get("/notes").and_then(|c| c.widget), Some(Cue::Textarea));
        let list = path(&form, "/list");
        form.add_item(&list, None).unwrap();
        assert!(matches!(field(&form, "/list/0/notes").widget, Widget::Text { multiline: false, .. }));
    }

    #[test]
    fn map_entries_by_key() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false},
        }})));
        let labels = path(&form, "/labels");
        let entry = form.add_item(&labels, Some("x")).expect("an entry");
        form.edit_text(&entry, |input, _| input.insert_str("5", false));
        assert_eq!(form.arguments(), &json!({"labels": {"x": 5}}));
        assert_eq!(form.add_item(&labels, Some("x")), None, "keys are unique");
        assert_eq!(form.add_item(&labels, Some("")), None);
        assert_eq!(form.add_item(&labels, None), None);
        let entry = form.add_item(&labels, Some("y/z")).unwrap();
        assert!(form.is_item(&entry));
        // Sent as typed (nothing yet), with the reason it is wrong at the entry.
        assert_eq!(form.arguments(), &json!({"labels": {"x": 5, "y/z": ""}}));
        assert_eq!(form.errors_at("/labels/y~1z"), ["a number is needed here"]);
        assert!(form.remove_item(&entry));
        assert_eq!(form.arguments(), &json!({"labels": {"x": 5}}));
        let closed = path(&form, "/closed");
        assert_eq!(form.add_item(&closed, Some("b")), None);
    }

    /// The JSON view hands every edit back through `set_arguments`: what the user arranged in the
    /// form (folded groups, the option shown where several fit) survives it.
    #[test]
    fn json_view_edits_keep_folds_and_picked_options() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "opts": {"type": "object", "properties": {"a": {"type": "string"}}},
            "who": {"anyOf": [
                {"type": "object", "title": "Person", "properties": {"name": {"type": "string"}}},
                {"type": "object", "title": "Team", "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}},
            ]},
        }})));
        let who = variant_path(&form, "/who");
        form.pick_variant(&who, 1);
        type_text(&mut form, "/who/name", "ops");
        let opts = path(&form, "/opts");
        form.toggle_collapsed(&opts);
        let edited = json!({"opts": {"a": "x"}, "who": {"name": "ops team"}});
        form.set_arguments(&edited);
        assert_eq!(form.arguments(), &edited);
        assert!(form.field(&opts).unwrap().collapsed);
        let Widget::Variant { selected, .. } = form.field(&variant_path(&form, "/who")).unwrap().widget else {
            panic!()
        };
        assert_eq!(selected, 1, "still the team");
        let fresh = {
            let mut fresh = Form::new(&tool(Value::clone(&form.root_schema)));
            fresh.set_arguments(&edited);
            fresh
        };
        let Widget::Variant { selected, .. } = fresh.field(&variant_path(&fresh, "/who")).unwrap().widget else {
            panic!()
        };
        assert_eq!(selected, 0, "a fresh form shows the first option that fits");
    }

    #[test]
    fn collapsing_hides_rows() {
        let mut form = Form::new(&tool(json!({"type": "object", "properties": {
            "opts": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
            "after": {"type": "string"},
        }})));
        assert_eq!(form.rows().len(), 4);
        let opts = path(&form, "/opts");
        form.toggle_collapsed(&opts);
        let pointers: Vec<String> = form.rows().into_iter().map(|r| r.pointer).collect();
        assert_eq!(pointers, ["/opts", "/after"]);
        form.toggle_collapsed(&opts);
        assert_eq!(form.rows().len(), 4);
        let after = path(&form, "/after");
        form.toggle_collapsed(&after);
        assert_eq!(form.rows().len(), 4, "a leaf does not collapse");
    }
}
