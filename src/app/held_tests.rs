//! Breakpoints in `tooldeck attach`, driven through `update` as the runtime drives it: the
//! proxy's traffic and notices in, the control lines out.

use super::*;
use crate::app::{InputMsg, Msg, ServerMsg, update};
use crate::invoke::mcp::traffic::Traffic;
use crate::proxy::live::Marks;
use crate::wire::Frame;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

fn app() -> App {
    App::new(crate::catalog::Catalog::default(), &[], (120, 40))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))))
}

fn status(app: &App) -> String {
    app.status().unwrap_or_default().to_string()
}

fn proxy(app: &mut App, msg: ProxyMsg) {
    update(app, Msg::Server(ServerMsg::Proxy(msg)));
}

/// The control lines among `effects`, as written to the proxy.
fn lines(effects: &[Effect]) -> Vec<serde_json::Value> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Server(ServerEffect::Control(control)) => serde_json::from_str(&control.to_line()).ok(),
            _ => None,
        })
        .collect()
}

fn call(id: u64, tool: &str) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {"text": "hi"}}})
}

/// The proxy's feed brings these (from, message, held id) to the app.
struct Feed(Traffic, u64);

impl Feed {
    fn new() -> Feed {
        Feed(Traffic::default(), 0)
    }

    fn pass(&mut self, app: &mut App, from: Side, message: serde_json::Value, held: Option<u64>) {
        self.0.marked_frame(&Frame::of_value(from, message), Marks { held, injected: None });
        let (entries, _) = self.0.since(self.1);
        self.1 = entries.last().map_or(self.1, |e| e.seq + 1);
        update(app, Msg::Server(ServerMsg::Traffic(entries)));
    }
}

fn attached() -> (App, Feed) {
    let mut app = app();
    proxy(&mut app, ProxyMsg::Attached);
    proxy(&mut app, ProxyMsg::Notice(Notice::Breakpoints { breakpoints: vec![] }));
    let mut feed = Feed::new();
    feed.pass(&mut app, Side::Client, call(3, "echo"), None);
    feed.pass(&mut app, Side::Server, json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}}), None);
    (app, feed)
}

#[test]
fn b_and_capital_b_need_attach_and_say_so() {
    let mut app = app();
    let mut feed = Feed::new();
    feed.pass(&mut app, Side::Client, call(1, "echo"), None);
    press(&mut app, KeyCode::F(8));
    assert!(app.shows(Overlay::Traffic));
    assert!(lines(&press(&mut app, KeyCode::Char('b'))).is_empty());
    assert!(status(&app).contains("breakpoints need `tooldeck attach`"), "{}", status(&app));
    assert!(lines(&press(&mut app, KeyCode::Char('B'))).is_empty());
    assert!(status(&app).contains("need `tooldeck attach`"), "{}", status(&app));
}

#[test]
fn b_breaks_on_the_selected_messages_method_tool_and_way_and_capital_b_clears() {
    let (mut app, _feed) = attached();
    press(&mut app, KeyCode::F(8));
    // The newest is the answer: its method is its request's, its tool the call's.
    let effects = press(&mut app, KeyCode::Char('b'));
    assert_eq!(lines(&effects), [json!({"break": {"method": "tools/call", "tool": "echo", "from": "server"}})]);
    assert!(status(&app).contains("breakpoint: tools/call echo from server"), "{}", status(&app));
    press(&mut app, KeyCode::Up);
    let effects = press(&mut app, KeyCode::Char('b'));
    assert_eq!(lines(&effects), [json!({"break": {"method": "tools/call", "tool": "echo", "from": "client"}})]);
    assert!(lines(&press(&mut app, KeyCode::Char('B'))).is_empty(), "none set yet, as the proxy says");
    let set = Breakpoint { method: "tools/call".into(), tool: Some("echo".into()), from: Side::Client };
    proxy(&mut app, ProxyMsg::Notice(Notice::Breakpoints { breakpoints: vec![set.clone()] }));
    assert_eq!(app.server_pane().traffic().hold().breakpoints(), [set]);
    assert!(lines(&press(&mut app, KeyCode::Char('b'))).is_empty(), "set already");
    assert_eq!(lines(&press(&mut app, KeyCode::Char('B'))), [json!({"clear": "breakpoints"})]);
}

#[test]
fn a_held_message_opens_in_the_editor_and_ctrl_r_sends_it_as_it_was() {
    let (mut app, mut feed) = attached();
    feed.pass(&mut app, Side::Client, call(4, "echo"), Some(1));
    assert!(app.shows(Overlay::Traffic), "the pane opens on what is held");
    let log = app.server_pane().traffic();
    assert_eq!(log.hold().editor().map(|e| e.id()), Some(1));
    assert_eq!(log.selected_entry().and_then(|e| e.marks.held), Some(1), "the held entry is selected");
    assert_eq!(log.hold().tag(log.selected_entry().unwrap()), Some("held"));
    assert!(status(&app).starts_with("held: → tools/call #4 (hold 1) · Ctrl-R sends"), "{}", status(&app));
    // Printable keys type: `q` neither quits nor closes.
    assert!(!press(&mut app, KeyCode::Char('q')).contains(&Effect::Quit));
    press(&mut app, KeyCode::Backspace);
    assert_eq!(lines(&ctrl(&mut app, 'r')), [json!({"send": 1})], "edited back to what it was: unchanged");
    assert_eq!(status(&app), "sent as it was: → tools/call #4");
    let log = app.server_pane().traffic();
    assert!(log.hold().editor().is_none());
    assert_eq!(log.hold().tag(log.selected_entry().unwrap()), Some("sending"));
    proxy(&mut app, ProxyMsg::Notice(Notice::Released { released: 1, how: Release::Sent }));
    let log = app.server_pane().traffic();
    assert_eq!((log.hold().held_count(), log.hold().tag(log.selected_entry().unwrap())), (0, Some("sent")));
}

