//! The model side of an eval: a [`Format`] (how one API writes a conversation, tools and
//! answers: OpenAI-compatible chat completions or Anthropic's Messages) and a [`Model`] (what
//! answers a request: the API over HTTP, a cassette, or a test's stand-in). Messages stay raw
//! JSON, so whatever fields a provider adds survive the round trip.

pub mod anthropic;
pub mod http;
pub mod openai;

use futures_util::future::BoxFuture;
use serde_json::Value;

/// A tool as the model is shown it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: Option<String>,
    pub input_schema: Value,
}

/// A tool call the model made; `arguments` holds the text it sent when that was not JSON
/// (`not_json`).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
    pub not_json: bool,
}

/// One answer of the model: the message to keep in the conversation (as sent), its calls, its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub message: Value,
    pub calls: Vec<ModelCall>,
    pub text: Option<String>,
}

/// What a tool call came to, as the model is told it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub name: String,
    pub text: String,
    pub is_error: bool,
}

/// What one API's requests and answers look like. No I/O.
pub trait Format: Send + Sync {
    /// The conversation's first messages.
    fn start(&self, prompt: &str) -> Vec<Value>;
    /// The request body for the conversation so far (what a cassette is keyed by).
    fn request(&self, messages: &[Value], tools: &[ToolDef]) -> Value;
    /// An answer (the API's non-streaming shape) read.
    fn read(&self, answer: &Value) -> Result<Reply, ModelError>;
    /// The messages that give the model its calls' results.
    fn results(&self, results: &[ToolResult]) -> Vec<Value>;
    /// A streamed answer's events put together into the non-streaming shape.
    fn assembler(&self) -> Box<dyn Assemble>;
    /// The request path under the model's base URL.
    fn path(&self) -> &'static str;
    /// The headers that carry the key.
    fn key_headers(&self, key: &str) -> Vec<(String, String)>;
}

/// Puts a streamed answer together, one server-sent event at a time.
pub trait Assemble: Send {
    fn event(&mut self, event: Option<&str>, data: &str) -> Result<(), ModelError>;
    /// The whole answer; an error when the stream ended before the answer did.
    fn finish(self: Box<Self>) -> Result<Value, ModelError>;
}

/// Whatever answers a model request: the API over HTTP, a cassette, a test's stand-in.
pub trait Model: Send + Sync {
    /// The answer to `request` in iteration `iteration`, turn `turn` of a case (a cassette
    /// answers by position; a live model ignores both).
    fn answer<'a>(
        &'a self,
        case: &'a str,
        iteration: usize,
        turn: usize,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Value, ModelError>>;
}

/// Why the model gave no usable answer: each said as the person reads it, with any key masked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("the model refused the request ({status}): is the key right? {message}")]
    Unauthorized { status: u16, message: String },
    #[error("the model kept answering 429 (too many requests) after {tries} tries: {message}")]
    RateLimited { tries: usize, message: String },
    #[error("the model answered HTTP {status}: {message}")]
    Status { status: u16, message: String },
    #[error("cannot reach the model at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the model's stream broke off: {0}")]
    Stream(String),
    #[error("the model's answer is larger than {limit_mb} MB; it was cut off")]
    TooLarge { limit_mb: usize },
    #[error("the model's answer cannot be read: {0}")]
    Unreadable(String),
    #[error("the model's key: {0}")]
    Key(String),
    #[error("{0}")]
    Replay(String),
}

/// Text from a model or a server cut to what a line of a report holds, any key masked.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 300;
    let text = crate::redact::expanded(text);
    let mut cut: String = text.chars().take(MAX).collect();
    if text.chars().nth(MAX).is_some() {
        cut.push('…');
    }
    cut.replace(['\n', '\r'], " ")
}

/// Reads a call's arguments (the JSON text a model sent, or an object already): the object, or
/// the text that is not one and `true`.
pub(crate) fn arguments(raw: &Value) -> (Value, bool) {
    match raw {
        Value::String(text) if text.trim().is_empty() => (Value::Object(Default::default()), false),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => (value, false),
            _ => (Value::String(text.clone()), true),
        },
        Value::Object(_) => (raw.clone(), false),
        Value::Null => (Value::Object(Default::default()), false),
        other => (Value::String(other.to_string()), true),
    }
}
