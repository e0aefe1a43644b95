//! Prompts (MCP `prompts/list`, `prompts/get`): every page of the list, and a prompt's messages
//! read with the same content reading as a tool result's (text, image, audio, resources; a block
//! of an unknown kind is kept as unreadable beside the valid ones).

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::McpEndpoint;
use super::content::{ContentItem, read_items};
use crate::invoke::InvokeError;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptArgument {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub required: bool,
}

/// One prompt of `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub arguments: Vec<PromptArgument>,
    /// The entry exactly as the server sent it (the raw definition view).
    #[serde(skip)]
    pub raw: Value,
}

/// One message of a `prompts/get` result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessage {
    pub role: String,
    pub content: Vec<ContentItem>,
}

/// A `prompts/get` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GotPrompt {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub messages: Vec<PromptMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string)
}

/// `prompts/list` entries; the unreadable ones are warnings in `w`.
pub fn read_prompts(entries: &[Value], w: &mut Vec<String>) -> Vec<Prompt> {
    let mut read = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some(obj) = entry.as_object() else {
            w.push(format!("prompt {i} is not an object"));
            continue;
        };
        let Some(name) = string(obj, "name") else {
            w.push(format!("prompt {i} has no \"name\""));
            continue;
        };
        let mut arguments = Vec::new();
        for (j, argument) in obj.get("arguments").and_then(Value::as_array).into_iter().flatten().enumerate() {
            match argument.as_object().and_then(|a| Some((string(a, "name")?, a))) {
                Some((arg_name, a)) => arguments.push(PromptArgument {
                    name: arg_name,
                    description: string(a, "description"),
                    required: a.get("required").and_then(Value::as_bool).unwrap_or(false),
                }),
                None => w.push(format!("prompt {name:?}: argument {j} has no \"name\"")),
            }
        }
        read.push(Prompt {
            name,
            title: string(obj, "title"),
            description: string(obj, "description"),
            arguments,
            raw: entry.clone(),
        });
    }
    read
}

/// A `prompts/get` result's messages, each content block read as a tool result's would be.
pub fn read_got(mut result: Value) -> GotPrompt {
    let mut warnings = Vec::new();
    let description = result.get("description").and_then(Value::as_str).map(str::to_string);
    let messages = match result.get_mut("messages").map(Value::take) {
        Some(Value::Array(messages)) => messages,
        _ => {
            warnings.push("the prompts/get result has no \"messages\" list".to_string());
            Vec::new()
        }
    };
    let mut read = Vec::new();
    for (i, message) in messages.into_iter().enumerate() {
        let Value::Object(mut message) = message else {
            warnings.push(format!("message {i} is not an object"));
            continue;
        };
        let role = string(&message, "role").unwrap_or_else(|| {
            warnings.push(format!("message {i} has no \"role\""));
            String::new()
        });
        // One block in MCP; a list is read too (some servers send one).
        let blocks = match message.remove("content") {
            Some(Value::Array(blocks)) => blocks,
            Some(block) => vec![block],
            None => Vec::new(),
        };
        let mut item_warnings = Vec::new();
        let content = read_items(blocks, &mut item_warnings);
        warnings.extend(item_warnings.into_iter().map(|w| format!("message {i}: {w}")));
        read.push(PromptMessage { role, content });
    }
    GotPrompt { description, messages: read, warnings }
}

impl McpEndpoint {
    /// Every prompt across all pages of `prompts/list`, with warnings for entries that could
    /// not be read.
    pub async fn list_prompts(&self) -> Result<(Vec<Prompt>, Vec<String>), InvokeError> {
        let entries = self.list_all("prompts/list", "prompts").await?;
        let mut warnings = Vec::new();
        let prompts = read_prompts(&entries, &mut warnings);
        Ok((prompts, warnings))
    }

    /// `prompts/get {name, arguments}`.
    pub async fn get_prompt(&self, name: &str, arguments: &Map<String, Value>) -> Result<GotPrompt, InvokeError> {
        let params = json!({ "name": name, "arguments": arguments });
        let result = self.custom("prompts/get", params, true).await?;
        Ok(read_got(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_content_kind_keeps_the_valid_items_beside_it() {
        let got = read_got(json!({"description": "d", "messages": [
            {"role": "user", "content": {"type": "text", "text": "hello \u{1b}[2J"}},
            {"role": "assistant", "content": {"type": "hologram", "data": "x"}},
            {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
            "not a message"
        ]}));
        assert_eq!(got.messages.len(), 3);
        assert!(matches!(got.messages[0].content[0], ContentItem::Text(_)));
        assert!(matches!(got.messages[1].content[0], ContentItem::Unreadable(_)));
        assert!(matches!(got.messages[2].content[0], ContentItem::Image(_)));
        assert_eq!(got.warnings.len(), 2, "{:?}", got.warnings);
    }

    #[test]
    fn prompts_and_their_arguments_are_read_item_by_item() {
        let mut w = Vec::new();
        let prompts = read_prompts(
            &[
                json!({"name": "p", "arguments": [{"name": "a", "required": true}, {"description": "no name"}]}),
                json!({"title": "no name"}),
            ],
            &mut w,
        );
        assert_eq!(prompts.len(), 1);
        assert_eq!(prompts[0].arguments.len(), 1);
        assert!(prompts[0].arguments[0].required);
        assert_eq!(w.len(), 2, "{w:?}");
    }
}
