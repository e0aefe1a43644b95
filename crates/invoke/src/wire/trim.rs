//! `--trim-payload SIZE`: string values longer than SIZE cut in what is kept of a message (the
//! record and the live feed, which show the same), never on the wire. A 20 MB base64 image in a
//! tool's answer becomes its first SIZE bytes and `… [trimmed: 20.0 MiB]`, and the line says
//! `"trimmed": true`; its `size` is still the size on the wire.

use std::io;

use bytes::Bytes;
use serde_json::Value;

use super::frame::Frame;
use super::sink::FrameSink;

/// `text`'s first `limit` bytes (fewer, to end on a character), and what was cut; `None`
/// when it is not longer than `limit`. `size` is the size the note gives (the original's).
pub fn cut_text(text: &str, limit: usize, size: usize) -> Option<String> {
    if text.len() <= limit {
        return None;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}… [trimmed: {}]", &text[..end], crate::text::human_bytes(size as u64)))
}

/// True when some string in `value` (not an object's key) is longer than `limit` bytes.
fn has_long_string(value: &Value, limit: usize) -> bool {
    match value {
        Value::String(text) => text.len() > limit,
        Value::Array(items) => items.iter().any(|item| has_long_string(item, limit)),
        Value::Object(fields) => fields.values().any(|field| has_long_string(field, limit)),
        _ => false,
    }
}

/// Cuts every string in `value` longer than `limit` bytes; true when one was.
pub fn trim_strings(value: &mut Value, limit: usize) -> bool {
    match value {
        Value::String(text) => match cut_text(text, limit, text.len()) {
            Some(cut) => {
                *text = cut;
                true
            }
            None => false,
        },
        Value::Array(items) => items.iter_mut().fold(false, |cut, item| trim_strings(item, limit) | cut),
        Value::Object(fields) => fields.values_mut().fold(false, |cut, field| trim_strings(field, limit) | cut),
        _ => false,
    }
}

/// `frame` with its long strings cut, its secrets masked first (a token cut in half could no
/// longer be told for one); `None` when nothing in it is longer than `limit`.
pub fn trimmed(frame: &Frame, limit: usize) -> Option<Frame> {
    // A JSON string is never shorter written than read: a message no longer than the limit
    // holds no string longer than it.
    if frame.raw.len() <= limit && frame.kept() {
        return None;
    }
    match &frame.message {
        Some(message) => {
            if !has_long_string(message, limit) {
                return None;
            }
            let mut cut = crate::redact::json_message(message).unwrap_or_else(|| message.clone());
            trim_strings(&mut cut, limit);
            Some(Frame { message: Some(cut), trimmed: true, ..frame.clone() })
        }
        None if frame.has_text() => {
            let text = super::record::text_of(frame);
            let cut = cut_text(&text, limit, frame.size)?;
            Some(Frame { raw: Bytes::from(cut), trimmed: true, ..frame.clone() })
        }
        None => None,
    }
}

/// A sink that is handed each frame trimmed ([`trimmed`]).
pub struct TrimmedSink {
    inner: Box<dyn FrameSink>,
    limit: usize,
}

impl TrimmedSink {
    pub fn new(inner: Box<dyn FrameSink>, limit: usize) -> TrimmedSink {
        TrimmedSink { inner, limit }
    }
}

