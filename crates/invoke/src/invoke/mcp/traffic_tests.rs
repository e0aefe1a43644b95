//! Tests of the traffic log (traffic.rs).
use super::*;
use serde_json::json;

fn record(traffic: &Traffic, outgoing: bool, value: Value) {
    let from = if outgoing { Side::Client } else { Side::Server };
    traffic.frame(&Frame::of_value(from, value));
}

#[test]
fn answers_are_named_by_their_requests_method() {
    let traffic = Traffic::default();
    record(&traffic, true, json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}));
    record(&traffic, false, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    record(&traffic, false, json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
    record(&traffic, true, json!({"jsonrpc": "2.0", "id": 1, "result": {"roots": []}}));
    record(&traffic, true, json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}));
    let (entries, dropped) = traffic.since(0);
    assert_eq!(dropped, 0);
    let methods: Vec<_> = entries.iter().map(|e| e.method.clone().unwrap_or_default()).collect();
    assert_eq!(methods, ["initialize", "initialize", "roots/list", "roots/list", "notifications/cancelled"]);
    assert_eq!(entries[1].summary(), "← initialize #1 (result)");
    assert_eq!(entries[4].summary(), "→ notifications/cancelled (notification)");
    assert_eq!(traffic.since(3).0.len(), 2, "a viewer takes only what it has not seen");
}

#[test]
fn an_http_exchange_is_named_by_the_message_it_carried() {
    let traffic = Traffic::default();
    let http = |id: Option<&str>| HttpRecord { id: id.map(str::to_string), status: Some(202), ..HttpRecord::default() };
    record(&traffic, true, json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover"}));
    traffic.http(&http(Some("0")));
    record(&traffic, true, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    traffic.http(&http(None));
    record(&traffic, false, json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}));
    record(&traffic, true, json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": []}}));
    traffic.http(&http(Some("0")));
    let summaries: Vec<String> = traffic.since(0).0.iter().map(TrafficEntry::summary).collect();
    assert_eq!(summaries[1], "⇄ server/discover #0 HTTP 202");
    assert_eq!(summaries[3], "⇄ notifications/initialized HTTP 202");
    assert_eq!(summaries[6], "⇄ roots/list #0 HTTP 202", "an answer's POST, not the old request's");
}

#[test]
fn the_apps_requests_and_their_answers_are_marked() {
    let traffic = Traffic::default();
    let http = |id: &str| HttpRecord { id: Some(id.into()), status: Some(200), ..HttpRecord::default() };
    let call =
        |id: u64, name: &str| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}});
    let mark = traffic.expect_app("tools/call", "refresh");
    record(&traffic, true, call(1, "get-time"));
    record(&traffic, true, call(2, "refresh"));
    traffic.http(&http("2"));
    record(&traffic, false, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    record(&traffic, false, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    drop(mark);
    // Forgotten when the app's request never left: the person's later call is theirs.
    drop(traffic.expect_app("resources/read", "ui://clock/view"));
    record(
        &traffic,
        true,
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "ui://clock/view"}}),
    );
    record(&traffic, true, call(4, "refresh"));
    let summaries: Vec<String> = traffic.since(0).0.iter().map(TrafficEntry::summary).collect();
    assert_eq!(
        summaries,
        [
            "→ tools/call #1",
            "app → tools/call #2",
            "app ⇄ tools/call #2 HTTP 200",
            "app ← tools/call #2 (result)",
            "← tools/call #1 (result)",
            "→ resources/read #3",
            "→ tools/call #4",
        ]
    );
}

