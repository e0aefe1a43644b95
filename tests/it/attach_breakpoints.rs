//! Breakpoints in `tooldeck attach`, the app's side: the traffic pane drawn with the proxy's
//! breakpoints and a held message open in the JSON editor, and the real binary attached to a fake
//! proxy (a Unix socket in a runtime folder of the test's own that speaks the feed's protocol,
//! docs/proxy.md) writing `break`, `send`, `drop` and `clear` lines back to it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use tooldeck::app::{App, InputMsg, Msg, ProxyMsg, ServerMsg, update};
use tooldeck::invoke::mcp::traffic::Traffic;
use tooldeck::proxy::live::{Breakpoint, Marks, Notice};
use tooldeck::theme::Styles;
use tooldeck::wire::{Frame, Side};

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {"text": "hi"}}})
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

/// The pane of an attached session: the breakpoint the proxy says is set on the line under the
/// header, a message it held tagged `held` and open in the editor, with the keys that send it,
/// drop it or leave it held in the editor's title.
#[test]
fn the_traffic_pane_shows_breakpoints_and_a_held_message_in_the_editor() {
    let mut app = App::new(tooldeck::catalog::Catalog::default(), &[], (100, 30));
    let proxy = |app: &mut App, msg| update(app, Msg::Server(ServerMsg::Proxy(msg)));
    proxy(&mut app, ProxyMsg::Attached);
    let echo = Breakpoint { method: "tools/call".into(), tool: Some("echo".into()), from: Side::Client };
    proxy(&mut app, ProxyMsg::Notice(Notice::Breakpoints { breakpoints: vec![echo] }));
    let traffic = Traffic::default();
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    let pass = |message: Value, held: Option<u64>, ms: u64| {
        let mut frame =
            Frame::of_value(if message.get("method").is_some() { Side::Client } else { Side::Server }, message);
        frame.at = at + std::time::Duration::from_millis(ms);
        traffic.marked_frame(&frame, Marks { held, injected: None });
    };
    pass(call(1, "echo"), None, 0);
    pass(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "hi"}]}}), None, 12);
    let mut injected = Frame::of_value(
        Side::Server,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "injected"}}),
    );
    injected.at = at + std::time::Duration::from_millis(30);
    traffic.marked_frame(&injected, Marks { held: None, injected: Some("tools/call:error=-32000".into()) });
    pass(call(3, "echo"), Some(1), 41);
    update(&mut app, Msg::Server(ServerMsg::Traffic(traffic.since(0).0)));
    let shown = screen(&app, 100, 30);
    insta::assert_snapshot!("traffic_pane_held_100x30", shown);
    // Typing edits the message in place; the editor stays.
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE))));
    assert!(screen(&app, 100, 30).contains("}x"), "typed at the cursor");
}

#[cfg(target_os = "linux")]
#[path = "support/terminal.rs"]
#[allow(dead_code)]
mod terminal;

#[cfg(target_os = "linux")]
mod fake_proxy {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::sync::mpsc;
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::call;
    use super::terminal::{self, Terminal};

    /// A proxy as `tooldeck attach` sees one: its socket in `runtime`'s folder of proxies, its
    /// first line and recent lines, then what the test sends; what the watcher writes back comes
    /// out of `heard`, one JSON line each.
    struct FakeProxy {
        feed: mpsc::Sender<Value>,
        heard: mpsc::Receiver<Value>,
    }

    impl FakeProxy {
        fn start(runtime: &std::path::Path, name: &str) -> FakeProxy {
            use std::os::unix::fs::PermissionsExt;
            let folder = runtime.join("tooldeck").join("proxies");
            std::fs::create_dir_all(&folder).unwrap();
            for dir in [runtime.join("tooldeck"), folder.clone()] {
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
            }
            let path = folder.join(format!("{name}.sock"));
            let listener = UnixListener::bind(&path).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            let (feed, to_feed) = mpsc::channel::<Value>();
            let (hear, heard) = mpsc::channel::<Value>();
            let name = name.to_string();
            std::thread::spawn(move || {
                // The one watcher: the app.
                let Ok((stream, _)) = listener.accept() else { return };
                let reader = stream.try_clone().unwrap();
                std::thread::spawn(move || {
                    for line in BufReader::new(reader).lines().map_while(Result::ok) {
                        let _ = hear.send(serde_json::from_str(&line).unwrap_or(Value::String(line)));
                    }
                });
                let mut out: UnixStream = stream;
                let recent = [
                    json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}),
                    json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
                        {"name": "echo", "inputSchema": {"type": "object"}}]}}}),
                    json!({"breakpoints": []}),
                ];
                let about = json!({"tooldeck_proxy": 1, "name": name, "server": {"mcp": "fake-server"}, "pid": 1,
                    "since": "2025-01-01T00:00:00Z", "messages": 2, "backlog": recent.len()});
                for line in std::iter::once(about).chain(recent).chain(to_feed) {
                    if writeln!(out, "{line}").is_err() {
                        return;
                    }
                }
            });
            FakeProxy { feed, heard }
        }

        fn say(&self, line: Value) {
            self.feed.send(line).unwrap();
        }

        /// The next line the app wrote.
        fn next(&self) -> Value {
            self.heard.recv_timeout(Duration::from_secs(20)).expect("a control line from the app")
        }
    }

    /// The real binary attached to the fake proxy: `b` on a call asks for a breakpoint on its
    /// method and tool; a held message opens in the editor, Ctrl-R sends it, Ctrl-D drops the
    /// next; `B` clears the breakpoints.
    #[test]
    fn attach_writes_break_send_drop_and_clear_to_the_proxy() {
        let runtime = tempfile::tempdir().unwrap();
        let name = format!("bp-{}", std::process::id());
        let proxy = FakeProxy::start(runtime.path(), &name);
        let folder = runtime.path().display().to_string();
        let mut tui = Terminal::spawn(&["attach", name.as_str()], 40, 120, &[("XDG_RUNTIME_DIR", folder.as_str())]);
        tui.wait_for("the proxy's tool", |text| text.contains("echo"));
        proxy.say(json!({"from": "client", "message": call(2, "echo")}));
        tui.send("X");
        tui.wait_text("→ tools/call #2");
        tui.wait_text("breakpoints: none");
        tui.send("b");
        assert_eq!(proxy.next(), json!({"break": {"method": "tools/call", "tool": "echo", "from": "client"}}));
        proxy.say(json!({"breakpoints": [{"method": "tools/call", "tool": "echo", "from": "client"}]}));
        tui.wait_text("breakpoints: tools/call echo from client");
        proxy.say(json!({"from": "client", "message": call(3, "echo"), "held": 1}));
        tui.wait_text("held: → tools/call #3");
        tui.send(terminal::CTRL_R);
        assert_eq!(proxy.next(), json!({"send": 1}));
        proxy.say(json!({"released": 1, "as": "sent"}));
        proxy.say(json!({"from": "client", "message": call(4, "echo"), "held": 2}));
        tui.wait_text("held: → tools/call #4");
        tui.send("\x04");
        assert_eq!(proxy.next(), json!({"drop": 2}));
        tui.wait_text("dropped: the client is told");
        tui.send("B");
        assert_eq!(proxy.next(), json!({"clear": "breakpoints"}));
        tui.quit();
    }
}
