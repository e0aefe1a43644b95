//! `--pin`: a field set to a known value in every input, to get past a state check (an id that
//! exists, the repository served). `FIELD=VALUE` pins that field in every tool that declares it,
//! `TOOL.FIELD=VALUE` in one tool (its id or name, dots and all: gloodata's ids have them), and
//! a dotted field is a path into nested objects (`address.city=Paris`).

use serde_json::{Map, Value};

use crate::catalog::Tool;

/// One `--pin`, as given.
#[derive(Debug, Clone, PartialEq)]
pub struct Pin {
    /// The whole name before `=`.
    key: String,
    pub value: Value,
}

/// A `--pin` without `=`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--pin takes FIELD=VALUE or TOOL.FIELD=VALUE, not {0:?}")]
pub struct PinError(String);

/// The pins of one tool: each field's path and value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pinned(Vec<(Vec<String>, Value)>);

impl Pin {
    /// `field=value`, `tool.field=value` or a dotted path; the value is JSON when it reads as
    /// JSON, else text.
    pub fn parse(text: &str) -> Result<Pin, PinError> {
        let (key, value) = text.split_once('=').filter(|(k, _)| !k.is_empty()).ok_or_else(|| PinError(text.into()))?;
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
        Ok(Pin { key: key.to_string(), value })
    }

    /// What the pin was given as, before `=`.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The path this pin sets in `tool`'s input: after `TOOL.` for this tool, else a field (or
    /// a path of fields) the tool's schema declares.
    pub fn path_for(&self, tool: &Tool) -> Option<Vec<String>> {
        for prefix in [&tool.id, &tool.name] {
            if let Some(field) = self.key.strip_prefix(prefix.as_str()).and_then(|rest| rest.strip_prefix('.'))
                && !field.is_empty()
            {
                return Some(split(field));
            }
        }
        let path = split(&self.key);
        declares(&tool.input_schema, &path).then_some(path)
    }
}

impl Pinned {
    /// The pins among `pins` that set something in `tool`.
    pub fn for_tool(pins: &[Pin], tool: &Tool) -> Pinned {
        Pinned(pins.iter().filter_map(|pin| Some((pin.path_for(tool)?, pin.value.clone()))).collect())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `arguments` with the pinned fields set (an object only), the objects on a path made
    /// where they are missing.
    pub fn apply(&self, mut arguments: Value) -> Value {
        for (path, value) in &self.0 {
            set(&mut arguments, path, value.clone());
        }
        arguments
    }
}

fn split(path: &str) -> Vec<String> {
    path.split('.').map(str::to_string).collect()
}

/// Whether `schema` declares the nested property `path` (through `properties` at each step).
fn declares(schema: &Value, path: &[String]) -> bool {
    let mut at = schema;
    for field in path {
        let Some(next) = at.get("properties").and_then(|p| p.get(field)) else { return false };
        at = next;
    }
    !path.is_empty()
}

fn set(into: &mut Value, path: &[String], value: Value) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut at = into;
    for field in parents {
        let Value::Object(map) = at else { return };
        let child = map.entry(field.clone()).or_insert_with(|| Value::Object(Map::new()));
        if !child.is_object() {
            *child = Value::Object(Map::new());
        }
        at = child;
    }
    if let Value::Object(map) = at {
        map.insert(last.clone(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(id: &str, schema: Value) -> Tool {
        let text = json!({"name": "ship", "parameters": schema});
        let (mut tools, _) = crate::catalog::load_text("t.json", &text.to_string(), &Default::default());
        let mut tool = tools.remove(0);
        tool.id = id.to_string();
        tool
    }

    #[test]
    fn a_pin_finds_its_field_by_name_by_tool_and_by_path() {
        let shipment = tool(
            "maps.ship",
            json!({"type": "object", "properties": {
                "id": {"type": "string"},
                "address": {"type": "object", "properties": {"city": {"type": "string"}}}
            }}),
        );
        let pin = |text: &str| Pin::parse(text).unwrap();
        assert_eq!(pin("id=7").path_for(&shipment), Some(vec!["id".to_string()]));
        assert_eq!(pin("nope=7").path_for(&shipment), None);
        // A tool's id with dots in it.
        assert_eq!(pin("maps.ship.id=7").path_for(&shipment), Some(vec!["id".to_string()]));
        assert_eq!(pin("maps.other.id=7").path_for(&shipment), None);
        assert_eq!(pin("address.city=Paris").path_for(&shipment), Some(vec!["address".into(), "city".into()]));
        assert_eq!(pin("address.zip=1").path_for(&shipment), None);

        let pinned = Pinned::for_tool(&[pin("id=item-7"), pin("address.city=Paris"), pin("nope=1")], &shipment);
        assert_eq!(pinned.apply(json!({"id": "x"})), json!({"id": "item-7", "address": {"city": "Paris"}}));
        assert_eq!(
            pinned.apply(json!({"address": {"city": "Rome", "street": "Via"}})),
            json!({"id": "item-7", "address": {"city": "Paris", "street": "Via"}})
        );
        assert_eq!(pinned.apply(json!({"address": 3})), json!({"id": "item-7", "address": {"city": "Paris"}}));
        assert_eq!(pinned.apply(json!([1])), json!([1]), "not an object: left alone");
    }
}
