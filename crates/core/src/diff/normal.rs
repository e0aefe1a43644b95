//! Before two schemas are compared, each is rewritten into one canonical spelling of what it
//! means, so that a change of form is not taken for a change of meaning: an integer's exclusive
//! bound becomes the inclusive one, `nullable` and a nullable `anyOf` become a `type` list,
//! `const` a one-member enum, an `allOf` of object parts one object, a `oneOf` whose branches
//! cannot overlap an `anyOf`, and the keywords that allow everything (`additionalProperties:
//! true`, `items: {}`, `required: []`) are dropped.

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value};

/// Rewriting stops this deep (inlined `$ref`s can nest deeply); below it a schema stays as written.
const MAX_DEPTH: usize = 64;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value is a list of subschemas.
const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAPS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
/// Keywords that only describe: they may sit beside a nullable `anyOf` and move onto its merge.
const WORDS: &[&str] = &["description", "title", "default", "examples", "example", "deprecated", "$comment"];

pub fn normalise(schema: &Value) -> Value {
    normalise_at(schema, 0)
}

fn normalise_at(schema: &Value, depth: usize) -> Value {
    let Value::Object(map) = schema else { return schema.clone() };
    if depth > MAX_DEPTH {
        return schema.clone();
    }
    let mut map = children(map, depth);
    merge_all_of(&mut map);
    nullable_any_of(&mut map);
    type_list(&mut map);
    integer_bounds(&mut map);
    one_of_without_overlap(&mut map);
    if let Some(value) = map.remove("const") {
        map.entry("enum").or_insert_with(|| Value::Array(vec![value]));
    }
    drop_allow_all(&mut map);
    Value::Object(map)
}

fn children(map: &Map<String, Value>, depth: usize) -> Map<String, Value> {
    map.iter()
        .map(|(key, value)| {
            let key_str = key.as_str();
            let value = match value {
                Value::Object(_) if ONE.contains(&key_str) => normalise_at(value, depth + 1),
                Value::Array(list) if LISTS.contains(&key_str) || key_str == "items" => {
                    Value::Array(list.iter().map(|s| normalise_at(s, depth + 1)).collect())
                }
                Value::Object(entries) if MAPS.contains(&key_str) => {
                    Value::Object(entries.iter().map(|(name, s)| (name.clone(), normalise_at(s, depth + 1))).collect())
                }
                _ => value.clone(),
            };
            (key.clone(), value)
        })
        .collect()
}

/// `allOf` parts that are all plain objects, with no property defined twice and no other
/// keyword given two values, are one object.
fn merge_all_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(parts)) = map.get("allOf") else { return };
    let objects = parts.iter().all(|p| {
        p.as_object().is_some_and(|p| {
            p.get("type").and_then(Value::as_str).is_none_or(|t| t == "object") && !p.contains_key("$ref")
        })
    });
    if !objects || parts.is_empty() {
        return;
    }
    let mut merged = map.clone();
    merged.remove("allOf");
    for part in parts.iter().filter_map(Value::as_object) {
        for (key, value) in part {
            match (key.as_str(), merged.get_mut(key)) {
                (_, None) => {
                    merged.insert(key.clone(), value.clone());
                }
                (_, Some(existing)) if existing == value => {}
                ("required", Some(Value::Array(names))) => {
                    for name in value.as_array().into_iter().flatten() {
                        if !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                }
                ("properties", Some(Value::Object(properties))) => {
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        match properties.get(name) {
                            Some(other) if other != schema => return,
                            _ => {
                                properties.insert(name.clone(), schema.clone());
                            }
                        }
                    }
                }
                _ if WORDS.contains(&key.as_str()) => {}
                _ => return,
            }
        }
    }
    if merged.contains_key("properties") || merged.contains_key("required") {
        merged.entry("type").or_insert_with(|| Value::String("object".into()));
    }
    *map = merged;
}

/// `anyOf: [X, {type: null}]` where X has a type is X with null among its types.
fn nullable_any_of(map: &mut Map<String, Value>) {
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get(keyword) else { continue };
        if branches.len() != 2 || map.contains_key("type") {
            continue;
        }
        let is_null = |b: &Value| {
            b.as_object().is_some_and(|b| b.get("type") == Some(&Value::String("null".into())) && b.len() == 1)
        };
        let Some(other) = branches.iter().find(|b| !is_null(b)).and_then(Value::as_object) else { continue };
        if !branches.iter().any(is_null) || !other.contains_key("type") {
            continue;
        }
        if other.keys().any(|k| map.contains_key(k) && !WORDS.contains(&k.as_str())) {
            continue;
        }
        let mut merged = other.clone();
        let types = match merged.remove("type") {
            Some(Value::Array(list)) => list,
            Some(one) => vec![one],
            None => Vec::new(),
        };
        let mut types: Vec<Value> = types;
        types.push(Value::String("null".into()));
        merged.insert("type".into(), Value::Array(types));
        for (key, value) in map.iter().filter(|(k, _)| k.as_str() != keyword) {
            merged.insert(key.clone(), value.clone());
        }
        *map = merged;
        return;
    }
}

