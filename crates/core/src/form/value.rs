//! Field tree ↔ JSON value, lossless both ways: a value that fits no widget goes into a raw
//! JSON field rather than being dropped. Also the marketplace schema guide's input coercion.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Number, Value};

use super::build::{self, resolve};
use super::{Field, Widget};
use crate::catalog::FieldCue;
use crate::catalog::schema::escape_pointer;

/// The arguments a field tree makes, and the texts that did not parse (by JSON pointer).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Built {
    pub arguments: Value,
    pub parse_errors: Vec<(String, String)>,
}

pub fn build(root: &Field) -> Built {
    let mut parse_errors = Vec::new();
    let arguments = value_of(root, "", &mut parse_errors).unwrap_or_else(|| Value::Object(Map::new()));
    Built { arguments, parse_errors }
}

/// The field's value, or `None` when it is left out (unset and optional).
fn value_of(field: &Field, pointer: &str, errors: &mut Vec<(String, String)>) -> Option<Value> {
    match &field.widget {
        Widget::Object { fields, entries, .. } => {
            let mut map = Map::new();
            // An optional object the user never set is sent once something in it was set by the
            // user (a value, an entry): not for its defaults or its required children alone, which
            // would only make it fail validation before the user asked for it.
            let mut wanted = field.set || field.required;
            for child in fields.iter().chain(entries) {
                let child_pointer = format!("{pointer}/{}", escape_pointer(&child.name));
                if let Some(value) = value_of(child, &child_pointer, errors) {
                    wanted |= holds_set(child);
                    map.insert(child.name.clone(), value);
                }
            }
            wanted.then_some(Value::Object(map))
        }
        Widget::Array { items, .. } => {
            let values: Vec<Value> = items
                .iter()
                .enumerate()
                .map(|(i, item)| value_of(item, &format!("{pointer}/{i}"), errors).unwrap_or(Value::Null))
                .collect();
            (field.set || field.required || !values.is_empty()).then_some(Value::Array(values))
        }
        Widget::Variant { inner, .. } => {
            if !field.set {
                return None;
            }
            value_of(inner, pointer, errors)
        }
        // Nothing to fill in, so a required constant is always there.
        Widget::Const(value) if field.set || field.required => Some(value.clone()),
        _ if !field.set => None,
        Widget::Text { input, .. } | Widget::Suggest { input, .. } => Some(Value::String(input.text().to_string())),
        Widget::Number { input, integer } => match parse_number(input.text(), *integer) {
            Ok(number) => Some(Value::Number(number)),
            Err(why) => {
                errors.push((pointer.to_string(), why.to_string()));
                // Still sent as typed, so "send anyway" shows the server exactly this text.
                Some(Value::String(input.text().to_string()))
            }
        },
        Widget::Bool(value) => value.map(Value::Bool),
        Widget::Choice { choices, selected } => selected.and_then(|i| choices.get(i)).map(|c| c.value.clone()),
        Widget::Const(_) => None,
        Widget::Raw { input } => {
            if input.text().trim().is_empty() {
                return None;
            }
            match serde_json::from_str(input.text()) {
                Ok(value) => Some(value),
                Err(e) => {
                    errors.push((pointer.to_string(), format!("not valid JSON: {e}")));
                    None
                }
            }
        }
    }
}

/// The value one field makes (`None` when it is left out), without the parse errors.
pub fn value(field: &Field) -> Option<Value> {
    value_of(field, "", &mut Vec::new())
}

/// Whether the field or anything inside it was set (by the user, a value or a default).
fn holds_set(field: &Field) -> bool {
    (field.set && !field.from_default)
        || match &field.widget {
            Widget::Object { fields, entries, .. } => fields.iter().chain(entries).any(holds_set),
            _ => false,
        }
}

/// Parses a number as typed; "12.5" in an integer field is an error that says so.
/// Why a typed text is not the number its field wants; said beside the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("a number is needed here")]
    Empty,
    #[error("{0} is not an integer")]
    NotAnInteger(String),
    #[error("\"{0}\" is not a number")]
    NotANumber(String),
    #[error("{0} is too large")]
    TooLarge(String),
}

