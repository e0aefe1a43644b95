//! The record: JSON Lines, one frame a line, secrets masked by the one rule (`redact`). Its
//! format is documented in docs/proxy.md for other tools to read; [`read_record`] reads it back
//! (`serve-mock --record`, `fuzz --seed-from`).

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::frame::{Frame, NOT_JSON_RPC, TOO_DEEP, timestamp};

/// The most of a record that is read back: a record is the user's file, read bounded.
pub const MAX_RECORD_BYTES: u64 = 256 * 1024 * 1024;

impl Frame {
    /// The frame's record line, as written (masked, on one line), made once for all the sinks
    /// that take it.
    pub fn record_text(&self) -> serde_json::Result<Arc<str>> {
        if let Some(line) = self.line.0.get() {
            return Ok(Arc::clone(line));
        }
        let line: Arc<str> = crate::json_out::to_line(&record_line(self))?.into();
        let _ = self.line.0.set(Arc::clone(&line));
        Ok(line)
    }
}

/// A frame as one record line (a JSON object; the caller writes it with `json_out::to_line`).
pub fn record_line(frame: &Frame) -> Value {
    let mut line = Map::new();
    line.insert("time".into(), json!(timestamp(frame.at)));
    line.insert("from".into(), json!(frame.from.name()));
    if let Some(http) = &frame.http {
        let mut shown = Map::new();
        if let Some(method) = &http.method {
            shown.insert("method".into(), json!(method));
        }
        if let Some(path) = &http.path {
            shown.insert("path".into(), json!(crate::redact::path_and_query(path)));
        }
        if let Some(status) = http.status {
            shown.insert("status".into(), json!(status));
        }
        shown.insert("headers".into(), headers(&http.headers));
        line.insert("http".into(), Value::Object(shown));
    }
    line.insert("size".into(), json!(frame.size));
    match &frame.message {
        Some(message) => {
            let masked = crate::redact::json_message(message);
            line.insert("message".into(), masked.unwrap_or_else(|| message.clone()));
        }
        None if frame.too_deep => {
            line.insert("note".into(), json!(TOO_DEEP));
        }
        None if frame.has_text() => {
            line.insert("text".into(), json!(text_of(frame)));
            if !frame.kept() && !frame.trimmed {
                let (kept, size) = (frame.raw.len() as u64, frame.size as u64);
                line.insert("note".into(), json!(cut_note(kept, size)));
            }
        }
        None => {
            line.insert("note".into(), json!("too large to keep: its size only"));
        }
    }
    if frame.trimmed {
        line.insert("trimmed".into(), json!(true));
    }
    if frame.breaks_clients() {
        line.insert("note".into(), json!(NOT_JSON_RPC));
    }
    if let Some(rule) = &frame.injected {
        line.insert("injected".into(), json!(rule));
    }
    Value::Object(line)
}

/// A line that is not a message, as the record keeps it: its secrets masked by the one rule
/// (a stderr line may be a JSON log: its secret fields are found in the text too).
pub fn text_of(frame: &Frame) -> String {
    let text = String::from_utf8_lossy(&frame.raw);
    match frame.from {
        super::Side::Stderr => crate::redact::broken_json(&text),
        _ => crate::redact::urls_in(&text).into_owned(),
    }
}

/// What the record says of a line cut to its first `kept` bytes.
pub fn cut_note(kept: u64, size: u64) -> String {
    use crate::text::human_bytes;
    format!("cut: the first {} of a {} line kept", human_bytes(kept), human_bytes(size))
}

/// Headers as an object, secrets masked; a name that came more than once holds an array.
fn headers(headers: &[(String, String)]) -> Value {
    let mut shown = Map::new();
    for (name, value) in headers {
        let value = json!(crate::redact::header_value(name, value));
        match shown.get_mut(name) {
            Some(Value::Array(values)) => values.push(value),
            Some(first) => *first = json!([first.take(), value]),
            None => {
                shown.insert(name.clone(), value);
            }
        }
    }
    Value::Object(shown)
}

/// A line of a record read back: who sent it and the message, when it was one.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordLine {
    pub from: super::Side,
    pub message: Value,
}

