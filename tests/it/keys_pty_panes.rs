//! The new keys in a real terminal, against a server of our own: `a`/`d` on a multi-select in a
//! server's question, `b` on a resource, ↓ inside a result item taller than the pane, `o` on a
//! URL the server asks the person to visit when no browser can open it. The server is this test
//! binary run again (`TOOLDECK_KEYS_PANES_SERVER=1`), speaking MCP line by line over stdio.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

// Shared with keys_pty.rs, which uses the helpers this module does not (Esc, a form's row).
#[path = "support/terminal.rs"]
#[allow(dead_code)]
mod terminal;

use terminal::{CTRL_O, CTRL_R, ENTER, Terminal, bottom_line};

const SERVER_ENV: &str = "TOOLDECK_KEYS_PANES_SERVER";
const DOWN: &str = "\x1b[B";
const RIGHT: &str = "\x1b[C";
/// The secret in the URL the server asks to be visited: masked wherever it is shown.
const SECRET: &str = "s3cr3tvalue";
/// Rows of the tall result item.
const TALL_ROWS: usize = 120;

/// Not a test: the stdio MCP server `server_command` starts (does nothing in a normal run).
#[test]
fn keys_panes_server_mode() {
    if std::env::var_os(SERVER_ENV).is_none() {
        return;
    }
    let mut out = std::io::stdout();
    // libtest wrote "test ... " without a newline: the first message starts a line of its own.
    let _ = out.write_all(b"\n").and_then(|()| out.flush());
    let mut send = |value: Value| {
        let _ = out.write_all(format!("{value}\n").as_bytes()).and_then(|()| out.flush());
    };
    let mut call_id = Value::Null;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let message: Value = serde_json::from_str(line.trim()).unwrap_or_default();
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let reply = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => send(reply(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "resources": {"subscribe": true}},
                "serverInfo": {"name": "panes", "version": "1"}}))),
            Some("tools/list") => send(reply(json!({"tools": [
                {"name": "pick", "description": "asks for colours", "inputSchema": {"type": "object"}},
                {"name": "visit", "description": "asks to visit a page", "inputSchema": {"type": "object"}},
                {"name": "tall", "description": "one tall text item", "inputSchema": {"type": "object"}}]}))),
            Some("resources/list") => send(reply(json!({"resources": [
                {"uri": "test://notes", "name": "notes", "mimeType": "text/plain"}]}))),
            Some("resources/templates/list") => send(reply(json!({"resourceTemplates": []}))),
            Some("resources/read") => send(reply(json!({"contents": [
                {"uri": "test://notes", "mimeType": "text/plain", "text": "the notes"}]}))),
            Some("resources/subscribe") => {
                send(reply(json!({})));
                send(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                    "params": {"uri": "test://notes"}}));
            }
            Some("resources/unsubscribe") => send(reply(json!({}))),
            Some("tools/call") => match message["params"]["name"].as_str() {
                Some("pick") => {
                    call_id = id;
                    send(json!({"jsonrpc": "2.0", "id": "ask-pick", "method": "elicitation/create", "params": {
                        "mode": "form", "message": "Which colours?",
                        "requestedSchema": {"type": "object", "properties": {
                            "colours": {"type": "array", "items": {"type": "string", "enum": ["red", "green", "blue"]}}}}}}));
                }
                Some("visit") => {
                    call_id = id;
                    send(json!({"jsonrpc": "2.0", "id": "ask-visit", "method": "elicitation/create", "params": {
                        "mode": "url", "message": "Sign in on the page", "elicitationId": "e1",
                        "url": format!("https://example.com/login?secret={SECRET}")}}));
                }
                _ => {
                    let rows: Vec<String> = (1..=TALL_ROWS).map(|i| format!("row {i} of the tall item")).collect();
                    let text = format!("{}\nEND OF THE ITEM", rows.join("\n"));
                    send(reply(json!({"content": [{"type": "text", "text": text}]})));
                }
            },
            Some(_) if !id.is_null() => {
                send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}))
            }
            Some(_) => {}
            // An answer to a question: said back as the call's result.
            None => {
                let answer = message.get("result").cloned().unwrap_or_default();
                let text = format!("answered {}: {}", id, answer);
                send(json!({"jsonrpc": "2.0", "id": std::mem::take(&mut call_id), "result": {
                    "content": [{"type": "text", "text": text}]}}));
            }
        }
    }
    std::process::exit(0);
}