impl FrameSink for TrimmedSink {
    fn accept(&mut self, frame: &Frame) -> io::Result<()> {
        match trimmed(frame, self.limit) {
            Some(cut) => self.inner.accept(&cut),
            None => self.inner.accept(frame),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    fn note_dropped(&mut self, dropped: u64) -> io::Result<()> {
        self.inner.note_dropped(dropped)
    }

    fn name(&self) -> String {
        self.inner.name()
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    /// A frame's record line as JSON, to look into.
    fn record_value(frame: &crate::wire::Frame) -> serde_json::Value {
        serde_json::to_value(crate::wire::record_line(frame)).unwrap()
    }

    use serde_json::json;

    use super::*;
    use crate::wire::{Ring, Side};

    fn frame(from: Side, text: &str) -> Frame {
        Frame::new(from, SystemTime::now(), Bytes::from(text.to_string()), None)
    }

    #[test]
    fn long_strings_are_cut_at_any_depth_and_short_ones_kept() {
        let mut value = json!({
            "short": "abc",
            "long": "x".repeat(100),
            "nested": {"list": ["y".repeat(11), "ok", {"deeper": "z".repeat(50)}]},
            "number": 123_456_789_012_345_u64,
            "a key far longer than the limit": true,
        });
        assert!(trim_strings(&mut value, 10));
        assert_eq!(value["short"], "abc");
        assert_eq!(value["long"], format!("{}… [trimmed: 100 B]", "x".repeat(10)));
        assert_eq!(value["nested"]["list"][0], format!("{}… [trimmed: 11 B]", "y".repeat(10)));
        assert_eq!(value["nested"]["list"][1], "ok");
        assert_eq!(value["nested"]["list"][2]["deeper"], format!("{}… [trimmed: 50 B]", "z".repeat(10)));
        assert_eq!(value["number"], 123_456_789_012_345_u64, "numbers are not strings");
        assert_eq!(value["a key far longer than the limit"], true, "keys are kept");
        assert!(!trim_strings(&mut json!({"a": "0123456789"}), 10), "exactly the limit is kept");
    }

    #[test]
    fn multibyte_text_is_cut_on_a_character() {
        // "é" is 2 bytes, "漢" 3, "🦀" 4: a cut at 5 bytes falls inside the crab.
        let cut = cut_text("é漢🦀🦀", 5, 13).unwrap();
        assert_eq!(cut, "é漢… [trimmed: 13 B]");
        let cut = cut_text(&"🦀".repeat(1000), 4001, 4000);
        assert_eq!(cut, None);
        let cut = cut_text(&"🦀".repeat(1000), 1023, 4000).unwrap();
        assert!(cut.starts_with(&"🦀".repeat(255)) && !cut.starts_with(&"🦀".repeat(256)), "{cut}");
        assert!(cut.ends_with("… [trimmed: 3.9 KiB]"));
    }

    #[test]
    fn the_record_line_says_trimmed_and_keeps_the_size_on_the_wire() {
        let image = "A".repeat(50_000);
        let raw = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "image", "data": image}]}});
        let raw = raw.to_string();
        let whole = frame(Side::Server, &raw);
        let cut = trimmed(&whole, 1000).expect("trimmed");
        let line = record_value(&cut);
        assert_eq!(line["trimmed"], true);
        assert_eq!(line["size"], raw.len());
        let data = line["message"]["result"]["content"][0]["data"].as_str().unwrap();
        assert_eq!(data.len(), 1000 + "… [trimmed: 48.8 KiB]".len());
        assert_eq!(line["message"]["id"], 3, "the id and the rest are kept");
        assert!(record_value(&whole).get("trimmed").is_none());
        assert!(trimmed(&frame(Side::Server, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), 10).is_none());
    }

    /// A secret is masked before it is cut: half a token could no longer be told for one.
    #[test]
    fn secrets_are_masked_before_the_cut() {
        let token = format!("Bearer {}", "t0ken".repeat(20));
        let raw = json!({"jsonrpc": "2.0", "id": 1, "result": {"text": format!("{token} {}", "x".repeat(100))}});
        let line = record_value(&trimmed(&frame(Side::Server, &raw.to_string()), 30).unwrap());
        assert!(!line.to_string().contains("t0kent0ken"), "{line}");
        let junk = format!("printing {token} and more {}", "y".repeat(200));
        let line = record_value(&trimmed(&frame(Side::Stderr, &junk), 40).unwrap());
        assert!(!line.to_string().contains("t0kent0ken"), "{line}");
        assert!(line["text"].as_str().unwrap().ends_with(&format!("[trimmed: {} B]", junk.len())), "{line}");
        assert_eq!(line["from"], "stderr");
    }

    #[test]
    fn a_trimmed_sink_hands_on_the_cut_frame() {
        let ring = Ring::new(4);
        let mut sink = TrimmedSink::new(Box::new(ring.sink()), 8);
        sink.accept(&frame(
            Side::Client,
            &json!({"jsonrpc": "2.0", "method": "m", "params": {"a": "long enough"}}).to_string(),
        ))
        .unwrap();
        sink.accept(&frame(Side::Server, "not json, and long")).unwrap();
        let frames = ring.frames();
        assert_eq!(frames[0].message.as_ref().unwrap()["params"]["a"], "long eno… [trimmed: 11 B]");
        assert!(frames[1].trimmed && frames[1].breaks_clients(), "junk is still junk once trimmed");
        assert_eq!(String::from_utf8_lossy(&frames[1].raw), "not json… [trimmed: 18 B]");
    }
}
