//! Reading a JSON Schema the way the generators need it: local `$ref`s followed, `allOf` merged,
//! the type a keyword implies, and the bounds of numbers, strings, arrays and objects.

use serde_json::{Map, Value};

/// `$ref` chains longer than this are treated as cycles and left unresolved.
const MAX_REF_HOPS: usize = 16;

/// The schema `schema` stands for, once its local `$ref` (`#/$defs/...`, `#/definitions/...`,
/// `#`) is followed and its `allOf` merged in. Remote references are left as they are.
pub fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> std::borrow::Cow<'a, Value> {
    for _ in 0..MAX_REF_HOPS {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else { break };
        let Some(target) = reference.strip_prefix('#').and_then(|pointer| root.pointer(pointer)) else { break };
        schema = target;
    }
    match schema.get("allOf").and_then(Value::as_array) {
        Some(parts) if !parts.is_empty() => std::borrow::Cow::Owned(merge_all_of(root, schema, parts)),
        _ => std::borrow::Cow::Borrowed(schema),
    }
}

/// `allOf`'s parts folded into one object schema: properties joined, `required` joined, other
/// keywords taken from the last part that has them (enough for the usual "base + extension").
fn merge_all_of(root: &Value, schema: &Value, parts: &[Value]) -> Value {
    let mut merged: Map<String, Value> = schema.as_object().cloned().unwrap_or_default();
    merged.remove("allOf");
    for part in parts {
        let part = resolve(root, part);
        let Some(part) = part.as_object() else { continue };
        for (key, value) in part {
            match (key.as_str(), merged.get_mut(key)) {
                ("properties", Some(Value::Object(existing))) => {
                    if let Value::Object(more) = value {
                        existing.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
                    }
                }
                ("required", Some(Value::Array(existing))) => {
                    for name in value.as_array().into_iter().flatten() {
                        if !existing.contains(name) {
                            existing.push(name.clone());
                        }
                    }
                }
                _ => {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
    }
    Value::Object(merged)
}

/// The JSON type a schema asks for: `type` (the first non-null one of a list), else the type its
/// keywords imply; `None` for a schema that allows anything.
pub fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(name)) => return Some(name),
        Some(Value::Array(names)) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            return names.iter().find(|n| **n != "null").or(names.first()).copied();
        }
        _ => {}
    }
    let has = |keys: &[&str]| keys.iter().any(|k| schema.get(*k).is_some());
    if has(&["properties", "required", "additionalProperties"]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
        Some("number")
    } else {
        None
    }
}

/// The types other than null a `type` list allows, when it allows more than one
/// (`["boolean", "string"]`); empty otherwise. Each is a part of the input space of its own: a
/// server that takes only "true" and "false" of the strings its schema allows is found there.
pub fn several_types(schema: &Value) -> Vec<&str> {
    let Some(Value::Array(names)) = schema.get("type") else { return Vec::new() };
    let names: Vec<&str> = names.iter().filter_map(Value::as_str).filter(|n| *n != "null").collect();
    if names.len() > 1 { names } else { Vec::new() }
}

/// `schema` with its `type` narrowed to `name` (its other keywords kept).
pub fn with_type(schema: &Value, name: &str) -> Value {
    let mut narrowed = schema.clone();
    if let Value::Object(map) = &mut narrowed {
        map.insert("type".into(), Value::String(name.into()));
    }
    narrowed
}

/// The other types a `type` list allows (besides [`type_of`]'s), e.g. `null` in `["string","null"]`.
pub fn also_allows_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_array).is_some_and(|t| t.iter().any(|n| n == "null"))
}

pub fn number(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

pub fn count(schema: &Value, key: &str) -> Option<usize> {
    schema.get(key).and_then(Value::as_u64).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// The inclusive range of numbers a schema allows; draft-4's boolean `exclusiveMinimum` too.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub low: Option<f64>,
    pub low_exclusive: bool,
    pub high: Option<f64>,
    pub high_exclusive: bool,
}

impl Range {
    pub fn of(schema: &Value) -> Range {
        let mut range = Range {
            low: number(schema, "minimum"),
            low_exclusive: false,
            high: number(schema, "maximum"),
            high_exclusive: false,
        };
        match schema.get("exclusiveMinimum") {
            Some(Value::Bool(true)) => range.low_exclusive = true,
            Some(Value::Number(n)) => {
                let n = n.as_f64().unwrap_or_default();
                if range.low.is_none_or(|low| n >= low) {
                    range.low = Some(n);
                    range.low_exclusive = true;
                }
            }
            _ => {}
        }
        match schema.get("exclusiveMaximum") {
            Some(Value::Bool(true)) => range.high_exclusive = true,
            Some(Value::Number(n)) => {
                let n = n.as_f64().unwrap_or_default();
                if range.high.is_none_or(|high| n <= high) {
                    range.high = Some(n);
                    range.high_exclusive = true;
                }
            }
            _ => {}
        }
        range
    }

    /// The smallest and largest allowed values for a step of `step` (1 for integers).
    pub fn inclusive(&self, step: f64) -> (Option<f64>, Option<f64>) {
        let low = self.low.map(|l| if self.low_exclusive { l + step } else { l });
        let high = self.high.map(|h| if self.high_exclusive { h - step } else { h });
        (low, high)
    }
}

/// The property names of an object schema, required first, in declared order.
pub fn properties(schema: &Value) -> Vec<(&str, &Value, bool)> {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(Value::Object(properties)) = schema.get("properties") else { return Vec::new() };
    let mut list: Vec<(&str, &Value, bool)> =
        properties.iter().map(|(name, s)| (name.as_str(), s, required.contains(&name.as_str()))).collect();
    list.sort_by_key(|(_, _, required)| !required);
    list
}

/// Required names the schema lists without declaring them as properties.
pub fn undeclared_required(schema: &Value) -> Vec<&str> {
    let declared = schema.get("properties").and_then(Value::as_object);
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| declared.is_none_or(|d| !d.contains_key(*name)))
        .collect()
}

/// True when the object takes no property beyond those declared.
pub fn closed(schema: &Value) -> bool {
    schema.get("additionalProperties") == Some(&Value::Bool(false))
        || schema.get("unevaluatedProperties") == Some(&Value::Bool(false))
}

/// A JSON number for `x`: an integer when it is one (so `integer` schemas accept it).
pub fn json_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// Every `pattern` in a schema, for compiling once.
pub fn patterns(schema: &Value, found: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("pattern", Value::String(p)) => found.push(p.clone()),
                    // Property names and enum values are data, not schemas.
                    ("enum" | "const" | "default" | "examples", _) => {}
                    _ => patterns(value, found, depth + 1),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| patterns(v, found, depth + 1)),
        _ => {}
    }
}
