//! Tools whose parameters are JSON Schema: `{"tool": {name, description, parameters}}` as PIE's
//! tool-parameter guidance writes them,
//! bare `{name, description, parameters}` (OpenAI without the wrapper, BFCL), and Anthropic's
//! `{name, description, input_schema}`.

use serde_json::{Map, Value};

use super::{Context, Draft, child, required_name, text};
use crate::catalog::document::Segment;
use crate::catalog::tool::{Example, Format};

pub fn item(object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Option<Draft> {
    if let Some(Value::Object(inner)) = object.get("tool") {
        return item(inner, &child(at, "tool"), cx);
    }
    let name = required_name(object, "name", at, cx)?;
    let mut draft = Draft::new(at.to_vec(), Format::JsonSchema, name);
    draft.title = text(object, "title");
    draft.description = text(object, "description");
    for key in ["parameters", "input_schema"] {
        if let Some(schema) = object.get(key) {
            draft.input_from_document = schema.is_object() || schema.is_boolean();
            draft.input_schema = if draft.input_from_document { Value::Null } else { schema.clone() };
            draft.input_schema_at = Some(child(at, key));
            break;
        }
    }
    // BFCL's multi-turn sets describe results under `response`.
    for key in ["output_schema", "response", "returns"] {
        if let Some(Value::Object(_)) = object.get(key) {
            draft.output_schema = Some(Value::Null);
            draft.output_from_document = true;
            draft.output_schema_at = Some(child(at, key));
            break;
        }
    }
    draft.examples = argument_examples(object);
    snapshot(object, &mut draft);
    Some(draft)
}

/// A tool as `tooldeck list --json` wrote it is read back with everything the live side has
/// (its format, annotations, task support, requirements), so a server diffed against its own
/// snapshot shows no change.
fn snapshot(object: &Map<String, Value>, draft: &mut Draft) {
    let format = object.get("format").and_then(Value::as_str).and_then(Format::from_name);
    let (Some(format), Some(Value::Object(_))) = (format, object.get("source")) else { return };
    draft.format = format;
    draft.annotations = object.get("annotations").filter(|a| a.is_object()).cloned();
    draft.task_support = text(object, "task_support");
    draft.requirements = super::requirements(object.get("requirements"));
    if let Some(id) = text(object, "id") {
        draft.id = id;
    }
}

/// `input_examples` (Anthropic) or `examples`: complete argument objects.
pub fn argument_examples(object: &Map<String, Value>) -> Vec<Example> {
    ["input_examples", "examples"]
        .iter()
        .filter_map(|k| object.get(*k).and_then(Value::as_array))
        .flatten()
        .map(|e| match e {
            Value::String(prompt) => Example::Prompt(prompt.clone()),
            other => Example::Arguments(other.clone()),
        })
        .collect()
}
