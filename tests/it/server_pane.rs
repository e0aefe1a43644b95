//! The server pane (`i`) on ratatui's TestBackend: what an MCP server said of itself, how it went
//! away, its stderr (escapes shown, never obeyed) and its log with the level filter; and the app
//! side of what it asks: `R` reconnects, `v` asks the server for a level, a changed tool list is
//! listed again. Driven only through `update` with the messages a terminal and the runtime send.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{App, CallMsg, DesktopEffect, Effect, InputMsg, Msg, ServerEffect, ServerMsg, update};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::mcp::events::ServerEvent;
use tooldeck::invoke::mcp::info::ServerInfo;
use tooldeck::theme::Styles;

fn app() -> App {
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40));
    let _ =
        update(&mut app, Msg::Server(ServerMsg::Named { label: "mcp:stdio node server.js".into(), lists_tools: true }));
    app
}

fn press(app: &mut App, c: char) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))))
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

fn info() -> ServerInfo {
    let peer = serde_json::json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {"listChanged": true}, "logging": {}},
        "serverInfo": {"name": "everything", "title": "Everything", "version": "2.0.0",
            "icons": [{"src": "https://example.com/icon.svg", "mimeType": "image/svg+xml"}]},
        "instructions": "Call get-sum for sums.\nBe gentle with the \u{1b}[31mdisk\u{1b}[0m."
    });
    ServerInfo::from_peer(&peer, Some("5f1c-session".into()))
}

fn log(level: &str, text: &str) -> ServerEvent {
    ServerEvent::Log { level: level.into(), logger: Some("db".into()), text: text.into() }
}

#[test]
fn the_server_pane_shows_the_server_its_end_and_its_voice() {
    let mut app = app();
    let _ = update(&mut app, Msg::Server(ServerMsg::Info(Box::new(info()))));
    let events = vec![
        ServerEvent::Stderr("Starting server...".into()),
        ServerEvent::Stderr("\u{1b}[2J\u{1b}[31mred\u{1b}[0m text\u{7}".into()),
        log("debug", "a debug entry"),
        log("warning", "{\"disk\":\"low\"}"),
        ServerEvent::Exited {
            how: "exited with code 1".into(),
            last_lines: vec!["Error: Cannot find module 'x'".into(), "    at node:internal/main:1:1".into()],
        },
    ];
    let _ = update(&mut app, Msg::Server(ServerMsg::Events(events)));
    assert_eq!(app.status(), Some("the server exited with code 1: R starts it again"));
    press(&mut app, 'i');
    let shown = screen(&app);
    insta::assert_snapshot!("server_pane", shown);
    for expected in [
        "everything 2.0.0 · Everything",
        "2025-06-18 · session 5f1c-session",
        "tools (listChanged) · logging",
        "https://example.com/icon.svg (image/svg+xml)",
        "Call get-sum for sums.",
        "✗ gone · R reconnects",
        "  Error: Cannot find module 'x'",
        "    at node:internal/main:1:1",
        "␛[2J␛[31mred␛[0m text␇",
        "warning   db {\"disk\":\"low\"}",
    ] {
        assert!(shown.contains(expected), "{expected} in\n{shown}");
    }
    assert!(!shown.contains('\u{1b}') && !shown.contains('\u{7}'), "escapes are shown, never obeyed");

    // v: warning and above, asked of the server (it offers logging).
    let effects: Vec<Effect> = (0..3).flat_map(|_| press(&mut app, 'v')).collect();
    assert_eq!(effects.last(), Some(&Effect::Server(ServerEffect::SetLogLevel("warning".into()))));
    let shown = screen(&app);
    assert!(!shown.contains("a debug entry") && shown.contains("{\"disk\":\"low\"}"), "{shown}");
    assert!(shown.contains("warning and above"), "{shown}");

    // R: the server is started again, and its tools listed again once it is back.
    assert_eq!(press(&mut app, 'R'), [Effect::Server(ServerEffect::Reconnect)]);
    let _ = update(&mut app, Msg::Server(ServerMsg::Reconnected(Ok(()))));
    assert!(app.server_pane().gone().is_none());
    assert!(!screen(&app).contains("✗ gone"));
    // Esc closes the pane.
    let _ = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE))));
    assert!(!app.shows(tooldeck::app::Overlay::Server));
}

