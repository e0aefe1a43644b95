//! A server's resources, templates and prompts in the app, against rmcp's server side over
//! Streamable HTTP on 127.0.0.1: the app's state driven through its messages, and each effect it
//! asks for carried out here as the runtime would (the same `Endpoint` calls), so what the person
//! sees is what the server answered. A resource read, a template filled with a suggestion, a
//! prompt got with arguments, an update shown, a list refresh.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{
    Answer, App, CallFailure, CallMsg, DesktopEffect, Effect, EffectError, FaceMsg, InputMsg, Msg, ServerEffect,
    ServerMsg, update,
};
use tooldeck::catalog::Catalog;
use tooldeck::invoke::Endpoint;
use tooldeck::invoke::endpoint::{EndpointOptions, server_tools};
use tooldeck::theme::Styles;

use crate::resources_prompts::server_command;

const LABEL: &str = "mcp:faces";

async fn serve() -> String {
    crate::resources_prompts::serve_http().await
}

/// Connected at 2025-11-25, the last revision with `resources/subscribe`.
async fn connect(url: &str) -> Endpoint {
    let options = EndpointOptions {
        mcp_url: Some(url.into()),
        protocol: Some("2025-11-25".into()),
        ..EndpointOptions::default()
    };
    options.connect(Vec::new(), None).await.expect("connects")
}

/// One effect as the runtime carries it out: the message it answers with, if any.
async fn carry_out(endpoint: &Endpoint, effect: Effect) -> Option<Msg> {
    Some(match effect {
        Effect::Server(ServerEffect::ListTools) => {
            let text = endpoint.list_tools().await.expect("tools listed");
            Msg::Server(ServerMsg::Tools { label: LABEL.into(), result: Ok(server_tools(LABEL, &text)) })
        }
        Effect::Server(ServerEffect::ListFaces) => {
            let faces = endpoint.list_faces().await.expect("an MCP server");
            Msg::Face(FaceMsg::Listed { label: LABEL.into(), faces: Box::new(faces) })
        }
        Effect::Server(ServerEffect::Face { id, call_id, request }) => {
            let answer = match request {
                tooldeck::app::faces::FaceRequest::Read { uri } => endpoint.read_as_result(&uri, &call_id).await,
                tooldeck::app::faces::FaceRequest::GetPrompt { name, arguments } => {
                    endpoint.get_prompt_as_result(&name, &arguments, &call_id).await
                }
            };
            let result = answer
                .map(|(outcome, exchange)| Box::new(Answer::new(outcome, exchange, None)))
                .map_err(CallFailure::from);
            Msg::Call(CallMsg::Done { id, result })
        }
        Effect::Server(ServerEffect::Complete { tool_id, reference, argument, typed, context }) => {
            let within = tooldeck::invoke::mcp::completion::ANSWER_WITHIN;
            let result = endpoint.complete(&reference, &argument, &typed, &context, within).await;
            Msg::Face(FaceMsg::Completed { tool_id, argument, typed, result: result.map_err(EffectError::from) })
        }
        Effect::Server(ServerEffect::Subscribe { uri, on }) => {
            let result = if on { endpoint.subscribe(&uri).await } else { endpoint.unsubscribe(&uri).await };
            Msg::Face(FaceMsg::Subscribed { uri, on, result: result.map_err(EffectError::from) })
        }
        _ => return None,
    })
}

/// `msg` applied, and every effect it leads to carried out, until the app asks for nothing
/// more of the server; the effects it asked for, in order.
async fn drive(app: &mut App, endpoint: &Endpoint, msg: Msg) -> Vec<Effect> {
    let mut asked = Vec::new();
    let mut queue = vec![msg];
    while let Some(msg) = queue.pop() {
        for effect in update(app, msg) {
            asked.push(effect.clone());
            queue.extend(carry_out(endpoint, effect).await);
        }
    }
    asked
}

fn key(code: KeyCode) -> Msg {
    Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn run() -> Msg {
    Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)))
}

async fn keys(app: &mut App, endpoint: &Endpoint, codes: &[KeyCode]) -> Vec<Effect> {
    let mut asked = Vec::new();
    for code in codes {
        asked.extend(drive(app, endpoint, key(*code)).await);
    }
    asked
}

/// A snapshot without what changes from run to run (call ids, durations).
macro_rules! snapshot {
    ($name:expr, $shown:expr) => {
        insta::with_settings!({ filters => vec![
            (r"call [0-9a-f]{8}…", "call ########…"),
            (r"· \d+ ms ·", "· # ms ·"),
            // The duration's digits move the padding after it.
            (r"(call ########…[^│]*?) +│", "$1 │"),
        ] }, {
            insta::assert_snapshot!($name, $shown);
        })
    };
}

