//! A new user's flows in the real binary: typing into a field chosen with Enter, a filter opened
//! with one Enter, and a case saved against a real MCP server that `tooldeck test` then passes as it
//! is. The MCP server is this test binary run again with rmcp's server side
//! (`TOOLDECK_PTY_MCP_SERVER=1`).

use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Value, json};

use super::*;

const SERVER_ENV: &str = "TOOLDECK_PTY_MCP_SERVER";

/// One tool, `add`: enough for a call whose value a case can expect.
#[derive(Debug, Clone, Default)]
struct Adder;

impl ServerHandler for Adder {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"]
        });
        let schema = Arc::new(schema.as_object().cloned().unwrap_or_default());
        Ok(ListToolsResult::with_all_items(vec![Tool::new("add", "Adds two numbers", schema)]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let number = |key: &str| arguments.get(key).and_then(Value::as_f64);
        let result = match (number("a"), number("b")) {
            (Some(a), Some(b)) => CallToolResult::success(vec![ContentBlock::text(format!("{}", a + b))]),
            _ => CallToolResult::error(vec![ContentBlock::text("a and b must be numbers")]),
        };
        Ok(result.into())
    }
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn pty_mcp_server_mode() {
    if std::env::var(SERVER_ENV).is_err() {
        return;
    }
    // libtest wrote "test ... " without a newline: the first message starts a line of its own.
    {
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(b"\n").and_then(|()| stdout.flush());
    }
    let server = Adder.serve(rmcp::transport::stdio()).await.expect("serve stdio");
    let _ = server.waiting().await;
    std::process::exit(0);
}

/// The command line that runs this test binary as the stdio MCP server.
fn server_command() -> String {
    let exe = std::env::current_exe().expect("the test binary");
    format!(
        "env {SERVER_ENV}=1 '{}' --exact pty::flows::pty_mcp_server_mode --nocapture --test-threads=1",
        exe.display()
    )
}

/// `/write` then one Enter opens Write File (the best match, not the first tool); Enter chooses
/// its text field and the letters then type into it.
#[test]
fn filter_then_one_enter_then_type_into_the_field() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);
    open_tool(&mut tui, "write");
    tui.wait_text("┌ Write File");
    tui.send(ENTER);
    tui.send("notes.txt");
    tui.wait_for("the path typed into its field", TIMEOUT, |text| {
        text.lines().any(|line| is_field_row(line, "path*") && line.contains("notes.txt"))
    });
    // Ctrl-U deletes back to the start, still editing; Esc leaves the box.
    tui.send("\x15");
    tui.wait_for("the field emptied", TIMEOUT, |text| {
        text.lines().any(|line| is_field_row(line, "path*") && !line.contains("notes.txt"))
    });
    tui.send("\x1b");
    tui.wait_for("editing done", TIMEOUT, |text| !bottom_line(text).contains("Esc/Enter done"));
    quit_restored(&mut tui, CTRL_C);
}

/// Against a real MCP server: fill the form by typing, run from the field (which ends the edit),
/// save the call as a case, and `tooldeck test` passes the saved file as it is.
#[test]
fn a_case_saved_against_an_mcp_server_passes_tooldeck_test() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let cases = folder.path().join("cases.yaml");
    let command = server_command();
    let mut tui = Tui::spawn(&["--mcp", command.as_str()]);
    tui.wait_for("the server's tool", TIMEOUT, |text| text.contains("› add"));
    open_tool(&mut tui, "add");
    tui.wait_text("┌ add");
    tui.send(ENTER);
    tui.send("2");
    tui.send(DOWN);
    tui.send(ENTER);
    tui.send("40");
    // Ctrl-R while still typing in b: it runs, and what was typed stays.
    tui.wait_for("a valid form", TIMEOUT, |text| bottom_line(text).contains("ready"));
    tui.send("\x12");
    tui.wait_text("● value");
    let screen = tui.wait_text("42");
    assert!(screen.lines().any(|l| is_field_row(l, "b*") && l.contains("40")), "{screen}");
    // The run ended the edit; Esc leaves the form: on the list, S saves the call as a case.
    tui.wait_for("editing done", TIMEOUT, |text| !bottom_line(text).contains("Esc/Enter done"));
    tui.send("\x1b");
    tui.wait_for("the list", TIMEOUT, |text| bottom_line(text).contains("/ filter"));
    tui.send("S");
    tui.wait_text("append test cases to");
    // The prompt takes the text boxes' keys: Ctrl-U clears it.
    tui.send("\x15");
    tui.send(cases.to_str().expect("a UTF-8 path"));
    tui.send(ENTER);
    let screen = tui.wait_text("case saved to");
    assert!(screen.contains("runs it"), "the command to run it: {screen}");
    quit_restored(&mut tui, CTRL_C);

    let text = std::fs::read_to_string(&cases).expect("the case file was written");
    assert!(text.contains("mcp: \"env TOOLDECK_PTY_MCP_SERVER=1"), "the server is named: {text}");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["test", cases.to_str().expect("a UTF-8 path")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TOOLDECK_HISTORY", folder.path().join("history.jsonl"))
        .output()
        .expect("tooldeck test runs");
    let said = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "tooldeck test {}: {said}\n{text}", cases.display());
    assert!(said.contains("1 passed, 0 failed"), "{said}");
}
