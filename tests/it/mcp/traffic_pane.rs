//! The traffic pane against a real session: an rmcp server over an in-memory pipe, a call
//! abandoned half-way (the client sends `notifications/cancelled`) and one that answers; the
//! session's log is handed to the app as the runtime hands it (`ServerMsg::Traffic`), and the pane
//! is drawn on TestBackend at 120x40 and 80x24.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rmcp::ServiceExt;
use serde_json::json;
use tooldeck::app::{App, DesktopEffect, Effect, InputMsg, Msg, ServerMsg, update};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::otc::CallRequest;
use tooldeck::theme::Styles;

use super::TestServer;

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

/// A session with a cancelled call and an answered one; the entries of its traffic log.
async fn session() -> Vec<tooldeck::invoke::mcp::traffic::TrafficEntry> {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let server = TestServer::default();
    let cancelled = Arc::clone(&server.cancelled);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let endpoint = Arc::new(McpEndpoint::connect_io(client_side, "mcp:test").await.expect("connect"));
    let calling = Arc::clone(&endpoint);
    let slow = tokio::spawn(async move { calling.call(&CallRequest::new("slow", json!({}))).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    slow.abort();
    for _ in 0..250 {
        if !cancelled.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    endpoint.call(&CallRequest::new("add", json!({"a": 2, "b": 3}))).await.expect("add answers");
    endpoint.events().traffic().since(0).0
}

// Times are milliseconds since the session began: the same on no two runs.
fn without_times(screen: &str) -> String {
    regex_lite_free(screen)
}

/// Replaces each `12.345s` with `#.###s` (no regex crate needed for one shape).
fn regex_lite_free(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let digits_end = (i..chars.len()).find(|&j| !chars[j].is_ascii_digit()).unwrap_or(chars.len());
        if digits_end > i
            && chars.get(digits_end) == Some(&'.')
            && chars.len() > digits_end + 4
            && chars[digits_end + 1..digits_end + 4].iter().all(char::is_ascii_digit)
            && chars[digits_end + 4] == 's'
        {
            out.extend(std::iter::repeat_n('#', digits_end - i));
            out.push_str(".###s");
            i = digits_end + 5;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

#[tokio::test]
async fn the_traffic_pane_shows_the_handshake_and_a_cancelled_call() {
    let entries = session().await;
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40));
    let _ = update(&mut app, Msg::Server(ServerMsg::Named { label: "mcp:test".into(), lists_tools: false }));
    let _ = update(&mut app, Msg::Server(ServerMsg::Traffic(entries.clone())));
    // The runtime may hand the same entries again: they are taken once.
    let _ = update(&mut app, Msg::Server(ServerMsg::Traffic(entries)));
    key(&mut app, KeyCode::Char('X'));
    assert!(app.shows(tooldeck::app::Overlay::Traffic), "X opens the traffic pane");
    let summaries: Vec<String> = (0..app.server_pane().traffic().len() as u64)
        .filter_map(|seq| app.server_pane().traffic().get(seq).map(|e| e.summary()))
        .collect();
    for expected in [
        // The handshake: rmcp's server speaks 2026-07-28, met with `server/discover`.
        "→ server/discover #0",
        "← server/discover #0 (result)",
        "→ tools/call #1",
        "→ notifications/cancelled (notification)",
        "→ tools/call #2",
        "← tools/call #2 (result)",
    ] {
        assert!(summaries.iter().any(|s| s == expected), "{expected} in {summaries:#?}");
    }
    let shown = screen(&app, 120, 40);
    // Beside the other screens' snapshots, not under mcp/.
    insta::with_settings!({snapshot_path => "../snapshots"}, {
        insta::assert_snapshot!("traffic_pane_120x40", without_times(&shown));
    });
    assert!(shown.contains("notifications/cancelled") && shown.contains("messages"), "{shown}");
    assert!(shown.contains("\"result\""), "the newest message is shown below the list:\n{shown}");

    // Filtered to the cancellation, the message below is the cancellation's.
    key(&mut app, KeyCode::Char('/'));
    for c in "cancelled".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.server_pane().traffic().shown_len(), 1);
    let effects = key(&mut app, KeyCode::Char('y'));
    let Some(Effect::Desktop(DesktopEffect::Copy(copied))) = effects.first() else { panic!("y copies: {effects:?}") };
    assert!(copied.contains("\"notifications/cancelled\"") && copied.contains("requestId"), "{copied}");
    let _ = update(&mut app, Msg::Input(InputMsg::Resize(80, 24)));
    let small = screen(&app, 80, 24);
    insta::with_settings!({snapshot_path => "../snapshots"}, {
        insta::assert_snapshot!("traffic_pane_filtered_80x24", without_times(&small));
    });
    assert!(small.contains("filter: cancelled (1 shown)"), "{small}");
    key(&mut app, KeyCode::Esc);
    assert!(!app.shows(tooldeck::app::Overlay::Traffic), "Esc closes it");
}

#[test]
fn the_raw_definition_is_the_tool_as_the_server_sent_it() {
    let listing = json!({"tools": [{
        "name": "add",
        "description": "Adds two numbers\u{1b}[2J",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
        "annotations": {"readOnlyHint": true},
        "execution": {"taskSupport": "optional"},
        "_meta": {"example.com/cost": 1}
    }]});
    let tools = tooldeck::invoke::endpoint::server_tools("mcp:test", &listing.to_string());
    let mut app = App::new(tooldeck::catalog::Catalog::default(), &[], (120, 40));
    let _ = update(&mut app, Msg::Server(ServerMsg::Tools { label: "mcp:test".into(), result: Ok(tools) }));
    key(&mut app, KeyCode::Char('V'));
    for (width, height) in [(120, 40), (80, 24)] {
        let _ = update(&mut app, Msg::Input(InputMsg::Resize(width, height)));
        let shown = screen(&app, width, height);
        insta::with_settings!({snapshot_path => "../snapshots"}, {
            insta::assert_snapshot!(format!("raw_definition_{width}x{height}"), shown);
        });
        for expected in ["add as the server sent it", "\"taskSupport\": \"optional\"", "\"readOnlyHint\": true"] {
            assert!(shown.contains(expected), "{expected} in\n{shown}");
        }
        assert!(!shown.contains('\u{1b}'), "escapes are shown, never obeyed");
    }
    let effects = key(&mut app, KeyCode::Char('y'));
    let Some(Effect::Desktop(DesktopEffect::Copy(copied))) = effects.first() else { panic!("y copies: {effects:?}") };
    assert_eq!(serde_json::from_str::<serde_json::Value>(copied).ok().as_ref(), Some(&listing["tools"][0]));
}