#[test]
fn several_held_open_one_at_a_time_sent_as_edited_or_dropped() {
    let (mut app, mut feed) = attached();
    feed.pass(&mut app, Side::Client, call(4, "echo"), Some(2));
    feed.pass(&mut app, Side::Client, call(5, "echo"), Some(3));
    assert_eq!(app.server_pane().traffic().hold().held_count(), 2);
    assert_eq!(app.server_pane().traffic().hold().editor().map(|e| e.id()), Some(2), "the first held first");
    // The whole text typed anew.
    let typed = app.server_pane().traffic().hold().editor().unwrap().view().input().text().chars().count();
    for _ in 0..typed {
        press(&mut app, KeyCode::Backspace);
    }
    update(&mut app, Msg::Input(InputMsg::Paste(call(4, "shout").to_string())));
    let effects = ctrl(&mut app, 'r');
    assert_eq!(lines(&effects), [json!({"send": 2, "message": call(4, "shout")})]);
    assert!(
        status(&app).starts_with("sent as edited: → tools/call #4 · held: → tools/call #5 (hold 3)"),
        "{}",
        status(&app)
    );
    assert_eq!(app.server_pane().traffic().hold().editor().map(|e| e.id()), Some(3), "the next opens");
    assert_eq!(lines(&ctrl(&mut app, 'd')), [json!({"drop": 3})]);
    assert_eq!(status(&app), "dropped: the client is told (→ tools/call #5)");
}

#[test]
fn esc_leaves_it_held_enter_reopens_and_bad_json_is_not_sent() {
    let (mut app, mut feed) = attached();
    feed.pass(&mut app, Side::Server, json!({"jsonrpc": "2.0", "method": "notifications/progress"}), Some(7));
    press(&mut app, KeyCode::Char('}'));
    assert!(lines(&ctrl(&mut app, 'r')).is_empty());
    assert!(status(&app).starts_with("not sent: the message does not parse"), "{}", status(&app));
    assert!(app.server_pane().traffic().hold().editor().unwrap().view().error().is_some(), "shown in the editor");
    press(&mut app, KeyCode::Esc);
    assert!(app.server_pane().traffic().hold().editor().is_none());
    assert!(app.shows(Overlay::Traffic), "Esc leaves the editor, not the pane");
    assert_eq!(status(&app), "left held: Enter on it opens it again");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.server_pane().traffic().hold().editor().map(|e| e.id()), Some(7));
    assert_eq!(lines(&ctrl(&mut app, 'd')), [json!({"drop": 7})]);
    assert_eq!(status(&app), "dropped: not delivered (← notifications/progress (notification))");
}

#[test]
fn released_elsewhere_closes_the_editor_and_a_release_before_the_entry_is_kept() {
    let (mut app, mut feed) = attached();
    feed.pass(&mut app, Side::Client, call(4, "echo"), Some(1));
    proxy(&mut app, ProxyMsg::Notice(Notice::Released { released: 1, how: Release::Edited }));
    assert!(app.server_pane().traffic().hold().editor().is_none());
    assert_eq!(status(&app), "hold 1 was sent as edited by another watcher");
    // The notice can pass the entry on its way: it is not held then.
    proxy(&mut app, ProxyMsg::Notice(Notice::Released { released: 2, how: Release::Unattached }));
    feed.pass(&mut app, Side::Client, call(5, "echo"), Some(2));
    assert_eq!(app.server_pane().traffic().hold().held_count(), 0);
    assert!(app.server_pane().traffic().hold().editor().is_none());
    proxy(&mut app, ProxyMsg::Notice(Notice::Error { error: "no held message 9".into() }));
    assert_eq!(status(&app), "the proxy refused: no held message 9");
    proxy(&mut app, ProxyMsg::Ended);
    assert!(!app.server_pane().traffic().hold().attached());
}

/// After Esc, messages held later wait in the list instead of taking the keys (a client that
/// keeps calling would otherwise never let the person reach `B`); Enter on one opens it.
#[test]
fn after_esc_later_holds_wait_so_capital_b_can_be_reached() {
    let (mut app, mut feed) = attached();
    feed.pass(&mut app, Side::Client, call(4, "echo"), Some(1));
    press(&mut app, KeyCode::Esc);
    feed.pass(&mut app, Side::Client, call(5, "echo"), Some(2));
    assert!(app.server_pane().traffic().hold().editor().is_none(), "the second waits");
    assert_eq!(status(&app), "2 held · Enter on one opens it");
    proxy(&mut app, ProxyMsg::Notice(Notice::Breakpoints { breakpoints: vec![] }));
    let _ = press(&mut app, KeyCode::Char('B'));
    assert!(!status(&app).contains("held:"), "B is a command here, not typed: {}", status(&app));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.server_pane().traffic().hold().editor().map(|e| e.id()), Some(1), "Enter opens the selected one");
}
