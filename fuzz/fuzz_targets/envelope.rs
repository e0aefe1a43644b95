//! What servers answer: an OTC response (status from the first two bytes, content type and
//! `truncated` from the third, the body after) and, when the body is JSON, an MCP tool result.
//! Never a panic, and the outcome's status always agrees with what it holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tooldeck::invoke::envelope::{read_mcp_result, read_otc_response};
use tooldeck::invoke::{Outcome, Status};

fn check(o: &Outcome) {
    assert_eq!(o.success, matches!(o.status, Status::Value | Status::Artifact | Status::Null), "{o:?}");
    match o.status {
        Status::Error => assert!(o.error.is_some(), "{o:?}"),
        Status::RequiresAuthorization => assert!(o.authorization.is_some(), "{o:?}"),
        Status::Artifact => assert!(!o.artifacts.is_empty() && o.error.is_none(), "{o:?}"),
        Status::Value => assert!(o.value.as_ref().is_some_and(|v| !v.is_null()) && o.error.is_none(), "{o:?}"),
        Status::Null => {
            assert!(o.value.as_ref().is_none_or(Value::is_null), "{o:?}");
            assert!(o.error.is_none() && o.authorization.is_none() && o.artifacts.is_empty(), "{o:?}");
        }
    }
}

const CONTENT_TYPES: [Option<&str>; 8] = [
    Some("application/json"),
    Some("application/json; charset=utf-8"),
    None,
    Some("text/html"),
    Some("application/problem+json"),
    Some("text/plain"),
    Some(""),
    Some("APPLICATION/JSON ; x=y"),
];

fuzz_target!(|data: &[u8]| {
    let [high, low, flags, body @ ..] = data else { return };
    let status = u16::from_be_bytes([*high, *low]);
    // Mostly the statuses servers send, so the fuzzer need not find them.
    let status =
        if flags & 0x80 == 0 { [200, 401, 400, 422, 500, 201, 204, 403][usize::from(status % 8)] } else { status };
    let content_type = CONTENT_TYPES[usize::from(flags & 7)];
    let truncated = flags & 0x40 != 0;
    let sent = if flags & 0x20 != 0 { "" } else { "c-1" };
    check(&read_otc_response(status, content_type, body, truncated, sent));
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        check(&read_mcp_result(&value, "c-1"));
    }
});
