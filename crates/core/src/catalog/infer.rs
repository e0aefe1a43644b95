//! GenAIScript's parameter shorthand → JSON Schema, by the rules of GenAIScript's parameters-schema page:
//! `""` is a required string, `NaN` a required number, any other literal a default, `[x]` an
//! array typed from its first element, an object a nested object whose `""`/`NaN` fields are
//! required, and an object with a `type` is JSON Schema already (its nested objects converted).
//! There is no required boolean.

use serde_json::{Map, Value, json};

use super::Issue;
use super::document::{Node, NonFinite, Segment};

/// Converts one shorthand value at `path` (used for warnings only).
pub fn infer(node: Node, path: &mut Vec<Segment>, issues: &mut Vec<Issue>) -> Value {
    match (node.non_finite(), node.value()) {
        (Some(NonFinite::NaN), _) => json!({"type": "number"}),
        (Some(_), _) => {
            issues.push(Issue::warning(path.clone(), "Infinity has no JSON form; read as a number with no default"));
            json!({"type": "number"})
        }
        (None, Value::String(s)) if s.is_empty() => json!({"type": "string"}),
        (None, Value::String(s)) => json!({"type": "string", "default": s}),
        (None, Value::Number(n)) => json!({"type": "number", "default": n}),
        (None, Value::Bool(b)) => json!({"type": "boolean", "default": b}),
        (None, Value::Null) => {
            issues.push(Issue::warning(path.clone(), "null says nothing about the type; any value is accepted"));
            json!({})
        }
        (None, Value::Array(_)) => match node.items().next() {
            Some(first) => {
                path.push(Segment::Index(0));
                let mut items = infer(first, path, issues);
                path.pop();
                // Only the first element's type says anything about the items; it is no default.
                if let Some(map) = items.as_object_mut() {
                    map.remove("default");
                }
                json!({"type": "array", "items": items})
            }
            None => json!({"type": "array"}),
        },
        (None, Value::Object(map)) if is_schema(map) => typed_schema(node, path, issues),
        (None, Value::Object(_)) => {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for (key, value) in node.entries() {
                path.push(Segment::Key(key.to_string()));
                properties.insert(key.to_string(), infer(value, path, issues));
                path.pop();
                if is_required(value) {
                    required.push(Value::String(key.to_string()));
                }
            }
            json!({"type": "object", "properties": properties, "required": required})
        }
    }
}

/// Keywords that may stand beside `anyOf` in GenAIScript's `JSONSchemaAnyOf`.
const UNION_COMPANIONS: &[&str] = &["anyOf", "oneOf", "description", "title", "default", "required", "uiGroup"];

/// An object with `type` is JSON Schema already; so is GenAIScript's `{anyOf: [...],
/// description?}`, which names no property: its keys are all schema keywords.
fn is_schema(map: &Map<String, Value>) -> bool {
    let union = ["anyOf", "oneOf"].iter().any(|k| map.get(*k).is_some_and(Value::is_array));
    map.contains_key("type") || (union && map.keys().all(|k| UNION_COMPANIONS.contains(&k.as_str())))
}

/// `""`, `NaN`, or a schema object with `required: true`.
pub fn is_required(node: Node) -> bool {
    match node.value() {
        Value::String(s) => s.is_empty(),
        Value::Null => node.non_finite() == Some(NonFinite::NaN),
        Value::Object(map) => map.get("required") == Some(&Value::Bool(true)),
        _ => false,
    }
}

