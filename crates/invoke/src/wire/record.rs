//! The record: JSON Lines, one frame a line, secrets masked by the one rule (`redact`). Its
//! format is documented in docs/proxy.md for other tools to read; [`read_record`] reads it back
//! (`serve-mock --record`, `fuzz --seed-from`).

use std::path::Path;
use std::sync::Arc;

use std::borrow::Cow;

use serde_json::{Map, Value, json};

pub use crate::record_line::{HttpShown, RecordLine};

use super::frame::{Frame, NOT_JSON_RPC, timestamp};
use super::parse::TOO_DEEP;

/// The most of a record that is read back: a record is the user's file, read bounded.
pub const MAX_RECORD_BYTES: u64 = 256 * 1024 * 1024;

impl Frame {
    /// The frame's record line, as written (masked, on one line), made once for all the sinks
    /// that take it.
    pub fn record_text(&self) -> serde_json::Result<Arc<str>> {
        if let Some(line) = self.line.0.get() {
            return Ok(Arc::clone(line));
        }
        let line: Arc<str> = record_line(self).to_text()?.into();
        let _ = self.line.0.set(Arc::clone(&line));
        Ok(line)
    }
}

/// A frame as one record line, its secrets masked (the message borrowed when nothing in it was).
pub fn record_line(frame: &Frame) -> RecordLine<'_> {
    let mut line = RecordLine {
        time: Some(timestamp(frame.at)),
        http: frame.http.as_ref().map(|http| HttpShown {
            method: http.method.clone(),
            path: http.path.as_deref().map(crate::redact::path_and_query),
            status: http.status,
            headers: headers(&http.headers),
        }),
        size: Some(frame.size as u64),
        trimmed: frame.trimmed,
        injected: frame.injected.as_deref().map(str::to_string),
        ..RecordLine::new(frame.from)
    };
    match &frame.message {
        Some(message) => {
            line.message = Some(match crate::redact::json_message(message) {
                Some(masked) => Cow::Owned(masked),
                None => Cow::Borrowed(message),
            });
        }
        None if frame.too_deep => line.note = Some(TOO_DEEP.into()),
        None if frame.has_text() => {
            line.text = Some(text_of(frame));
            if !frame.kept() && !frame.trimmed {
                line.note = Some(cut_note(frame.raw.len() as u64, frame.size as u64));
            }
        }
        None => line.note = Some("too large to keep: its size only".into()),
    }
    if frame.breaks_clients() {
        line.note = Some(NOT_JSON_RPC.into());
    }
    line
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
fn headers(headers: &[(String, String)]) -> Map<String, Value> {
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
    shown
}

/// A message of a record read back, and who sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
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
pub fn read_record(path: &Path) -> Result<Vec<Recorded>, RecordError> {
    let shown = path.display().to_string();
    let bytes = crate::files::read_bounded(path, MAX_RECORD_BYTES)
        .map_err(|source| RecordError::Read { path: shown.clone(), source })?;
    let lines: Vec<Recorded> = bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| RecordLine::of_value(super::parse::parse_record_line(line).ok()?))
        .filter_map(|line| {
            // A stderr line holds text, never a message: it is no exchange to replay.
            let from = Some(line.from).filter(|from| *from != super::Side::Stderr)?;
            Some(Recorded { from, message: line.message?.into_owned() })
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

    /// A frame's record line as JSON, to look into.
    fn record_value(frame: &crate::wire::Frame) -> serde_json::Value {
        serde_json::to_value(crate::wire::record_line(frame)).unwrap()
    }

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
        let line = record_value(&Frame::new(Side::Client, SystemTime::now(), Bytes::from_static(raw), Some(http)));
        let text = line.to_string();
        assert!(!text.contains("s3cret") && !text.contains("Bearer abc"), "{text}");
        assert_eq!(line["http"]["path"], "/mcp?api_key=••••&token=••••&page=2", "the query's secrets masked");
        assert_eq!(line["from"], "client");
        assert_eq!(line["http"]["method"], "POST");
        let junk = record_value(&Frame::new(Side::Server, SystemTime::now(), Bytes::from_static(b"listening"), None));
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
            |depth: usize| record_value(&Frame::new(Side::Client, SystemTime::now(), message(depth).into(), None));
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
        let line = record_value(&Frame::new(Side::Client, SystemTime::now(), Bytes::from(deep), None));
        std::fs::write(&path, crate::json_out::to_line(&line).unwrap() + "\n").unwrap();
        let read = read_record(&path).unwrap();
        assert_eq!(read[0].message["method"], "x");
    }
}
