//! One message on the wire, direction-neutral: who sent it, its bytes as they went, the JSON it
//! parses to (if any), and the HTTP request or response it rode in (if any).

use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use serde_json::Value;

pub use crate::record_line::Side;

use super::parse::{Unread, parse_json};

/// What the record and the live view say of a line that is not JSON-RPC: the classic
/// `console.log` on a stdio server's stdout, which breaks every client's parser.
pub const NOT_JSON_RPC: &str = "not JSON-RPC: clients will fail here";

/// The HTTP around a frame (Streamable HTTP): a request's method and path, a response's status,
/// and the headers that came with either, as they came (masked only when shown or stored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpDetails {
    pub method: Option<String>,
    pub path: Option<String>,
    pub status: Option<u16>,
    pub headers: Vec<(String, String)>,
}

/// One message as it passed.
#[derive(Debug, Clone)]
pub struct Frame {
    pub from: Side,
    pub at: SystemTime,
    /// The bytes as they went (a stdio line without its newline; an HTTP body or SSE event's
    /// data). Empty, with `size` set, when the message was too large to keep.
    pub raw: Bytes,
    /// The message's size on the wire, even when `raw` was not kept.
    pub size: usize,
    /// The JSON `raw` parses to, when it does.
    pub message: Option<Value>,
    /// True when `raw` nests deeper than [`MAX_DEPTH`]: not read, and so never shown or kept
    /// as text (its secrets could not be found to mask).
    pub too_deep: bool,
    pub http: Option<HttpDetails>,
    /// The `--fault` rule (as written) that made this message, or delayed, dropped or
    /// corrupted it.
    pub injected: Option<Arc<str>>,
    /// True when its long strings were cut for the record (`--trim-payload`): `message` (or
    /// `raw`, for text) holds them cut, `size` is still the size on the wire.
    pub trimmed: bool,
    /// Its record line, once a sink made it ([`Frame::record_text`]).
    pub(crate) line: LineOnce,
}

/// A frame's record line, made once however many sinks take it (the record and the live feed
/// both do): masking and writing it out is most of what recording costs. A clone starts
/// without it, as a clone is made to be changed (cut for `--trim-payload`).
#[derive(Debug, Default)]
pub struct LineOnce(pub(super) std::sync::OnceLock<Arc<str>>);

impl Clone for LineOnce {
    fn clone(&self) -> LineOnce {
        LineOnce::default()
    }
}

impl Frame {
    /// A frame of `raw` bytes sent by `from`, parsed.
    /// A line of the server's stderr is text, whatever it looks like: it is not read as JSON.
    pub fn new(from: Side, at: SystemTime, raw: Bytes, http: Option<HttpDetails>) -> Frame {
        let parsed = if from == Side::Stderr { Err(Unread::NotJson) } else { parse_json(&raw) };
        let too_deep = parsed == Err(Unread::TooDeep);
        Frame {
            from,
            at,
            size: raw.len(),
            raw,
            message: parsed.ok(),
            too_deep,
            http,
            injected: None,
            trimmed: false,
            line: LineOnce::default(),
        }
    }

    /// A frame of a message already parsed, now (where tooldeck is the client, rmcp hands it
    /// the message, not its bytes): its bytes are the message written compactly, as rmcp sends it.
    pub fn of_value(from: Side, message: Value) -> Frame {
        let raw = Bytes::from(serde_json::to_vec(&message).unwrap_or_default());
        let at = SystemTime::now();
        let message = Some(message);
        Frame {
            from,
            at,
            size: raw.len(),
            raw,
            message,
            too_deep: false,
            http: None,
            injected: None,
            trimmed: false,
            line: LineOnce::default(),
        }
    }

    /// A frame of a message too large to keep: its size only.
    pub fn too_large(from: Side, at: SystemTime, size: usize, http: Option<HttpDetails>) -> Frame {
        Frame {
            from,
            at,
            raw: Bytes::new(),
            size,
            message: None,
            too_deep: false,
            http,
            injected: None,
            trimmed: false,
            line: LineOnce::default(),
        }
    }

    /// A line of text cut to its first bytes (`kept`, a stderr line over its cap): read as text,
    /// never as JSON; `size` is the whole line's.
    pub fn cut(from: Side, at: SystemTime, kept: Bytes, size: usize) -> Frame {
        let size = size.max(kept.len());
        Frame {
            from,
            at,
            raw: kept,
            size,
            message: None,
            too_deep: false,
            http: None,
            injected: None,
            trimmed: false,
            line: LineOnce::default(),
        }
    }

    /// True when the frame was kept whole (not [`Frame::too_large`], [`Frame::cut`] or trimmed).
    pub fn kept(&self) -> bool {
        self.raw.len() == self.size
    }

    /// True when some of its text is kept (whole, cut or trimmed): what the record writes as
    /// `text` for a line that is not a message.
    pub fn has_text(&self) -> bool {
        !self.too_deep && (self.kept() || !self.raw.is_empty())
    }

