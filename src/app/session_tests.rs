//! Where calls and restarts go when a session's server is known (the demo server keeps no
//! session, a record opened alone names no server) and what a listing says, driven through
//! `update` as the runtime drives it.

use super::*;
use crate::app::update;
use crate::catalog::{LoadOptions, load_samples};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn app() -> App {
    let loaded = load_samples(&LoadOptions::default());
    App::new(loaded.catalog, &loaded.diagnostics, (120, 40))
}

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn status(app: &App) -> &str {
    app.status().unwrap_or_default()
}

fn invoked(effects: &[Effect]) -> bool {
    effects.iter().any(|e| matches!(e, Effect::Server(ServerEffect::Invoke { .. })))
}

/// `tooldeck attach FILE` with no server: a recorded tool's run and a restart say how to name
/// one, rather than sending to nowhere ("relative URL without a base").
#[test]
fn a_record_with_no_server_says_how_to_name_one() {
    let text = serde_json::json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}).to_string();
    let (mut tools, _) = crate::catalog::load_text("server", &text, &crate::catalog::LoadOptions::default());
    let mut catalog = crate::catalog::Catalog::default();
    for mut tool in tools.drain(..) {
        tool.source.session = Some(crate::catalog::SessionId::FIRST);
        catalog.add(tool);
    }
    let mut app = App::new(catalog, &[], (120, 40));
    let named = app.sessions.server_mut(crate::catalog::SessionId::FIRST).named("record r.jsonl".into(), false);
    let _ = app.apply(named);
    assert!(!invoked(&ctrl(&mut app, 'r')), "nothing sent");
    assert!(status(&app).contains("record r.jsonl names no server: attach it with --mcp"), "{}", status(&app));
    press(&mut app, KeyCode::Char('R'));
    assert!(status(&app).contains("names no server"), "{}", status(&app));
}

/// The demo server keeps no session: R does not list its tools a second time beside the files'.
#[test]
fn restarting_the_demo_server_keeps_one_copy_of_the_tools() {
    let mut app = app();
    // As the runtime says of the demo server: where calls go, a server that lists no tools.
    update(&mut app, Msg::Server(ServerMsg::Named { label: "demo server".into(), lists_tools: false }));
    let before = app.catalog.tools().len();
    let effects = press(&mut app, KeyCode::Char('R'));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.catalog.tools().len(), before);
    assert!(status(&app).contains("keeps no session"), "{}", status(&app));
}

/// A server that lists its tools again as it starts (it says its list changed) finds the same
/// tools: what was said of the change stays on the status line ("lists the same tools" hid it).
#[test]
fn listing_the_same_tools_again_keeps_what_was_said_of_the_change() {
    let listed = |names: &[&str]| {
        let tools: Vec<serde_json::Value> =
            names.iter().map(|n| serde_json::json!({"name": n, "inputSchema": {"type": "object"}})).collect();
        let text = serde_json::json!({ "tools": tools }).to_string();
        let (tools, _) = crate::catalog::load_text("server", &text, &crate::catalog::LoadOptions::default());
        Msg::Server(ServerMsg::Tools { label: "S".into(), result: Ok(tools) })
    };
    let mut app = App::new(crate::catalog::Catalog::default(), &[], (120, 40));
    update(&mut app, Msg::Server(ServerMsg::Named { label: "S".into(), lists_tools: true }));
    update(&mut app, listed(&["memory_a", "memory_b"]));
    update(&mut app, listed(&["everything_a"]));
    let said = status(&app).to_string();
    assert!(said.contains("1 tool new, 2 gone"), "{said}");
    update(&mut app, listed(&["everything_a"]));
    assert_eq!(status(&app), said);
}
