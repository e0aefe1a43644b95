//! Cassettes: every model exchange of a run kept per case, as a wire record (JSON Lines, one
//! frame a line, secrets masked by the one rule), so a replay answers iteration *i*, turn *t*
//! with what the model answered then, with no model and no key. A case's first line holds the
//! tools as the server listed them at the recording: when a request no longer matches, the
//! replay names the tools whose definitions changed since.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use crate::provider::{Model, ModelError};
use crate::wire::{Frame, RecordLine, Side};

/// One model exchange as kept: (iteration, turn, the request as sent, the answer).
pub type Exchange = (usize, usize, Value, Value);

/// What one case's cassette holds.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    /// The server's tools at the recording, as listed.
    pub tools: Vec<Value>,
    /// (iteration, turn) → (the request as recorded, the answer).
    pub exchanges: HashMap<(usize, usize), (Value, Value)>,
    pub iterations: usize,
}

/// Why a cassette cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    #[error("no cassette for case \"{case}\" at {path} (record one with --record)")]
    Missing { case: String, path: String },
    #[error("the cassette {path} cannot be read: {why}")]
    Unreadable { path: String, why: String },
    #[error("cannot write the cassette {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// The cassette file of `case` in `dir`: its name made safe for every file system.
pub fn path_for(dir: &Path, case: &str) -> PathBuf {
    let safe: String = case
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
        .take(100)
        .collect();
    dir.join(format!("{safe}.jsonl"))
}

/// A request as it is stored and compared: secrets masked by the one rule.
pub fn masked(request: &Value) -> Value {
    crate::redact::json_message(request).unwrap_or_else(|| request.clone())
}

/// Reads one case's cassette.
pub fn read(dir: &Path, case: &str) -> Result<Recorded, CassetteError> {
    let path = path_for(dir, case);
    let shown = path.display().to_string();
    if !path.exists() {
        return Err(CassetteError::Missing { case: case.into(), path: shown });
    }
    let lines = crate::wire::read_record(&path)
        .map_err(|e| CassetteError::Unreadable { path: shown.clone(), why: e.to_string() })?;
    let mut recorded = Recorded::default();
    let mut requests = HashMap::new();
    for line in lines {
        let message = line.message;
        if let Some(tools) = message.pointer("/eval/tools").and_then(Value::as_array) {
            recorded.tools = tools.clone();
            continue;
        }
        let at = |key: &str| message.get(key).and_then(Value::as_u64).map(|n| n as usize);
        let (Some(iteration), Some(turn)) = (at("iteration"), at("turn")) else { continue };
        recorded.iterations = recorded.iterations.max(iteration + 1);
        match (line.from, message.get("request"), message.get("answer")) {
            (Side::Client, Some(request), _) => {
                requests.insert((iteration, turn), request.clone());
            }
            (Side::Server, _, Some(answer)) => {
                if let Some(request) = requests.remove(&(iteration, turn)) {
                    recorded.exchanges.insert((iteration, turn), (request, answer.clone()));
                }
            }
            _ => {}
        }
    }
    Ok(recorded)
}

/// Writes one case's cassette: the tools, then each exchange in iteration and turn order.
pub fn write(dir: &Path, case: &str, tools: &[Value], exchanges: &[Exchange]) -> Result<(), CassetteError> {
    let path = path_for(dir, case);
    let failed = |source| CassetteError::Write { path: path.display().to_string(), source };
    crate::files::create_private_dir(dir).map_err(failed)?;
    let mut sorted: Vec<&Exchange> = exchanges.iter().collect();
    sorted.sort_by_key(|(iteration, turn, _, _)| (*iteration, *turn));
    let mut text = String::new();
    let mut line = |from: Side, message: Value| {
        let frame = Frame::of_value(from, message);
        // A cassette's lines are model exchanges, not JSON-RPC: the record's warning for a
        // client does not apply.
        let record = RecordLine { note: None, ..crate::wire::record_line(&frame) };
        text.push_str(&record.to_text().unwrap_or_default());
        text.push('\n');
    };
    line(Side::Client, json!({"eval": {"case": case, "tools": tools}}));
    for (iteration, turn, request, answer) in sorted {
        line(Side::Client, json!({"iteration": iteration, "turn": turn, "request": request}));
        line(Side::Server, json!({"iteration": iteration, "turn": turn, "answer": answer}));
    }
    crate::files::replace_private(&path, text.as_bytes()).map_err(failed)
}

