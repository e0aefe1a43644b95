//! The protocol-neutral call: which tool, with what, and the tokens the user supplied. OTC
//! sends it as its request body; MCP as `tools/call`.

use serde_json::{Value, json};

/// One call to make: which tool, with what, and the tokens the user supplied.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRequest {
    pub call_id: String,
    pub tool_id: String,
    pub arguments: Value,
    /// Provider id → token, sent in `context.authorization`.
    pub tokens: Vec<(String, String)>,
    /// Run it as an MCP task (`execution.taskSupport`, `call --task`).
    pub as_task: bool,
}

impl CallRequest {
    pub fn new(tool_id: impl Into<String>, arguments: Value) -> CallRequest {
        CallRequest {
            call_id: uuid::Uuid::new_v4().to_string(),
            tool_id: tool_id.into(),
            arguments,
            tokens: Vec::new(),
            as_task: false,
        }
    }

    /// The request body the OTC 1.0 specification describes.
    pub fn body(&self) -> Value {
        let mut request = json!({"call_id": self.call_id, "tool_id": self.tool_id, "input": self.arguments});
        if !self.tokens.is_empty() {
            let authorization: Vec<Value> =
                self.tokens.iter().map(|(id, token)| json!({"id": id, "token": token})).collect();
            request["context"] = json!({"authorization": authorization});
        }
        json!({ "request": request })
    }
}
