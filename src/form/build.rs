//! Schema → field tree: one widget for every JSON Schema construct, with the formats' UI cues.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Choice, Field, TextInput, Widget};
use crate::catalog::schema::escape_pointer;
use crate::catalog::{FieldCue, Widget as Cue};

/// `$ref`s are followed at most this deep while building, so a recursive schema builds a finite
/// form (recursive parts start empty and grow when the user adds to them).
const MAX_REF_DEPTH: usize = 16;

pub fn root_field(schema: &Value, cues: &BTreeMap<String, FieldCue>) -> Field {
    let mut field = build(schema, schema, cues, "", String::new(), true, 0);
    field.set = true;
    field
}

/// Builds the field for `schema` at `pointer` (the cue key: property names joined by `/`).
pub fn build(
    schema: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
    name: String,
    required: bool,
    depth: usize,
) -> Field {
    let schema = resolve(schema, root, depth);
    let cue = cues.get(pointer);
    let mut field = Field {
        name,
        title: text(&schema, "title"),
        description: text(&schema, "description"),
        required,
        set: false,
        from_default: false,
        run_option: cue.and_then(|c| c.widget) == Some(Cue::RunOption),
        collapsed: false,
        widget: widget(&schema, root, cues, pointer, cue, depth),
        schema: schema.clone(),
    };
    if let Some(default) = schema.get("default") {
        super::value::set_value(&mut field, default, root, cues, pointer);
        field.set = true;
        field.from_default = true;
    }
    field
}

/// A new field for the value at array index `index` (items are always set).
pub fn item(item_schema: &Value, root: &Value, cues: &BTreeMap<String, FieldCue>, index: usize) -> Field {
    let mut field = build(item_schema, root, cues, "", format!("[{index}]"), true, 0);
    field.set = true;
    field
}

fn widget(
    schema: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
    cue: Option<&FieldCue>,
    depth: usize,
) -> Widget {
    if let Some(variants) = variants(schema) {
        let inner = Box::new(variant_field(&variants[0].value, root, cues, pointer, depth));
        return Widget::Variant { variants, selected: 0, inner };
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        let labels = cue.map(|c| c.enum_labels.as_slice()).unwrap_or_default();
        let choices = values
            .iter()
            .map(|v| Choice {
                value: v.clone(),
                label: labels.iter().find(|l| &l.value == v).map_or_else(|| show(v), |l| l.label.clone()),
            })
            .collect();
        return Widget::Choice { choices, selected: None };
    }
    if let Some(choices) = const_choices(schema) {
        return Widget::Choice { choices, selected: None };
    }
    if let Some(value) = schema.get("const") {
        return Widget::Const(value.clone());
    }
    match schema.get("type").and_then(Value::as_str).or_else(|| implied_type(schema)) {
        Some("string") => {
            let suggestions: Vec<Value> = cue
                .map(|c| c.suggestions.clone())
                .filter(|s| !s.is_empty())
                .or_else(|| schema.get("examples").and_then(Value::as_array).cloned())
                .unwrap_or_default();
            let multiline = cue.and_then(|c| c.widget) == Some(Cue::Textarea);
            if !suggestions.is_empty() && !multiline {
                Widget::Suggest { input: TextInput::default(), suggestions }
            } else {
                Widget::Text { input: TextInput::default(), multiline }
            }
        }
        Some("integer") => Widget::Number { input: TextInput::default(), integer: true },
        Some("number") => Widget::Number { input: TextInput::default(), integer: false },
        Some("boolean") => Widget::Bool(None),
        Some("object") => object(schema, root, cues, pointer, depth),
        Some("array") => {
            let item_schema = match schema.get("items") {
                Some(items @ (Value::Object(_) | Value::Bool(_))) => items.clone(),
                _ => Value::Object(Map::new()),
            };
            Widget::Array { items: Vec::new(), item_schema }
        }
        Some("null") => Widget::Const(Value::Null),
        _ => Widget::Raw { input: TextInput::default() },
    }
}

fn object(schema: &Value, root: &Value, cues: &BTreeMap<String, FieldCue>, pointer: &str, depth: usize) -> Widget {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    let child_pointer = format!("{pointer}/{}", escape_pointer(name));
                    let is_required = required.contains(&name.as_str());
                    build(property, root, cues, &child_pointer, name.clone(), is_required, depth + 1)
                })
                .collect()
        })
        .unwrap_or_default();
    // Without declared properties, an object is a free map; otherwise only when the schema says so.
    let has_properties = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    let additional = match schema.get("additionalProperties") {
        Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(Value::Object(Map::new())),
        Some(extra @ Value::Object(_)) => Some(extra.clone()),
        _ if !has_properties && schema.get("patternProperties").is_none() => Some(Value::Object(Map::new())),
        _ => None,
    };
    Widget::Object { fields, additional, entries: Vec::new() }
}