/// A model that answers from cassettes: iteration *i*, turn *t* with the answer recorded there,
/// provided the request is the one recorded.
pub struct Replay {
    cassettes: HashMap<String, Recorded>,
    /// The tools as the server lists them now, to name what changed.
    tools_now: Vec<Value>,
}

impl Replay {
    pub fn new(cassettes: HashMap<String, Recorded>, tools_now: Vec<Value>) -> Replay {
        Replay { cassettes, tools_now }
    }

    fn replay(&self, case: &str, iteration: usize, turn: usize, request: &Value) -> Result<Value, ModelError> {
        let Some(recorded) = self.cassettes.get(case) else {
            return Err(ModelError::Replay(format!("no cassette for case \"{case}\"")));
        };
        let Some((was, answer)) = recorded.exchanges.get(&(iteration, turn)) else {
            return Err(ModelError::Replay(format!(
                "the cassette has no turn {} of iteration {} (it holds {} iterations): record again",
                turn + 1,
                iteration + 1,
                recorded.iterations
            )));
        };
        let now = masked(request);
        if now == *was {
            return Ok(answer.clone());
        }
        let changed = changed_tools(&recorded.tools, &self.tools_now);
        let why = if changed.is_empty() {
            format!("the request differs at {}", first_difference(was, &now, String::new()).unwrap_or_default())
        } else {
            format!("tools whose definitions changed since the recording: {}", changed.join("; "))
        };
        Err(ModelError::Replay(format!(
            "the request no longer matches the recording: {why} (record again with --record)"
        )))
    }
}

impl Model for Replay {
    fn answer<'a>(
        &'a self,
        case: &'a str,
        iteration: usize,
        turn: usize,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Value, ModelError>> {
        Box::pin(std::future::ready(self.replay(case, iteration, turn, request)))
    }
}

/// A live model whose exchanges are kept, to be written as cassettes at the end of the run.
pub struct Recorder<'a> {
    pub live: &'a dyn Model,
    exchanges: Mutex<HashMap<String, Vec<Exchange>>>,
}

impl<'a> Recorder<'a> {
    pub fn new(live: &'a dyn Model) -> Recorder<'a> {
        Recorder { live, exchanges: Mutex::new(HashMap::new()) }
    }

    /// The exchanges kept for each case.
    pub fn take(&self) -> HashMap<String, Vec<Exchange>> {
        std::mem::take(&mut *crate::sync::lock(&self.exchanges))
    }
}

impl Model for Recorder<'_> {
    fn answer<'a>(
        &'a self,
        case: &'a str,
        iteration: usize,
        turn: usize,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Value, ModelError>> {
        Box::pin(async move {
            let answer = self.live.answer(case, iteration, turn, request).await?;
            // Kept as sent: the record writer masks its secrets once, as the replay masks the
            // request it compares.
            crate::sync::lock(&self.exchanges).entry(case.to_string()).or_default().push((
                iteration,
                turn,
                request.clone(),
                answer.clone(),
            ));
            Ok(answer)
        })
    }
}