pub fn parse_number(text: &str, integer: bool) -> Result<Number, NumberError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(NumberError::Empty);
    }
    if integer {
        if let Ok(i) = trimmed.parse::<i64>() {
            return Ok(Number::from(i));
        }
        if let Ok(u) = trimmed.parse::<u64>() {
            return Ok(Number::from(u));
        }
        return match trimmed.parse::<f64>() {
            // 3.0 and 1e3 are integers in JSON Schema.
            Ok(f) if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 => Ok(Number::from(f as i64)),
            Ok(_) => Err(NumberError::NotAnInteger(trimmed.to_string())),
            Err(_) => Err(NumberError::NotANumber(trimmed.to_string())),
        };
    }
    // Whole numbers stay exact rather than going through a float.
    if let Ok(i) = trimmed.parse::<i64>() {
        return Ok(Number::from(i));
    }
    if let Ok(u) = trimmed.parse::<u64>() {
        return Ok(Number::from(u));
    }
    match trimmed.parse::<f64>() {
        Ok(f) => Number::from_f64(f).ok_or_else(|| NumberError::TooLarge(trimmed.to_string())),
        Err(_) => Err(NumberError::NotANumber(trimmed.to_string())),
    }
}

/// The marketplace schema guide's coercion of a typed text to what the schema declares: "42" for a number is 42,
/// "true" for a boolean is true, anything for a string stays a string; JSON text for objects and
/// arrays. What cannot be coerced stays a string (the validator then says why).
pub fn coerce(text: &str, schema: &Value) -> Value {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for t in &types {
        let coerced = match *t {
            "integer" => parse_number(text, true).ok().map(Value::Number),
            "number" => parse_number(text, false).ok().map(Value::Number),
            "boolean" => match text.trim() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            "null" if text.trim() == "null" => Some(Value::Null),
            "object" | "array" => {
                serde_json::from_str::<Value>(text).ok().filter(|v| v.is_object() == (*t == "object"))
            }
            "string" => Some(Value::String(text.to_string())),
            _ => None,
        };
        if let Some(value) = coerced {
            return value;
        }
    }
    if types.is_empty() {
        // No declared type: JSON if it reads as JSON, else the text.
        return serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()));
    }
    Value::String(text.to_string())
}

/// Puts `value` into `field` (and its children), marking them set. A value the widget cannot
/// hold turns the field into raw JSON so nothing is lost.
pub fn set_value(field: &mut Field, value: &Value, root: &Value, cues: &BTreeMap<String, FieldCue>, pointer: &str) {
    set_value_preferring(field, value, root, cues, pointer, &HashMap::new());
}

/// Like [`set_value`], picking at each variant the option in `prefer` (by pointer) when the
/// value fits it, rather than the first that fits.
pub fn set_value_preferring(
    field: &mut Field,
    value: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
    prefer: &HashMap<String, usize>,
) {
    put(field, value, root, cues, pointer, prefer, Some(0));
}

/// A schema's default into the field just built for it. Stubs inside stay stubs holding their
/// part as raw JSON: each stub grown would build the schema again, default and all, and a
/// recursive schema with a default (a tree whose default has a child) grew forever.
pub(super) fn set_default(
    field: &mut Field,
    value: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
) {
    put(field, value, root, cues, pointer, &HashMap::new(), None);
}

/// Variants in a row that may pass one value on to a grown stub: `anyOf: [{$ref: itself}]`
/// would otherwise grow a stub, pick the variant and grow its stub again, forever.
const MAX_VARIANT_CHAIN: usize = 16;

