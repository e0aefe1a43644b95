//! `--save-cases`: each answered `tools/call` becomes a case (its arguments, the answers the
//! client gave to the server's elicitation and sampling requests meanwhile, the outcome as the
//! expectation), appended to a case file that `tooldeck test FILE` replays. Secrets are written
//! as `${VAR}` placeholders (`cases::record`), and each variable is said once on stderr.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::wire::{Frame, FrameSink, Side, Warn};

/// The most calls waiting for their answer that are remembered: a client that never hears back
/// does not grow the proxy's memory.
const MAX_PENDING: usize = 10_000;

/// A call sent and not yet answered.
struct Pending {
    tool: String,
    arguments: Value,
    /// `elicit:` and `sample:` of the case: what the client answered the server meanwhile.
    answers: Map<String, Value>,
}

pub struct CaseSink {
    path: PathBuf,
    server: Map<String, Value>,
    calls: HashMap<String, Pending>,
    /// The server's own requests (elicitation, sampling) by id, and which call they came in.
    asks: HashMap<String, (&'static str, String)>,
    saved: usize,
    /// The proxy's voice, to say which variables the cases name.
    warn: Warn,
    /// The variables said so far.
    said: Vec<String>,
}

impl CaseSink {
    /// Cases appended to `path`, naming the server `server` (a case file's top-level keys).
    pub fn new(path: PathBuf, server: Map<String, Value>, warn: Warn) -> CaseSink {
        CaseSink { path, server, calls: HashMap::new(), asks: HashMap::new(), saved: 0, warn, said: Vec::new() }
    }

    fn key(id: &Value) -> String {
        id.to_string()
    }

    fn request(&mut self, frame: &Frame, id: &Value) {
        let Some(message) = &frame.message else { return };
        let params = message.get("params");
        match (frame.from, frame.method()) {
            (Side::Client, Some("tools/call")) if self.calls.len() < MAX_PENDING => {
                let Some(tool) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else { return };
                let arguments = params.and_then(|p| p.get("arguments")).cloned().unwrap_or_else(|| json!({}));
                let pending = Pending { tool: tool.to_string(), arguments, answers: Map::new() };
                self.calls.insert(Self::key(id), pending);
            }
            (Side::Server, Some(method @ ("elicitation/create" | "sampling/createMessage"))) => {
                // Asked during a call: the one waiting (a server asks in the call it serves).
                let kind = if method == "elicitation/create" { "elicit" } else { "sample" };
                let call = params
                    .and_then(|p| p.pointer("/_meta/progressToken"))
                    .map(Self::key)
                    .filter(|k| self.calls.contains_key(k))
                    .or_else(|| (self.calls.len() == 1).then(|| self.calls.keys().next().cloned()).flatten());
                if let Some(call) = call
                    && self.asks.len() < MAX_PENDING
                {
                    self.asks.insert(Self::key(id), (kind, call));
                }
            }
            _ => {}
        }
    }

    fn response(&mut self, frame: &Frame, id: &Value) -> io::Result<()> {
        let Some(message) = &frame.message else { return Ok(()) };
        let key = Self::key(id);
        if frame.from == Side::Client {
            if let Some((kind, call)) = self.asks.remove(&key)
                && let (Some(pending), Some(result)) = (self.calls.get_mut(&call), message.get("result"))
                && let Some(answer) = answer(kind, result)
            {
                pending.answers.insert(kind.into(), answer);
            }
            return Ok(());
        }
        let Some(pending) = self.calls.remove(&key) else { return Ok(()) };
        let Some(result) = message.get("result") else { return Ok(()) };
        let outcome = crate::invoke::envelope::read_mcp_result(result, &key);
        self.saved += 1;
        let name = format!("{} (recorded {})", pending.tool, self.saved);
        let mut case = crate::cases::record::case_from_outcome(&name, &pending.tool, &pending.arguments, &outcome);
        if let Value::Object(fields) = &mut case {
            fields.extend(pending.answers);
        }
        let variables = crate::cases::record::append_case_for(&self.path, &case, &self.server)?;
        let new: Vec<String> = variables.into_iter().filter(|v| !self.said.contains(v)).collect();
        if !new.is_empty() {
            (self.warn)(&format!(
                "the cases in {} name secrets as {}: set them before `tooldeck test`",
                self.path.display(),
                new.iter().map(|v| format!("${{{v}}}")).collect::<Vec<_>>().join(", ")
            ));
            self.said.extend(new);
        }
        Ok(())
    }
}

/// A client's answer to a server's question, as a case file writes it: `elicit:` the content
/// accepted (or `decline`, `cancel`), `sample:` the reply's text.
fn answer(kind: &str, result: &Value) -> Option<Value> {
    if kind == "elicit" {
        return match result.get("action")?.as_str()? {
            "accept" => Some(result.get("content").cloned().unwrap_or_else(|| json!({}))),
            word @ ("decline" | "cancel") => Some(json!(word)),
            _ => None,
        };
    }
    let content = result.get("content")?;
    let text = match content {
        Value::Array(items) => items.iter().find_map(|item| item.get("text")).and_then(Value::as_str),
        item => item.get("text").and_then(Value::as_str),
    };
    text.map(|t| json!(t))
}

impl FrameSink for CaseSink {
    fn accept(&mut self, frame: &Frame) -> io::Result<()> {
        let Some(id) = frame.id().cloned() else { return Ok(()) };
        if frame.is_response() {
            return self.response(frame, &id);
        }
        self.request(frame, &id);
        Ok(())
    }

    fn name(&self) -> String {
        format!("the case file {}", self.path.display())
    }
}
