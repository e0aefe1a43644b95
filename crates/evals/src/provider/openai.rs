//! OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio,
//! Anthropic's compatible endpoint): `POST {url}/chat/completions`.

use serde_json::{Map, Value, json};

use super::{Assemble, Format, ModelError, Reply, ToolDef, ToolResult, arguments};

#[derive(Debug, Clone, Default)]
pub struct OpenAi {
    pub model: String,
    pub system: Option<String>,
    pub stream: bool,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u64>,
}

impl Format for OpenAi {
    fn start(&self, prompt: &str) -> Vec<Value> {
        let mut messages = Vec::new();
        if let Some(system) = &self.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.push(json!({"role": "user", "content": prompt}));
        messages
    }

    fn request(&self, messages: &[Value], tools: &[ToolDef]) -> Value {
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| {
                let mut function = Map::new();
                function.insert("name".into(), json!(t.name));
                if let Some(description) = &t.description {
                    function.insert("description".into(), json!(description));
                }
                function.insert("parameters".into(), t.input_schema.clone());
                json!({"type": "function", "function": function})
            })
            .collect();
        let mut body = json!({"model": self.model, "messages": messages});
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        if self.stream {
            body["stream"] = json!(true);
        }
        if let Some(t) = self.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(n) = self.max_tokens {
            body["max_tokens"] = json!(n);
        }
        body
    }

    fn read(&self, answer: &Value) -> Result<Reply, ModelError> {
        let message = answer
            .pointer("/choices/0/message")
            .filter(|m| m.is_object())
            .ok_or_else(|| ModelError::Unreadable("no choices[0].message in the answer".into()))?;
        let calls = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, call)| {
                let (arguments, not_json) = arguments(call.pointer("/function/arguments").unwrap_or(&Value::Null));
                super::ModelCall {
                    id: call.get("id").and_then(Value::as_str).map_or_else(|| format!("call_{i}"), str::to_string),
                    name: call.pointer("/function/name").and_then(Value::as_str).unwrap_or_default().to_string(),
                    arguments,
                    not_json,
                }
            })
            .collect();
        let text = message.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_string);
        Ok(Reply { message: message.clone(), calls, text })
    }

    fn results(&self, results: &[ToolResult]) -> Vec<Value> {
        results.iter().map(|r| json!({"role": "tool", "tool_call_id": r.call_id, "content": r.text})).collect()
    }

    fn assembler(&self) -> Box<dyn Assemble> {
        Box::new(Chunks::default())
    }

    fn path(&self) -> &'static str {
        "/chat/completions"
    }

    fn key_headers(&self, key: &str) -> Vec<(String, String)> {
        vec![("authorization".into(), format!("Bearer {key}"))]
    }
}

/// A streamed chat completion's chunks, put back together.
#[derive(Default)]
struct Chunks {
    content: String,
    /// By index: (id, name, arguments text).
    calls: Vec<(String, String, String)>,
    finish_reason: Option<Value>,
    /// The first chunk's fields (id, model...), kept as the answer's.
    head: Map<String, Value>,
    done: bool,
}

impl Assemble for Chunks {
    fn event(&mut self, _event: Option<&str>, data: &str) -> Result<(), ModelError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| ModelError::Stream(format!("a chunk is not JSON ({e}): {}", super::excerpt(data))))?;
        if let Some(error) = chunk.get("error") {
            return Err(ModelError::Stream(format!("the model sent an error: {}", super::excerpt(&error.to_string()))));
        }
        if self.head.is_empty()
            && let Value::Object(map) = &chunk
        {
            self.head = map.iter().filter(|(k, _)| *k != "choices").map(|(k, v)| (k.clone(), v.clone())).collect();
        }
        let Some(choice) = chunk.pointer("/choices/0") else { return Ok(()) };
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
        }
        let Some(delta) = choice.get("delta") else { return Ok(()) };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.content.push_str(text);
        }
        for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
            if index > 1024 {
                return Err(ModelError::Stream(format!("a tool call's index is {index}")));
            }
            while self.calls.len() <= index {
                self.calls.push(Default::default());
            }
            let slot = &mut self.calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                slot.0 = id.to_string();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                slot.1.push_str(name);
            }
            if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                slot.2.push_str(args);
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Value, ModelError> {
        if !self.done && self.finish_reason.is_none() {
            return Err(ModelError::Stream("it ended before the answer did (no finish_reason, no [DONE])".into()));
        }
        let mut message = json!({"role": "assistant", "content": if self.content.is_empty() { Value::Null } else { json!(self.content) }});
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .into_iter()
                .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
                .collect();
            message["tool_calls"] = Value::Array(calls);
        }
        let mut answer = self.head;
        answer.insert(
            "choices".into(),
            json!([{"index": 0, "message": message, "finish_reason": self.finish_reason.unwrap_or(Value::Null)}]),
        );
        Ok(Value::Object(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_answer_reads_as_the_whole_one() {
        let format = OpenAi { model: "m".into(), ..OpenAi::default() };
        let mut chunks = format.assembler();
        for data in [
            r#"{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me "}}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"to_kelvin","arguments":"{\"cel"}}]}}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"sius\": 25}"}}]}}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ] {
            chunks.event(None, data).unwrap();
        }
        let answer = chunks.finish().unwrap();
        let reply = format.read(&answer).unwrap();
        assert_eq!(reply.calls[0].name, "to_kelvin");
        assert_eq!((&reply.calls[0].arguments, reply.calls[0].not_json), (&json!({"celsius": 25}), false));
        assert_eq!(reply.text.as_deref(), Some("Let me "));
        assert_eq!(answer["id"], "c1");
    }

    #[test]
    fn a_stream_that_stops_short_is_an_error() {
        let mut chunks = OpenAi::default().assembler();
        chunks.event(None, r#"{"choices":[{"delta":{"content":"half"}}]}"#).unwrap();
        assert!(matches!(chunks.finish(), Err(ModelError::Stream(_))));
        let mut junk = OpenAi::default().assembler();
        assert!(junk.event(None, "{not json").is_err());
    }

    #[test]
    fn arguments_that_are_not_json_are_kept_as_text() {
        let answer = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
            {"id": "1", "function": {"name": "t", "arguments": "{celsius: 25"}}]}}]});
        let reply = OpenAi::default().read(&answer).unwrap();
        assert_eq!((&reply.calls[0].arguments, reply.calls[0].not_json), (&json!("{celsius: 25"), true));
    }
}