/// [`set_value_preferring`]; `chain` counts the variants in a row that passed this same value
/// down (a stub grows only below [`MAX_VARIANT_CHAIN`]), `None` when no stub may grow.
fn put(
    field: &mut Field,
    value: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
    prefer: &HashMap<String, usize>,
    chain: Option<usize>,
) {
    // A child's value is part of this one, so the chain starts again there.
    let children = Children { root, cues, prefer, chain: chain.map(|_| 0) };
    let may_grow = chain.is_some_and(|n| n < MAX_VARIANT_CHAIN);
    // A stub left by a recursion or size limit grows into real widgets for the value it gets.
    if may_grow && let Some(real) = build::expand(field, root, cues, pointer) {
        *field = real;
    }
    field.set = true;
    field.from_default = false;
    let fits = match (&mut field.widget, value) {
        (Widget::Text { input, multiline }, Value::String(s)) => {
            *multiline |= s.contains('\n');
            input.set(s.clone());
            true
        }
        (Widget::Suggest { input, .. }, Value::String(s)) => {
            input.set(s.clone());
            true
        }
        (Widget::Number { input, integer }, Value::Number(n)) if !*integer || n.is_i64() || n.is_u64() => {
            input.set(n.to_string());
            true
        }
        (Widget::Bool(b), Value::Bool(v)) => {
            *b = Some(*v);
            true
        }
        (Widget::Choice { choices, selected }, v) => match choices.iter().position(|c| &c.value == v) {
            Some(i) => {
                *selected = Some(i);
                true
            }
            None => false,
        },
        (Widget::Const(c), v) => c == v,
        (Widget::Object { fields, additional, entries }, Value::Object(map)) => {
            children.object(fields, additional.as_ref(), entries, map, pointer);
            true
        }
        (Widget::Array { items, item_schema }, Value::Array(values)) => {
            items.clear();
            for (i, v) in values.iter().enumerate() {
                let item_pointer = format!("{pointer}/{i}");
                let mut item = build::item(item_schema, root, cues, &item_pointer, i);
                children.put(&mut item, v, &item_pointer);
                items.push(item);
            }
            true
        }
        (Widget::Variant { variants, selected, inner }, v) => {
            let preferred = prefer.get(pointer).copied().filter(|&i| i < variants.len());
            let preferred = preferred.filter(|&i| fits_schema(&variants[i].value, v, root));
            let fitting = preferred.or_else(|| variants.iter().position(|c| fits_schema(&c.value, v, root)));
            let index = fitting.unwrap_or(*selected);
            // A raw inner is a stub (or a value that fitted no option): build the option anew.
            if index != *selected || (inner.widget_is_raw() && may_grow) {
                *selected = index;
                let mut fresh = build::build(&variants[index].value, root, cues, pointer, String::new(), true, 1);
                fresh.set = true;
                **inner = fresh;
            }
            put(inner, v, root, cues, pointer, prefer, chain.map(|n| n + 1));
            true
        }
        (Widget::Raw { input }, v) => {
            input.set(pretty(v));
            true
        }
        _ => false,
    };
    if !fits {
        // Lossless: keep the value as JSON text in place of the widget.
        let name = field.name.clone();
        field.widget = Widget::Raw { input: super::TextInput::new(pretty(value)) };
        field.name = name;
    }
}

/// What putting a value into a field's children keeps: the schema's root and cues, the
/// preferred variants, and the variant chain (started again at each child).
struct Children<'a> {
    root: &'a Value,
    cues: &'a BTreeMap<String, FieldCue>,
    prefer: &'a HashMap<String, usize>,
    chain: Option<usize>,
}

impl Children<'_> {
    fn put(&self, field: &mut Field, value: &Value, pointer: &str) {
        put(field, value, self.root, self.cues, pointer, self.prefer, self.chain);
    }

    /// An object's declared fields take their keys (or are unset); every other key gets a row.
    fn object(
        &self,
        fields: &mut [Field],
        additional: Option<&Value>,
        entries: &mut Vec<Field>,
        map: &Map<String, Value>,
        pointer: &str,
    ) {
        for child in fields.iter_mut() {
            match map.get(&child.name) {
                Some(v) => self.put(child, v, &format!("{pointer}/{}", escape_pointer(&child.name))),
                None => unset(child),
            }
        }
        entries.clear();
        for (key, v) in map {
            if fields.iter().any(|f| &f.name == key) {
                continue;
            }
            // A key the schema does not declare still gets a row (raw JSON when nothing says
            // what it holds), so the value round-trips; the validator says if it is allowed.
            let schema = additional.cloned().unwrap_or_else(|| Value::Object(Map::new()));
            let entry_pointer = format!("{pointer}/{}", escape_pointer(key));
            let mut entry = build::build(&schema, self.root, self.cues, &entry_pointer, key.clone(), true, 0);
            self.put(&mut entry, v, &entry_pointer);
            entries.push(entry);
        }
    }
}

impl Field {
    fn widget_is_raw(&self) -> bool {
        matches!(self.widget, Widget::Raw { .. })
    }
}

/// Clears a field to its unset state (children too).
pub fn unset(field: &mut Field) {
    field.set = false;
    field.from_default = false;
    match &mut field.widget {
        Widget::Text { input, .. }
        | Widget::Suggest { input, .. }
        | Widget::Number { input, .. }
        | Widget::Raw { input } => input.clear(),
        Widget::Bool(b) => *b = None,
        Widget::Choice { selected, .. } => *selected = None,
        Widget::Object { fields, entries, .. } => {
            fields.iter_mut().for_each(unset);
            entries.clear();
        }
        Widget::Array { items, .. } => items.clear(),
        Widget::Variant { inner, .. } => unset(inner),
        Widget::Const(_) => {}
    }
}

