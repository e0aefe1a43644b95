//! A server's messages as they came, before rmcp reads them. rmcp drops a line no JSON parser
//! takes (a lone surrogate escape, `"\udcbb"`) without a word, so the request waiting for it
//! would wait out its timeout, and it reads a `tools/call` result without `content` as an empty
//! one. Here each message is looked at first: a line that cannot be decoded is kept as it came
//! (secrets masked) for the traffic log and replaced by a JSON-RPC error for the request it
//! answers (found by its id, read leniently), marked as tooldeck's own, so the call fails at once
//! with what happened; a result without `content` is noted for the call to warn about. The
//! Streamable HTTP client also uses [`synthetic`] to end a call whose answer's stream ended
//! without it.

use std::sync::Arc;

use serde_json::{Value, json};

use super::events::EventSink;
use super::exchange_log::Wire;

/// The warning on a `tools/call` result that came without `content`.
pub const NO_CONTENT: &str =
    "protocol deviation: the result has no content (MCP requires it in every tools/call result); read as empty";

/// The field of a synthetic error's `data` that marks it as tooldeck's own.
const MARK: &str = "tooldeck";

/// Why tooldeck answered a request on the server's behalf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synthetic {
    /// The server's answer is not valid JSON (a protocol deviation).
    NotJson,
    /// The stream that was to carry the answer ended without it (the server died or reset it).
    StreamEnded,
}

impl Synthetic {
    fn name(self) -> &'static str {
        match self {
            Synthetic::NotJson => "not-json",
            Synthetic::StreamEnded => "stream-ended",
        }
    }
}

/// A JSON-RPC error answering request `id` (JSON text), marked as tooldeck's; `None` when the
/// id is not itself readable JSON.
pub fn synthetic(id: &str, kind: Synthetic, why: &str) -> Option<String> {
    let id = serde_json::from_str::<Value>(id).ok().filter(|id| id.is_number() || id.is_string())?;
    let error = json!({"code": -32700, "message": why, "data": {MARK: kind.name(), "why": why}});
    Some(json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string())
}

/// The kind and reason of a synthetic error, read from its `data`.
pub fn read_synthetic(data: Option<&Value>) -> Option<(Synthetic, String)> {
    let data = data?;
    let kind = match data.get(MARK)?.as_str()? {
        "not-json" => Synthetic::NotJson,
        "stream-ended" => Synthetic::StreamEnded,
        _ => return None,
    };
    Some((kind, data.get("why").and_then(Value::as_str).unwrap_or_default().to_string()))
}

/// Looks at one message (`raw`, a line or an event's data) before rmcp reads it. A message
/// that cannot be decoded is recorded as it came and, when the request it answers is known (its
/// own id, else `fallback_id`: the request an HTTP answer belongs to), replaced by a synthetic
/// error for that request: the returned text. Without an id, the request waiting is failed
/// through the wire. A result without `content` is noted on the wire by its id.
pub fn inspect(wire: &Wire, events: Option<&EventSink>, raw: &[u8], fallback_id: Option<&str>) -> Option<String> {
    let raw = trim(raw);
    if raw.is_empty() {
        return None;
    }
    let facts = scan(raw);
    let Err(why) = decodable(raw) else {
        if facts.no_content
            && let Some(id) = &facts.id
        {
            wire.note_no_content(id.clone());
        }
        return None;
    };
    let why = format!("the server's answer is not valid JSON ({why}), a protocol deviation");
    let shown: Arc<str> = crate::redact::broken_json(&String::from_utf8_lossy(raw)).into();
    let id = facts.id.or_else(|| fallback_id.map(str::to_string));
    wire.record_raw(id.clone(), Arc::clone(&shown));
    if let Some(events) = events {
        events.traffic().received_raw(id.clone(), shown);
    }
    match id.as_deref().and_then(|id| synthetic(id, Synthetic::NotJson, &why)) {
        Some(line) => Some(line),
        None => {
            wire.fail(why);
            None
        }
    }
}

/// [`inspect`] for each line a stdio server writes; a line that is not even trying to be a
/// JSON-RPC message (a banner, a log line: it opens with neither `{` nor `[`) is also said once
/// in the session's events, since clients that read stdout strictly fail on it.
pub fn inspector(wire: Wire, events: EventSink) -> super::line_cap::Inspect {
    Box::new(move |line| {
        let text = trim(line);
        if !text.is_empty() && !matches!(text[0], b'{' | b'[') {
            events.stray_stdout(&crate::redact::text(&String::from_utf8_lossy(text)));
        }
        inspect(&wire, Some(&events), line, None)
    })
}

/// `raw` without the byte-order mark, the line's end and surrounding blanks (as rmcp reads it).
fn trim(raw: &[u8]) -> &[u8] {
    let raw = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
    raw.trim_ascii()
}

/// Whether a JSON parser takes `raw`, checked cheaply: valid UTF-8 and JSON syntax (without
/// building a value), and a full parse only when a surrogate escape, which the syntax check does
/// not look into, is there.
fn decodable(raw: &[u8]) -> Result<(), Undecodable> {
    let text = std::str::from_utf8(raw)?;
    serde_json::from_str::<serde::de::IgnoredAny>(text)?;
    if has_surrogate_escape(raw) {
        serde_json::from_str::<Value>(text)?;
    }
    Ok(())
}

