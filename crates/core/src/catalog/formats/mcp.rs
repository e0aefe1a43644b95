//! MCP `tools/list` results: `{"tools": [{name, title?, description, inputSchema, outputSchema?,
//! annotations?, execution?: {taskSupport}}]}`.

use serde_json::{Map, Value};

use super::{Context, Draft, child, required_name, text};
use crate::catalog::document::Segment;
use crate::catalog::schema::member;
use crate::catalog::tool::Format;

pub fn item(object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Option<Draft> {
    let name = required_name(object, "name", at, cx)?;
    let mut draft = Draft::new(at.to_vec(), Format::Mcp, name);
    let annotations = member(object, "annotations").filter(|a| a.is_object());
    draft.title = text(object, "title")
        .or_else(|| annotations.and_then(|a| member(a.as_object()?, "title")?.as_str().map(str::to_string)));
    draft.description = text(object, "description");
    match member(object, "inputSchema") {
        Some(schema) => {
            draft.input_from_document = schema.is_object() || schema.is_boolean();
            draft.input_schema = if draft.input_from_document { Value::Null } else { schema.clone() };
            draft.input_schema_at = Some(child(at, "inputSchema"));
        }
        None => cx.warning(at, "MCP requires `inputSchema`; read as a tool without parameters"),
    }
    if member(object, "outputSchema").is_some() {
        draft.output_schema = Some(Value::Null);
        draft.output_from_document = true;
        draft.output_schema_at = Some(child(at, "outputSchema"));
    }
    draft.annotations = annotations.cloned();
    draft.task_support = member(object, "execution")
        .and_then(|e| member(e.as_object()?, "taskSupport"))
        .and_then(Value::as_str)
        .map(str::to_string);
    draft.app = member(object, "_meta").and_then(crate::catalog::app_ui::AppUi::from_meta);
    Some(draft)
}