/// Whether `value` is valid under `schema` (with the tool's root for `$ref`s).
fn fits_schema(schema: &Value, value: &Value, root: &Value) -> bool {
    let mut with_defs = resolve(schema, root, 0);
    if let Value::Object(map) = &mut with_defs {
        for key in ["$defs", "definitions"] {
            if let Some(defs) = root.get(key) {
                map.entry(key).or_insert_with(|| defs.clone());
            }
        }
    }
    jsonschema::options().should_validate_formats(false).build(&with_defs).is_ok_and(|v| v.is_valid(value))
}

pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_parse_with_clear_errors() {
        assert_eq!(parse_number("42", true), Ok(Number::from(42)));
        assert_eq!(parse_number("3.0", true), Ok(Number::from(3)));
        assert_eq!(parse_number("12.5", true).map_err(|e| e.to_string()), Err("12.5 is not an integer".into()));
        assert_eq!(parse_number("abc", false).map_err(|e| e.to_string()), Err("\"abc\" is not a number".into()));
        assert_eq!(parse_number(" 1e3 ", false).map(|n| n.as_f64()), Ok(Some(1000.0)));
        assert_eq!(parse_number("1e3", true), Ok(Number::from(1000)));
        assert_eq!(parse_number("18446744073709551615", false), Ok(Number::from(u64::MAX)));
        assert_eq!(parse_number("-9223372036854775808", true), Ok(Number::from(i64::MIN)));
        assert_eq!(parse_number("", true), Err(NumberError::Empty));
    }

    fn round_trip(schema: &Value, value: &Value) -> Value {
        let cues = BTreeMap::new();
        let mut root = build::root_field(schema, &cues);
        set_value_preferring(&mut root, value, schema, &cues, "", &HashMap::new());
        build(&root).arguments
    }

    /// Found by the property tests: building the form overflowed the stack, however large. Each
    /// stub grown for the default built the schema again, default and all.
    #[test]
    fn a_recursive_schema_with_a_default_builds() {
        let schema = json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/node"}}, "$defs": {"node":
            {"type": "object", "properties": {"q": {"$ref": "#/$defs/node"}}, "default": {"q": {}}}}});
        let root = build::root_field(&schema, &BTreeMap::new());
        // An optional field's default is shown, not sent (`defaults`).
        assert_eq!(build(&root).arguments, json!({}), "the default is not sent");
        let deep = json!({"p": {"q": {"q": {"q": {"q": {}}}}}});
        assert_eq!(round_trip(&schema, &deep), deep);
    }

    /// Found by the property tests: `anyOf: [{$ref: itself}]` took a value into a stub, grew it
    /// into the same variant with a stub, and so on until the stack overflowed.
    #[test]
    fn a_variant_of_itself_takes_a_value() {
        for node in [
            json!({"anyOf": [{"$ref": "#/$defs/node"}]}),
            json!({"anyOf": [{"$ref": "#/$defs/node"}], "default": {}}),
            json!({"type": ["object", "number"], "anyOf": [{"$ref": "#/$defs/node"}, {"$ref": "other.json"}]}),
        ] {
            let schema =
                json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/node"}}, "$defs": {"node": node}});
            for value in [json!({"p": {}}), json!({"p": {"x": [1, {"y": null}]}}), json!({"p": 3})] {
                assert_eq!(round_trip(&schema, &value), value, "{schema}");
            }
        }
    }

    #[test]
    fn marketplace_guide_coercion() {
        assert_eq!(coerce("42", &json!({"type": "number"})), json!(42));
        assert_eq!(coerce("42", &json!({"type": "string"})), json!("42"));
        assert_eq!(coerce("true", &json!({"type": "boolean"})), json!(true));
        assert_eq!(coerce("{\"key\": \"v\"}", &json!({"type": "number"})), json!("{\"key\": \"v\"}"));
        assert_eq!(coerce("[1,2]", &json!({"type": "array"})), json!([1, 2]));
        assert_eq!(coerce("7", &json!({"type": ["integer", "null"]})), json!(7));
        assert_eq!(coerce("null", &json!({"type": ["integer", "null"]})), json!(null));
        assert_eq!(coerce("{\"a\":1}", &json!({})), json!({"a": 1}));
    }
}
