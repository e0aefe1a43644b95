//! Two servers side by side in the app: the catalog grouped by server name, each server's own
//! state in the server pane, and calls addressed to the server whose tool is selected. Driven
//! through `update` with the messages the runtime sends (`Msg::Session`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{App, CallMsg, Effect, InputMsg, Msg, ServerEffect, ServerMsg, WorkEffect, update};
use tooldeck::catalog::{Catalog, SessionId};
use tooldeck::invoke::endpoint::server_tools;
use tooldeck::invoke::mcp::info::ServerInfo;
use tooldeck::theme::Styles;

/// The session the runtime gives each server, in the order they were named.
fn id(label: &str) -> SessionId {
    SessionId(["alpha", "beta", "gamma"].iter().position(|l| *l == label).expect("a known server") as u32)
}

fn from(label: &str, msg: Msg) -> Msg {
    Msg::Session { id: id(label), msg: Box::new(msg) }
}

fn tools(label: &str, names: &[&str]) -> Msg {
    let listed: Vec<_> =
        names.iter().map(|n| serde_json::json!({"name": n, "description": format!("{n} of {label}"), "inputSchema": {"type": "object"}})).collect();
    let text = serde_json::json!({"tools": listed}).to_string();
    from(label, Msg::Server(ServerMsg::Tools { label: label.to_string(), result: Ok(server_tools(label, &text)) }))
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).expect("terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn two_servers() -> App {
    let mut app = App::new(Catalog::default(), &[], (120, 30));
    update(&mut app, Msg::Input(InputMsg::Resize(120, 30)));
    for label in ["alpha", "beta"] {
        let effects =
            update(&mut app, from(label, Msg::Server(ServerMsg::Named { label: label.into(), lists_tools: true })));
        assert_eq!(
            effects,
            [Effect::Session { id: id(label), effect: ServerEffect::ListTools }],
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
        from(
            "alpha",
            Msg::Server(ServerMsg::Info(Box::new(ServerInfo { name: "alpha-server".into(), ..ServerInfo::default() }))),
        ),
    );
    update(
        &mut app,
        from(
            "beta",
            Msg::Server(ServerMsg::Info(Box::new(ServerInfo { name: "beta-server".into(), ..ServerInfo::default() }))),
        ),
    );
    key(&mut app, KeyCode::Char('i'));
    let shown = screen(&app);
    assert!(shown.contains("server · beta (2 of 2 servers)"), "the pane shows the selected tool's server:\n{shown}");
    assert!(shown.contains("beta-server") && !shown.contains("alpha-server"), "{shown}");
    insta::assert_snapshot!("servers_02_the_selected_tools_server", shown);
    key(&mut app, KeyCode::Esc);

    // R restarts the selected tool's server, not the first one.
    let effects = key(&mut app, KeyCode::Char('R'));
    assert_eq!(effects, [Effect::Session { id: id("beta"), effect: ServerEffect::Reconnect }]);
    key(&mut app, KeyCode::Home);
    let effects = key(&mut app, KeyCode::Char('R'));
    assert_eq!(effects, [Effect::Session { id: id("alpha"), effect: ServerEffect::Reconnect }]);
    key(&mut app, KeyCode::Char('i'));
    let shown = screen(&app);
    assert!(shown.contains("alpha-server") && shown.contains("(1 of 2 servers)"), "{shown}");
}

#[test]
fn a_found_server_is_connected_from_the_list() {
    let found = vec![tooldeck::app::sessions::FoundEntry {
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

/// Two copies of one server (the same tools, as `--server alpha --server beta` for two entries
/// that run one server on two folders) are two sessions: both lists show, each call goes to its
/// own server, and a result names the server that answered it wherever the cursor goes.
#[test]
fn two_copies_of_one_server_are_two_sessions() {
    let mut app = App::new(Catalog::default(), &[], (120, 30));
    update(&mut app, Msg::Input(InputMsg::Resize(120, 30)));
    for label in ["alpha", "beta"] {
        update(&mut app, from(label, Msg::Server(ServerMsg::Named { label: label.into(), lists_tools: true })));
    }
    // beta answers first: which server answers first must not change what is listed.
    update(&mut app, tools("beta", &["read_file", "write_file"]));
    update(&mut app, tools("alpha", &["read_file", "write_file"]));
    assert_eq!(app.catalog.len(), 4, "both servers' tools are listed");
    let shown = screen(&app);
    let (alpha, beta) = (shown.find("server alpha").expect(&shown), shown.find("server beta").expect(&shown));
    assert!(alpha < beta, "the groups keep the order the servers were named in:\n{shown}");
    assert!(shown.contains("read_file #2"), "the second server's entry is told apart:\n{shown}");
    assert!(
        app.catalog.get("read_file").is_some_and(|t| t.source.session == Some(id("alpha"))),
        "the first keeps the name"
    );

    // The second server's read_file is called on the second server, by its own name.
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Up);
    let selected = app.selected_tool().expect("a tool").clone();
    assert_eq!((selected.name.as_str(), selected.source.session), ("read_file", Some(id("beta"))));
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))));
    let Some(Effect::Session { id: to, effect }) = effects.iter().find(|e| matches!(e, Effect::Session { .. })) else {
        panic!("the call is addressed to a session: {effects:?}");
    };
    assert_eq!(*to, id("beta"));
    let ServerEffect::Invoke { id: run, request, .. } = effect else { panic!("{effect:?}") };
    assert_eq!(request.tool_id, "read_file", "the server knows the tool by its own name");

    // The result keeps naming beta when the cursor moves onto alpha's tools.
    key(&mut app, KeyCode::Home);
    assert_eq!(app.sessions.current_id(), id("alpha"));
    assert_eq!(app.result.run().expect("the run").server(), "beta");
    let answer = tooldeck::app::CallFailure::from(tooldeck::invoke::InvokeError::Broken("down".into()));
    let effects = update(
        &mut app,
        Msg::Session { id: id("beta"), msg: Box::new(Msg::Call(CallMsg::Done { id: *run, result: Err(answer) })) },
    );
    let recorded = effects.iter().find_map(|e| match e {
        Effect::Work(WorkEffect::Record(entry)) => Some(entry),
        _ => None,
    });
    let entry = recorded.expect("the call is kept in the history");
    assert_eq!((entry.endpoint.as_str(), entry.tool.as_str()), ("beta", selected.id.as_str()));
    assert!(screen(&app).contains("beta"), "the result names its server");

    // Each session keeps its own traffic: what beta's wire carried is in beta's pane only.
    let wire = tooldeck::invoke::mcp::traffic::Traffic::default();
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_file"}});
    wire.frame(&tooldeck::wire::Frame::of_value(tooldeck::wire::Side::Client, call));
    update(&mut app, from("beta", Msg::Server(ServerMsg::Traffic(wire.since(0).0))));
    let traffic_of = |label: &str| app.sessions.get(id(label)).expect("the session").pane().traffic().len();
    assert_eq!((traffic_of("alpha"), traffic_of("beta")), (0, 1), "each session's traffic is its own");
}