#[test]
fn a_changed_tool_list_is_listed_again_with_a_note() {
    let mut app = app();
    let effects = update(&mut app, Msg::Server(ServerMsg::Events(vec![ServerEvent::ToolsChanged])));
    assert_eq!(effects, [Effect::Server(ServerEffect::ListTools)]);
    assert!(app.server().listing());
    assert_eq!(app.status(), Some("the server's tools changed: listing them again"));
}

#[test]
fn a_lost_session_is_said_and_r_reconnects_from_the_result_pane_too() {
    let mut app = app();
    let lost = "the server no longer knows this session (HTTP 404 Not Found: )".to_string();
    let _ = update(&mut app, Msg::Server(ServerMsg::Events(vec![ServerEvent::Lost(lost.clone())])));
    assert_eq!(app.status(), Some(format!("{lost}: R reconnects").as_str()));
    assert_eq!(press(&mut app, 'R'), [Effect::Server(ServerEffect::Reconnect)]);
    assert!(app.server().listing(), "the tools are listed again");
}

/// 200,000 stderr lines in one go: the ring keeps the newest within its bounds, the screen draws
/// only its window, and keys keep answering.
#[test]
fn a_flood_of_lines_stays_bounded_and_the_pane_answers() {
    let mut app = app();
    press(&mut app, 'i');
    let flood: Vec<ServerEvent> = (0..200_000).map(|i| ServerEvent::Stderr(format!("line {i}"))).collect();
    let _ = update(&mut app, Msg::Server(ServerMsg::Events(flood)));
    assert_eq!(app.server_pane().log().len(), tooldeck::app::server_pane::MAX_LINES);
    assert!(app.server_pane().log().bytes() < 20 << 20);
    assert!(screen(&app).contains("line 199999"));
    press(&mut app, 'g');
    let shown = screen(&app);
    assert!(shown.contains("100000 older let go") && shown.contains("scrolled back"), "{shown}");
    press(&mut app, 'G');
    assert!(screen(&app).contains("line 199999"));
}

/// A call that got no answer keeps what went over the wire: `x` shows its JSON-RPC request, and
/// `c` gives the pipeline that sends it into the stdio server again.
#[test]
fn a_failed_mcp_call_keeps_its_exchange_and_c_gives_a_pipeline() {
    let mut app = app();
    // The first tool's arguments are not ready: a second Ctrl-R sends them anyway.
    let ctrl_r = Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)));
    let mut effects = update(&mut app, ctrl_r.clone());
    effects.extend(update(&mut app, ctrl_r));
    let Some(id) = effects
        .iter()
        .find_map(|e| if let Effect::Server(ServerEffect::Invoke { id, .. }) = e { Some(*id) } else { None })
    else {
        panic!("no call: {effects:?}")
    };
    let request = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "customer_letter", "arguments": {"notes": "hi"}}});
    let exchange = tooldeck::invoke::Exchange {
        method: "JSON-RPC".into(),
        url: "mcp:stdio node server.js".into(),
        request_body: serde_json::to_string_pretty(&request).unwrap(),
        ..Default::default()
    };
    let _ = update(&mut app, Msg::Call(CallMsg::FailedExchange { id, exchange: Box::new(exchange) }));
    let error = "mcp:stdio node server.js is gone: the server exited with code 1 during tools/call; its last stderr \
                 lines:\n  Error: boom\n  at main";
    let _ = update(&mut app, Msg::Call(CallMsg::Done { id, result: Err(error.into()) }));
    let _ = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL))));
    let shown = screen(&app);
    assert!(shown.contains("│  Error: boom") && shown.contains("│  at main"), "line by line:\n{shown}");
    assert!(shown.contains("x shows what went over the wire"), "{shown}");
    press(&mut app, 'x');
    let shown = screen(&app);
    assert!(
        shown.contains("JSON-RPC mcp:stdio node server.js") && shown.contains("\"method\": \"tools/call\""),
        "{shown}"
    );
    for _ in 0..40 {
        let _ = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE))));
    }
    let shown = screen(&app);
    assert!(shown.contains("no answer came"), "{shown}");
    let copied = press(&mut app, 'c');
    let [Effect::Desktop(DesktopEffect::Copy(pipeline))] = copied.as_slice() else { panic!("{copied:?}") };
    assert!(pipeline.starts_with("(printf '%s\\n' ") && pipeline.ends_with("| node server.js"), "{pipeline}");
    assert!(pipeline.contains("\"name\":\"customer_letter\""), "{pipeline}");
}
