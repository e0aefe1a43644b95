//! Every response form of OTC and MCP tool results, built from the OTC specification's examples
//! (the corpus's otc-spec folder) and the earlier OTC draft's result envelope, plus the ways
//! servers break them.

use serde_json::json;

use super::*;

const JSON: Option<&str> = Some("application/json");

/// A 200 `application/json` answer to the call `sent`.
fn ok(body: &str, sent: &str) -> Outcome {
    read_otc_response(200, JSON, body.as_bytes(), false, sent)
}

fn message(outcome: &Outcome) -> &str {
    outcome.error.as_ref().map_or("", |e| e.message.as_str())
}

/// An envelope of the earlier OTC draft around `output`, valid apart from what `output` holds.
fn envelope(output: Value) -> String {
    json!({"invocation_id": "inv-1", "finished_at": "2024-05-01T12:00:00Z", "duration": 12, "success": true,
        "output": output})
    .to_string()
}

// --- OTC: the RFC examples (bare form) and OTC 1.0's `{"result": ...}` ---

#[test]
fn rfc_value_example_is_a_value_without_warnings() {
    // corpus/otc-spec/examples/otc-rfc-Calculator.Add.call-response.json
    let body = r#"{"call_id": "123e4567-e89b-12d3-a456-426614174000", "duration": 50, "success": true, "value": 15}"#;
    let o = ok(body, "123e4567-e89b-12d3-a456-426614174000");
    assert_eq!((o.status, o.success, o.value.clone(), o.duration_ms), (Status::Value, true, Some(json!(15)), 50));
    assert_eq!(o.call_id, "123e4567-e89b-12d3-a456-426614174000");
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[test]
fn rfc_object_value_and_null_value() {
    // otc-rfc-Gmail.GetEmails: an object value, kept as is (order too: serde_json preserve_order).
    let body = r#"{"call_id": "423e4567-e89b-12d3-a456-426614174003", "duration": 120, "success": true,
      "value": {"emails": [{"id": "email_1", "subject": "Welcome to Gmail", "snippet": "Hello, welcome to your inbox!"},
        {"id": "email_2", "subject": "Your Receipt", "snippet": "Thank you for your purchase..."}]}}"#;
    let o = ok(body, "423e4567-e89b-12d3-a456-426614174003");
    assert_eq!(o.status, Status::Value);
    assert_eq!(o.value.as_ref().unwrap()["emails"][1]["id"], "email_2");
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    // otc-rfc-Doorbell.Ring: `"value": null` is a tool that returned nothing.
    let body = r#"{"call_id": "223e4567-e89b-12d3-a456-426614174001", "duration": 30, "success": true, "value": null}"#;
    let o = ok(body, "223e4567-e89b-12d3-a456-426614174001");
    assert_eq!((o.status, o.success, o.value.clone()), (Status::Null, true, None));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[test]
fn rfc_error_examples_keep_every_field_apart() {
    // otc-rfc-error-additional-prompt-content.call-response.json
    let body = r#"{"call_id": "723e4567-e89b-12d3-a456-426614174006", "duration": 60, "success": false,
      "error": {"message": "Doorbell ID not found", "developer_message": "The doorbell with ID 'doorbell1' does not exist.",
        "can_retry": true, "additional_prompt_content": "ids: doorbell42,doorbell84", "retry_after_ms": 500}}"#;
    let o = ok(body, "723e4567-e89b-12d3-a456-426614174006");
    assert_eq!((o.status, o.success), (Status::Error, false));
    let e = o.error.unwrap();
    assert_eq!(e.message, "Doorbell ID not found");
    assert_eq!(e.developer_message.as_deref(), Some("The doorbell with ID 'doorbell1' does not exist."));
    assert_eq!((e.can_retry, e.retry_after_ms), (Some(true), Some(500)));
    assert_eq!(e.additional_prompt_content.as_deref(), Some("ids: doorbell42,doorbell84"));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    // otc-rfc-error-message-and-developer-message.call-response.json
    let body = r#"{"call_id": "623e4567-e89b-12d3-a456-426614174005", "duration": 40, "success": false,
      "error": {"message": "Could not reach the server", "developer_message": "The host api.example.com is not reachable"}}"#;
    let o = ok(body, "623e4567-e89b-12d3-a456-426614174005");
    assert_eq!(message(&o), "Could not reach the server");
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[test]
fn otc_1_0_result_wrapper_success_and_failure() {
    let o = ok(r#"{"result": {"call_id": "c1", "duration": 7.6, "success": true, "value": [1, 2]}}"#, "c1");
    // OTC 1.0 allows any JSON as the value, arrays included: no warning here (unlike the earlier draft's envelope).
    assert_eq!((o.status, o.value.clone(), o.duration_ms), (Status::Value, Some(json!([1, 2])), 8));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    let body = r#"{"result": {"call_id": "c1", "success": false, "error": {"message": "no", "can_retry": false}}}"#;
    let o = ok(body, "c1");
    assert_eq!((o.status, message(&o), o.error.as_ref().unwrap().can_retry), (Status::Error, "no", Some(false)));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[test]
fn otc_result_that_breaks_its_schema_is_still_read() {
    let body = r#"{"result": {"success": true, "value": 1, "error": {"message": "boom"}, "extra": 1}}"#;
    let o = ok(body, "c1");
    // An error wins over a value, which is still kept for the raw view.
    assert_eq!((o.status, o.value.clone(), message(&o)), (Status::Error, Some(json!(1)), "boom"));
    for w in [
        "missing \"result/call_id\"",
        "unexpected \"result/extra\"",
        "\"result\" has both \"value\" and \"error\"",
        "\"result/success\" is true but the result is an error",
    ] {
        assert!(o.warnings.contains(&w.to_string()), "{w} not in {:?}", o.warnings);
    }
    assert_eq!(o.call_id, "c1", "no id in the response: the sent one");
    let o = ok(r#"{"call_id": "c1", "success": "yes", "value": 2}"#, "c1");
    assert_eq!(o.warnings, ["\"success\" is a string, expected boolean"]);
    // A stray envelope key does not turn a bare result into an envelope that would lose its value.
    let o = ok(r#"{"call_id": "c1", "success": true, "value": 2, "finished_at": "2024-05-01T12:00:00Z"}"#, "c1");
    assert_eq!(
        (o.status, o.value, o.warnings),
        (Status::Value, Some(json!(2)), vec!["unexpected \"finished_at\"".to_string()])
    );
}

#[test]
fn success_false_without_error_is_an_error() {
    let o = ok(r#"{"call_id": "c1", "success": false}"#, "c1");
    assert_eq!((o.status, message(&o)), (Status::Error, "the tool reported a failure without an error"));
    assert_eq!(o.warnings, ["\"success\" is false but there is no \"error\""]);
}

#[test]
fn call_id_mismatch_is_a_warning_and_the_response_id_is_kept() {
    let o = ok(r#"{"call_id": "x", "success": true, "value": "v"}"#, "y");
    assert_eq!(o.call_id, "x");
    assert_eq!(o.warnings, ["the response is for call \"x\", not \"y\""]);
}

// --- the earlier OTC draft's envelope ---

#[test]
fn envelope_value_is_valid() {
    let o = ok(&envelope(json!({"value": {"temperature": 21.5}})), "inv-1");
    assert_eq!((o.status, o.duration_ms, o.call_id.as_str()), (Status::Value, 12, "inv-1"));
    assert_eq!(o.value, Some(json!({"temperature": 21.5})));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    for scalar in [json!(3), json!("text"), json!(false)] {
        let o = ok(&envelope(json!({ "value": scalar })), "inv-1");
        assert_eq!((o.status, o.value), (Status::Value, Some(scalar)));
        assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    }
}

#[test]
fn envelope_with_both_value_and_error() {
    let o = ok(&envelope(json!({"value": 1, "error": {"message": "failed"}})), "inv-1");
    assert_eq!((o.status, o.success, message(&o)), (Status::Error, false, "failed"));
    assert!(o.warnings.contains(&"\"output\" has both \"value\" and \"error\"".to_string()), "{:?}", o.warnings);
    // The two branches do not each call the other key unexpected on top of that.
    assert!(!o.warnings.iter().any(|w| w.starts_with("unexpected")), "{:?}", o.warnings);
    assert!(o.warnings.contains(&"\"success\" is true but the result is an error".to_string()));
}

#[test]
fn envelope_missing_and_malformed_fields() {
    let body = json!({"invocation_id": "inv-1", "success": true, "output": {"value": 1}}).to_string();
    assert_eq!(ok(&body, "inv-1").warnings, ["missing \"finished_at\""]);
    let body = json!({"invocation_id": "inv-1", "finished_at": "yesterday", "success": true, "extra": 1}).to_string();
    let o = ok(&body, "inv-1");
    assert_eq!(o.warnings, ["\"finished_at\" is not a date-time", "unexpected \"extra\""]);
    assert_eq!(o.status, Status::Null, "no output: the tool returned nothing");
    let o = ok(&envelope(json!({})), "inv-1");
    assert_eq!(o.warnings, ["\"output\" has none of \"value\", \"error\", \"requires_authorization\", \"artifact\""]);
    let o = ok(&envelope(json!({"error": {"developer_message": 5}})), "inv-1");
    assert_eq!(o.status, Status::Error);
    assert_eq!(
        o.warnings,
        [
            "\"output/error/developer_message\" is a number, expected string",
            "missing \"output/error/message\"",
            "\"success\" is true but the result is an error",
        ]
    );
}

#[test]
fn envelope_array_value_is_shown_with_a_warning() {
    let o = ok(&envelope(json!({"value": [1, 2, 3]})), "inv-1");
    assert_eq!((o.status, o.value.clone()), (Status::Value, Some(json!([1, 2, 3]))));
    assert_eq!(o.warnings, ["\"output/value\" is an array, expected object, number, string or boolean"]);
}

#[test]
fn envelope_null_or_absent_output_is_null() {
    for body in [
        envelope(Value::Null),
        json!({"invocation_id": "i", "finished_at": "2024-05-01T12:00:00Z", "success": true}).to_string(),
    ] {
        let o = ok(&body, "i");
        assert_eq!((o.status, o.success), (Status::Null, true));
        assert!(o.warnings.iter().all(|w| w.starts_with("the response is for call")), "{:?}", o.warnings);
    }
}

#[test]
fn envelope_requires_authorization() {
    let auth = json!({"message": "Sign in to GitHub",
        "oauth2": {"url": "https://github.com/login/oauth/authorize?x=1", "scope": "repo read:user"}});
    let o = ok(&envelope(json!({ "requires_authorization": auth })), "inv-1");
    assert_eq!((o.status, o.success), (Status::RequiresAuthorization, false));
    let a = o.authorization.unwrap();
    assert_eq!(a.message, "Sign in to GitHub");
    assert_eq!(a.url.as_deref(), Some("https://github.com/login/oauth/authorize?x=1"));
    assert_eq!(a.scopes, ["repo", "read:user"]);
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[test]
fn envelope_older_draft_requires_authorization() {
    // The RFC draft's execute_tool_response: `{id, url, scopes, status}`, and `execution_id`.
    let body = json!({"execution_id": "e-1", "finished_at": "2024-05-01T12:00:00Z", "duration": 3, "success": false,
        "output": {"requires_authorization": {"id": "auth-9", "url": "https://auth.example.com/start",
            "scopes": ["mail.read"], "status": "pending"}}});
    let o = ok(&body.to_string(), "e-1");
    assert_eq!(o.status, Status::RequiresAuthorization);
    let a = o.authorization.unwrap();
    assert_eq!((a.provider.as_deref(), a.url.as_deref()), (Some("auth-9"), Some("https://auth.example.com/start")));
    assert_eq!(
        (a.scopes, a.message.as_str()),
        (vec!["mail.read".to_string()], "the tool needs authorization (status: pending)")
    );
    // Only the note that it is the older form: no "missing invocation_id", no "unexpected id".
    assert_eq!(o.warnings, ["\"output/requires_authorization\" has the older draft's form"]);
}

#[test]
fn envelope_artifact() {
    let artifact = json!({"url": "https://files.example.com/report.csv", "content_type": "text/csv", "size": 2048,
        "meta": {"description": "Monthly report"}});
    let o = ok(&envelope(json!({ "artifact": artifact })), "inv-1");
    assert_eq!(o.status, Status::Artifact);
    let a = &o.artifacts[0];
    assert_eq!((a.url.as_str(), a.content_type.as_deref()), ("https://files.example.com/report.csv", Some("text/csv")));
    assert_eq!((a.size, a.description.as_deref()), (Some(2048), Some("Monthly report")));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    let o =
        ok(&envelope(json!({"artifact": {"url": "not a uri", "content_type": "text/csv", "size": "2 KB"}})), "inv-1");
    assert_eq!(o.status, Status::Artifact);
    for w in [
        "missing \"output/artifact/meta\"",
        "\"output/artifact/size\" is a string, expected integer",
        "\"output/artifact/url\" is not a uri",
    ] {
        assert!(o.warnings.contains(&w.to_string()), "{w} not in {:?}", o.warnings);
    }
}

// --- the other HTTP answers ---

#[test]
fn http_422_parameter_errors() {
    let body = r#"{"message": "Invalid input", "parameter_errors": {"a": "must be a number", "b": ["too short", "no digits"]}}"#;
    let o = read_otc_response(422, JSON, body.as_bytes(), false, "c1");
    assert_eq!((o.status, message(&o)), (Status::Error, "Invalid input"));
    let params = &o.error.as_ref().unwrap().parameter_errors;
    assert_eq!((params["a"].as_str(), params["b"].as_str()), ("must be a number", "too short; no digits"));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[test]
fn http_400_missing_requirements_is_an_auth_prompt() {
    let body = r#"{"message": "Authorization required", "developer_message": "no token for google",
        "missing_requirements": {"authorization": [{"id": "google", "url": "https://accounts.google.com/o/oauth2/auth"}]}}"#;
    let o = read_otc_response(400, JSON, body.as_bytes(), false, "c1");
    assert_eq!((o.status, o.success), (Status::RequiresAuthorization, false));
    let a = o.authorization.as_ref().unwrap();
    assert_eq!((a.provider.as_deref(), a.message.as_str()), (Some("google"), "Authorization required"));
    assert_eq!(a.url.as_deref(), Some("https://accounts.google.com/o/oauth2/auth"));
    assert_eq!(o.error.unwrap().developer_message.as_deref(), Some("no token for google"));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[test]
fn http_401_wants_a_bearer_token() {
    let o = read_otc_response(401, None, b"", false, "c1");
    assert_eq!(
        (o.status, o.authorization.unwrap().message.as_str()),
        (Status::RequiresAuthorization, "the endpoint wants a bearer token")
    );
    assert!(o.warnings.is_empty(), "an empty 401 is normal: {:?}", o.warnings);
    let o = read_otc_response(401, JSON, br#"{"message": "token expired"}"#, false, "c1");
    assert_eq!(o.authorization.unwrap().message, "the endpoint wants a bearer token: token expired");
}

#[test]
fn html_error_page() {
    let page = "<!DOCTYPE html>\n<html><head><TITLE>500 Internal\n Server <b>Error</b> \u{1b}[31m</TITLE></head>\
        <body><h1>Oops</h1></body></html>";
    let o = read_otc_response(500, Some("text/html; charset=utf-8"), page.as_bytes(), false, "c1");
    // Tags and control characters gone from the title, whitespace collapsed.
    assert_eq!((o.status, message(&o)), (Status::Error, "HTTP 500: 500 Internal Server Error [31m"));
    assert_eq!(o.warnings[0], "expected application/json, got text/html");
    assert!(
        o.warnings[1].starts_with("the body is not JSON but an HTML page (expected value at line 1"),
        "{:?}",
        o.warnings
    );
    // No title: the first line of the body's text.
    let page = "<html><head><style>p{}</style></head><body>\n<h1>Bad &amp; gateway</h1><p>nginx</p></body></html>";
    let o = read_otc_response(502, Some("text/html"), page.as_bytes(), false, "c1");
    assert_eq!(message(&o), "HTTP 502: Bad & gateway");
    let long = format!("<title>{}</title>", "x".repeat(500));
    assert!(read_otc_response(503, None, long.as_bytes(), false, "c1").error.unwrap().message.chars().count() < 220);
}

#[test]
fn invalid_json_says_where() {
    let o = ok("{\"call_id\": \"c1\",\n  \"success\": tru}", "c1");
    assert_eq!(o.status, Status::Error);
    assert!(
        message(&o).starts_with("HTTP 200: the body is not valid JSON (expected ident at line 2 column"),
        "{}",
        message(&o)
    );
    assert_eq!(o.warnings.len(), 1);
    assert!(o.warnings[0].starts_with("the body is not JSON (") && o.warnings[0].contains("line 2 column"));
}

#[test]
fn truncated_body() {
    let body = format!("{{\"call_id\": \"c1\", \"success\": true, \"value\": \"{}", "a".repeat(1000));
    let o = read_otc_response(200, JSON, body.as_bytes(), true, "c1");
    assert_eq!(
        (o.status, message(&o)),
        (Status::Error, "HTTP 200: the response was cut off, so its JSON is incomplete")
    );
    assert_eq!(o.warnings[0], "the response was larger than 16 MiB and was cut off");
    assert!(o.warnings[1].contains("EOF while parsing a string at line 1"), "{:?}", o.warnings);
}

#[test]
fn empty_plain_text_and_unknown_bodies() {
    let o = read_otc_response(200, JSON, b"  \n", false, "c1");
    assert_eq!(
        (o.status, message(&o), o.warnings.clone()),
        (Status::Error, "HTTP 200: the body is empty", vec!["the body is empty".to_string()])
    );
    let o = read_otc_response(502, Some("text/plain"), b"\n  Bad gateway\nupstream gone", false, "c1");
    assert_eq!(message(&o), "HTTP 502: Bad gateway");
    assert_eq!(o.warnings[0], "expected application/json, got text/plain");
    let o = read_otc_response(200, None, br#"{"status": "ok"}"#, false, "c1");
    assert_eq!(o.status, Status::Error);
    assert_eq!(
        o.warnings,
        [
            "expected application/json, got no content type",
            "the body is none of the known result forms (its keys: status)"
        ]
    );
    let o = ok("[1, 2]", "c1");
    assert_eq!(
        (o.status, o.warnings.clone()),
        (Status::Error, vec!["the body is an array, not an object".to_string()])
    );
    // Another framework's error body: its message is shown, and that it lacks OTC's `message`.
    let o = read_otc_response(500, JSON, br#"{"detail": "database is down"}"#, false, "c1");
    assert_eq!(
        (message(&o), o.warnings.clone()),
        ("database is down", vec!["the error body has no \"message\"".to_string()])
    );
}

#[test]
fn a_result_with_an_error_status_is_read_with_a_warning() {
    let o =
        read_otc_response(500, JSON, br#"{"call_id": "c1", "success": false, "error": {"message": "x"}}"#, false, "c1");
    assert_eq!((o.status, message(&o)), (Status::Error, "x"));
    assert_eq!(o.warnings, ["HTTP 500 with a tool result (expected 200)"]);
}

#[test]
fn server_strings_are_kept_as_they_are() {
    // The UI makes control characters visible; the outcome keeps the server's text untouched.
    let o = ok(r#"{"call_id": "c1", "success": false, "error": {"message": "a\u001b[2Jb\nc"}}"#, "c1");
    assert_eq!(message(&o), "a\u{1b}[2Jb\nc");
}

// --- MCP ---

#[test]
fn mcp_text_blocks() {
    let o = read_mcp_result(&json!({"content": [{"type": "text", "text": "hello"}]}), "7");
    assert_eq!((o.status, o.value.clone(), o.call_id.as_str()), (Status::Value, Some(json!("hello")), "7"));
    // One text block holding JSON is that JSON.
    let o = read_mcp_result(&json!({"content": [{"type": "text", "text": "{\"n\": 1}"}]}), "7");
    assert_eq!(o.value, Some(json!({"n": 1})));
    let o = read_mcp_result(&json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}), "7");
    assert_eq!(o.value, Some(json!("a\nb")));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

/// Found by the property tests: a text block of `null` made status `value` with a null value,
/// where an OTC `value: null` is status `null`.
#[test]
fn mcp_text_null_is_the_null_status() {
    for text in ["null", " null\n"] {
        let o = read_mcp_result(&json!({"content": [{"type": "text", "text": text}]}), "7");
        assert_eq!((o.status, o.value, o.success), (Status::Null, None, true), "{text:?}");
    }
}

#[test]
fn mcp_structured_content_wins_over_text() {
    let result = json!({"content": [{"type": "text", "text": "{\"temperature\": 22}"}],
        "structuredContent": {"temperature": 22.5}});
    let o = read_mcp_result(&result, "1");
    assert_eq!((o.status, o.value), (Status::Value, Some(json!({"temperature": 22.5}))));
}

#[test]
fn mcp_is_error() {
    let result = json!({"content": [{"type": "text", "text": "API rate limit"}, {"type": "text", "text": "retry later"}],
        "isError": true});
    let o = read_mcp_result(&result, "1");
    assert_eq!(
        (o.status, o.success, message(&o), o.value.clone()),
        (Status::Error, false, "API rate limit\nretry later", None)
    );
    let o = read_mcp_result(&json!({"content": [], "isError": "yes"}), "1");
    assert_eq!(
        (o.status, o.warnings.clone()),
        (Status::Null, vec!["\"isError\" is a string, not a boolean".to_string()])
    );
}

#[test]
fn mcp_media_links_and_resources_are_content_items() {
    let result = json!({"content": [
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///project/README.md", "name": "README.md",
            "description": "Project readme", "mimeType": "text/markdown", "size": 1234},
        {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "hello"}}]});
    let o = read_mcp_result(&result, "1");
    assert_eq!((o.status, o.value.clone()), (Status::Artifact, None));
    assert!(o.artifacts.is_empty(), "the items carry it all: {:?}", o.artifacts);
    let [
        ContentItem::Image(image),
        ContentItem::Audio(audio),
        ContentItem::ResourceLink(link),
        ContentItem::Resource(resource),
    ] = o.content.as_slice()
    else {
        panic!("{:?}", o.content)
    };
    assert_eq!((&*image.data, image.mime_type.as_deref(), image.size), ("iVBORw0KGgo=", Some("image/png"), 8));
    assert_eq!((audio.mime_type.as_deref(), audio.size), (Some("audio/wav"), 4));
    assert_eq!(
        (link.uri.as_str(), link.size, link.description.as_deref()),
        ("file:///project/README.md", Some(1234), Some("Project readme"))
    );
    assert_eq!((resource.uri.as_str(), resource.size), ("file:///notes.txt", 5));
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    // `tooldeck call` prints every item with its data.
    let printed = serde_json::to_value(&o).unwrap();
    assert_eq!(printed["content"][0]["data"], "iVBORw0KGgo=");
    assert_eq!(printed["content"][3]["text"], "hello");
    assert_eq!(printed.get("artifacts"), None);
}

#[test]
fn mcp_text_beside_an_image_is_the_value_and_both_are_items() {
    let result = json!({"content": [{"type": "text", "text": "here it is"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}], "structuredContent": {"n": 1}});
    let o = read_mcp_result(&result, "1");
    assert_eq!((o.status, o.value.clone(), o.structured), (Status::Value, Some(json!({"n": 1})), true));
    assert_eq!(o.content.iter().map(ContentItem::kind).collect::<Vec<_>>(), ["text", "image"]);
}

#[test]
fn mcp_output_schema_wants_structured_content() {
    let schema = json!({"type": "object", "required": ["n"]});
    let mut o = read_mcp_result(&json!({"content": [{"type": "text", "text": "{\"n\": 1}"}]}), "1");
    check_output(&mut o, &schema);
    assert_eq!(o.warnings, ["output schema: the tool declares one, but the result has no structuredContent"]);
    let mut o = read_mcp_result(&json!({"content": [], "structuredContent": {"m": 1}}), "1");
    check_output(&mut o, &schema);
    assert_eq!(o.warnings, ["output schema: /: missing \"n\""]);
    let mut o = read_mcp_result(&json!({"content": [{"type": "text", "text": "no"}], "isError": true}), "1");
    check_output(&mut o, &schema);
    assert!(o.warnings.is_empty(), "an error is not held to the schema: {:?}", o.warnings);
}

#[test]
fn mcp_odd_results() {
    let o = read_mcp_result(&json!({"content": [{"type": "video", "url": "x"}, {"text": "no type"}]}), "1");
    assert_eq!(o.status, Status::Null);
    assert_eq!(
        o.warnings,
        [
            "\"content/0\" (type \"video\") is not a content block tooldeck can read",
            "\"content/1\" (type \"\") is not a content block tooldeck can read",
        ]
    );
    assert_eq!(o.content.iter().map(ContentItem::kind).collect::<Vec<_>>(), ["unreadable", "unreadable"]);
    let o = read_mcp_result(&json!("oops"), "1");
    assert_eq!(
        (o.status, o.warnings.clone()),
        (Status::Error, vec!["the result is a string, not an object".to_string()])
    );
    let o = read_mcp_result(&json!({}), "1");
    assert_eq!((o.status, o.warnings.clone()), (Status::Null, vec!["\"content\" is null, not an array".to_string()]));
}

// --- the output schema, base64 ---

#[test]
fn output_schema_violations() {
    let schema = json!({"type": "object", "required": ["temperature", "unit"], "additionalProperties": false,
        "properties": {"temperature": {"type": "number"}, "unit": {"enum": ["C", "F"]}, "at": {"format": "date-time"}}});
    let mut o = Outcome {
        value: Some(json!({"temperature": "warm", "at": "noon", "wind": 3})),
        ..Outcome::new(Status::Value, "1")
    };
    check_output(&mut o, &schema);
    let mut warnings = o.warnings.clone();
    warnings.sort();
    assert_eq!(
        warnings,
        [
            "output schema: /: missing \"unit\"",
            "output schema: /: unexpected \"wind\"",
            "output schema: /at: is not a date-time",
            "output schema: /temperature: is a string, expected number",
        ]
    );
    let mut o = Outcome { value: Some(json!({"temperature": 1, "unit": "K"})), ..Outcome::new(Status::Value, "1") };
    check_output(&mut o, &schema);
    assert_eq!(o.warnings.len(), 1);
    assert!(o.warnings[0].starts_with("output schema: /unit: "), "{:?}", o.warnings);
}

#[test]
fn output_schema_edge_cases() {
    let mut o = Outcome::new(Status::Null, "1");
    check_output(&mut o, &json!({"type": "object"}));
    assert!(o.warnings.is_empty(), "nothing to check");
    let mut o = Outcome { value: Some(json!(1)), ..Outcome::new(Status::Value, "1") };
    check_output(&mut o, &json!({"type": "no such type"}));
    assert_eq!(o.warnings.len(), 1);
    assert!(o.warnings[0].starts_with("output schema: cannot be used"), "{:?}", o.warnings);
    // A huge broken value: the list is capped.
    let mut o = Outcome { value: Some(json!(vec!["x"; 1000])), ..Outcome::new(Status::Value, "1") };
    check_output(&mut o, &json!({"items": {"type": "number"}}));
    assert_eq!(o.warnings.len(), MAX_VIOLATIONS + 1);
    assert_eq!(o.warnings.last().unwrap(), "output schema: … and 950 more violations");
}

#[test]
fn base64_pads_like_the_standard() {
    for (text, encoded) in [("", ""), ("a", "YQ=="), ("ab", "YWI="), ("abc", "YWJj"), ("hello", "aGVsbG8=")] {
        assert_eq!(base64(text.as_bytes()), encoded);
        assert_eq!(crate::invoke::mcp::content::decoded_len(encoded), text.len() as u64);
    }
}