/// An object with `type`: JSON Schema already. Its `required: true|false` flag belongs to the
/// parent and is dropped here; `properties` and `items` may still hold shorthand.
fn typed_schema(node: Node, path: &mut Vec<Segment>, issues: &mut Vec<Issue>) -> Value {
    let mut schema = Map::new();
    let mut extra_required = Vec::new();
    for (key, value) in node.entries() {
        path.push(Segment::Key(key.to_string()));
        match (key, value.value()) {
            ("required", Value::Bool(_)) => {}
            ("properties", Value::Object(_)) => {
                let mut converted = Map::new();
                for (name, property) in value.entries() {
                    path.push(Segment::Key(name.to_string()));
                    converted.insert(name.to_string(), infer(property, path, issues));
                    path.pop();
                    if is_required(property) {
                        extra_required.push(Value::String(name.to_string()));
                    }
                }
                schema.insert(key.to_string(), Value::Object(converted));
            }
            ("items", Value::Object(_) | Value::Array(_)) => {
                schema.insert(key.to_string(), infer(value, path, issues));
            }
            ("anyOf" | "oneOf", Value::Array(_)) => {
                let mut branches = Vec::new();
                for (i, branch) in value.items().enumerate() {
                    path.push(Segment::Index(i));
                    branches.push(infer(branch, path, issues));
                    path.pop();
                }
                schema.insert(key.to_string(), Value::Array(branches));
            }
            _ => {
                if value.has_non_finite() {
                    issues.push(Issue::warning(path.clone(), "NaN or Infinity here has no JSON form; read as null"));
                }
                schema.insert(key.to_string(), value.value().clone());
            }
        }
        path.pop();
    }
    if !extra_required.is_empty() {
        let required = schema.entry("required").or_insert_with(|| json!([]));
        if let Value::Array(list) = required {
            for name in extra_required {
                if !list.contains(&name) {
                    list.push(name);
                }
            }
        }
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::document::Document;

    fn schema_of(text: &str) -> Value {
        let mut issues = Vec::new();
        infer(Document::parse(text).unwrap().root(), &mut Vec::new(), &mut issues)
    }

    // Each example of GenAIScript's parameters-schema page, to the exact JSON Schema it gives.
    #[test]
    fn documented_examples() {
        assert_eq!(schema_of(r#"{ type: "string" }"#), json!({"type": "string"}));
        assert_eq!(schema_of(r#""""#), json!({"type": "string"}));
        assert_eq!(schema_of(r#""San Francisco""#), json!({"type": "string", "default": "San Francisco"}));
        assert_eq!(schema_of("NaN"), json!({"type": "number"}));
        assert_eq!(schema_of("42"), json!({"type": "number", "default": 42}));
        assert_eq!(schema_of("true"), json!({"type": "boolean", "default": true}));
        assert_eq!(schema_of(r#"[""]"#), json!({"type": "array", "items": {"type": "string"}}));
        assert_eq!(
            schema_of(r#"{ city: "" }"#),
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
        );
        assert_eq!(
            schema_of("{ price: 42 }"),
            json!({"type": "object", "properties": {"price": {"type": "number", "default": 42}}, "required": []})
        );
        assert_eq!(
            schema_of(r#"{ city: "", year: NaN }"#),
            json!({"type": "object", "properties": {"city": {"type": "string"}, "year": {"type": "number"}}, "required": ["city", "year"]})
        );
    }

    #[test]
    fn ui_cues_are_kept() {
        assert_eq!(
            schema_of(r#"{ type: "string", uiType: "textarea" }"#),
            json!({"type": "string", "uiType": "textarea"})
        );
        assert_eq!(
            schema_of(r#"{ type: "string", uiSuggestions: ["San Francisco", "New York"] }"#),
            json!({"type": "string", "uiSuggestions": ["San Francisco", "New York"]})
        );
        assert_eq!(
            schema_of(r#"{ type: "boolean", uiType: "runOption" }"#),
            json!({"type": "boolean", "uiType": "runOption"})
        );
    }

    #[test]
    fn no_required_boolean_and_flags_move_to_parent() {
        assert_eq!(
            schema_of(
                r#"{ ok: false, n: { type: "integer", required: true }, m: { type: "integer", required: false } }"#
            ),
            json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean", "default": false}, "n": {"type": "integer"}, "m": {"type": "integer"}},
                "required": ["n"]
            })
        );
    }

    #[test]
    fn nested_shorthand_inside_schemas_is_converted() {
        assert_eq!(
            schema_of(r#"{ type: "object", properties: { street: "", zip: 0 }, description: "d" }"#),
            json!({
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": "number", "default": 0}},
                "description": "d",
                "required": ["street"]
            })
        );
        assert_eq!(
            schema_of(r#"{ type: "array", items: { name: "" } }"#),
            json!({"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
        );
        assert_eq!(
            schema_of(r#"{ address: { street: "", n: 1 } }"#)["properties"]["address"],
            json!({"type": "object", "properties": {"street": {"type": "string"}, "n": {"type": "number", "default": 1}}, "required": ["street"]})
        );
    }

    #[test]
    fn an_any_of_with_a_description_is_a_schema_not_two_properties() {
        assert_eq!(
            schema_of(r#"{ kind: { anyOf: [{ type: "string" }, { type: "number" }], description: "d" } }"#)["properties"]
                ["kind"],
            json!({"anyOf": [{"type": "string"}, {"type": "number"}], "description": "d"})
        );
        // A shorthand object with a parameter that happens to be called anyOf stays an object.
        assert_eq!(schema_of(r#"{ anyOf: [""], city: "" }"#)["properties"]["city"], json!({"type": "string"}));
    }

    #[test]
    fn arrays_take_the_first_elements_type() {
        assert_eq!(schema_of("[NaN, 1]"), json!({"type": "array", "items": {"type": "number"}}));
        assert_eq!(schema_of("[]"), json!({"type": "array"}));
        assert_eq!(
            schema_of(r#"[{ a: "" }]"#),
            json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}})
        );
    }
}
