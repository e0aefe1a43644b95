//! Marketplace capabilities (the marketplace's input and output schema guide): field maps `{field: {type, required, default, min, max,
//! minLength, maxLength, enum, description}}` as `input_schema`/`output_schema`, alone or under
//! `capabilities: {name: {...}}`. Apify actor input schemas are read here too.

use serde_json::{Map, Value, json};

use super::{Context, Draft, child, text};
use crate::catalog::document::Segment;
use crate::catalog::schema::{kind_of, looks_like_json_schema};
use crate::catalog::tool::{Format, Naming};

pub fn detect_capabilities(object: &Map<String, Value>) -> bool {
    object.get("capabilities").and_then(Value::as_object).is_some_and(|c| c.values().all(Value::is_object))
}

/// An Apify actor input schema: a JSON Schema object with `schemaVersion`.
pub fn detect_actor_input(object: &Map<String, Value>) -> bool {
    object.contains_key("schemaVersion") && object.get("properties").is_some_and(Value::is_object)
}

/// Documents that describe results or APIs rather than tools, named for the warning.
pub fn describes_results(object: &Map<String, Value>) -> Option<&'static str> {
    if object.contains_key("actorOutputSchemaVersion") {
        Some("an Apify actor output schema")
    } else if object.contains_key("actorSpecification") && object.contains_key("fields") {
        Some("an Apify dataset schema")
    } else if object.contains_key("openapi") || object.contains_key("swagger") {
        Some("an OpenAPI document")
    } else {
        None
    }
}

pub fn capabilities(object: &Map<String, Value>, at: &[Segment], cx: &mut Context, out: &mut Vec<Draft>) {
    let at = child(at, "capabilities");
    let Some(Value::Object(capabilities)) = object.get("capabilities") else { return };
    for (name, definition) in capabilities {
        let at = child(&at, name.as_str());
        match definition.as_object() {
            Some(definition) => out.push(capability(name.clone(), definition, &at, cx)),
            None => cx.error(&at, "a capability must be an object with `input_schema`"),
        }
    }
}

pub fn item(object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Option<Draft> {
    if detect_actor_input(object) {
        return Some(actor_input(object, at, cx));
    }
    let named = text(object, "name");
    let given = named.is_some();
    let mut draft = capability(named.unwrap_or_else(|| cx.file_stem.to_string()), object, at, cx);
    if !given {
        draft.naming = Naming::FromFile;
    }
    Some(draft)
}

fn capability(name: String, definition: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Draft {
    let mut draft = Draft::new(at.to_vec(), Format::Marketplace, name);
    draft.title = text(definition, "title");
    draft.description = text(definition, "description");
    match definition.get("input_schema") {
        Some(Value::Object(fields)) if !looks_like_json_schema(&Value::Object(fields.clone())) => {
            draft.input_schema = field_map(fields, &child(at, "input_schema"), cx);
            draft.properties_at = Some(child(at, "input_schema"));
        }
        Some(schema) => {
            draft.input_schema = schema.clone();
            draft.input_schema_at = Some(child(at, "input_schema"));
        }
        None => cx.warning(at, "this capability has no `input_schema`; read as taking no input"),
    }
    match definition.get("output_schema") {
        Some(Value::Object(fields)) if !looks_like_json_schema(&Value::Object(fields.clone())) => {
            draft.output_schema = Some(field_map(fields, &child(at, "output_schema"), cx));
        }
        Some(Value::Null) | None => {}
        Some(schema) => {
            draft.output_schema = Some(schema.clone());
            draft.output_schema_at = Some(child(at, "output_schema"));
        }
    }
    draft
}

/// A field map → an object schema. `min`/`max` become `minimum`/`maximum`; `required: true`
/// fields are listed in `required`; every other key is kept as the JSON Schema keyword it is.
pub fn field_map(fields: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, field) in fields {
        let Some(field) = field.as_object() else {
            cx.error(
                &child(at, name.as_str()),
                format!("field \"{name}\" must be an object like {{\"type\": \"string\"}}, not {}", kind_of(field)),
            );
            continue;
        };
        let mut schema = Map::new();
        for (key, value) in field {
            match key.as_str() {
                "required" => match value {
                    Value::Bool(true) => required.push(Value::String(name.clone())),
                    Value::Bool(false) => {}
                    other => cx.error(
                        &child(&child(at, name.as_str()), "required"),
                        format!("`required` must be true or false, not {}", kind_of(other)),
                    ),
                },
                "min" => {
                    schema.insert("minimum".into(), value.clone());
                }
                "max" => {
                    schema.insert("maximum".into(), value.clone());
                }
                "fields" | "properties" if value.is_object() && !looks_like_json_schema(value) => {
                    let nested_at = child(&child(at, name.as_str()), key.as_str());
                    if let Some(nested) = value.as_object()
                        && let Value::Object(nested) = field_map(nested, &nested_at, cx)
                    {
                        schema.extend(nested);
                    }
                }
                _ => {
                    schema.insert(key.clone(), value.clone());
                }
            }
        }
        properties.insert(name.clone(), Value::Object(schema));
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// An Apify actor input schema is one tool, named after the file, its schema used as is.
fn actor_input(object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Draft {
    let mut draft = Draft::new(at.to_vec(), Format::Marketplace, cx.file_stem.to_string());
    draft.naming = Naming::FromFile;
    draft.title = text(object, "title");
    draft.description = text(object, "description");
    let mut schema = object.clone();
    // `schemaVersion` is Apify's, not a JSON Schema keyword; `$schema` would name Apify's dialect.
    schema.remove("schemaVersion");
    schema.remove("$schema");
    draft.input_schema = Value::Object(schema);
    draft.input_schema_at = Some(at.to_vec());
    draft
}
