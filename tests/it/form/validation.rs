//! Validation errors land on their own fields; the tile line follows the form.

use super::*;

fn messages(form: &Form) -> usize {
    form.validation.errors.values().map(Vec::len).sum()
}

#[test]
fn a_fraction_in_an_integer_field_is_one_error() {
    let mut form = Form::new(&tool(json!({"type": "object", "required": ["count"], "properties": {
        "count": {"type": "integer", "minimum": 20},
    }})));
    type_text(&mut form, "/count", "12.5");
    assert_eq!(form.errors_at("/count"), ["12.5 is not an integer"]);
    assert_eq!(form.validation.error_count, 1);
    assert_eq!(form.arguments(), &json!({"count": "12.5"}));
    type_text(&mut form, "/count", "abc");
    assert_eq!(form.errors_at("/count"), ["\"abc\" is not a number"]);
    type_text(&mut form, "/count", "12");
    assert_eq!(form.errors_at("/count").len(), 1);
    assert!(form.errors_at("/count")[0].contains("minimum of 20"), "{:?}", form.errors_at("/count"));
    type_text(&mut form, "/count", "42");
    assert!(form.validation.is_valid());
    assert_eq!(form.arguments(), &json!({"count": 42}));
}

#[test]
fn nested_required_shows_at_the_missing_field() {
    let mut form = Form::new(&tool(json!({"type": "object", "required": ["address"], "properties": {
        "address": {"type": "object", "required": ["street", "geo"], "properties": {
            "street": {"type": "string"},
            "city": {"type": "string"},
            "geo": {"type": "object", "required": ["lat"], "properties": {"lat": {"type": "number"}}},
        }},
    }})));
    type_text(&mut form, "/address/city", "Cairo");
    assert_eq!(form.errors_at("/address/street"), ["required"]);
    assert_eq!(form.errors_at("/address/geo/lat"), ["required"]);
    assert!(form.errors_at("/address").is_empty());
    assert!(form.errors_at("").is_empty());
    assert_eq!(form.validation.error_count, 2);
    type_text(&mut form, "/address/street", "Nile St");
    type_text(&mut form, "/address/geo/lat", "30.04");
    assert!(form.validation.is_valid(), "{:#?}", form.validation.errors);
}

#[test]
fn folding_a_group_keeps_its_errors_where_they_are() {
    let mut form = Form::new(&tool(json!({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "object", "required": ["b"], "properties": {"b": {"type": "string"}}},
    }})));
    let a = path(&form, "/a");
    form.toggle_collapsed(&a);
    form.revalidate();
    // The error stays at its field (so the count does not change); the folded group counts it.
    assert_eq!(form.errors_at("/a/b"), ["required"]);
    assert!(form.errors_at("/a").is_empty());
    assert_eq!(form.errors_inside("/a"), 1);
    assert_eq!(form.validation.error_count, 1);
}

#[test]
fn formats_show_at_their_fields() {
    let mut form = Form::new(&tool(json!({"type": "object", "properties": {
        "email": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "format": "uri"},
        "id": {"type": "string", "format": "uuid"},
        "day": {"type": "string", "format": "date"},
    }})));
    for (pointer, bad, good) in [
        ("/email", "nope", "a@example.com"),
        ("/when", "yesterday", "2024-01-02T03:04:05Z"),
        ("/site", "not a uri", "https://example.com"),
        ("/id", "123", "123e4567-e89b-12d3-a456-426614174000"),
        ("/day", "2024-13-45", "2024-12-31"),
    ] {
        type_text(&mut form, pointer, bad);
        let errors = form.errors_at(pointer);
        assert_eq!(errors.len(), 1, "{pointer}: {errors:?}");
        let format = pointer.trim_start_matches('/');
        let name = field(&form, pointer).schema["format"].as_str().unwrap().to_string();
        assert!(errors[0].contains(&name) && errors[0].contains(bad), "{format}: {errors:?}");
        assert_eq!(form.validation.error_count, messages(&form));
        type_text(&mut form, pointer, good);
        assert!(form.errors_at(pointer).is_empty(), "{pointer}: {:?}", form.errors_at(pointer));
    }
    assert!(form.validation.is_valid());
}

#[test]
fn pattern_lengths_and_bounds_show_at_their_fields() {
    let mut form = Form::new(&tool(json!({"type": "object", "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "name": {"type": "string", "minLength": 2, "maxLength": 5},
        "level": {"type": "integer", "maximum": 10},
        "ratio": {"type": "number", "exclusiveMinimum": 0},
        "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 1},
    }})));
    type_text(&mut form, "/code", "usd");
    type_text(&mut form, "/name", "x");
    type_text(&mut form, "/level", "11");
    type_text(&mut form, "/ratio", "0");
    let tags = path(&form, "/tags");
    form.add_item(&tags, None);
    form.add_item(&tags, None);
    let expect = [
        ("/code", "does not match"),
        ("/name", "shorter than 2"),
        ("/level", "maximum of 10"),
        ("/ratio", "less than or equal to the minimum of 0"),
        ("/tags", "more than 1 item"),
        ("/tags/0", "shorter than 1"),
        ("/tags/1", "shorter than 1"),
    ];
    for (pointer, text) in expect {
        let errors = form.errors_at(pointer);
        assert!(errors.len() == 1 && errors[0].contains(text), "{pointer}: {errors:?}");
    }
    assert_eq!(form.validation.error_count, expect.len());
    assert_eq!(form.validation.error_count, messages(&form));
    type_text(&mut form, "/name", "toolong");
    assert!(form.errors_at("/name")[0].contains("longer than 5"), "{:?}", form.errors_at("/name"));
}

