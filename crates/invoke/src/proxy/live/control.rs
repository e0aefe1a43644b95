//! The live feed's two-way lines for breakpoints (docs/proxy.md "Breakpoints"), typed once for
//! both ends: the watcher writes [`Control`] lines to the proxy, and the proxy writes
//! [`Notice`] lines (and record lines marked [`HELD`] or [`INJECTED`]) to the watcher. Every
//! line is one JSON object on one line.
//!
//! Watcher to proxy:
//! - `{"break": {"method": M, "tool": T-or-null, "from": "client"|"server"}}`
//! - `{"clear": "breakpoints"}`
//! - `{"send": ID}` (as it was) or `{"send": ID, "message": {...}}` (as edited)
//! - `{"drop": ID}`
//!
//! Proxy to watcher, besides record lines:
//! - `{"released": ID, "as": "sent"|"edited"|"dropped"|"unattached"}`
//! - `{"breakpoints": [BREAKPOINT, ...]}` after every change and once to a new watcher
//! - `{"error": "..."}` for a control line that did not parse
//! - `{"dropped": N}` frames this watcher fell behind on (older than breakpoints)
//!
//! A held message is its record line plus `"held": ID`; a message the proxy made itself (an
//! injected fault) is a record line with `"from": "proxy"` and `"injected": RULE`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::wire::Side;

/// The record-line key of a held message's id (unique per proxy run).
pub const HELD: &str = "held";
/// The record-line key naming the `--fault` rule (as written) that made or changed a message.
pub const INJECTED: &str = "injected";
/// The `"from"` of a line the proxy made itself rather than passed on.
pub const FROM_PROXY: &str = "proxy";

/// Which messages the proxy holds: those with `method` (for an answer, the method of the request
/// it answers), for `tools/call` only `tool` when named, coming from `from`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Breakpoint {
    pub method: String,
    #[serde(default)]
    pub tool: Option<String>,
    #[serde(with = "side")]
    pub from: Side,
}

impl Breakpoint {
    /// True when a message from `from` with `method` (the request's, for an answer) and, for a
    /// call, `tool` should be held here. A breakpoint without a tool holds every tool.
    pub fn matches(&self, from: Side, method: &str, tool: Option<&str>) -> bool {
        self.from == from && self.method == method && (self.tool.is_none() || self.tool.as_deref() == tool)
    }
}

impl fmt::Display for Breakpoint {
    /// `tools/call echo from client`, as a person reads it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.method)?;
        if let Some(tool) = &self.tool {
            write!(f, " {tool}")?;
        }
        write!(f, " from {}", self.from.name())
    }
}

/// A line a watcher writes to the proxy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "ControlLine", try_from = "ControlLine")]
pub enum Control {
    /// Hold every later message this breakpoint matches.
    Break(Breakpoint),
    /// Remove every breakpoint (held messages stay held).
    Clear,
    /// Let held message `id` go: as it was (`message` none) or as edited. A string in the edited
    /// message still equal to the masked spelling of the original at the same JSON path is sent
    /// as the original value (the watcher only ever saw it masked).
    Send { id: u64, message: Option<Value> },
    /// Drop held message `id`: a request is answered to the client with an error, an answer or
    /// a notification is not delivered.
    Drop(u64),
}

impl Control {
    /// The line to write (without its newline).
    pub fn to_line(&self) -> String {
        crate::json_out::to_line(self).unwrap_or_default()
    }

    /// A line read from a watcher; the error, said, is what the proxy answers in
    /// `{"error": ...}`.
    pub fn parse(line: &[u8]) -> Result<Control, serde_json::Error> {
        serde_json::from_slice(line)
    }
}

/// What `clear` clears: only `"breakpoints"` so far.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Clearing {
    Breakpoints,
}

/// A control line as written: exactly one of `break`, `clear`, `send` or `drop`.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlLine {
    #[serde(rename = "break", default, skip_serializing_if = "Option::is_none")]
    break_at: Option<Breakpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clear: Option<Clearing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    send: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    drop: Option<u64>,
}

impl std::convert::From<Control> for ControlLine {
    fn from(control: Control) -> ControlLine {
        match control {
            Control::Break(at) => ControlLine { break_at: Some(at), ..ControlLine::default() },
            Control::Clear => ControlLine { clear: Some(Clearing::Breakpoints), ..ControlLine::default() },
            Control::Send { id, message } => ControlLine { send: Some(id), message, ..ControlLine::default() },
            Control::Drop(id) => ControlLine { drop: Some(id), ..ControlLine::default() },
        }
    }
}

impl TryFrom<ControlLine> for Control {
    type Error = &'static str;

    fn try_from(line: ControlLine) -> Result<Control, Self::Error> {
        let ControlLine { break_at, clear, send, message, drop } = line;
        if message.is_some() && send.is_none() {
            return Err("\"message\" goes only with \"send\"");
        }
        match (break_at, clear, send, drop) {
            (Some(at), None, None, None) => Ok(Control::Break(at)),
            (None, Some(Clearing::Breakpoints), None, None) => Ok(Control::Clear),
            (None, None, Some(id), None) => Ok(Control::Send { id, message }),
            (None, None, None, Some(id)) => Ok(Control::Drop(id)),
            _ => Err("a control line has exactly one of \"break\", \"clear\", \"send\", \"drop\""),
        }
    }
}

/// How a held message left the hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Release {
    /// Sent as it was.
    Sent,
    /// Sent as a watcher edited it.
    Edited,
    /// Not delivered (a request answered to the client with an error).
    Dropped,
    /// Sent as it was because no watcher was left.
    Unattached,
}

