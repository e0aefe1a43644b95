//! What servers answer → an [`Outcome`]: never a panic, whatever the body, status or content
//! type, and the status always agrees with what the outcome holds. Well-formed answers map
//! exactly and without warnings.

use proptest::prelude::*;
use serde_json::{Value, json};
use tooldeck::invoke::envelope::{read_mcp_result, read_otc_response};
use tooldeck::invoke::{Outcome, Status};

use super::strategies::{any_string, json_leaf, json_value, object_with_keys};

/// The status says what the outcome holds, and `success` follows from the status.
#[track_caller]
fn check_outcome(o: &Outcome) {
    assert_eq!(o.success, matches!(o.status, Status::Value | Status::Artifact | Status::Null), "{o:#?}");
    match o.status {
        Status::Error => assert!(o.error.is_some(), "{o:#?}"),
        Status::RequiresAuthorization => assert!(o.authorization.is_some(), "{o:#?}"),
        // MCP content items (images, links, resources) are what an MCP artifact result carries.
        Status::Artifact => assert!((!o.artifacts.is_empty() || !o.content.is_empty()) && o.error.is_none(), "{o:#?}"),
        Status::Value => {
            assert!(o.value.as_ref().is_some_and(|v| !v.is_null()), "{o:#?}");
            assert!(o.error.is_none() && o.authorization.is_none(), "{o:#?}");
        }
        Status::Null => {
            assert!(o.value.as_ref().is_none_or(Value::is_null), "{o:#?}");
            assert!(o.error.is_none() && o.authorization.is_none() && o.artifacts.is_empty(), "{o:#?}");
        }
    }
    if o.error.is_some() {
        assert!(matches!(o.status, Status::Error | Status::RequiresAuthorization), "{o:#?}");
    }
}

const OTC_KEYS: &[&str] = &[
    "result",
    "output",
    "value",
    "error",
    "success",
    "call_id",
    "invocation_id",
    "execution_id",
    "finished_at",
    "duration",
    "message",
    "developer_message",
    "detail",
    "parameter_errors",
    "missing_requirements",
    "requires_authorization",
    "artifact",
    "$schema",
];
const INNER_KEYS: &[&str] = &[
    "message",
    "url",
    "scope",
    "scopes",
    "oauth2",
    "id",
    "status",
    "authorization",
    "user_id",
    "content_type",
    "size",
    "meta",
    "description",
    "can_retry",
    "retry_after_ms",
    "value",
    "error",
];

/// Bodies shaped like OTC answers: their keys, holding values that use the inner keys.
fn otc_body() -> impl Strategy<Value = Value> {
    let inner = prop_oneof![
        2 => json_leaf(),
        1 => object_with_keys(INNER_KEYS, json_leaf()),
        1 => object_with_keys(INNER_KEYS, object_with_keys(INNER_KEYS, json_leaf())),
        1 => prop::collection::vec(object_with_keys(INNER_KEYS, json_leaf()), 0..3).prop_map(Value::Array),
    ];
    let level = object_with_keys(OTC_KEYS, inner.clone());
    prop_oneof![
        1 => json_value(),
        3 => level.clone(),
        2 => object_with_keys(OTC_KEYS, prop_oneof![2 => inner, 1 => level]),
    ]
}

fn status_code() -> impl Strategy<Value = u16> {
    prop_oneof![3 => prop::sample::select(vec![200u16, 201, 204, 400, 401, 403, 404, 422, 500, 502]), 1 => any::<u16>()]
}

fn content_type() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        prop::sample::select(vec![
            "application/json",
            "application/json; charset=utf-8",
            "text/html",
            "application/problem+json",
            "text/plain",
            "",
            ";",
            "APPLICATION/JSON ;x"
        ])
        .prop_map(|s| Some(s.to_string())),
        any_string(16).prop_map(Some),
    ]
}

fn body_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => otc_body().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
        1 => any_string(64).prop_map(String::into_bytes),
        1 => prop::sample::select(vec!["", "  \n", "<html><title>Oops</title></html>", "<!doctype html><body><h1>x</h1>",
            "{\"value\": 1", "null", "\"text\"", "<title", "<TITLE>é</title"]).prop_map(|s| s.as_bytes().to_vec()),
    ]
}

const MCP_KEYS: &[&str] = &["content", "structuredContent", "isError", "_meta"];
const BLOCK_KEYS: &[&str] =
    &["type", "text", "data", "mimeType", "uri", "name", "description", "size", "resource", "blob", "annotations"];

fn mcp_block() -> impl Strategy<Value = Value> {
    let kind = prop::sample::select(vec!["text", "image", "audio", "resource", "resource_link", "other"]);
    let fields =
        object_with_keys(BLOCK_KEYS, prop_oneof![3 => json_leaf(), 1 => object_with_keys(BLOCK_KEYS, json_leaf())]);
    (kind, fields, prop::option::of(text_block_text())).prop_map(|(kind, mut fields, text)| {
        fields["type"] = json!(kind);
        if let Some(text) = text {
            fields["text"] = json!(text);
        }
        fields
    })
}

