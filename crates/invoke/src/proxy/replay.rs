//! A record served back (`tooldeck serve-mock --record FILE`): each request is answered with the
//! answer the server gave to the same request in the record (the id rewritten to the new one's),
//! so a person writing a client tests against a real server's behaviour without the server.
//! What the record holds no answer to gets a clear JSON-RPC error.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::wire::{RecordError, Recorded, Side, read_record};

/// The answers of a record, by request.
#[derive(Debug, Default)]
pub struct Answers {
    /// (method, params without `_meta`) → the recorded answers in order, and which is next.
    exact: HashMap<(String, String), (Vec<Value>, usize)>,
    /// method → the first recorded answer: for requests whose params always differ
    /// (`initialize`'s client info), all but a call of a tool, a prompt or a resource.
    by_method: HashMap<String, Value>,
}

/// Methods whose answer depends on what is asked: answered only for the same params.
const BY_PARAMS_ONLY: &[&str] = &["tools/call", "prompts/get", "resources/read", "completion/complete"];

/// `params` without what differs from run to run (`_meta`: progress tokens), as a key. Masked
/// by the rule the record was written with, so a call whose `api_key` the record holds as `••••`
/// is the same call when a client sends it with the key.
fn params_key(params: Option<&Value>) -> String {
    let mut params = params.cloned().unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut params {
        fields.remove("_meta");
    }
    crate::redact::json_message(&params).unwrap_or(params).to_string()
}

impl Answers {
    pub fn load(path: &Path) -> Result<Answers, RecordError> {
        Ok(Answers::from_lines(&read_record(path)?))
    }

    /// Each client request paired with the server's answer of the same id that follows it.
    pub fn from_lines(lines: &[Recorded]) -> Answers {
        let mut answers = Answers::default();
        let mut waiting: HashMap<String, (String, String)> = HashMap::new();
        // An answer recorded before its request (two threads of a wire may be told out of order).
        let mut early: HashMap<String, Value> = HashMap::new();
        for line in lines {
            let message = &line.message;
            let (Some(id), method) = (message.get("id").filter(|id| !id.is_null()), message.get("method")) else {
                continue;
            };
            match (line.from, method.and_then(Value::as_str)) {
                (Side::Client, Some(method)) => {
                    let request = (method.to_string(), params_key(message.get("params")));
                    match early.remove(&id.to_string()) {
                        Some(answer) => answers.add(request, answer),
                        None => {
                            waiting.insert(id.to_string(), request);
                        }
                    }
                }
                (Side::Server, None) => match waiting.remove(&id.to_string()) {
                    Some(request) => answers.add(request, message.clone()),
                    None => {
                        early.insert(id.to_string(), message.clone());
                    }
                },
                _ => {}
            }
        }
        answers
    }

    fn add(&mut self, request: (String, String), answer: Value) {
        self.by_method.entry(request.0.clone()).or_insert_with(|| answer.clone());
        self.exact.entry(request).or_default().0.push(answer);
    }

    /// How many requests the record answers.
    pub fn len(&self) -> usize {
        self.exact.values().map(|(answers, _)| answers.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The answer to `request` (a JSON-RPC request), its id rewritten; `None` for a notification.
    pub fn answer(&mut self, request: &Value) -> Option<Value> {
        let id = request.get("id").filter(|id| !id.is_null())?.clone();
        let Some(method) = request.get("method").and_then(Value::as_str) else {
            // A client's answer to a server's question: the record's server asks nothing here.
            return None;
        };
        let key = (method.to_string(), params_key(request.get("params")));
        let recorded = match self.exact.get_mut(&key) {
            // The same request again gets the next answer recorded for it, then the last one.
            Some((answers, next)) => {
                let answer = answers.get(*next).or(answers.last()).cloned();
                *next = (*next + 1).min(answers.len());
                answer
            }
            None if !BY_PARAMS_ONLY.contains(&method) => self.by_method.get(method).cloned(),
            None => None,
        };
        let mut answer = recorded.unwrap_or_else(|| self.unknown(method, request));
        answer["id"] = id;
        Some(answer)
    }

    fn unknown(&self, method: &str, request: &Value) -> Value {
        let known = self.by_method.contains_key(method);
        let what = match request.pointer("/params/name").and_then(Value::as_str) {
            Some(name) => format!("{method} of {name} with these arguments"),
            None => format!("{method} with these params"),
        };
        let (code, message) = match known {
            true => (-32602, format!("tooldeck serve-mock: the record holds no answer to {what}")),
            false => (-32601, format!("tooldeck serve-mock: the record holds no {method} request")),
        };
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
    }
}

/// The arguments real clients sent, by tool: each `tools/call` of a record, or each case of a
/// case file (`fuzz --seed-from`).
pub fn seeds(path: &Path) -> Result<Vec<(String, Value)>, RecordError> {
    match read_record(path) {
        Ok(lines) => Ok(lines
            .iter()
            .filter(|line| line.from == Side::Client)
            .filter(|line| line.message.get("method").and_then(Value::as_str) == Some("tools/call"))
            .filter_map(|line| {
                let params = line.message.get("params")?;
                let tool = params.get("name")?.as_str()?.to_string();
                Some((tool, params.get("arguments").cloned().unwrap_or_else(|| json!({}))))
            })
            .collect()),
        Err(RecordError::Empty { path: shown }) => {
            let file = crate::cases::file::load(path);
            let seeds: Vec<(String, Value)> =
                file.each_case().filter_map(Result::ok).map(|case| (case.tool, case.args)).collect();
            if seeds.is_empty() {
                return Err(RecordError::Empty { path: shown });
            }
            Ok(seeds)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(from: Side, message: Value) -> Recorded {
        Recorded { from, message }
    }

    #[test]
    fn answers_by_request_with_the_new_id_and_errors_for_the_unknown() {
        let mut answers = Answers::from_lines(&[
            line(
                Side::Client,
                json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"a"}}}),
            ),
            line(Side::Server, json!({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s"}}})),
            line(
                Side::Client,
                json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}),
            ),
            line(Side::Server, json!({"jsonrpc":"2.0","id":2,"result":{"content":[]}})),
        ]);
        assert_eq!(answers.len(), 2);
        let init = json!({"jsonrpc":"2.0","id":"x","method":"initialize","params":{"clientInfo":{"name":"b"}}});
        assert_eq!(answers.answer(&init).unwrap()["result"]["serverInfo"]["name"], "s");
        assert_eq!(answers.answer(&init).unwrap()["id"], "x");
        let call = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"progressToken":3}}});
        assert_eq!(answers.answer(&call).unwrap()["result"], json!({"content":[]}));
        let other = json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":{"a":2}}});
        let error = answers.answer(&other).unwrap();
        assert_eq!(error["error"]["code"], -32602);
        assert_eq!(error["id"], 8);
        assert!(answers.answer(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})).is_none());
    }
}
