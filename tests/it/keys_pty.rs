//! The keyboard model in a real terminal (see docs/keys.md): letters type only into a field the
//! person chose with Enter; elsewhere they are commands, and a command never lands in a field.
//! Each test replays a sequence that once left text where nobody meant it. The MCP server is this
//! test binary run again with rmcp's server side (`TOOLDECK_KEYS_PTY_SERVER=1`).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Value, json};

#[path = "support/terminal.rs"]
mod terminal;

use terminal::{CTRL_O, CTRL_R, ENTER, ESC, Terminal, bottom_line, field_row};

const SERVER_ENV: &str = "TOOLDECK_KEYS_PTY_SERVER";

/// One tool, `echo`, that answers with its text and the number of the call.
#[derive(Debug, Clone, Default)]
struct Echo {
    calls: Arc<AtomicUsize>,
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let schema = Arc::new(schema.as_object().cloned().unwrap_or_default());
        Ok(ListToolsResult::with_all_items(vec![Tool::new("echo", "Says the text back", schema)]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let text = request.arguments.unwrap_or_default().get("text").and_then(Value::as_str).unwrap_or("").to_string();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("call {n}: {text}"))]).into())
    }
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn keys_pty_mcp_server_mode() {
    if std::env::var(SERVER_ENV).is_err() {
        return;
    }
    // libtest wrote "test ... " without a newline: the first message starts a line of its own.
    {
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(b"\n").and_then(|()| stdout.flush());
    }
    let server = Echo::default().serve(rmcp::transport::stdio()).await.expect("serve stdio");
    let _ = server.waiting().await;
    std::process::exit(0);
}

fn server_command() -> String {
    let exe = std::env::current_exe().expect("the test binary");
    format!(
        "env {SERVER_ENV}=1 '{}' --exact keys_pty::keys_pty_mcp_server_mode --nocapture --test-threads=1",
        exe.display()
    )
}

/// A text field once read `helloxRr` after "r tries again · R restarts": `r`, Esc, `R`, `r` typed
/// into it and nothing reconnected. Now each is the command it names, and the field keeps "hello".
#[cfg(unix)]
#[test]
fn hello_then_r_esc_capital_r_r_are_commands_not_text() {
    let command = server_command();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str()], 40, 120, &[]);
    tui.wait_for("the server's tool", |text| text.contains("› echo"));
    tui.send("/echo");
    tui.wait_text("/echo");
    tui.send(ENTER);
    tui.wait_text("┌ echo");
    // A letter on a field nobody chose to type into is a command (here: nothing to show yet).
    tui.type_slowly("x");
    let screen = tui.wait_for("x as a command", |text| bottom_line(text).contains("no result yet"));
    assert!(field_row(&screen, "text*").is_some_and(|row| !row.contains("\"x")), "{screen}");
    // Enter chooses the field; then every printable key types, a leading space included.
    tui.send(ENTER);
    tui.type_slowly(" hello");
    tui.send(ENTER);
    tui.wait_for("the text in its field", |text| field_row(text, "text*").is_some_and(|r| r.contains("\" hello\"")));
    tui.send(CTRL_R);
    tui.wait_text("call 1:  hello");
    tui.send(CTRL_O);
    tui.type_slowly("r");
    tui.wait_text("call 2:  hello");
    tui.type_slowly(ESC);
    tui.type_slowly("R");
    tui.wait_text("reconnected to");
    tui.type_slowly("r");
    let screen = tui.wait_text("call 1:  hello");
    let row = field_row(&screen, "text*").unwrap_or_default();
    assert!(row.contains("\" hello\"") && !row.contains("Rr") && !row.contains("hellor"), "{screen}");
    tui.quit();
}

/// After `t`, Esc, `S`, a path and Enter, the path once landed in the `query` field. Now `S`
/// saves, the path goes to the case-file prompt, and the field stays empty.
#[cfg(unix)]
#[test]
fn token_prompt_closed_then_save_puts_the_path_in_the_prompt() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let cases = folder.path().join("gmail-cases.yaml");
    let mut tui = Terminal::spawn::<&str>(&[], 40, 120, &[]);
    tui.wait_text("Show Map at Address and Zoom");
    tui.send("/Gmail.List");
    tui.wait_text("/Gmail.List");
    tui.send(ENTER);
    tui.wait_text("Gmail_ListEmails");
    tui.send(CTRL_R);
    tui.wait_text("requires_authorization");
    tui.type_slowly("t");
    tui.wait_text("type the token");
    tui.type_slowly(ESC);
    tui.wait_for("the prompt closed", |text| !text.contains("type the token"));
    tui.type_slowly("S");
    tui.wait_text("append test cases to");
    tui.send(cases.to_str().expect("a UTF-8 path"));
    tui.send(ENTER);
    let screen = tui.wait_text("case saved to");
    let query = field_row(&screen, "query").unwrap_or_default();
    assert!(!query.contains("gmail-cases"), "the path is not in the query field:\n{screen}");
    let text = std::fs::read_to_string(&cases).expect("the case file was written");
    assert!(text.contains("Gmail.ListEmails"), "{text}");
    tui.quit();
}