/// What a text block holds: often JSON (which becomes the value), else any text.
fn text_block_text() -> impl Strategy<Value = String> {
    prop_oneof![any_string(24), json_leaf().prop_map(|v| v.to_string()), json_value().prop_map(|v| v.to_string())]
}

fn mcp_result() -> impl Strategy<Value = Value> {
    let content = prop_oneof![3 => prop::collection::vec(mcp_block(), 0..4).prop_map(Value::Array), 1 => json_leaf()];
    prop_oneof![
        1 => json_value(),
        1 => object_with_keys(MCP_KEYS, json_value()),
        4 => (content, prop::option::of(json_value()), prop::option::of(prop_oneof![any::<bool>().prop_map(Value::Bool), json_leaf()]))
            .prop_map(|(content, structured, is_error)| {
                let mut result = json!({"content": content});
                if let Some(s) = structured { result["structuredContent"] = s; }
                if let Some(e) = is_error { result["isError"] = e; }
                result
            }),
    ]
}

proptest! {
    #![proptest_config(crate::properties::config(256))]

    #[test]
    fn otc_answers_never_panic_and_agree_with_their_status(
        status in status_code(),
        content_type in content_type(),
        body in body_bytes(),
        truncated in any::<bool>(),
        sent in prop_oneof![Just(String::new()), Just("c-1".to_string()), any_string(6)],
    ) {
        let outcome = read_otc_response(status, content_type.as_deref(), &body, truncated, &sent);
        check_outcome(&outcome);
    }

    #[test]
    fn mcp_results_never_panic_and_agree_with_their_status(result in mcp_result()) {
        check_outcome(&read_mcp_result(&result, "c-1"));
    }

    /// As the client sees them: what rmcp accepts as a `CallToolResult`, re-encoded.
    #[test]
    fn mcp_results_through_rmcp(result in mcp_result()) {
        if let Ok(typed) = serde_json::from_value::<rmcp::model::CallToolResult>(result) {
            let value = serde_json::to_value(&typed).unwrap();
            check_outcome(&read_mcp_result(&value, "c-1"));
        }
    }

    /// A well-formed OTC 1.0 result, bare or wrapped in `result`, is its value with no warning.
    #[test]
    fn well_formed_otc_values_map_exactly(value in json_value(), wrapped in any::<bool>(), duration in 0u32..100_000) {
        prop_assume!(!value.is_null());
        let result = json!({"call_id": "c-1", "success": true, "duration": duration, "value": value});
        let body = if wrapped { json!({"result": result}) } else { result };
        let o = read_otc_response(200, Some("application/json"), body.to_string().as_bytes(), false, "c-1");
        prop_assert_eq!(o.status, Status::Value);
        prop_assert_eq!(o.value.as_ref(), Some(&value));
        prop_assert!(o.warnings.is_empty(), "{:?}", o.warnings);
        prop_assert_eq!(o.duration_ms, u64::from(duration));
        prop_assert_eq!(o.call_id, "c-1");
    }

    #[test]
    fn well_formed_otc_errors_map_exactly(message in any_string(24), retry in any::<bool>()) {
        let body = json!({"call_id": "c-1", "success": false, "error": {"message": message, "can_retry": retry}});
        let o = read_otc_response(200, Some("application/json"), body.to_string().as_bytes(), false, "c-1");
        prop_assert_eq!(o.status, Status::Error);
        let error = o.error.unwrap();
        prop_assert_eq!(&error.message, &message);
        prop_assert_eq!(error.can_retry, Some(retry));
        prop_assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    }

    /// MCP: structured content is the value; one text block is its JSON (or the text itself).
    #[test]
    fn well_formed_mcp_results_map_exactly(value in json_value(), text in text_block_text()) {
        let structured = json!({"content": [{"type": "text", "text": value.to_string()}], "structuredContent": {"v": value}});
        let o = read_mcp_result(&structured, "c-1");
        prop_assert_eq!(o.status, Status::Value);
        prop_assert_eq!(o.value, Some(json!({"v": value})));
        prop_assert!(o.warnings.is_empty());

        let o = read_mcp_result(&json!({"content": [{"type": "text", "text": text}]}), "c-1");
        let expected = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
        check_outcome(&o);
        if !expected.is_null() {
            prop_assert_eq!(o.value, Some(expected));
        }

        let o = read_mcp_result(&json!({"content": [{"type": "text", "text": text}], "isError": true}), "c-1");
        prop_assert_eq!(o.status, Status::Error);
        prop_assert_eq!(o.error.unwrap().message, text);
    }
}