#[test]
fn errors_inside_a_variant_show_at_the_field() {
    let mut form = Form::new(&tool(json!({"type": "object", "properties": {
        "when": {"type": ["string", "null"], "format": "date"},
    }})));
    type_text(&mut form, "/when", "soon");
    assert!(!form.errors_at("/when").is_empty());
    assert_eq!(form.validation.error_count, messages(&form));
}

#[test]
fn errors_of_the_picked_option_show_at_their_own_fields() {
    let mut form = Form::new(&tool(json!({"type": "object", "required": ["shape"], "properties": {
        "shape": {"oneOf": [
            {"title": "Circle", "type": "object", "required": ["r"], "properties": {"r": {"type": "number", "minimum": 0}}},
            {"title": "Square", "type": "object", "required": ["side"], "properties": {"side": {"type": "number"}}},
        ]},
        "id": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "integer"}]},
    }})));
    type_text(&mut form, "/shape/r", "-1");
    assert_eq!(form.errors_at("/shape").len(), 0, "{:#?}", form.validation.errors);
    assert_eq!(form.errors_at("/shape/r").len(), 1);
    assert!(form.errors_at("/shape/r")[0].contains("minimum of 0"), "{:?}", form.errors_at("/shape/r"));
    let shape = variant_path(&form, "/shape");
    form.pick_variant(&shape, 1);
    assert_eq!(form.errors_at("/shape/side"), ["required"]);
    type_text(&mut form, "/shape/side", "2");
    type_text(&mut form, "/id", "not-a-uuid");
    assert_eq!(form.errors_at("/id").len(), 1, "{:#?}", form.validation.errors);
    assert!(form.errors_at("/id")[0].contains("uuid"), "{:?}", form.errors_at("/id"));
    assert_eq!(form.validation.error_count, 1);
}

#[test]
fn errors_of_the_picked_root_option() {
    let mut form = Form::new(&tool(json!({"type": "object", "oneOf": [
        {"title": "By id", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        {"title": "By name", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    ]})));
    assert_eq!(form.errors_at("/id"), ["required"]);
    assert_eq!(form.validation.error_count, 1);
    form.pick_variant(&[], 1);
    assert_eq!(form.errors_at("/name"), ["required"]);
    type_text(&mut form, "/name", "x");
    assert!(form.validation.is_valid());
}

#[test]
fn an_unknown_key_is_a_whole_form_error() {
    let mut form = Form::new(&tool(json!({"type": "object", "properties": {"a": {"type": "string"}},
        "additionalProperties": false})));
    form.set_arguments(&json!({"a": "x", "b": 1}));
    assert_eq!(form.arguments(), &json!({"a": "x", "b": 1}), "nothing is lost");
    assert_eq!(form.validation.error_count, 1);
    assert!(form.validation.errors.values().flatten().any(|m| m.contains("'b'")), "{:?}", form.validation.errors);
}

#[test]
fn invalid_raw_json_is_an_error_there() {
    let mut form = Form::new(&tool(json!({"type": "object", "properties": {"any": {}}})));
    type_text(&mut form, "/any", "{oops");
    assert_eq!(form.errors_at("/any").len(), 1);
    assert!(form.errors_at("/any")[0].starts_with("not valid JSON"));
    assert_eq!(form.arguments(), &json!({}));
    type_text(&mut form, "/any", r#"{"ok": [1]}"#);
    assert_eq!(form.arguments(), &json!({"any": {"ok": [1]}}));
    assert!(form.validation.is_valid());
}

#[test]
fn error_count_matches_messages_on_real_tools() {
    let loaded = load_samples(&LoadOptions::default());
    for tool in loaded.catalog.tools() {
        let form = Form::new(tool);
        assert_eq!(form.validation.error_count, messages(&form), "{}", tool.id);
        let known: BTreeMap<String, usize> = form.row_index().into_iter().collect();
        for pointer in form.validation.errors.keys() {
            assert!(pointer.is_empty() || known.contains_key(pointer), "{}: error at {pointer}", tool.id);
        }
    }
}

mod tile {
    use super::*;
    use tooldeck::form::tile::tile_text;

    #[test]
    fn gloodata_map_tile_follows_the_form() {
        let tool = sample("maps.showMapAtAddressAndZoom");
        let tile = tool.ui.tile.clone().expect("a tile");
        let mut form = Form::new(&tool);
        assert_eq!(tile_text(&tile, form.arguments()), "Show Map");
        type_text(&mut form, "/address", "Cairo");
        assert_eq!(tile_text(&tile, form.arguments()), "Show Map Of \"Cairo\"");
        type_text(&mut form, "/zoom", "12");
        assert_eq!(tile_text(&tile, form.arguments()), "Show Map Of \"Cairo\" At Zoom Level 12");
        let address = path(&form, "/address");
        form.unset(&address);
        assert_eq!(tile_text(&tile, form.arguments()), "Show Map At Zoom Level 12");
    }
}

#[test]
fn a_form_whose_checker_is_still_compiling_shows_its_own_checks_then_the_schemas() {
    let tool = tool(json!({"type": "object", "required": ["count"], "properties": {
        "count": {"type": "integer", "minimum": 20},
    }}));
    let mut form = Form::with_checker(&tool, tooldeck::form::validate::Checker::pending());
    assert!(form.checking());
    type_text(&mut form, "/count", "abc");
    assert_eq!(form.errors_at("/count"), ["\"abc\" is not a number"], "parse errors need no schema");
    type_text(&mut form, "/count", "12");
    assert!(form.validation.is_valid(), "nothing compiled to say otherwise yet");
    form.set_checker(tooldeck::form::validate::Checker::new(&tool.input_schema));
    assert!(!form.checking());
    assert!(form.errors_at("/count")[0].contains("minimum of 20"), "{:?}", form.errors_at("/count"));
}
