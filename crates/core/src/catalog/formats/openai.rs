//! OpenAI function calling: `{"type": "function", "function": {name, description, parameters,
//! strict}}` (Chat Completions) and the flat Responses form `{"type": "function", "name", ...}`.

use serde_json::{Map, Value, json};

use super::{Context, Draft, child, required_name, text};
use crate::catalog::document::Segment;
use crate::catalog::tool::Format;

pub fn item(object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Option<Draft> {
    let (function, at) = match object.get("function") {
        Some(Value::Object(inner)) => (inner, child(at, "function")),
        _ => (object, at.to_vec()),
    };
    let name = required_name(function, "name", &at, cx)?;
    let mut draft = Draft::new(at.clone(), Format::OpenAi, name);
    draft.description = text(function, "description");
    if let Some(schema) = function.get("parameters") {
        draft.input_from_document = schema.is_object() || schema.is_boolean();
        draft.input_schema = if draft.input_from_document { Value::Null } else { schema.clone() };
        draft.input_schema_at = Some(child(&at, "parameters"));
    }
    if let Some(strict @ Value::Bool(_)) = function.get("strict").or_else(|| object.get("strict")) {
        draft.annotations = Some(json!({ "strict": strict }));
    }
    Some(draft)
}