fn screen(app: &App, (width, height): (u16, u16)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

/// The app connected to the server: its (no) tools, then its faces listed.
async fn connected(endpoint: &Endpoint, size: (u16, u16)) -> App {
    let mut app = App::new(Catalog::default(), &[], size);
    update(&mut app, Msg::Input(InputMsg::Resize(size.0, size.1)));
    let asked =
        drive(&mut app, endpoint, Msg::Server(ServerMsg::Named { label: LABEL.into(), lists_tools: true })).await;
    assert!(asked.contains(&Effect::Server(ServerEffect::ListFaces)), "faces are listed after the tools: {asked:?}");
    app
}

/// Selects the list entry titled `name` (from the top of the list).
async fn select(app: &mut App, endpoint: &Endpoint, name: &str) {
    // Out of a field and the form, back to the list.
    keys(app, endpoint, &[KeyCode::Esc, KeyCode::Esc, KeyCode::Home]).await;
    for _ in 0..20 {
        if app.selected_tool().is_some_and(|t| t.name == name) {
            return;
        }
        keys(app, endpoint, &[KeyCode::Down]).await;
    }
    panic!("{name} is in the list");
}

#[tokio::test]
async fn resources_templates_and_prompts_in_the_app() {
    let url = serve().await;
    let endpoint = connect(&url).await;
    let mut app = connected(&endpoint, (120, 40)).await;
    let shown = screen(&app, (120, 40));
    for expected in ["resources", "templates", "prompts", "notes", "pixel", "last", "item", "greet"] {
        assert!(shown.contains(expected), "{expected} listed:\n{shown}");
    }
    snapshot!("faces_01_listed_120x40", shown);

    // A resource: the run reads it, shown as a result's content.
    select(&mut app, &endpoint, "notes").await;
    let asked = drive(&mut app, &endpoint, run()).await;
    assert!(matches!(&asked[..], [Effect::Server(ServerEffect::Face { .. }), ..]), "{asked:?}");
    let shown = screen(&app, (120, 40));
    assert!(shown.contains("line one") && shown.contains("line two"), "{shown}");
    snapshot!("faces_02_resource_read_120x40", shown);
    let copied = keys(&mut app, &endpoint, &[KeyCode::Char('y')]).await;
    assert!(
        copied
            .iter()
            .any(|e| matches!(e, Effect::Desktop(DesktopEffect::Copy(text)) if text.contains("line one\nline two"))),
        "{copied:?}"
    );

    // A template: its variable typed, a suggestion from completion/complete picked, then read.
    select(&mut app, &endpoint, "item").await;
    let asked = keys(&mut app, &endpoint, &[KeyCode::Enter, KeyCode::Enter, KeyCode::Char('4')]).await;
    assert!(
        asked.iter().any(|e| matches!(e, Effect::Server(ServerEffect::Complete { typed, .. }) if typed == "4")),
        "{asked:?}"
    );
    keys(&mut app, &endpoint, &[KeyCode::Down]).await;
    let shown = screen(&app, (120, 40));
    assert!(shown.contains("42"), "the suggestion is offered:\n{shown}");
    keys(&mut app, &endpoint, &[KeyCode::Enter]).await;
    let asked = drive(&mut app, &endpoint, run()).await;
    let read = asked.iter().find_map(|e| match e {
        Effect::Server(ServerEffect::Face { request: tooldeck::app::faces::FaceRequest::Read { uri }, .. }) => {
            Some(uri.clone())
        }
        _ => None,
    });
    assert_eq!(read.as_deref(), Some("test://items/42"));
    assert!(screen(&app, (120, 40)).contains("item 42"));

    // A prompt: its required argument marked, filled with a suggestion, its messages with roles.
    select(&mut app, &endpoint, "greet").await;
    keys(&mut app, &endpoint, &[KeyCode::Enter]).await;
    let shown = screen(&app, (120, 40));
    assert!(shown.contains("language") && shown.contains("tone"), "{shown}");
    keys(&mut app, &endpoint, &[KeyCode::Enter, KeyCode::Char('e'), KeyCode::Down, KeyCode::Enter]).await;
    drive(&mut app, &endpoint, run()).await;
    let shown = screen(&app, (120, 40));
    assert!(shown.contains("greet me in english"), "the first suggestion was picked:\n{shown}");
    assert!(shown.contains("[user] text") && shown.contains("[assistant] image"), "{shown}");
    snapshot!("faces_03_prompt_got_120x40", shown);

    // Raw definition: the prompt as the server sent it.
    keys(&mut app, &endpoint, &[KeyCode::Esc, KeyCode::Char('V')]).await;
    let shown = screen(&app, (120, 40));
    assert!(shown.contains("\"required\": true") && shown.contains("as the server sent it"), "{shown}");
    keys(&mut app, &endpoint, &[KeyCode::Esc]).await;
}

#[tokio::test]
async fn a_subscribed_resource_is_read_again_when_it_changes_and_lists_refresh() {
    let url = serve().await;
    let endpoint = connect(&url).await;
    let mut app = connected(&endpoint, (80, 24)).await;
    snapshot!("faces_04_listed_80x24", screen(&app, (80, 24)));
    select(&mut app, &endpoint, "notes").await;
    drive(&mut app, &endpoint, run()).await;
    let events = endpoint.events().expect("an MCP endpoint");
    events.take();
    let asked = keys(&mut app, &endpoint, &[KeyCode::Char('b')]).await;
    assert!(
        asked.contains(&Effect::Server(ServerEffect::Subscribe { uri: "test://notes".into(), on: true })),
        "{asked:?}"
    );
    assert!(app.faces.subscribed().contains("test://notes"));
    let mut updated = false;
    let mut relisted = false;
    for _ in 0..50 {
        let batch = tokio::time::timeout(std::time::Duration::from_secs(5), events.next_batch()).await.unwrap();
        let asked = drive(&mut app, &endpoint, Msg::Server(ServerMsg::Events(batch))).await;
        updated |= asked.iter().any(|e| matches!(e, Effect::Server(ServerEffect::Face { .. })));
        relisted |= asked.contains(&Effect::Server(ServerEffect::ListFaces));
        if updated && relisted {
            break;
        }
    }
    assert!(updated, "the read on screen is made again");
    assert!(relisted, "list_changed lists the resources again");
    let status = app.status().map(str::to_string).unwrap_or_default();
    assert!(status.contains("updated at") || status.contains("resource"), "{status}");
    assert!(app.faces.updated().contains_key("test://notes"));
    assert!(screen(&app, (80, 24)).contains("line one"), "read again, shown");
    let asked = keys(&mut app, &endpoint, &[KeyCode::Char('b')]).await;
    assert!(
        asked.contains(&Effect::Server(ServerEffect::Subscribe { uri: "test://notes".into(), on: false })),
        "{asked:?} {:?} {:?}",
        app.status(),
        app.selected_tool().map(|t| &t.name)
    );
    assert!(!app.faces.subscribed().contains("test://notes"));
}

/// Bad input from a server of the 2024-11-05 era: a prompt whose messages hold an escape
/// sequence and a block of an unknown kind is shown with the escape made visible and the valid
/// messages kept beside the unreadable one; a 200 MB resource ends in a clear line, not a hang.
#[tokio::test]
async fn an_odd_prompt_and_a_huge_resource_from_an_old_server() {
    let options = EndpointOptions { mcp: Some(server_command("legacy")), ..EndpointOptions::default() };
    let endpoint = options.connect(Vec::new(), None).await.expect("reached");
    let mut app = connected(&endpoint, (120, 40)).await;
    select(&mut app, &endpoint, "odd").await;
    drive(&mut app, &endpoint, run()).await;
    let shown = screen(&app, (120, 40));
    assert!(!shown.contains('\u{1b}'), "no escape reaches the screen");
    assert!(shown.contains("clear \\e[2J the screen") || shown.contains("clear ␛[2J"), "{shown}");
    assert!(shown.contains("cannot be read") && shown.contains("still here"), "{shown}");
    snapshot!("faces_05_odd_prompt_120x40", shown);

    select(&mut app, &endpoint, "huge").await;
    let started = std::time::Instant::now();
    drive(&mut app, &endpoint, run()).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "nothing hangs");
    let shown = screen(&app, (120, 40));
    assert!(shown.contains("MiB"), "the answer cap is named:\n{shown}");
    if let Endpoint::Mcp(stdio) = endpoint {
        stdio.close().await;
    }
}

