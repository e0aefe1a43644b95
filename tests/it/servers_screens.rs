//! Two servers side by side in the app: the catalog grouped by server name, each server's own
//! state in the server pane, and calls addressed to the server whose tool is selected. Driven
//! through `update` with the messages the runtime sends (`Msg::FromServer`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{App, Effect, Msg, update};
use tooldeck::catalog::Catalog;
use tooldeck::invoke::endpoint::server_tools;
use tooldeck::invoke::mcp::info::ServerInfo;
use tooldeck::theme::Styles;

fn from(label: &str, msg: Msg) -> Msg {
    Msg::FromServer { label: label.to_string(), msg: Box::new(msg) }
}

fn tools(label: &str, names: &[&str]) -> Msg {
    let listed: Vec<_> =
        names.iter().map(|n| serde_json::json!({"name": n, "description": format!("{n} of {label}"), "inputSchema": {"type": "object"}})).collect();
    let text = serde_json::json!({"tools": listed}).to_string();
    from(label, Msg::ServerTools { label: label.to_string(), result: Ok(server_tools(label, &text)) })
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).expect("terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn two_servers() -> App {
    let mut app = App::new(Catalog::default(), &[], (120, 30));
    update(&mut app, Msg::Resize(120, 30));
    for label in ["alpha", "beta"] {
        let effects = update(&mut app, from(label, Msg::ServerNamed { label: label.into(), lists_tools: true }));
        assert_eq!(
            effects,
            [Effect::ToServer { label: label.into(), effect: Box::new(Effect::ListServerTools) }],
            "each server is asked for its own tools"
        );
    }
    update(&mut app, tools("alpha", &["read_file", "write_file"]));
    update(&mut app, tools("beta", &["search"]));
    app
}

#[test]
fn two_servers_side_by_side() {
    let mut app = two_servers();
    let shown = screen(&app);
    assert!(shown.contains("server alpha") && shown.contains("server beta"), "groups name the servers:\n{shown}");
    insta::assert_snapshot!("servers_01_two_servers_grouped", shown);

    // Each server's own state: alpha's info arrives while beta's tool is selected.
    key(&mut app, KeyCode::End);
    update(
        &mut app,
        from("alpha", Msg::ServerInfo(Box::new(ServerInfo { name: "alpha-server".into(), ..ServerInfo::default() }))),
    );
    update(
        &mut app,
        from("beta", Msg::ServerInfo(Box::new(ServerInfo { name: "beta-server".into(), ..ServerInfo::default() }))),
    );
    key(&mut app, KeyCode::Char('i'));
    let shown = screen(&app);
    assert!(shown.contains("server · beta (2 of 2 servers)"), "the pane shows the selected tool's server:\n{shown}");
    assert!(shown.contains("beta-server") && !shown.contains("alpha-server"), "{shown}");
    insta::assert_snapshot!("servers_02_the_selected_tools_server", shown);
    key(&mut app, KeyCode::Esc);

    // R restarts the selected tool's server, not the first one.
    let effects = key(&mut app, KeyCode::Char('R'));
    assert_eq!(effects, [Effect::ToServer { label: "beta".into(), effect: Box::new(Effect::Reconnect) }]);
    key(&mut app, KeyCode::Home);
    let effects = key(&mut app, KeyCode::Char('R'));
    assert_eq!(effects, [Effect::ToServer { label: "alpha".into(), effect: Box::new(Effect::Reconnect) }]);
    key(&mut app, KeyCode::Char('i'));
    let shown = screen(&app);
    assert!(shown.contains("alpha-server") && shown.contains("(1 of 2 servers)"), "{shown}");
}

#[test]
fn a_found_server_is_connected_from_the_list() {
    let found = vec![tooldeck::app::servers::FoundEntry {
        name: "cursor:gamma".into(),
        line: "gamma · Cursor · npx -y gamma · /home/me/.cursor/mcp.json:3".into(),
    }];
    let mut app = two_servers().with_setup(tooldeck::app::AppSetup { found_servers: found, ..Default::default() });
    key(&mut app, KeyCode::Char('C'));
    let shown = screen(&app);
    assert!(shown.contains("gamma · Cursor · npx -y gamma"), "the list of found servers:\n{shown}");
    insta::assert_snapshot!("servers_03_found_servers", shown);
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(effects, [Effect::ConnectFound("cursor:gamma".into())]);
}
