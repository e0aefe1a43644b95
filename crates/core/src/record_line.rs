//! One line of a record (`tooldeck proxy --record`, JSON Lines) and of the proxy's live feed:
//! the one type they are written and read as, by the proxy, `attach`, `serve-mock`, fuzz's and
//! eval's seeds, and the catalog (a record is a tool source). docs/proxy.md documents the format
//! for other tools.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which end sent a message. Neutral on purpose: where tooldeck is the client, `Client` is
/// tooldeck; where it only stands between two ends (the proxy), it is the real client. `Proxy`
/// is a message the proxy wrote itself to the client (an error a `--fault` rule injected, a
/// corrupted line, the answer to a request dropped at a breakpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Client,
    Server,
    /// What the proxy made itself (an injected fault's answer).
    Proxy,
    /// A line a stdio server wrote on its stderr (its logs): beside the wire, never on it.
    Stderr,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
            Side::Proxy => "proxy",
            Side::Stderr => "stderr",
        }
    }

    /// The end a message from this one goes to (the proxy writes only to the client; a stderr
    /// line goes to no one, and is never answered).
    pub fn other(self) -> Side {
        match self {
            Side::Client => Side::Server,
            Side::Server | Side::Proxy | Side::Stderr => Side::Client,
        }
    }

    /// The sender a record line names (`client`, `server`, `stderr`).
    pub fn of_name(name: &str) -> Option<Side> {
        [Side::Client, Side::Server, Side::Proxy, Side::Stderr].into_iter().find(|from| from.name() == name)
    }
}

/// One message (or line that was not one) as the record keeps it, secrets already masked.
/// Written borrowing the message it shows; read back owning it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordLine<'a> {
    /// When it passed: RFC 3339 UTC with microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    pub from: Side,
    /// The HTTP around it (Streamable HTTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpShown>,
    /// Its size on the wire, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The message, when it was JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Cow<'a, Value>>,
    /// The line as text, when it was not JSON (junk on stdout, a stderr line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// What else is to be known of it: cut, too large, too deep, not JSON-RPC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Its long strings were cut for the record (`--trim-payload`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub trimmed: bool,
    /// The `--fault` rule (as written) or breakpoint that made, delayed, dropped or changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<String>,
    /// On the live feed: held at a breakpoint, under this number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<u64>,
    /// A line a rotated record's new file starts with (the handshake, the tool list): a reader
    /// following the record across files has seen it already. Written last on the line.
    #[serde(default, skip_serializing_if = "is_false")]
    pub carried: bool,
}

/// The HTTP request or response around a message, headers masked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HttpShown {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// A header that came more than once holds an array of its values.
    #[serde(default)]
    pub headers: Map<String, Value>,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl RecordLine<'_> {
    /// A line of `from` with nothing else said yet.
    pub fn new(from: Side) -> RecordLine<'static> {
        RecordLine {
            time: None,
            from,
            http: None,
            size: None,
            message: None,
            text: None,
            note: None,
            trimmed: false,
            injected: None,
            held: None,
            carried: false,
        }
    }

    /// A record line read from JSON already parsed; `None` for what is not one (a `dropped`
    /// note, the live feed's first line, a line of another file).
    pub fn of_value(value: Value) -> Option<RecordLine<'static>> {
        if !value.get("from").is_some_and(Value::is_string) {
            return None;
        }
        serde_json::from_value(value).ok()
    }

    /// A record line read from its text.
    pub fn read(text: &str) -> Option<RecordLine<'static>> {
        RecordLine::of_value(serde_json::from_str(text).ok()?)
    }

    /// The line as written: one line of JSON (`json_out`'s escapes: no raw control characters).
    pub fn to_text(&self) -> serde_json::Result<String> {
        crate::json_out::to_line(self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_line_is_written_in_the_documented_order_and_read_back() {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let line = RecordLine {
            time: Some("2026-12-01T00:00:00.000001Z".into()),
            size: Some(46),
            message: Some(Cow::Borrowed(&message)),
            injected: Some("tools/list:delay=1s".into()),
            ..RecordLine::new(Side::Client)
        };
        let text = line.to_text().unwrap();
        assert_eq!(
            text,
            r#"{"time":"2026-12-01T00:00:00.000001Z","from":"client","size":46,"message":{"jsonrpc":"2.0","id":1,"method":"tools/list"},"injected":"tools/list:delay=1s"}"#
        );
        assert_eq!(RecordLine::read(&text), Some(line));
    }

    #[test]
    fn lines_that_record_no_message_are_not_record_lines() {
        assert_eq!(RecordLine::read(r#"{"time":"t","dropped":3,"note":"fell behind"}"#), None);
        assert_eq!(RecordLine::read(r#"{"from":"nobody","message":{}}"#), None);
        assert_eq!(RecordLine::read(r#"{"from":3}"#), None);
        assert_eq!(RecordLine::read("not json"), None);
        let text = RecordLine::read(r#"{"from":"stderr","text":"listening","unknown":1}"#).unwrap();
        assert_eq!((text.from, text.text.as_deref()), (Side::Stderr, Some("listening")));
    }

    #[test]
    fn http_headers_keep_repeated_values() {
        let line = RecordLine::read(
            r#"{"from":"server","http":{"status":200,"headers":{"set-cookie":["a","b"]}},"message":{"id":1,"result":{}}}"#,
        )
        .unwrap();
        let http = line.http.unwrap();
        assert_eq!((http.status, http.headers["set-cookie"].clone()), (Some(200), json!(["a", "b"])));
    }
}
