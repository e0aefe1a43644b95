//! Suggestions for an argument (MCP `completion/complete`): a prompt's argument or a resource
//! template's variable, given what was typed so far and the other arguments.

use serde_json::{Map, Value, json};

use super::McpEndpoint;
use crate::invoke::InvokeError;

/// Suggestions kept from one answer (MCP caps them at 100 too).
pub const MAX_SUGGESTIONS: usize = 100;

/// What is being completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    Prompt(String),
    /// A resource template, by its URI template.
    Resource(String),
}

impl Reference {
    fn to_json(&self) -> Value {
        match self {
            Reference::Prompt(name) => json!({"type": "ref/prompt", "name": name}),
            Reference::Resource(uri) => json!({"type": "ref/resource", "uri": uri}),
        }
    }
}

/// The server's suggestions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Suggestions {
    pub values: Vec<String>,
    /// How many there are in all, when the server says.
    pub total: Option<u64>,
    pub has_more: bool,
}

/// A `completion/complete` result, read leniently: values that are not strings are left out.
pub fn read_suggestions(result: &Value) -> Suggestions {
    let completion = &result["completion"];
    let values = completion["values"]
        .as_array()
        .map(|values| values.iter().filter_map(Value::as_str).take(MAX_SUGGESTIONS).map(str::to_string).collect())
        .unwrap_or_default();
    Suggestions {
        values,
        total: completion["total"].as_u64(),
        has_more: completion["hasMore"].as_bool().unwrap_or(false),
    }
}

impl McpEndpoint {
    /// `completion/complete` for `argument`, whose value is `typed` so far; `context` holds
    /// the other arguments already given.
    pub async fn complete(
        &self,
        reference: &Reference,
        argument: &str,
        typed: &str,
        context: &Map<String, Value>,
    ) -> Result<Suggestions, InvokeError> {
        let mut params = json!({
            "ref": reference.to_json(),
            "argument": {"name": argument, "value": typed},
        });
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let result = self.custom("completion/complete", params, true).await?;
        Ok(read_suggestions(&result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_read_leniently() {
        let read = read_suggestions(&json!({"completion": {"values": ["a", 1, "b"], "total": 9, "hasMore": true}}));
        assert_eq!(read, Suggestions { values: vec!["a".into(), "b".into()], total: Some(9), has_more: true });
        assert_eq!(read_suggestions(&json!({})), Suggestions::default());
    }
}
