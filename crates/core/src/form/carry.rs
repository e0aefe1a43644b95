//! `--watch`: what the person typed into a form, carried over to the same tool's new schema
//! after its server restarted. A value survives where its field still exists and still takes
//! its type; a field removed, or whose type changed under the value, drops it and says so. Any
//! other change (a new maximum, a shorter enum) keeps the value: the form shows the error, and
//! the person sees what to fix instead of losing what they typed.

use serde_json::{Map, Value};

/// Why a typed value did not survive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Dropped {
    #[error("`{field}` dropped: the parameter was removed")]
    Removed { field: String },
    #[error("`{field}` dropped: its type is now {now}")]
    Retyped { field: String, now: String },
}

/// The values of `edits` (an arguments object) that `schema` still takes, and those dropped.
pub fn carry(edits: &Value, schema: &Value) -> (Value, Vec<Dropped>) {
    let mut dropped = Vec::new();
    let kept = match edits {
        Value::Object(values) => Value::Object(carry_object(values, schema, "", &mut dropped)),
        other => other.clone(),
    };
    (kept, dropped)
}

fn carry_object(
    values: &Map<String, Value>,
    schema: &Value,
    at: &str,
    dropped: &mut Vec<Dropped>,
) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    // A schema that lists no properties but takes any (no `additionalProperties: false`) keeps
    // what was typed: the form is free-form JSON there.
    let open = schema.get("additionalProperties") != Some(&Value::Bool(false));
    let mut kept = Map::new();
    for (name, value) in values {
        let field = if at.is_empty() { name.clone() } else { format!("{at}.{name}") };
        let Some(property) = properties.and_then(|p| p.get(name)) else {
            if open && properties.is_none_or(|p| p.is_empty()) {
                kept.insert(name.clone(), value.clone());
            } else {
                dropped.push(Dropped::Removed { field: crate::text::visible(&field).into_owned() });
            }
            continue;
        };
        if !takes_type(property, value) {
            let now = shown_types(property);
            dropped.push(Dropped::Retyped { field: crate::text::visible(&field).into_owned(), now });
            continue;
        }
        match value {
            Value::Object(inner) if property.get("properties").is_some() => {
                kept.insert(name.clone(), Value::Object(carry_object(inner, property, &field, dropped)));
            }
            _ => {
                kept.insert(name.clone(), value.clone());
            }
        }
    }
    kept
}

/// True when `schema`'s `type` (one or a list) takes `value`'s JSON type; a schema without a
/// `type` (`anyOf`, `const`, `{}`) takes any.
fn takes_type(schema: &Value, value: &Value) -> bool {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => return true,
    };
    types.iter().any(|t| match (*t, value) {
        ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("null", Value::Null)
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    })
}

fn shown_types(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(one)) => crate::text::visible(one).into_owned(),
        Some(Value::Array(list)) => {
            let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
            crate::text::visible(&names.join(" or ")).into_owned()
        }
        _ => "another".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_survives_where_its_field_keeps_its_type() {
        let edits = json!({"q": "cats", "limit": "5", "gone": true, "opts": {"deep": 1, "lost": "x"}});
        let schema = json!({"type": "object", "properties": {
            "q": {"type": "string", "maxLength": 2},
            "limit": {"type": "integer"},
            "opts": {"type": "object", "properties": {"deep": {"type": ["integer", "null"]}}, "additionalProperties": false}
        }});
        let (kept, dropped) = carry(&edits, &schema);
        assert_eq!(
            kept,
            json!({"q": "cats", "opts": {"deep": 1}}),
            "a new constraint keeps the value (the form shows it)"
        );
        assert_eq!(
            dropped,
            [
                Dropped::Retyped { field: "limit".into(), now: "integer".into() },
                Dropped::Removed { field: "gone".into() },
                Dropped::Removed { field: "opts.lost".into() },
            ]
        );
        assert_eq!(dropped[0].to_string(), "`limit` dropped: its type is now integer");
    }

    #[test]
    fn a_schema_without_types_or_properties_keeps_everything() {
        let edits = json!({"a": 1, "b": [2]});
        let (kept, dropped) = carry(&edits, &json!({"type": "object"}));
        assert_eq!((kept, dropped), (edits.clone(), Vec::new()));
        let (kept, _) = carry(&json!({"n": 3.0}), &json!({"properties": {"n": {"type": "integer"}}}));
        assert_eq!(kept, json!({"n": 3.0}), "3.0 is an integer to JSON Schema");
    }
}