/// Why a JSON parser refuses a message.
#[derive(Debug, thiserror::Error)]
enum Undecodable {
    #[error("not UTF-8: {0}")]
    Utf8(#[from] std::str::Utf8Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

/// True when `raw` holds a `\uD800`–`\uDFFF` escape.
fn has_surrogate_escape(raw: &[u8]) -> bool {
    raw.windows(4).any(|w| {
        w[0] == b'\\' && w[1] == b'u' && matches!(w[2], b'd' | b'D') && {
            matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
        }
    })
}

/// What a lenient read of a message finds, valid JSON or not.
#[derive(Debug, Default, PartialEq)]
pub struct Facts {
    /// The top-level `id`, as JSON text (`7`, `"a"`).
    pub id: Option<String>,
    /// A top-level `result` or `error`: an answer.
    pub answer: bool,
    /// A top-level `result` object with no `content` and nothing that makes it another kind of
    /// result (a task, a round of input).
    pub no_content: bool,
}

/// Keys of a result that make it something other than a tool's final result.
const OTHER_RESULTS: &[&[u8]] = &[b"content", b"resultType", b"task", b"inputRequests", b"requestState"];

/// Reads `raw` the way a JSON parser would walk it, without checking it: strings (escapes
/// skipped, not decoded), nesting, and the keys at the top level and of the top-level `result`.
/// Linear in `raw`; never fails.
pub fn scan(raw: &[u8]) -> Facts {
    let mut facts = Facts::default();
    // Per open container: is it an object?
    let mut stack: Vec<bool> = Vec::new();
    let mut expect_key = false;
    let (mut top_key, mut in_result, mut result_other) = (&b""[..], false, false);
    let mut i = 0;
    while i < raw.len() {
        let byte = raw[i];
        match byte {
            b'"' => {
                let end = string_end(raw, i);
                let inner = &raw[i + 1..end.saturating_sub(1).max(i + 1)];
                if expect_key {
                    if stack.len() == 1 {
                        top_key = inner;
                        facts.answer |= inner == b"result" || inner == b"error";
                    } else if stack.len() == 2 && in_result && OTHER_RESULTS.contains(&inner) {
                        result_other = true;
                    }
                    expect_key = false;
                } else if stack.len() == 1 && top_key == b"id" {
                    facts.id = Some(String::from_utf8_lossy(&raw[i..end]).into_owned());
                }
                i = end;
                continue;
            }
            b'{' | b'[' => {
                stack.push(byte == b'{');
                expect_key = byte == b'{';
                if stack.len() == 2 && byte == b'{' && top_key == b"result" {
                    in_result = true;
                }
            }
            b'}' | b']' => {
                if stack.len() == 2 && in_result {
                    facts.no_content = !result_other;
                    in_result = false;
                }
                stack.pop();
                expect_key = false;
            }
            b',' => expect_key = stack.last() == Some(&true),
            b'-' | b'0'..=b'9' if stack.len() == 1 && top_key == b"id" && !expect_key => {
                let end = raw[i..].iter().position(|b| !b"-+.eE0123456789".contains(b)).map_or(raw.len(), |n| i + n);
                facts.id = Some(String::from_utf8_lossy(&raw[i..end]).into_owned());
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    facts
}

/// The index just past the string that opens at `start` (or the end of `raw`).
fn string_end(raw: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < raw.len() {
        match raw[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    raw.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_surrogate_is_not_decodable_and_its_id_is_read() {
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"\udcbb"}]}}"#;
        assert!(decodable(line).is_err());
        assert_eq!(scan(line), Facts { id: Some("7".into()), answer: true, no_content: false });
        assert!(decodable(br#"{"a":"\ud83d\ude00 \\udcbb"}"#).is_ok(), "a pair, and an escaped backslash");
        assert!(decodable(b"{\"a\":\"\xff\"}").is_err());
        assert!(decodable(br#"{"a":1,}"#).is_err());
    }

    #[test]
    fn the_top_level_id_and_a_result_without_content() {
        let nested = br#"{"result":{"isError":false,"meta":{"id":9,"content":1}},"id":"x","jsonrpc":"2.0"}"#;
        assert_eq!(scan(nested), Facts { id: Some("\"x\"".into()), answer: true, no_content: true });
        let task = br#"{"id":3,"result":{"task":{"taskId":"t"}}}"#;
        assert_eq!(scan(task), Facts { id: Some("3".into()), answer: true, no_content: false });
        let request = br#"{"id":4,"method":"roots/list","params":{"id":5}}"#;
        assert_eq!(scan(request), Facts { id: Some("4".into()), answer: false, no_content: false });
    }

    #[test]
    fn a_synthetic_error_answers_by_id_and_is_known_again() {
        let line = synthetic("\"a\"", Synthetic::NotJson, "why").unwrap();
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["id"], "a");
        assert_eq!(read_synthetic(value.pointer("/error/data")), Some((Synthetic::NotJson, "why".into())));
        assert_eq!(synthetic("\"\\udcbb\"", Synthetic::NotJson, "why"), None);
        assert_eq!(read_synthetic(Some(&json!({"other": 1}))), None);
    }
}