/// A record that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read the record {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path} holds no JSON-RPC message: is it a record `tooldeck proxy --record` wrote?")]
    Empty { path: String },
}

/// The messages of a record, in order. Lines that are not records of a message (drop counts,
/// junk a server printed, lines cut short) are skipped.
pub fn read_record(path: &Path) -> Result<Vec<RecordLine>, RecordError> {
    let shown = path.display().to_string();
    let bytes = crate::files::read_bounded(path, MAX_RECORD_BYTES)
        .map_err(|source| RecordError::Read { path: shown.clone(), source })?;
    let lines: Vec<RecordLine> = bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| super::parse_record_line(line).ok())
        .filter_map(|line| {
            // A stderr line holds text, never a message: it is no exchange to replay.
            let from = super::Side::of_name(line.get("from")?.as_str()?).filter(|f| *f != super::Side::Stderr)?;
            let message = line.get("message")?.clone();
            Some(RecordLine { from, message })
        })
        .collect();
    if lines.is_empty() {
        return Err(RecordError::Empty { path: shown });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use bytes::Bytes;

    use super::*;
    use crate::wire::{HttpDetails, Side};

    #[test]
    fn a_line_masks_secrets_and_flags_junk() {
        let raw = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"api_key":"s3cret"}}}"#;
        let http = HttpDetails {
            method: Some("POST".into()),
            path: Some("/mcp?api_key=q-key&token=q-token&page=2".into()),
            status: None,
            headers: vec![("authorization".into(), "Bearer abc".into()), ("accept".into(), "a".into())],
        };
        let line = record_line(&Frame::new(Side::Client, SystemTime::now(), Bytes::from_static(raw), Some(http)));
        let text = line.to_string();
        assert!(!text.contains("s3cret") && !text.contains("Bearer abc"), "{text}");
        assert_eq!(line["http"]["path"], "/mcp?api_key=••••&token=••••&page=2", "the query's secrets masked");
        assert_eq!(line["from"], "client");
        assert_eq!(line["http"]["method"], "POST");
        let junk = record_line(&Frame::new(Side::Server, SystemTime::now(), Bytes::from_static(b"listening"), None));
        assert_eq!(junk["note"], NOT_JSON_RPC);
        assert_eq!(junk["text"], "listening");
    }

    /// A message nested deeper than serde_json reads by default is still a message: its secrets
    /// masked, never "not JSON-RPC"; one too deep to read is not kept as text at all.
    #[test]
    fn a_deep_message_is_recorded_masked() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let message = |depth: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"api_key":"s3cret","deep":{}}}}}}}"#,
                nested(depth)
            )
        };
        let record =
            |depth: usize| record_line(&Frame::new(Side::Client, SystemTime::now(), message(depth).into(), None));
        // The message nests four levels above `deep`: the last is read at the limit exactly.
        for depth in [300, crate::wire::MAX_DEPTH + 10, crate::wire::MAX_DEPTH - 4] {
            let line = record(depth);
            let text = crate::json_out::to_line(&line).unwrap();
            assert!(!text.contains("s3cret"), "{depth}: {}", crate::text::truncate(&text, 400));
            assert_ne!(line["note"], NOT_JSON_RPC, "{depth}");
        }
        assert_eq!(record(300)["message"]["params"]["arguments"]["api_key"], crate::redact::MASK);
        let too_deep = record(crate::wire::MAX_DEPTH + 10);
        assert_eq!(too_deep["note"], TOO_DEEP);
        assert!(too_deep.get("text").is_none() && too_deep.get("message").is_none());
    }

    #[test]
    fn a_deep_message_reads_back_from_the_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        // At the limit: the record line nests one level deeper than its message.
        let nested = "[".repeat(crate::wire::MAX_DEPTH - 2) + &"]".repeat(crate::wire::MAX_DEPTH - 2);
        let deep = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"a":{nested}}}}}"#);
        let line = record_line(&Frame::new(Side::Client, SystemTime::now(), Bytes::from(deep), None));
        std::fs::write(&path, crate::json_out::to_line(&line).unwrap() + "\n").unwrap();
        let read = read_record(&path).unwrap();
        assert_eq!(read[0].message["method"], "x");
    }
}
