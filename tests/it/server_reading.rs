//! The server pane read whole at 80x24: its fields and stderr wrapped (never cut at the edge), the
//! start of long instructions with a marker, Enter reads them whole to their last line; `?` works
//! there; the help overlay scrolls to its last line. Driven through `update`, drawn on a
//! `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{App, Context, InputMsg, Msg, Popup, ServerMsg, update};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::mcp::events::ServerEvent;
use tooldeck::invoke::mcp::info::ServerInfo;
use tooldeck::theme::Styles;

fn app() -> App {
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (80, 24));
    let _ = update(
        &mut app,
        Msg::Server(ServerMsg::Named { label: "mcp:stdio node server.js".into(), lists_tools: false }),
    );
    app
}

fn press(app: &mut App, code: KeyCode) {
    let _ = update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

/// The screen's words in order, borders and line breaks left out.
fn words(screen: &str) -> String {
    let rows = screen.lines().map(|l| l.trim_matches('"').replace(['│', '┌', '┐', '└', '┘', '─'], " "));
    rows.flat_map(|r| r.split_whitespace().map(str::to_string).collect::<Vec<_>>()).collect::<Vec<_>>().join(" ")
}

/// 28 lines of instructions, as server-everything gives.
fn instructions() -> String {
    (1..=28)
        .map(|i| format!("Line {i} of the instructions, about what tool {i} does best."))
        .collect::<Vec<_>>()
        .join("\n")
}

fn info() -> ServerInfo {
    let peer = serde_json::json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}, "logging": {}},
        "serverInfo": {"name": "mcp-servers/everything", "version": "2.0.0"},
        "instructions": instructions(),
    });
    ServerInfo::from_peer(&peer, None)
}

#[test]
fn the_server_pane_wraps_marks_more_and_reads_the_instructions_whole() {
    let mut app = app();
    let _ = update(&mut app, Msg::Server(ServerMsg::Info(Box::new(info()))));
    let long = format!("START {} FINISH", (0..40).map(|i| format!("s{i}")).collect::<Vec<_>>().join(" "));
    let _ = update(&mut app, Msg::Server(ServerMsg::Events(vec![ServerEvent::Stderr(long)])));
    press(&mut app, KeyCode::F(2));
    assert!(app.shows(tooldeck::app::Overlay::Server));
    let shown = screen(&app);
    insta::assert_snapshot!("server_reading_01_pane_80x24", shown);
    // The stderr line is wrapped, its end on screen.
    let said = words(&shown);
    assert!(said.contains("stderr START s0 s1"), "{said}");
    assert!(said.contains("s38 s39 FINISH"), "{said}");
    // The instructions' start, and a marker naming the key that shows the rest.
    assert!(said.contains("instructions Line 1 of the instructions"), "{said}");
    assert!(said.contains("more rows of instructions · Enter reads them whole"), "{said}");
    assert!(!said.contains("Line 28 of"), "{said}");
    // Enter: the whole instructions, read with ↓ to the last line.
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.prompts.popup(), Some(Popup::Text { .. })), "{:?}", app.prompts.popup());
    let mut seen = words(&screen(&app));
    for _ in 0..30 {
        press(&mut app, KeyCode::Down);
        seen.push_str(&words(&screen(&app)));
    }
    for i in 1..=28 {
        assert!(seen.contains(&format!("Line {i} of the instructions")), "line {i} never showed");
    }
    assert!(words(&screen(&app)).contains("what tool 28 does best."));
    press(&mut app, KeyCode::Esc);
    assert!(app.prompts.popup().is_none() && app.shows(tooldeck::app::Overlay::Server), "back to the pane");
    // `?` in the pane: its keys.
    press(&mut app, KeyCode::Char('?'));
    assert!(matches!(app.prompts.popup(), Some(Popup::Help { .. })));
    let said = words(&screen(&app));
    assert!(said.contains("the server's instructions, whole") && said.contains("scroll the log"), "{said}");
}

#[test]
fn the_help_overlay_scrolls_to_its_last_line_at_80x24() {
    let mut app = app();
    press(&mut app, KeyCode::F(1));
    assert!(matches!(app.prompts.popup(), Some(Popup::Help { .. })));
    let sections = app.keymap.help();
    let last = sections.iter().find(|(c, _)| *c == Context::Anywhere).and_then(|(_, l)| l.last()).expect("a row").1;
    assert!(!words(&screen(&app)).contains(last), "taller than 80x24: {}", screen(&app));
    press(&mut app, KeyCode::End);
    let shown = screen(&app);
    assert!(words(&shown).contains(last), "{shown}");
    // Back up a line at a time: it moves at once (never stuck past its end).
    press(&mut app, KeyCode::Up);
    assert_ne!(screen(&app), shown);
}
