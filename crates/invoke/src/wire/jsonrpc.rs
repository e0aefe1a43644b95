//! JSON-RPC 2.0 as the wire sees it: a message's [`Head`] (its kind, id, method, the tool a
//! `tools/call` names, an error's code), its error codes by name, and the error answer the proxy
//! writes itself. Everything that asks "is this a response", "what does it call" asks here.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

/// The message is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The parameters are not what the method takes.
pub const INVALID_PARAMS: i64 = -32602;
/// The server failed inside.
pub const INTERNAL_ERROR: i64 = -32603;
/// The start of the range left to servers (-32000 to -32099): what `--fault` rules usually give.
pub const SERVER_ERROR: i64 = -32000;
/// A request the proxy dropped at a breakpoint (`tooldeck attach`).
pub const DROPPED_AT_BREAKPOINT: i64 = -32001;

/// An error answer to the request `id`.
pub fn error_answer(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// True for a response (a result or an error): an id (even a null one), no method.
pub fn is_response(message: &Value) -> bool {
    message.get("method").is_none() && message.get("id").is_some()
}

/// What a message is, by the fields it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A method and an id: it is answered.
    Request,
    /// A method and no id (or a null one).
    Notification,
    /// An id and no method: a result or an error.
    Response,
    /// An object that is none of those (a batch or junk is not read at all).
    Other,
}

/// The head of one JSON-RPC message: what routing, faults, breakpoints and the logs need,
/// without the message's body.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    pub kind: Kind,
    /// The id, unless absent or null.
    pub id: Option<Value>,
    pub method: Option<String>,
    /// `params.name` of a `tools/call`.
    pub tool: Option<String>,
    /// `error.code` of an error answer.
    pub error_code: Option<i64>,
}

impl Head {
    /// The head of a message already read.
    pub fn of(message: &Value) -> Option<Head> {
        let object = message.as_object()?;
        let method = object.get("method").and_then(Value::as_str).map(str::to_string);
        let id = object.get("id").filter(|id| !id.is_null()).cloned();
        let tool = match method.as_deref() {
            Some("tools/call") => message.pointer("/params/name").and_then(Value::as_str).map(str::to_string),
            _ => None,
        };
        let error_code = message.pointer("/error/code").and_then(Value::as_i64);
        Some(Head { kind: kind(method.is_some(), id.is_some(), is_response(message)), id, method, tool, error_code })
    }

    /// The head of a message's bytes, read without building the message: its body (arguments,
    /// results, however large) is skipped, not kept. `None` when `raw` is not one JSON object.
    pub fn read(raw: &[u8]) -> Option<Head> {
        let start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
        if raw[start] != b'{' {
            return None;
        }
        match serde_json::from_slice::<Fields>(raw) {
            Ok(fields) => Some(fields.into_head()),
            // Fields of other types than JSON-RPC's (a numeric method), or nesting past serde's
            // limit: read whole, as everything else reads it.
            Err(_) => Head::of(&super::parse::parse_json(raw).ok()?),
        }
    }

    /// True for an answer (a result or an error).
    pub fn is_response(&self) -> bool {
        self.kind == Kind::Response
    }
}

fn kind(has_method: bool, has_id: bool, answers: bool) -> Kind {
    match (has_method, has_id) {
        (true, true) => Kind::Request,
        (true, false) => Kind::Notification,
        (false, _) if answers => Kind::Response,
        (false, _) => Kind::Other,
    }
}

/// The fields a [`Head`] is made of; the rest of the message is skipped as it is read.
#[derive(Deserialize)]
struct Fields {
    // `Some(Null)` for `"id": null`: an answer to what could not be read.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<ToolName>,
    #[serde(default)]
    error: Option<ErrorCode>,
}