/// `oneOf`/`anyOf`, or a `type` list (`["string", "null"]`), as variants to pick from.
fn variants(schema: &Value) -> Option<Vec<Choice>> {
    if let Some(Value::Array(types)) = schema.get("type") {
        let mut base = schema.as_object().cloned().unwrap_or_default();
        base.remove("type");
        base.remove("default");
        let variants: Vec<Choice> = types
            .iter()
            .filter_map(Value::as_str)
            .map(|t| {
                let mut variant = base.clone();
                variant.insert("type".into(), Value::String(t.to_string()));
                if t == "null" {
                    variant.retain(|k, _| k == "type");
                }
                Choice { value: Value::Object(variant), label: t.to_string() }
            })
            .collect();
        return (variants.len() > 1).then_some(variants);
    }
    let options = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    if options.is_empty() || const_choices(schema).is_some() {
        return None;
    }
    let mut base = schema.as_object().cloned().unwrap_or_default();
    for k in ["oneOf", "anyOf", "default", "title", "description"] {
        base.remove(k);
    }
    Some(
        options
            .iter()
            .enumerate()
            .map(|(i, option)| {
                // The parent's own keywords (a `type`, `properties`) apply inside every variant.
                let mut merged = base.clone();
                if let Value::Object(own) = option {
                    merged.extend(own.clone());
                }
                Choice { value: Value::Object(merged), label: variant_label(option, i) }
            })
            .collect(),
    )
}

fn variant_field(
    schema: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
    depth: usize,
) -> Field {
    let mut field = build(schema, root, cues, pointer, String::new(), true, depth + 1);
    field.set = true;
    field
}

pub fn variant_label(option: &Value, index: usize) -> String {
    if let Some(title) = text(option, "title") {
        return title;
    }
    if let Some(reference) = option.get("$ref").and_then(Value::as_str) {
        return reference.rsplit('/').next().unwrap_or(reference).to_string();
    }
    match option.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | "),
        _ if option.get("const").is_some() => show(&option["const"]),
        _ if option.get("properties").is_some() => "object".into(),
        _ => format!("option {}", index + 1),
    }
}

/// `oneOf: [{const, title}, ...]` is an enum with labels.
fn const_choices(schema: &Value) -> Option<Vec<Choice>> {
    let options = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    if options.is_empty() || !options.iter().all(|o| o.get("const").is_some()) {
        return None;
    }
    Some(
        options
            .iter()
            .map(|o| Choice { value: o["const"].clone(), label: text(o, "title").unwrap_or_else(|| show(&o["const"])) })
            .collect(),
    )
}

fn implied_type(schema: &Value) -> Option<&'static str> {
    if schema.get("properties").is_some() || schema.get("additionalProperties").is_some() {
        Some("object")
    } else if schema.get("items").is_some() {
        Some("array")
    } else {
        None
    }
}

/// Follows a `$ref` (and merges `allOf`) so the widget sees one schema.
pub fn resolve(schema: &Value, root: &Value, depth: usize) -> Value {
    let mut schema = schema.clone();
    for _ in 0..MAX_REF_DEPTH {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else { break };
        if depth > MAX_REF_DEPTH {
            break;
        }
        let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p)) else { break };
        let mut merged = target.clone();
        if let (Value::Object(merged), Value::Object(own)) = (&mut merged, &schema) {
            for (k, v) in own {
                if k != "$ref" {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
        schema = merged;
    }
    if let Some(Value::Array(parts)) = schema.get("allOf").cloned() {
        let mut merged = schema.as_object().cloned().unwrap_or_default();
        merged.remove("allOf");
        for part in parts {
            let part = resolve(&part, root, depth + 1);
            let Value::Object(part) = part else { continue };
            for (k, v) in part {
                match (k.as_str(), merged.get_mut(&k), v) {
                    ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => mine.extend(theirs),
                    ("required", Some(Value::Array(mine)), Value::Array(theirs)) => mine.extend(theirs),
                    (_, Some(_), _) => {}
                    (_, None, v) => {
                        merged.insert(k, v);
                    }
                }
            }
        }
        schema = Value::Object(merged);
    }
    schema
}

fn text(schema: &Value, key: &str) -> Option<String> {
    schema.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A value as a short label.
pub fn show(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