/// Each tool whose definition differs between two listings, with what changed (the diff
/// engine's words): `to_kelvin (description changed, docs)`; tools added and removed too.
pub fn changed_tools(then: &[Value], now: &[Value]) -> Vec<String> {
    let catalog = |tools: &[Value]| {
        let text = json!({"tools": tools}).to_string();
        let mut catalog = crate::catalog::Catalog::default();
        for tool in crate::invoke::endpoint::server_tools("cassette", &text) {
            catalog.add(tool);
        }
        catalog
    };
    let diff = crate::diff::diff_catalogs(&catalog(then), &catalog(now));
    let mut said = Vec::new();
    for tool in &diff.changed {
        let changes: Vec<String> = tool
            .changes
            .iter()
            .map(|c| format!("{}, {}", c.message.strip_prefix("the tool's ").unwrap_or(&c.message), c.class))
            .collect();
        said.push(format!("{} ({})", tool.name, changes.join("; ")));
    }
    said.extend(diff.removed.iter().map(|name| format!("{name} (removed)")));
    said.extend(diff.added.iter().map(|name| format!("{name} (added)")));
    said
}

/// The JSON pointer of the first place two values differ.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => {
                        if let Some(found) = first_difference(value, other, format!("{at}/{key}")) {
                            return Some(found);
                        }
                    }
                    None => return Some(format!("{at}/{key}")),
                }
            }
            y.keys().find(|k| !x.contains_key(*k)).map(|k| format!("{at}/{k}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(found) = first_difference(v, w, format!("{at}/{i}")) {
                    return Some(found);
                }
            }
            (x.len() != y.len()).then(|| format!("{at}/{}", x.len().min(y.len())))
        }
        _ => (a != b).then(|| if at.is_empty() { "/".into() } else { at }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(description: &str) -> Value {
        json!({"name": "to_kelvin", "description": description, "inputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}}})
    }

    #[test]
    fn a_cassette_reads_back_as_written_with_secrets_masked() {
        let dir = tempfile::tempdir().unwrap();
        let request = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "api_key": "s3cret-value"});
        let answer = json!({"choices": [{"message": {"role": "assistant", "content": "hello"}}]});
        write(dir.path(), "a case/1", &[tool("Converts")], &[(0, 0, request.clone(), answer.clone())]).unwrap();
        let text = std::fs::read_to_string(path_for(dir.path(), "a case/1")).unwrap();
        assert!(!text.contains("s3cret-value"), "{text}");
        let recorded = read(dir.path(), "a case/1").unwrap();
        assert_eq!(recorded.iterations, 1);
        assert_eq!(recorded.tools, [tool("Converts")]);
        let replay = Replay::new(HashMap::from([("a case/1".to_string(), recorded)]), vec![tool("Converts")]);
        assert_eq!(replay.replay("a case/1", 0, 0, &request).unwrap(), answer);
    }

    #[test]
    fn a_request_that_no_longer_matches_names_the_tool_that_changed() {
        let request = json!({"tools": [{"function": {"description": "Converts"}}]});
        let recorded = Recorded {
            tools: vec![tool("Converts")],
            exchanges: HashMap::from([((0, 0), (request, json!({})))]),
            iterations: 1,
        };
        let replay = Replay::new(HashMap::from([("k".to_string(), recorded)]), vec![tool("Converts Celsius")]);
        let changed = json!({"tools": [{"function": {"description": "Converts Celsius"}}]});
        let said = replay.replay("k", 0, 0, &changed).unwrap_err().to_string();
        assert!(said.contains("tools whose definitions changed since the recording: to_kelvin ("), "{said}");
        assert!(said.contains("to_kelvin (description changed, docs)"), "{said}");
        let beyond = replay.replay("k", 3, 0, &changed).unwrap_err().to_string();
        assert!(beyond.contains("no turn 1 of iteration 4 (it holds 1 iterations)"), "{beyond}");
    }

    #[test]
    fn first_difference_points_at_it() {
        let a = json!({"model": "m", "messages": [{"content": "a"}]});
        let b = json!({"model": "m", "messages": [{"content": "b"}]});
        assert_eq!(first_difference(&a, &b, String::new()).as_deref(), Some("/messages/0/content"));
    }
}
