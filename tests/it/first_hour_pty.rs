//! What a newcomer's first hour tripped on, replayed in a real terminal on the real binary: each
//! test is a sequence that once did the wrong thing or said nothing (the app-level tests of the
//! same fixes go through `update`; these check the keys as a terminal sends them).

use serde_json::{Value, json};

// The PTY harness; this file uses only part of it.
#[allow(dead_code)]
#[path = "support/terminal.rs"]
mod terminal;

use terminal::{CTRL_R, ENTER, ESC, Terminal, bottom_line, field_row};

const CTRL_F: &str = "\x06";
const F6: &str = "\x1b[17~";

/// The list's filter, then the tool's form.
fn open(tui: &mut Terminal, name: &str) {
    tui.send(&format!("/{name}"));
    tui.wait_text(&format!("/{name}"));
    tui.send(ENTER);
    tui.wait_for("the form", |text| bottom_line(text).contains(" edit "));
}

/// Ctrl-F from a form searches the list; Esc returns to the form it came from (it once left the
/// person on the list, against "closing a view returns you to where you were").
#[test]
fn ctrl_f_then_esc_from_a_form_returns_to_it() {
    let mut tui = Terminal::spawn::<&str>(&[], 40, 120, &[]);
    tui.wait_text("Customer letter");
    open(&mut tui, "sum");
    tui.send(CTRL_F);
    tui.type_slowly("sub");
    tui.wait_for("the search typed", |text| text.contains("sub"));
    // Alone, so that the terminal does not read it as Alt with the next key.
    tui.type_slowly(ESC);
    let screen = tui.wait_for("the form again", |text| bottom_line(text).contains(" edit "));
    assert!(!bottom_line(&screen).contains("quit"), "not the list's hints:\n{screen}");
    tui.quit();
}

/// F6 (run the last call again) before any call says why nothing happens, and what does.
#[test]
fn f6_with_no_call_yet_says_so() {
    let mut tui = Terminal::spawn::<&str>(&[], 40, 120, &[]);
    tui.wait_text("Customer letter");
    tui.send(F6);
    let screen = tui.wait_text("no call to run again yet");
    assert!(bottom_line(&screen).contains("Ctrl-R runs the form"), "{screen}");
    tui.quit();
}

/// Servers stand in the list in the order they were named, whatever their transport.
#[test]
fn server_groups_stand_in_the_order_named() {
    let args = ["--mcp", "nonexistent-alpha", "--mcp-url", "http://127.0.0.1:9/mcp", "--mcp", "nonexistent-beta"];
    let mut tui = Terminal::spawn(&args, 40, 120, &[]);
    let screen = tui.wait_for("three groups", |text| text.contains("nonexistent-beta") && text.contains(":9/mcp"));
    let row = |needle: &str| screen.lines().position(|line| line.contains(&format!("server {needle}")));
    let (alpha, url, beta) =
        (row("mcp:stdio nonexistent-alpha"), row("http://127.0.0.1:9/mcp"), row("mcp:stdio nonexistent-beta"));
    assert!(alpha.is_some() && alpha < url && url < beta, "A, U, B:\n{screen}");
    assert!(screen.contains("not connected: R tries again"), "an entry not connected says R tries again:\n{screen}");
    tui.quit();
}

/// A bound the schema excludes is shown excluded (`> 0`), not as a range that seems to take 0.
#[test]
fn an_exclusive_bound_reads_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("thermo.json");
    let tool = json!([{"type": "function", "function": {"name": "set_heat", "description": "Sets the heat",
        "parameters": {"type": "object", "properties": {
            "celsius": {"type": "number", "exclusiveMinimum": 0, "maximum": 70}}}}}]);
    std::fs::write(&file, tool.to_string()).unwrap();
    let path = file.display().to_string();
    let mut tui = Terminal::spawn(&[path.as_str()], 40, 120, &[]);
    tui.wait_text("set_heat");
    open(&mut tui, "set_heat");
    let screen = tui.wait_for("the bound", |text| field_row(text, "celsius").is_some());
    let row = field_row(&screen, "celsius").unwrap_or_default();
    assert!(row.contains("> 0 · ≤ 70") && !row.contains("0…70"), "{screen}");
    tui.quit();
}

/// `tooldeck attach FILE` with no server named: Ctrl-R on the recorded tool says to name one
/// (it once said nothing, or "relative URL without a base").
#[test]
fn a_record_with_no_server_says_to_name_one() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let lines = [
        json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}),
        json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "ping_host", "inputSchema": {"type": "object", "properties": {}}}]}}}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&record, text.join("\n")).unwrap();
    let path = record.display().to_string();
    let mut tui = Terminal::spawn(&["attach", path.as_str()], 40, 120, &[]);
    tui.wait_text("ping_host");
    tui.send(ENTER);
    tui.send(CTRL_R);
    let screen = tui.wait_text("names no server");
    assert!(screen.contains("--mcp, --mcp-url or --server"), "{screen}");
    assert!(!screen.contains("relative URL"), "{screen}");
    tui.quit();
}