impl Fields {
    fn into_head(self) -> Head {
        let answers = self.method.is_none() && self.id.is_some();
        let id = self.id.filter(|id| !id.is_null());
        let tool = match self.method.as_deref() {
            Some("tools/call") => self.params.and_then(|params| params.0),
            _ => None,
        };
        Head {
            kind: kind(self.method.is_some(), id.is_some(), answers),
            id,
            method: self.method,
            tool,
            error_code: self.error.and_then(|error| error.0),
        }
    }
}

/// A field that is there, even as `null` (serde reads a `null` Option as absent).
fn present<'de, D: Deserializer<'de>>(reader: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(reader).map(Some)
}

/// `name` of an object (a `tools/call`'s params); anything else in it, or params of another
/// shape, is skipped.
struct ToolName(Option<String>);

/// `code` of an error object, when it is an integer.
struct ErrorCode(Option<i64>);

/// Reads one named field of an object, skipping the rest; `None` for any other value.
struct OneField<T> {
    name: &'static str,
    pick: fn(Value) -> Option<T>,
}

impl<'de, T> Visitor<'de> for OneField<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.name {
                found = (self.pick)(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Option<T>, E> {
        Ok(None)
    }
}

impl<'de> Deserialize<'de> for ToolName {
    fn deserialize<D: Deserializer<'de>>(reader: D) -> Result<ToolName, D::Error> {
        let field = OneField { name: "name", pick: |value| value.as_str().map(str::to_string) };
        reader.deserialize_any(field).map(ToolName)
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(reader: D) -> Result<ErrorCode, D::Error> {
        reader.deserialize_any(OneField { name: "code", pick: |value| value.as_i64() }).map(ErrorCode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways of reading a head agree.
    fn head(text: &str) -> Option<Head> {
        let read = Head::read(text.as_bytes());
        let of = serde_json::from_str::<Value>(text).ok().and_then(|message| Head::of(&message));
        assert_eq!(read, of, "{text}");
        read
    }

    #[test]
    fn each_kind_of_message_is_told_by_its_fields() {
        let call = head(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":[1,{"y":2}]},"name":"echo"}}"#,
        )
        .unwrap();
        assert_eq!((call.kind, call.id, call.tool.as_deref()), (Kind::Request, Some(json!(7)), Some("echo")));
        let note =
            head(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"name":"not a tool"}}"#).unwrap();
        assert_eq!((note.kind, note.tool), (Kind::Notification, None));
        assert_eq!(head(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).unwrap().kind, Kind::Notification);
        let answer = head(r#"{"jsonrpc":"2.0","id":"a","result":{"content":[]}}"#).unwrap();
        assert!(answer.is_response());
        let error = head(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#).unwrap();
        assert_eq!((error.kind, error.id, error.error_code), (Kind::Response, None, Some(PARSE_ERROR)));
        assert_eq!(head(r#"{"jsonrpc":"2.0"}"#).unwrap().kind, Kind::Other);
    }

    #[test]
    fn odd_shapes_are_read_as_the_whole_message_reads() {
        for text in [
            r#"{"id":1,"method":"tools/call","params":[1,2]}"#,
            r#"{"id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"id":1,"method":7}"#,
            r#"{"id":1,"error":"bad"}"#,
            r#"{"id":1,"error":{"code":1.5}}"#,
            r#"{"id":1,"method":"tools/call","params":{"na\u006de":"escaped"}}"#,
            r#"  {"id":[1],"result":null}"#,
        ] {
            head(text);
        }
    }

    #[test]
    fn what_is_not_one_object_has_no_head() {
        for text in ["[]", r#"[{"id":1,"method":"x"}]"#, "junk", "", "  ", r#"{"id":1"#, "3"] {
            assert_eq!(Head::read(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn a_message_nested_past_serdes_limit_is_still_read() {
        let deep = format!(
            r#"{{"id":1,"method":"tools/call","params":{{"name":"t","a":{}}}}}"#,
            "[".repeat(200) + &"]".repeat(200)
        );
        assert_eq!(Head::read(deep.as_bytes()).unwrap().tool.as_deref(), Some("t"));
    }
}
