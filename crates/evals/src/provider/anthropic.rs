//! Anthropic's Messages API, natively: `POST {url}/messages` with `x-api-key`.

use serde_json::{Map, Value, json};

use super::{Assemble, Format, ModelCall, ModelError, Reply, ToolDef, ToolResult, arguments};

/// The API revision tooldeck writes its requests for.
pub const VERSION: &str = "2023-06-01";
/// `max_tokens` is required by the API; this unless the file says.
pub const DEFAULT_MAX_TOKENS: u64 = 4096;

#[derive(Debug, Clone, Default)]
pub struct Anthropic {
    pub model: String,
    pub system: Option<String>,
    pub stream: bool,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u64>,
}

impl Format for Anthropic {
    fn start(&self, prompt: &str) -> Vec<Value> {
        vec![json!({"role": "user", "content": prompt})]
    }

    fn request(&self, messages: &[Value], tools: &[ToolDef]) -> Value {
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| {
                let mut tool = Map::new();
                tool.insert("name".into(), json!(t.name));
                if let Some(description) = &t.description {
                    tool.insert("description".into(), json!(description));
                }
                tool.insert("input_schema".into(), t.input_schema.clone());
                Value::Object(tool)
            })
            .collect();
        let mut body = json!({
            "model": self.model,
            "max_tokens": self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "messages": messages,
        });
        if let Some(system) = &self.system {
            body["system"] = json!(system);
        }
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        if self.stream {
            body["stream"] = json!(true);
        }
        if let Some(t) = self.temperature {
            body["temperature"] = json!(t);
        }
        body
    }

    fn read(&self, answer: &Value) -> Result<Reply, ModelError> {
        let content = answer
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| ModelError::Unreadable("no `content` list in the answer".into()))?;
        let mut calls = Vec::new();
        let mut text = String::new();
        for block in content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or_default()),
                Some("tool_use") => {
                    let (arguments, not_json) = arguments(block.get("input").unwrap_or(&Value::Null));
                    calls.push(ModelCall {
                        id: block.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
                        name: block.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                        arguments,
                        not_json,
                    })
                }
                _ => {}
            }
        }
        // The conversation keeps the assistant's turn as the API wants it back: role and content.
        let message = json!({"role": "assistant", "content": content});
        Ok(Reply { message, calls, text: (!text.is_empty()).then_some(text) })
    }

    fn results(&self, results: &[ToolResult]) -> Vec<Value> {
        if results.is_empty() {
            return Vec::new();
        }
        let blocks: Vec<Value> = results
            .iter()
            .map(
                |r| json!({"type": "tool_result", "tool_use_id": r.call_id, "content": r.text, "is_error": r.is_error}),
            )
            .collect();
        vec![json!({"role": "user", "content": blocks})]
    }

    fn assembler(&self) -> Box<dyn Assemble> {
        Box::new(Events::default())
    }

    fn path(&self) -> &'static str {
        "/messages"
    }

    fn key_headers(&self, key: &str) -> Vec<(String, String)> {
        vec![("x-api-key".into(), key.to_string()), ("anthropic-version".into(), VERSION.to_string())]
    }
}

/// A streamed message's events, put back together.
#[derive(Default)]
struct Events {
    message: Map<String, Value>,
    /// Content blocks by index; a tool_use block's input arrives as JSON text in pieces.
    blocks: Vec<(Value, String)>,
    stopped: bool,
}

impl Assemble for Events {
    fn event(&mut self, event: Option<&str>, data: &str) -> Result<(), ModelError> {
        let value: Value = serde_json::from_str(data)
            .map_err(|e| ModelError::Stream(format!("an event is not JSON ({e}): {}", super::excerpt(data))))?;
        let kind = event.or_else(|| value.get("type").and_then(Value::as_str)).unwrap_or_default();
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        match kind {
            "message_start" => {
                if let Some(Value::Object(message)) = value.get("message") {
                    self.message = message.clone();
                }
            }
            "content_block_start" => {
                if index > 1024 {
                    return Err(ModelError::Stream(format!("a content block's index is {index}")));
                }
                while self.blocks.len() <= index {
                    self.blocks.push((Value::Null, String::new()));
                }
                self.blocks[index].0 = value.get("content_block").cloned().unwrap_or(Value::Null);
            }
            "content_block_delta" => {
                let Some((block, input)) = self.blocks.get_mut(index) else {
                    return Err(ModelError::Stream(format!("a delta for block {index}, which never started")));
                };
                let delta = value.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        let more = delta.get("text").and_then(Value::as_str).unwrap_or_default();
                        let text = block.get("text").and_then(Value::as_str).unwrap_or_default().to_string() + more;
                        block["text"] = json!(text);
                    }
                    Some("input_json_delta") => {
                        input.push_str(delta.get("partial_json").and_then(Value::as_str).unwrap_or_default())
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(Value::Object(delta)) = value.get("delta") {
                    for (k, v) in delta {
                        self.message.insert(k.clone(), v.clone());
                    }
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                return Err(ModelError::Stream(format!(
                    "the model sent an error: {}",
                    super::excerpt(&value.get("error").unwrap_or(&value).to_string())
                )));
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Value, ModelError> {
        if !self.stopped {
            return Err(ModelError::Stream("it ended before message_stop".into()));
        }
        let content: Vec<Value> = self
            .blocks
            .into_iter()
            .map(|(mut block, input)| {
                if block.get("type").and_then(Value::as_str) == Some("tool_use") && !input.is_empty() {
                    // Input that is not JSON is kept as its text: the judge calls it invalid.
                    block["input"] = serde_json::from_str(&input).unwrap_or(Value::String(input));
                }
                block
            })
            .collect();
        let mut message = self.message;
        message.insert("content".into(), Value::Array(content));
        Ok(Value::Object(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_message_reads_as_the_whole_one() {
        let format = Anthropic { model: "claude".into(), ..Anthropic::default() };
        let mut events = format.assembler();
        for (event, data) in [
            ("message_start", r#"{"type":"message_start","message":{"id":"m1","role":"assistant","content":[]}}"#),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Sure."}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"tu1","name":"to_kelvin","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"celsius\":"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" 25}"}}"#,
            ),
            ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"}}"#),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ] {
            events.event(Some(event), data).unwrap();
        }
        let answer = events.finish().unwrap();
        assert_eq!(answer["stop_reason"], "tool_use");
        let reply = format.read(&answer).unwrap();
        assert_eq!(reply.text.as_deref(), Some("Sure."));
        assert_eq!(reply.calls[0].arguments, json!({"celsius": 25}));
        let results = format.results(&[ToolResult {
            call_id: "tu1".into(),
            name: "to_kelvin".into(),
            text: "298.15".into(),
            is_error: false,
        }]);
        assert_eq!(results[0]["content"][0]["tool_use_id"], "tu1");
    }

    #[test]
    fn the_key_goes_in_its_own_header_and_the_system_prompt_at_the_top() {
        let format = Anthropic { model: "c".into(), system: Some("be brief".into()), ..Anthropic::default() };
        let body = format.request(&format.start("hi"), &[]);
        assert_eq!(body["system"], "be brief");
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(format.key_headers("k")[0], ("x-api-key".to_string(), "k".to_string()));
    }
}
