//! Arguments from the command line: `--arg key=value` (coerced by the schema, `a.b=1` for nested
//! fields, a key repeated for array items) over an optional `--args-json` base.

use serde_json::{Map, Value};

use super::build::resolve;
use super::value::coerce;

/// Why `--arg` pairs (or their JSON base) do not make arguments, worded for the command line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    #[error("the arguments must be a JSON object, not {0}")]
    NotAnObject(Value),
    #[error("--arg \"{0}\" is not key=value")]
    NotKeyValue(String),
    #[error("an empty key")]
    EmptyKey,
    #[error("\"{parent}\" is not an object, so it cannot hold \"{key}\"")]
    CannotHold { parent: String, key: String },
}

/// Applies `key=value` pairs to `base` (an object), in order.
pub fn apply_pairs(base: Value, pairs: &[String], schema: &Value) -> Result<Value, ArgsError> {
    let mut arguments = match base {
        Value::Object(map) => map,
        other => return Err(ArgsError::NotAnObject(other)),
    };
    // Keys given more than once build arrays, even where the schema does not say "array".
    let mut counts = std::collections::HashMap::new();
    for pair in pairs {
        let (key, _) = split(pair)?;
        *counts.entry(key.to_string()).or_insert(0usize) += 1;
    }
    for pair in pairs {
        let (key, text) = split(pair)?;
        let path: Vec<&str> = key.split('.').collect();
        let field_schema = schema_at(schema, &path);
        let repeated = counts.get(key).copied().unwrap_or(0) > 1;
        let is_array = field_schema.get("type").and_then(Value::as_str) == Some("array");
        let target = slot(&mut arguments, &path)?;
        if repeated || is_array {
            let item_schema = resolve(field_schema.get("items").unwrap_or(&Value::Null), schema, 0);
            let item = coerce(text, &item_schema);
            match target {
                Value::Array(items) => items.push(item),
                other if other.is_null() => *other = Value::Array(vec![item]),
                other => *other = Value::Array(vec![other.take(), item]),
            }
        } else {
            *target = coerce(text, &field_schema);
        }
    }
    Ok(Value::Object(arguments))
}

fn split(pair: &str) -> Result<(&str, &str), ArgsError> {
    match pair.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        _ => Err(ArgsError::NotKeyValue(pair.to_string())),
    }
}

/// The schema of the property at `path` (following `$ref`s), or `{}` where nothing says.
fn schema_at(root: &Value, path: &[&str]) -> Value {
    let mut schema = resolve(root, root, 0);
    for key in path {
        let next = schema.get("properties").and_then(|p| p.get(*key)).cloned();
        schema = match next {
            Some(s) => resolve(&s, root, 0),
            None => return Value::Object(Map::new()),
        };
    }
    schema
}

/// The place for `path` in `arguments`, creating objects along the way.
fn slot<'a>(arguments: &'a mut Map<String, Value>, path: &[&str]) -> Result<&'a mut Value, ArgsError> {
    let (last, parents) = path.split_last().ok_or(ArgsError::EmptyKey)?;
    let mut map = arguments;
    for (depth, key) in parents.iter().enumerate() {
        let entry = map.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
        map = match entry {
            Value::Object(inner) => inner,
            _ => {
                return Err(ArgsError::CannotHold { parent: parents[..=depth].join("."), key: path.join(".") });
            }
        };
    }
    Ok(map.entry(last.to_string()).or_insert(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "year": {"type": "integer"},
                "metric": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "range": {"type": "object", "properties": {"min": {"type": "number"}, "max": {"type": "number"}}},
                "ids": {"type": "array", "items": {"type": "integer"}}
            }
        })
    }

    fn pairs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn coerced_by_the_schema() {
        let args = apply_pairs(json!({}), &pairs(&["city=Tokyo", "year=2024", "metric=true"]), &schema()).unwrap();
        assert_eq!(args, json!({"city": "Tokyo", "year": 2024, "metric": true}));
    }

    #[test]
    fn nested_and_repeated() {
        let list = pairs(&["range.min=1.5", "range.max=9", "tags=a", "tags=b", "ids=7"]);
        let args = apply_pairs(json!({}), &list, &schema()).unwrap();
        assert_eq!(args, json!({"range": {"min": 1.5, "max": 9}, "tags": ["a", "b"], "ids": [7]}));
    }

    #[test]
    fn pairs_override_the_json_base() {
        let args = apply_pairs(json!({"city": "Paris", "year": 1900}), &pairs(&["year=2000"]), &schema()).unwrap();
        assert_eq!(args, json!({"city": "Paris", "year": 2000}));
    }

    #[test]
    fn bad_pairs_say_why() {
        assert!(apply_pairs(json!({}), &pairs(&["novalue"]), &schema()).unwrap_err().to_string().contains("key=value"));
        assert!(
            apply_pairs(json!({"city": "x"}), &pairs(&["city.a=1"]), &schema())
                .unwrap_err()
                .to_string()
                .contains("not an object")
        );
        assert!(apply_pairs(json!([1]), &[], &schema()).unwrap_err().to_string().contains("JSON object"));
    }

    #[test]
    fn unknown_keys_read_as_json_or_text() {
        let args = apply_pairs(json!({}), &pairs(&["extra=5", "note=hello"]), &schema()).unwrap();
        assert_eq!(args, json!({"extra": 5, "note": "hello"}));
    }
}