/// A JSON-RPC body with a secret (an argument named like a key, an `Authorization` field, a
/// token in a URL) is masked in the traffic pane, on screen and in what `y` copies; the rest of
/// the message, the progress token among it, is shown as sent.
#[test]
fn secrets_in_traffic_bodies_are_masked_on_screen_and_when_copied() {
    let traffic = tooldeck::invoke::mcp::traffic::Traffic::default();
    let value = serde_json::json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "fetch", "_meta": {"progressToken": "call-7"},
        "arguments": {"api_key": "sk-live-123", "headers": {"Authorization": "Bearer tok-9"},
            "url": "https://example.com/x?token=abc-2&page=3"}}});
    traffic.frame(&tooldeck::wire::Frame::of_value(tooldeck::wire::Side::Client, value));
    let mut app = App::new(Catalog::default(), &[], (120, 40));
    update(&mut app, Msg::Input(InputMsg::Resize(120, 40)));
    update(&mut app, Msg::Server(ServerMsg::Traffic(traffic.since(0).0)));
    update(&mut app, key(KeyCode::Char('X')));
    update(&mut app, key(KeyCode::Char('g')));
    let shown = screen(&app, (120, 40));
    assert!(shown.contains("tools/call") && shown.contains("call-7") && shown.contains("page=3"), "{shown}");
    let copied = update(&mut app, key(KeyCode::Char('y')));
    let Some(Effect::Desktop(DesktopEffect::Copy(copied))) = copied.first() else { panic!("a copy: {copied:?}") };
    for secret in ["sk-live-123", "tok-9", "abc-2"] {
        assert!(!shown.contains(secret) && !copied.contains(secret), "{secret} shown or copied:\n{shown}\n{copied}");
    }
    assert!(copied.contains("\"progressToken\": \"call-7\""), "{copied}");
}