/// A line the proxy writes to a watcher that is not a record line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Notice {
    /// Held message `released` left the hold.
    Released {
        released: u64,
        #[serde(rename = "as")]
        how: Release,
    },
    /// Every breakpoint of the proxy run, after each change.
    Breakpoints { breakpoints: Vec<Breakpoint> },
    /// A control line that was refused, and why.
    Error { error: String },
    /// Frames this watcher fell behind on and will not see.
    Dropped { dropped: u64 },
}

impl Notice {
    /// The line to write (without its newline).
    pub fn to_line(&self) -> String {
        crate::json_out::to_line(self).unwrap_or_default()
    }

    /// A feed line as a notice; `None` for a record line (it has `"from"`) or a line of a kind
    /// this build does not know.
    pub fn read(line: &Value) -> Option<Notice> {
        if line.get("from").is_some() {
            return None;
        }
        Notice::deserialize(line).ok()
    }
}

/// `Side` as the protocol spells it: `"client"` or `"server"`.
mod side {
    use super::*;

    pub fn serialize<S: Serializer>(from: &Side, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(from.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<Side, D::Error> {
        match String::deserialize(input)?.as_str() {
            "client" => Ok(Side::Client),
            "server" => Ok(Side::Server),
            other => Err(serde::de::Error::custom(format!("\"from\" is \"client\" or \"server\", not {other:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn echo_from_client() -> Breakpoint {
        Breakpoint { method: "tools/call".into(), tool: Some("echo".into()), from: Side::Client }
    }

    #[test]
    fn control_lines_are_written_as_the_protocol_spells_them_and_read_back() {
        let cases = [
            (
                Control::Break(echo_from_client()),
                json!({"break": {"method": "tools/call", "tool": "echo", "from": "client"}}),
            ),
            (
                Control::Break(Breakpoint { method: "tools/list".into(), tool: None, from: Side::Server }),
                json!({"break": {"method": "tools/list", "tool": null, "from": "server"}}),
            ),
            (Control::Clear, json!({"clear": "breakpoints"})),
            (Control::Send { id: 3, message: None }, json!({"send": 3})),
            (Control::Send { id: 4, message: Some(json!({"id": 1})) }, json!({"send": 4, "message": {"id": 1}})),
            (Control::Drop(5), json!({"drop": 5})),
        ];
        for (control, spelt) in cases {
            let line = control.to_line();
            assert!(!line.contains('\n'));
            assert_eq!(serde_json::from_str::<Value>(&line).unwrap(), spelt, "{control:?}");
            assert_eq!(Control::parse(line.as_bytes()).unwrap(), control);
            assert_eq!(Control::parse(spelt.to_string().as_bytes()).unwrap(), control);
        }
        // A tool left out is no tool.
        let no_tool = Control::parse(br#"{"break": {"method": "ping", "from": "server"}}"#).unwrap();
        assert_eq!(no_tool, Control::Break(Breakpoint { method: "ping".into(), tool: None, from: Side::Server }));
    }

    #[test]
    fn a_control_line_that_is_not_one_is_refused_with_a_reason() {
        for (line, says) in [
            (&b"not json"[..], "line 1 column"),
            (br#"{"send": 1, "drop": 1}"#, "exactly one of"),
            (br#"{}"#, "exactly one of"),
            (br#"{"message": {}}"#, "only with \"send\""),
            (br#"{"clear": "everything"}"#, "unknown variant"),
            (br#"{"send": 1, "mesage": {}}"#, "unknown field"),
            (br#"{"send": -1}"#, "invalid value"),
            (br#"{"break": {"method": "x", "from": "proxy"}}"#, "\"client\" or \"server\""),
        ] {
            let refused = Control::parse(line).unwrap_err().to_string();
            assert!(refused.contains(says), "{refused} should say {says}");
        }
    }

    #[test]
    fn notices_round_trip_and_record_lines_are_not_notices() {
        let cases = [
            (Notice::Released { released: 7, how: Release::Edited }, json!({"released": 7, "as": "edited"})),
            (Notice::Released { released: 8, how: Release::Unattached }, json!({"released": 8, "as": "unattached"})),
            (
                Notice::Breakpoints { breakpoints: vec![echo_from_client()] },
                json!({"breakpoints": [{"method": "tools/call", "tool": "echo", "from": "client"}]}),
            ),
            (Notice::Breakpoints { breakpoints: vec![] }, json!({"breakpoints": []})),
            (Notice::Error { error: "no such id".into() }, json!({"error": "no such id"})),
            (Notice::Dropped { dropped: 2 }, json!({"dropped": 2})),
        ];
        for (notice, spelt) in cases {
            assert_eq!(serde_json::from_str::<Value>(&notice.to_line()).unwrap(), spelt);
            assert_eq!(Notice::read(&spelt), Some(notice));
        }
        let record = json!({"from": "client", "message": {"jsonrpc": "2.0", "error": "x"}, "held": 1});
        assert_eq!(Notice::read(&record), None);
        assert_eq!(Notice::read(&json!({"released": 1, "as": "lost"})), None);
    }

    #[test]
    fn a_breakpoint_matches_its_side_method_and_tool() {
        let echo = echo_from_client();
        assert!(echo.matches(Side::Client, "tools/call", Some("echo")));
        assert!(!echo.matches(Side::Server, "tools/call", Some("echo")), "the other direction");
        assert!(!echo.matches(Side::Client, "tools/call", Some("add")), "another tool");
        let every_call = Breakpoint { tool: None, ..echo };
        assert!(every_call.matches(Side::Client, "tools/call", Some("add")));
        assert!(!every_call.matches(Side::Client, "tools/list", None));
        assert_eq!(echo_from_client().to_string(), "tools/call echo from client");
    }
}