fn server_command() -> String {
    let exe = std::env::current_exe().expect("the test binary");
    format!(
        "env {SERVER_ENV}=1 '{}' --exact keys_pty_panes::keys_panes_server_mode --nocapture --test-threads=1",
        exe.display()
    )
}

/// An escape sequence sent whole (typed slowly, its ESC alone would be Esc), then a pause.
fn press(tui: &mut Terminal, keys: &str) {
    tui.send(keys);
    std::thread::sleep(std::time::Duration::from_millis(60));
}

fn open(rows: u16, cols: u16, tool: &str, env: &[(&str, &str)]) -> Terminal {
    let command = server_command();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str()], rows, cols, env);
    tui.wait_for("the server's tools", |text| text.contains("tall") && text.contains("notes"));
    tui.send(&format!("/{tool}"));
    tui.wait_text(&format!("/{tool}"));
    tui.send(ENTER);
    tui
}

/// `a` adds an item to a multi-select (→ chooses its value), `d` drops one; Enter sends the
/// list the person made.
#[cfg(unix)]
#[test]
fn a_and_d_make_a_multi_select_in_a_servers_question() {
    let mut tui = open(40, 120, "pick", &[]);
    tui.wait_text("┌ pick");
    tui.send(CTRL_R);
    tui.wait_text("Which colours?");
    // Two items: red, then green; a third, blue, dropped again.
    tui.type_slowly("a");
    press(&mut tui, RIGHT);
    tui.wait_text("red");
    tui.type_slowly("a");
    press(&mut tui, RIGHT);
    press(&mut tui, RIGHT);
    tui.wait_text("green");
    tui.type_slowly("a");
    press(&mut tui, RIGHT);
    press(&mut tui, RIGHT);
    press(&mut tui, RIGHT);
    tui.wait_text("blue");
    tui.type_slowly("d");
    tui.wait_for("blue dropped", |text| !text.contains("blue"));
    tui.send(ENTER);
    let screen = tui.wait_text("answered \"ask-pick\"");
    assert!(screen.contains(r#""colours":["red","green"]"#), "{screen}");
    tui.quit();
}

/// `b` on a resource subscribes (the server's answer or its first update is said); `b` again
/// unsubscribes.
#[cfg(unix)]
#[test]
fn b_subscribes_to_the_selected_resource() {
    let mut tui = open(40, 120, "notes", &[]);
    tui.wait_text("┌ notes");
    tui.type_slowly("b");
    // The server sends an update at once: its notice may follow the answer's before a frame.
    let screen = tui.wait_for("the subscription", |text| {
        let said = bottom_line(text);
        said.contains("subscribed to test://notes") || said.contains("test://notes updated at")
    });
    assert!(!screen.contains("\"b"), "b is a command, never text: {screen}");
    tui.type_slowly("b");
    tui.wait_text("unsubscribed from test://notes");
    tui.quit();
}

/// At 80x24 a text item far taller than the result pane reads to its last row with ↓ alone.
#[cfg(unix)]
#[test]
fn down_reads_a_tall_item_to_its_end_at_80x24() {
    let mut tui = open(24, 80, "tall", &[]);
    tui.wait_text("┌ tall");
    tui.send(CTRL_R);
    tui.wait_text("row 1 of the tall item");
    tui.send(CTRL_O);
    let mut seen = String::new();
    for _ in 0..(TALL_ROWS + 10) {
        tui.send(DOWN);
        seen = tui.text();
        if seen.contains("END OF THE ITEM") {
            break;
        }
    }
    let screen = tui.wait_text("END OF THE ITEM");
    assert!(screen.contains(&format!("row {TALL_ROWS} of the tall item")), "{seen}\n{screen}");
    tui.quit();
}

/// `o` on a URL the server asks the person to visit, with no browser to open it: the person is
/// told, and given the link with its secret masked (the one redact rule).
#[cfg(unix)]
#[test]
fn o_on_a_url_question_without_a_browser_says_so_and_shows_the_link() {
    let mut tui = open(40, 120, "visit", &[("BROWSER", "false")]);
    tui.wait_text("┌ visit");
    tui.send(CTRL_R);
    let asked = tui.wait_text("Sign in on the page");
    assert!(!asked.contains(SECRET), "the link is shown masked: {asked}");
    tui.type_slowly("o");
    let screen = tui.wait_for("feedback on o", |text| bottom_line(text).contains("open the link yourself"));
    assert!(screen.contains("example.com/login"), "the link is given: {screen}");
    assert!(!screen.contains(SECRET), "its secret masked: {screen}");
    tui.quit();
}