/// A record read at once (`tooldeck attach`) keeps its timing: each entry is placed by when
/// its frame passed, from the first one, not by when it was read.
#[test]
fn entries_are_timed_by_their_frames() {
    let traffic = Traffic::default();
    let then = SystemTime::now() - std::time::Duration::from_secs(3600);
    for (ms, value) in [
        (0, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
        (250, json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
    ] {
        let mut frame = Frame::of_value(if ms == 0 { Side::Client } else { Side::Server }, value);
        frame.at = then + std::time::Duration::from_millis(ms);
        traffic.frame(&frame);
    }
    let at: Vec<u64> = traffic.since(0).0.iter().map(|e| e.at_ms).collect();
    assert_eq!(at, [0, 250]);
}

#[test]
fn a_million_messages_stay_bounded() {
    let traffic = Traffic::default();
    // Its text made once: the bound is what is tested, not the pretty-printing.
    let text: Arc<str> = Arc::from("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/message\"}");
    let value = json!({"jsonrpc": "2.0", "method": "notifications/message"});
    for _ in 0..1_000_000 {
        traffic.message(Direction::ServerToClient, &value, Arc::clone(&text), SystemTime::now(), Marks::default());
    }
    assert_eq!(traffic.len(), MAX_ENTRIES);
    let (entries, dropped) = traffic.since(0);
    assert_eq!(dropped, 1_000_000 - MAX_ENTRIES as u64);
    assert_eq!(entries[0].seq, 1_000_000 - MAX_ENTRIES as u64, "the newest are kept");
}

#[test]
fn a_proxys_http_frame_shows_its_request_line_and_headers_masked() {
    let traffic = Traffic::default();
    let http = crate::wire::HttpDetails {
        method: Some("POST".into()),
        path: Some("/mcp?api_key=q-s3cret".into()),
        status: None,
        headers: vec![("authorization".into(), "Bearer s3cret".into())],
    };
    let raw = bytes::Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    traffic.frame(&Frame::new(Side::Client, std::time::SystemTime::now(), raw, Some(http)));
    let (entries, _) = traffic.since(0);
    assert_eq!(entries[0].summary(), "→ tools/list #1");
    assert!(entries[0].text.starts_with("POST /mcp?api_key=••••\nauthorization: "), "{}", entries[0].text);
    assert!(!entries[0].text.contains("s3cret") && entries[0].text.contains("\"tools/list\""));
}

#[test]
fn an_http_answer_that_is_not_json_is_named_by_its_status_and_words() {
    let traffic = Traffic::default();
    let http = crate::wire::HttpDetails { status: Some(400), ..Default::default() };
    let raw = bytes::Bytes::from_static(b"tooldeck proxy: no Mcp-Session-Id: initialize first");
    traffic.frame(&Frame::new(Side::Server, std::time::SystemTime::now(), raw, Some(http)));
    let (entries, _) = traffic.since(0);
    assert_eq!(entries[0].summary(), "← HTTP 400: tooldeck proxy: no Mcp-Session-Id: initialize first");
    assert!(!entries[0].text.contains(crate::wire::NOT_JSON_RPC), "{}", entries[0].text);
}

#[test]
fn an_http_request_with_no_body_is_named_by_its_request_line() {
    let traffic = Traffic::default();
    let http = |method: &str| crate::wire::HttpDetails {
        method: Some(method.into()),
        path: Some("/mcp?token=abc".into()),
        ..Default::default()
    };
    let now = std::time::SystemTime::now();
    traffic.frame(&Frame::new(Side::Client, now, bytes::Bytes::new(), Some(http("GET"))));
    traffic.frame(&Frame::new(Side::Client, now, bytes::Bytes::new(), Some(http("DELETE"))));
    let (entries, _) = traffic.since(0);
    let names: Vec<String> = entries.iter().map(|entry| entry.summary()).collect();
    assert_eq!(names, ["→ HTTP GET /mcp?token=••••", "→ HTTP DELETE /mcp?token=••••"]);
}

#[test]
fn http_entries_mask_secret_headers() {
    let traffic = Traffic::default();
    traffic.http(&HttpRecord {
        id: Some("1".into()),
        url: "http://127.0.0.1:1/mcp?api_key=abc123".into(),
        request_headers: vec![("Authorization".into(), "Bearer s3cr3t-token".into())],
        status: Some(200),
        response_headers: vec![("mcp-session-id".into(), "sess-1".into())],
    });
    let (entries, _) = traffic.since(0);
    assert_eq!(entries[0].method, None, "no message was sent with that id");
    let shown = entries[0].shown_text();
    assert!(!shown.contains("s3cr3t-token") && !shown.contains("abc123"), "{shown}");
    assert!(shown.contains("HTTP 200") && shown.contains("sess-1"), "{shown}");
    assert!(entries[0].matches("authorization"));
    let held = entries[0].http.as_ref().unwrap();
    assert!(!held.request_headers[0].1.contains("s3cr3t"), "the log never holds the secret");
}