    /// True for a JSON-RPC 2.0 message or batch of them.
    pub fn is_json_rpc(&self) -> bool {
        fn one(value: &Value) -> bool {
            value.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        }
        match &self.message {
            Some(Value::Array(items)) => !items.is_empty() && items.iter().all(one),
            Some(value) => one(value),
            None => false,
        }
    }

    /// True for a stdio line a client's parser would choke on: kept, not blank (clients skip
    /// those), and not JSON-RPC (one too deep to read is not judged). An HTTP body never is: its
    /// status and type say what it is; nor a stderr line: the client never sees it.
    pub fn breaks_clients(&self) -> bool {
        self.http.is_none()
            && self.from != Side::Stderr
            && (self.kept() || self.trimmed)
            && !self.too_deep
            && !self.raw.iter().all(u8::is_ascii_whitespace)
            && !self.is_json_rpc()
    }

    /// The JSON-RPC method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        self.message.as_ref()?.get("method")?.as_str()
    }

    /// The JSON-RPC id of a request or response.
    pub fn id(&self) -> Option<&Value> {
        self.message.as_ref()?.get("id").filter(|id| !id.is_null())
    }

    /// True for a response (a result or an error, no method).
    pub fn is_response(&self) -> bool {
        self.message.as_ref().is_some_and(super::jsonrpc::is_response)
    }

    /// The frame marked as the work of the `--fault` rule `rule`.
    pub fn injected_by(mut self, rule: Option<Arc<str>>) -> Frame {
        self.injected = rule;
        self
    }
}

/// `at` as RFC 3339 UTC with microseconds (`2025-06-02T14:00:00.123456Z`): messages of one call
/// are often less than a millisecond apart.
pub fn timestamp(at: SystemTime) -> String {
    let at = time::OffsetDateTime::from(at);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.microsecond()
    )
}

/// The time a record line gives ([`timestamp`]'s form, any number of fraction digits, `Z`);
/// `None` when it is not in that form. Read by hand: the `time` crate's parser is a feature
/// tooldeck does not build.
pub fn parse_timestamp(text: &str) -> Option<SystemTime> {
    let (date, clock) = text.strip_suffix('Z')?.split_once('T')?;
    let mut date = date.splitn(3, '-').map(str::parse::<i32>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let mut clock = clock.splitn(3, ':').map(str::parse::<u8>);
    let (hour, minute, second) = (clock.next()?.ok()?, clock.next()?.ok()?, clock.next()?.ok()?);
    let digits: String = fraction.chars().chain(std::iter::repeat('0')).take(9).collect();
    let nanos: u32 = digits.parse().ok()?;
    let month = time::Month::try_from(u8::try_from(month).ok()?).ok()?;
    let date = time::Date::from_calendar_date(year, month, u8::try_from(day).ok()?).ok()?;
    let clock = time::Time::from_hms_nano(hour, minute, second, nanos).ok()?;
    Some(time::PrimitiveDateTime::new(date, clock).assume_utc().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::MAX_DEPTH;

    #[test]
    fn a_timestamp_reads_back_as_the_time_it_was() {
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_micros(1_764_223_309_123_456);
        assert_eq!(parse_timestamp(&timestamp(at)), Some(at));
        assert!(parse_timestamp("2025-06-02T14:00:00Z").is_some());
        assert_eq!(parse_timestamp("yesterday"), None);
        assert_eq!(parse_timestamp("2025-13-02T14:00:00Z"), None);
    }

    fn frame(text: &str) -> Frame {
        Frame::new(Side::Server, SystemTime::UNIX_EPOCH, Bytes::from(text.to_string()), None)
    }

    #[test]
    fn a_message_of_any_depth_is_read_up_to_the_limit() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"arguments":{{"api_key":"S","deep":{}}}}}}}"#,
            nested(300)
        );
        let frame = frame(&deep);
        assert!(frame.is_json_rpc() && !frame.breaks_clients() && !frame.too_deep);
        assert_eq!(frame.method(), Some("tools/call"));
        let too_deep = format!(r#"{{"jsonrpc":"2.0","id":1,"a":{}}}"#, nested(MAX_DEPTH + 1));
        assert_eq!(parse_json(too_deep.as_bytes()), Err(Unread::TooDeep));
        assert!(!self::frame(&too_deep).breaks_clients(), "not judged: it was not read");
    }

    #[test]
    fn json_rpc_or_not() {
        assert!(frame(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).is_json_rpc());
        assert!(frame(r#"[{"jsonrpc":"2.0","method":"x"}]"#).is_json_rpc());
        assert!(frame("Server listening on 3000").breaks_clients());
        assert!(frame(r#"{"level":"info"}"#).breaks_clients());
        assert!(!frame("  ").breaks_clients());
        assert_eq!(timestamp(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000000Z");
    }
}