/// `nullable: true` (OpenAPI) adds null; a type list is sorted, and one of one type is that type.
fn type_list(map: &mut Map<String, Value>) {
    let nullable = map.remove("nullable") == Some(Value::Bool(true));
    let mut types: BTreeSet<String> = match map.get("type") {
        Some(Value::String(t)) => [t.clone()].into(),
        Some(Value::Array(list)) if list.iter().all(Value::is_string) => {
            list.iter().filter_map(Value::as_str).map(str::to_string).collect()
        }
        _ => return,
    };
    if nullable {
        types.insert("null".into());
    }
    // An integer is a number: a list with both allows any number.
    if types.contains("number") {
        types.remove("integer");
    }
    let value = if types.len() == 1 {
        types.into_iter().map(Value::String).next().unwrap_or(Value::Null)
    } else {
        Value::Array(types.into_iter().map(Value::String).collect())
    };
    map.insert("type".into(), value);
}

/// For integers `exclusiveMinimum: 0` is `minimum: 1` (and so for the upper bound); the tighter
/// of two lower bounds is the bound.
fn integer_bounds(map: &mut Map<String, Value>) {
    if map.get("type").and_then(Value::as_str) != Some("integer") {
        return;
    }
    for (exclusive, inclusive, lower) in [("exclusiveMinimum", "minimum", true), ("exclusiveMaximum", "maximum", false)]
    {
        let Some(bound) = map.get(exclusive).and_then(Value::as_f64) else { continue };
        let converted = if lower { bound.floor() + 1.0 } else { bound.ceil() - 1.0 };
        let current = map.get(inclusive).and_then(Value::as_f64);
        let tighter = match current {
            Some(c) if lower => c.max(converted),
            Some(c) => c.min(converted),
            None => converted,
        };
        map.remove(exclusive);
        map.insert(inclusive.into(), number(tighter));
    }
    // Zod writes JavaScript's safe-integer range on every integer: no caller sends past it.
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if map.get("maximum").and_then(Value::as_f64).is_some_and(|m| m >= SAFE) {
        map.remove("maximum");
    }
    if map.get("minimum").and_then(Value::as_f64).is_some_and(|m| m <= -SAFE) {
        map.remove("minimum");
    }
    for inclusive in ["minimum", "maximum"] {
        // `minimum: 0.5` on an integer is `minimum: 1`.
        if let Some(bound) = map.get(inclusive).and_then(Value::as_f64).filter(|b| b.fract() != 0.0) {
            let rounded = if inclusive == "minimum" { bound.ceil() } else { bound.floor() };
            map.insert(inclusive.into(), number(rounded));
        } else if let Some(bound) = map.get(inclusive).and_then(Value::as_f64) {
            map.insert(inclusive.into(), number(bound));
        }
    }
}

fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        Value::Number(Number::from(value as i64))
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

/// A `oneOf` whose branches each allow types no other allows can match only one branch for any
/// value: it means what `anyOf` means.
fn one_of_without_overlap(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("oneOf") else { return };
    if map.contains_key("anyOf") || !branches_disjoint(branches) {
        return;
    }
    if let Some(branches) = map.remove("oneOf") {
        map.insert("anyOf".into(), branches);
    }
}

/// True when every branch declares its types and no two branches share one.
pub fn branches_disjoint(branches: &[Value]) -> bool {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for branch in branches {
        let types: Vec<String> = match branch.get("type") {
            Some(Value::String(t)) => vec![t.clone()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => return false,
        };
        for t in types {
            // An integer is also a number.
            let clash = seen.contains(&t)
                || (t == "integer" && seen.contains("number"))
                || (t == "number" && seen.contains("integer"));
            if clash {
                return false;
            }
            seen.insert(t);
        }
    }
    true
}

fn drop_allow_all(map: &mut Map<String, Value>) {
    if map.get("additionalProperties") == Some(&Value::Bool(true)) {
        map.remove("additionalProperties");
    }
    for keyword in ["items", "additionalProperties"] {
        if map.get(keyword).is_some_and(|v| v.as_object().is_some_and(Map::is_empty)) {
            map.remove(keyword);
        }
    }
    if map.get("required").is_some_and(|r| r.as_array().is_some_and(Vec::is_empty)) {
        map.remove("required");
    }
    if map.get("properties").is_some_and(|p| p.as_object().is_some_and(Map::is_empty))
        && map.get("type").and_then(Value::as_str) == Some("object")
    {
        map.remove("properties");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_of_one_meaning_become_one_form() {
        let pairs = [
            (json!({"type": "integer", "exclusiveMinimum": 0}), json!({"type": "integer", "minimum": 1})),
            (json!({"type": "integer", "exclusiveMaximum": 10}), json!({"type": "integer", "maximum": 9})),
            (json!({"type": ["null", "string"]}), json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            (json!({"type": "string", "nullable": true}), json!({"type": ["string", "null"]})),
            (json!({"const": "a"}), json!({"enum": ["a"]})),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            ),
            (
                json!({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"properties": {"b": {}}}]}),
                json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {}}, "required": ["a"]}),
            ),
            (
                json!({"type": "object", "properties": {}, "required": [], "additionalProperties": true}),
                json!({"type": "object"}),
            ),
            (json!({"type": "integer", "maximum": 9_007_199_254_740_991_i64}), json!({"type": "integer"})),
        ];
        for (a, b) in pairs {
            assert_eq!(normalise(&a), normalise(&b), "{a} and {b}");
        }
    }

    #[test]
    fn forms_of_other_meanings_stay_apart() {
        let pairs = [
            (json!({"type": "number", "exclusiveMinimum": 0}), json!({"type": "number", "minimum": 1})),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}),
                json!({"anyOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}),
            ),
            (
                json!({"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "integer"}}}]}),
                json!({"properties": {"a": {"type": "string"}}}),
            ),
        ];
        for (a, b) in pairs {
            assert_ne!(normalise(&a), normalise(&b), "{a} and {b}");
        }
    }
}
