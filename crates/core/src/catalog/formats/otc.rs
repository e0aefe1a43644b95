//! Open Tool Calling / Arcade tool definitions: `{"id": "Toolkit.Tool@1.0.0", "input_schema":
//! {"parameters": {...}}}` (1.0 draft) or `"input_schema": {...}` (later revision), and Arcade's
//! `{"fully_qualified_name", "input": {"parameters": [{name, required, value_schema}]}}`.

use serde_json::{Map, Value, json};

use super::{Context, Draft, child, required_name, requirements, text};
use crate::catalog::document::Segment;
use crate::catalog::schema::{looks_like_field_map, looks_like_json_schema};
use crate::catalog::tool::{Format, Naming};

pub fn detect(object: &Map<String, Value>) -> bool {
    // A tool as `tooldeck list --json` wrote it (its `format` and `source` beside `requirements`)
    // is read back as the JSON Schema tool it is, with its annotations.
    if object.get("source").is_some_and(Value::is_object) && object.get("format").is_some_and(Value::is_string) {
        return false;
    }
    let versioned_id = text(object, "id").is_some_and(|id| id.contains('@'));
    let schema = object.get("input_schema");
    // OTC 1.0's `{"parameters": <JSON Schema>}` wrapper.
    let wrapped = schema
        .and_then(|s| s.get("parameters"))
        .is_some_and(|p| p.get("type").is_some() || p.get("properties").is_some());
    object.contains_key("fully_qualified_name")
        || object.get("input").and_then(|i| i.get("parameters")).is_some_and(Value::is_array)
        || wrapped
        || (schema.is_some_and(|s| !looks_like_field_map(s))
            && (versioned_id || object.contains_key("version") || object.contains_key("requirements")))
}

pub fn item(object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Option<Draft> {
    let name = required_name(object, "name", at, cx)?;
    let mut draft = Draft::new(at.to_vec(), Format::Otc, name.clone());
    draft.id = text(object, "id")
        .or_else(|| text(object, "fully_qualified_name"))
        .or_else(|| arcade_id(object, &name))
        .unwrap_or(name);
    draft.title = text(object, "title");
    draft.description = text(object, "description");
    if let Some(schema) = object.get("input_schema") {
        let (schema, schema_at) = match schema.get("parameters") {
            Some(parameters) if !looks_like_json_schema(schema) => {
                (parameters, child(&child(at, "input_schema"), "parameters"))
            }
            _ => (schema, child(at, "input_schema")),
        };
        draft.input_from_document = schema.is_object() || schema.is_boolean();
        draft.input_schema = if draft.input_from_document { Value::Null } else { schema.clone() };
        draft.input_schema_at = Some(schema_at);
    } else if let Some(Value::Array(parameters)) = object.get("input").and_then(|i| i.get("parameters")) {
        draft.input_schema = arcade_parameters(parameters, &child(&child(at, "input"), "parameters"), cx);
        // Arcade's `value_schema` has no `default`.
        draft.no_defaults = true;
    }
    if let Some(seen) = arcade_model_name(object, &draft.name) {
        draft.naming = Naming::SeenAs(seen);
    }
    match object.get("output_schema") {
        Some(Value::Null) | None => {}
        Some(_) => {
            draft.output_schema = Some(Value::Null);
            draft.output_from_document = true;
            draft.output_schema_at = Some(child(at, "output_schema"));
        }
    }
    if draft.output_schema.is_none()
        && let Some(value_schema @ Value::Object(_)) = object.get("output").and_then(|o| o.get("value_schema"))
    {
        let mut schema = arcade_value_schema(value_schema);
        if let (Some(map), Some(description)) =
            (schema.as_object_mut(), object.get("output").and_then(|o| o.get("description")))
            && description.is_string()
            && !map.contains_key("description")
        {
            map.insert("description".into(), description.clone());
        }
        draft.output_schema = Some(schema);
    }
    draft.requirements = requirements(object.get("requirements"));
    Some(draft)
}

/// Arcade gives a model its tools as `Toolkit_Tool`.
fn arcade_model_name(object: &Map<String, Value>, name: &str) -> Option<String> {
    let toolkit = object.get("toolkit").and_then(Value::as_object).and_then(|t| text(t, "name")).or_else(|| {
        let qualified = text(object, "fully_qualified_name")?;
        qualified.split_once('.').map(|(toolkit, _)| toolkit.to_string())
    })?;
    Some(format!("{toolkit}_{name}"))
}

/// `Toolkit.Tool@version` from Arcade's `toolkit` block when there is no id.
fn arcade_id(object: &Map<String, Value>, name: &str) -> Option<String> {
    let toolkit = object.get("toolkit")?.as_object()?;
    let toolkit_name = text(toolkit, "name")?;
    Some(match text(toolkit, "version") {
        Some(version) => format!("{toolkit_name}.{name}@{version}"),
        None => format!("{toolkit_name}.{name}"),
    })
}

fn arcade_parameters(parameters: &[Value], at: &[Segment], cx: &mut Context) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (i, parameter) in parameters.iter().enumerate() {
        let at = child(at, i);
        let Some(parameter) = parameter.as_object() else {
            cx.error(&at, "an Arcade parameter must be an object with `name` and `value_schema`");
            continue;
        };
        let Some(name) = required_name(parameter, "name", &at, cx) else { continue };
        let mut schema = match parameter.get("value_schema") {
            Some(vs @ Value::Object(_)) => arcade_value_schema(vs),
            _ => {
                cx.warning(&at, format!("parameter \"{name}\" has no `value_schema`; any value is accepted"));
                json!({})
            }
        };
        if let (Some(map), Some(description)) = (schema.as_object_mut(), text(parameter, "description")) {
            map.insert("description".into(), Value::String(description));
        }
        if parameter.get("required").and_then(Value::as_bool) == Some(true) {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name, schema);
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// Arcade's `{val_type, inner_val_type, enum, properties, inner_properties, description}`.
fn arcade_value_schema(value_schema: &Value) -> Value {
    let field = |key: &str| value_schema.get(key).filter(|v| !v.is_null());
    let val_type = field("val_type").and_then(Value::as_str).unwrap_or("json");
    let mut schema = scalar_or_object(val_type, field("properties"));
    if val_type == "array" {
        let inner = field("inner_val_type").and_then(Value::as_str).unwrap_or("json");
        let mut items = scalar_or_object(inner, field("inner_properties"));
        if let (Some(values @ Value::Array(_)), Some(items)) = (field("enum"), items.as_object_mut()) {
            items.insert("enum".into(), values.clone());
        }
        schema["items"] = items;
    } else if let Some(values @ Value::Array(_)) = field("enum") {
        schema["enum"] = values.clone();
    }
    if let Some(description) = field("description").and_then(Value::as_str).filter(|d| !d.is_empty()) {
        schema["description"] = json!(description);
    }
    schema
}

fn scalar_or_object(val_type: &str, properties: Option<&Value>) -> Value {
    match val_type {
        "string" | "integer" | "number" | "boolean" | "array" => json!({"type": val_type}),
        _ => {
            let mut schema = json!({"type": "object"});
            if let Some(Value::Object(props)) = properties {
                let converted: Map<String, Value> =
                    props.iter().map(|(k, v)| (k.clone(), arcade_value_schema(v))).collect();
                schema["properties"] = Value::Object(converted);
            }
            schema
        }
    }
}
