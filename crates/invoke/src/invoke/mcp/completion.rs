//! Suggestions for an argument (MCP `completion/complete`): a prompt's argument or a resource
//! template's variable, given what was typed so far and the other arguments.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::McpEndpoint;
use crate::invoke::InvokeError;

/// Suggestions kept from one answer (MCP caps them at 100 too): a server that answers with
/// 100,000 has the rest counted, not kept.
pub const MAX_SUGGESTIONS: usize = 100;

/// A suggestion longer than this is left out (counted): it is a value to pick in a field, and
/// 100 of them, each as long as an answer may be, would be 1.6 GB.
pub const MAX_SUGGESTION_BYTES: usize = 4096;

/// How long suggestions are waited for: they are for the text being typed, and a slow answer is
/// stale by then (the request is cancelled; the app's typing never waits for it).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(5);

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
    /// Values the answer held past the first [`MAX_SUGGESTIONS`].
    pub cut: usize,
    /// Values longer than [`MAX_SUGGESTION_BYTES`], left out.
    pub too_long: usize,
}

impl Suggestions {
    /// How many more the server has than those kept, by its `total` or by what it sent past the
    /// cap (the ones left out for their length are counted apart); `Some(0)` when it only said
    /// `hasMore`, None when there are no more.
    pub fn more(&self) -> Option<u64> {
        let kept = (self.values.len() + self.too_long) as u64;
        let sent = kept + self.cut as u64;
        let more = self.total.unwrap_or(0).max(sent).saturating_sub(kept);
        match more {
            0 if self.has_more => Some(0),
            0 => None,
            n => Some(n),
        }
    }
}

/// A `completion/complete` result, read leniently: values that are not strings are left out,
/// and past [`MAX_SUGGESTIONS`] and [`MAX_SUGGESTION_BYTES`] counted, not kept.
pub fn read_suggestions(result: &Value) -> Suggestions {
    let completion = &result["completion"];
    let mut read = Suggestions {
        total: completion["total"].as_u64(),
        has_more: completion["hasMore"].as_bool().unwrap_or(false),
        ..Suggestions::default()
    };
    for value in completion["values"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        if value.len() > MAX_SUGGESTION_BYTES {
            read.too_long += 1;
        } else if read.values.len() < MAX_SUGGESTIONS {
            read.values.push(value.to_string());
        } else {
            read.cut += 1;
        }
    }
    read
}

impl McpEndpoint {
    /// `completion/complete` for `argument`, whose value is `typed` so far; `context` holds
    /// the other arguments already given. Waits at most [`ANSWER_WITHIN`].
    pub async fn complete(
        &self,
        reference: &Reference,
        argument: &str,
        typed: &str,
        context: &Map<String, Value>,
    ) -> Result<Suggestions, InvokeError> {
        self.complete_within(reference, argument, typed, context, ANSWER_WITHIN).await
    }

    /// [`McpEndpoint::complete`], waiting at most `within`: past it the request is cancelled
    /// (`notifications/cancelled`) and the answer is a timeout.
    pub async fn complete_within(
        &self,
        reference: &Reference,
        argument: &str,
        typed: &str,
        context: &Map<String, Value>,
        within: Duration,
    ) -> Result<Suggestions, InvokeError> {
        let mut params = json!({
            "ref": reference.to_json(),
            "argument": {"name": argument, "value": typed},
        });
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let asked = self.custom("completion/complete", params, true);
        let result = tokio::time::timeout(within, asked).await.map_err(|_| {
            InvokeError::timeout(self.label.clone(), format!("{} s, for suggestions", within.as_secs_f64()))
        })??;
        Ok(read_suggestions(&result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_read_leniently() {
        let read = read_suggestions(&json!({"completion": {"values": ["a", 1, "b"], "total": 9, "hasMore": true}}));
        let expected =
            Suggestions { values: vec!["a".into(), "b".into()], total: Some(9), has_more: true, ..Default::default() };
        assert_eq!(read, expected);
        assert_eq!(read.more(), Some(7));
        assert_eq!(read_suggestions(&json!({})), Suggestions::default());
        assert_eq!(Suggestions::default().more(), None);
    }

    #[test]
    fn a_flood_of_suggestions_keeps_100_short_ones_and_counts_the_rest() {
        let mut values: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
        values[3] = json!("x".repeat(MAX_SUGGESTION_BYTES + 1));
        let read = read_suggestions(&json!({"completion": {"values": values}}));
        assert_eq!(read.values.len(), MAX_SUGGESTIONS);
        assert_eq!((read.values[2].as_str(), read.values[3].as_str()), ("v2", "v4"), "the long one is left out");
        assert_eq!((read.too_long, read.cut), (1, 100_000 - MAX_SUGGESTIONS - 1));
        assert_eq!(read.more(), Some(99_899), "what was sent past the cap, with no total");
        let said = read_suggestions(&json!({"completion": {"values": ["a"], "hasMore": true}}));
        assert_eq!(said.more(), Some(0), "more, of a count not given");
    }
}