/// A server whose tools cannot be listed stays in the list, under its name, with why; `R` on it
/// tries that server again, and its tools take the entry's place once it answers.
#[test]
fn a_server_that_fails_to_connect_stays_listed_and_is_retried() {
    let mut app = App::new(Catalog::default(), &[], (80, 24));
    update(&mut app, Msg::Input(InputMsg::Resize(80, 24)));
    for label in ["alpha", "beta"] {
        update(&mut app, from(label, Msg::Server(ServerMsg::Named { label: label.into(), lists_tools: true })));
    }
    update(&mut app, tools("alpha", &["search"]));
    let refused =
        tooldeck::invoke::InvokeError::Broken("cannot connect to http://127.0.0.1:9/mcp: connection refused".into());
    update(&mut app, from("beta", Msg::Server(ServerMsg::Tools { label: "beta".into(), result: Err(refused.into()) })));
    let shown = screen(&app);
    assert!(shown.contains("server beta") && shown.contains("not connected"), "{shown}");

    key(&mut app, KeyCode::End);
    assert_eq!(app.sessions.current_id(), id("beta"), "the entry stands for beta");
    key(&mut app, KeyCode::Char('i'));
    let shown = screen(&app);
    assert!(shown.contains("connection refused"), "its pane says why in full:\n{shown}");
    key(&mut app, KeyCode::Esc);
    let effects = key(&mut app, KeyCode::Char('R'));
    assert_eq!(effects, [Effect::Session { id: id("beta"), effect: ServerEffect::Reconnect }]);

    update(&mut app, tools("beta", &["fetch"]));
    let shown = screen(&app);
    assert!(shown.contains("fetch") && !shown.contains("not connected"), "{shown}");
}

/// `--watch`: a change restarts every session's server, each addressed to its own.
#[test]
fn a_watched_change_restarts_every_server() {
    let mut app = two_servers();
    let effects = update(&mut app, Msg::FilesChanged { summary: "server.js".into(), at: "12:01:03".into() });
    let restarted: Vec<SessionId> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Session { id, effect } if *effect == ServerEffect::Reconnect => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(restarted, [id("alpha"), id("beta")]);
    assert!(screen(&app).contains("server.js changed: restarting 2 servers"), "{}", screen(&app));
}
