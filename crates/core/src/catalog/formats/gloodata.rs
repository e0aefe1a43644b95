//! gloodata extension info (gloodata's extension-info documentation): `{"ns", "title", "tools": {id: {title, schema: {fields},
//! ui: {prefix, args, suffix}, examples}}, "tagValues"}`.

use serde_json::{Map, Value, json};

use super::{Context, Draft, child, text};
use crate::catalog::document::Segment;
use crate::catalog::schema::escape_pointer;
use crate::catalog::tool::{EnumLabel, Example, FieldCue, Format, Tile, TileArg};

pub fn detect(object: &Map<String, Value>) -> bool {
    object.get("ns").is_some_and(Value::is_string) && object.get("tools").is_some_and(Value::is_object)
}

pub fn document(object: &Map<String, Value>, at: &[Segment], cx: &mut Context, out: &mut Vec<Draft>) {
    let Some(ns) = text(object, "ns") else {
        return cx.error(&child(at, "ns"), "a gloodata extension info needs a non-empty `ns` string");
    };
    let Some(Value::Object(tools)) = object.get("tools") else {
        return cx.error(&child(at, "tools"), "a gloodata extension info needs a `tools` map of tool id → definition");
    };
    if tools.is_empty() {
        cx.warning(&child(at, "tools"), format!("extension \"{ns}\" defines no tools"));
    }
    let tag_values = object.get("tagValues").and_then(Value::as_object);
    for (tool_id, definition) in tools {
        let at = child(&child(at, "tools"), tool_id.as_str());
        let Some(definition) = definition.as_object() else {
            cx.error(&at, "a gloodata tool must be an object");
            continue;
        };
        out.push(tool(&ns, tool_id, definition, tag_values, &at, cx));
    }
}

fn tool(
    ns: &str,
    tool_id: &str,
    definition: &Map<String, Value>,
    tag_values: Option<&Map<String, Value>>,
    at: &[Segment],
    cx: &mut Context,
) -> Draft {
    let mut draft = Draft::new(at.to_vec(), Format::Gloodata, tool_id.to_string());
    draft.id = format!("{ns}.{tool_id}");
    draft.title = text(definition, "title");
    draft.description = text(definition, "description");
    let fields_at = child(&child(at, "schema"), "fields");
    let mut fields = match definition.get("schema").and_then(|s| s.get("fields")) {
        Some(Value::Object(fields)) => fields.clone(),
        None => Map::new(),
        Some(_) => {
            cx.error(&fields_at, "`schema.fields` must map field names to their schemas");
            Map::new()
        }
    };
    if let Some(Value::Object(ui)) = definition.get("ui") {
        let mut tile = Tile { prefix: text(ui, "prefix"), suffix: text(ui, "suffix"), args: Vec::new() };
        if let Some(Value::Object(args)) = ui.get("args") {
            for (name, arg) in args {
                if !fields.contains_key(name) {
                    cx.warning(
                        &child(&child(&child(at, "ui"), "args"), name.as_str()),
                        format!("tile arg \"{name}\" is not one of the tool's fields"),
                    );
                }
                let arg = arg.as_object();
                tile.args.push(TileArg {
                    name: name.clone(),
                    prefix: arg.and_then(|a| text(a, "prefix")),
                    suffix: arg.and_then(|a| text(a, "suffix")),
                });
                let dtype = arg.and_then(|a| text(a, "dtypeName"));
                if let (Some(dtype), Some(field)) = (dtype, fields.get_mut(name)) {
                    apply_tag_values(&dtype, name, field, tag_values, &mut draft);
                }
            }
        }
        draft.tile = Some(tile);
    }
    draft.input_schema = json!({"type": "object", "properties": fields});
    draft.properties_at = Some(fields_at);
    draft.examples = definition
        .get("examples")
        .and_then(Value::as_array)
        .map(|e| e.iter().filter_map(Value::as_str).map(|s| Example::Prompt(s.to_string())).collect())
        .unwrap_or_default();
    draft
}

/// An arg whose `dtypeName` names a `tagValues` entry list is an enum with labels.
fn apply_tag_values(
    dtype: &str,
    field_name: &str,
    field: &mut Value,
    tag_values: Option<&Map<String, Value>>,
    draft: &mut Draft,
) {
    let Some(entries) = tag_values.and_then(|t| t.get(dtype)).and_then(|t| t.get("entries")).and_then(Value::as_array)
    else {
        return;
    };
    let labels: Vec<EnumLabel> = entries
        .iter()
        .filter_map(|entry| match entry.as_array().map(Vec::as_slice) {
            Some([value, label, ..]) => {
                Some(EnumLabel { value: value.clone(), label: label.as_str().unwrap_or_default().to_string() })
            }
            _ => None,
        })
        .collect();
    if labels.is_empty() {
        return;
    }
    if let Some(map) = field.as_object_mut()
        && !map.contains_key("enum")
    {
        let mut values: Vec<Value> = labels.iter().map(|l| l.value.clone()).collect();
        let nullable = map.get("type").and_then(Value::as_array).is_some_and(|t| t.iter().any(|x| x == "null"));
        if nullable {
            values.push(Value::Null);
        }
        map.insert("enum".into(), Value::Array(values));
    }
    draft
        .cues
        .insert(format!("/{}", escape_pointer(field_name)), FieldCue { enum_labels: labels, ..FieldCue::default() });
}
