//! The keyboard model in a real terminal (see docs/keys.md): on the form a printable key is text
//! (it types into the field under the cursor, or says how the row is edited); in the list, the
//! result and the panes over them letters are commands, and a command never lands in a field.
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
        let object = |schema: Value| Arc::new(schema.as_object().cloned().unwrap_or_default());
        let echo = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let sum = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]});
        let ship = json!({"type": "object", "properties": {
            "ship_to": {"type": "object", "properties": {"name": {"type": "string"}, "street": {"type": "string"}}},
            "note": {"type": "string"}
        }});
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("echo", "Says the text back", object(echo)),
            Tool::new("get-sum", "Adds two numbers", object(sum)).with_title("Get Sum"),
            Tool::new("ship", "Ships a parcel", object(ship)),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let arguments = request.arguments.unwrap_or_default();
        if request.name == "get-sum" {
            let number = |name: &str| arguments.get(name).and_then(Value::as_f64).unwrap_or(f64::NAN);
            let sum = number("a") + number("b");
            return Ok(
                CallToolResult::success(vec![ContentBlock::text(format!("The sum of a and b is {sum}."))]).into()
            );
        }
        let text = arguments.get("text").and_then(Value::as_str).unwrap_or("").to_string();
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

/// The list's filter, then the tool's form.
fn open(tui: &mut Terminal, name: &str) {
    tui.send(&format!("/{name}"));
    tui.wait_text(&format!("/{name}"));
    tui.send(ENTER);
    // The form's hints start with how its row is edited.
    tui.wait_for("the form", |text| bottom_line(text).contains(" edit "));
}

/// On the form a printable key is text: on a text row it starts the edit (a leading space
/// included). In the result pane letters are commands (`r` again, `R` restarts), and back on the
/// form the next letter is typed where the person left off, never taken as a command.
#[cfg(unix)]
#[test]
fn letters_type_on_the_form_and_are_commands_in_the_result() {
    let command = server_command();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str()], 40, 120, &[]);
    tui.wait_for("the server's tools", |text| text.contains("echo") && text.contains("ship"));
    open(&mut tui, "echo");
    tui.type_slowly(" hello");
    tui.send(ENTER);
    tui.wait_for("the text in its field", |text| field_row(text, "text*").is_some_and(|r| r.contains("\" hello\"")));
    tui.send(CTRL_R);
    tui.wait_text("call 1:  hello");
    tui.send(CTRL_O);
    tui.type_slowly("r");
    tui.wait_text("call 2:  hello");
    tui.type_slowly("R");
    tui.wait_text("reconnected to");
    tui.type_slowly("r");
    tui.wait_text("call 1:  hello");
    tui.type_slowly(ESC);
    tui.type_slowly("Rr");
    tui.send(ENTER);
    let screen =
        tui.wait_for("the letters typed", |text| field_row(text, "text*").is_some_and(|r| r.contains("\" helloRr\"")));
    assert!(!screen.contains("reconnecting"), "R was typed, not a command:\n{screen}");
    tui.quit();
}

/// The web-form habit: Enter `2` Tab `3` Ctrl-R on Get Sum sends a = 2 and b = 3 (Tab goes on
/// editing the next field; it once left b empty and said "3 does nothing here").
#[cfg(unix)]
#[test]
fn enter_2_tab_3_ctrl_r_on_get_sum_gives_5() {
    let command = server_command();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str()], 40, 120, &[]);
    tui.wait_for("the server's tools", |text| text.contains("Get Sum"));
    open(&mut tui, "get-sum");
    tui.send(ENTER);
    tui.send("2");
    tui.send("\t");
    tui.send("3");
    tui.wait_for("both numbers", |text| bottom_line(text).contains("ready"));
    tui.send(CTRL_R);
    let screen = tui.wait_text("The sum of a and b is 5.");
    assert!(field_row(&screen, "b*").is_some_and(|row| row.contains('3')), "{screen}");
    tui.quit();
}

/// On a group row (`ship_to`, where Enter folds) typing words fires nothing: no fold, no pane,
/// no command; the status line says how the row is edited.
#[cfg(unix)]
#[test]
fn typing_words_on_a_group_row_fires_nothing() {
    let command = server_command();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str()], 40, 120, &[]);
    tui.wait_for("the server's tools", |text| text.contains("ship"));
    open(&mut tui, "ship");
    let before = tui.wait_for("the group row", |text| field_row(text, "ship_to").is_some());
    let folded = field_row(&before, "name").is_none();
    tui.type_slowly("Bob 2 High St iCXSZqz");
    let screen = tui.wait_for("the hint", |text| bottom_line(text).contains("ship_to takes no text"));
    assert!(bottom_line(&screen).contains("Enter folds or unfolds it"), "{screen}");
    assert_eq!(field_row(&screen, "name").is_none(), folded, "nothing folded or unfolded:\n{screen}");
    for opened in ["server pane", "traffic", "append test cases", "fuzz", "connect"] {
        assert!(!screen.to_lowercase().contains(opened), "{opened} opened:\n{screen}");
    }
    assert!(field_row(&screen, "note").is_some_and(|row| !row.contains("Bob")), "{screen}");
    tui.quit();
}

/// Ctrl-J opens the JSON view and Ctrl-J closes it, from inside it: it once opened it again,
/// and the view followed the person to every tool.
#[cfg(unix)]
#[test]
fn ctrl_j_twice_leaves_no_json_view() {
    const CTRL_J: &str = "\n";
    let command = server_command();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str()], 24, 80, &[]);
    tui.wait_for("the server's tools", |text| text.contains("echo"));
    open(&mut tui, "echo");
    tui.send(CTRL_J);
    tui.wait_text("JSON · editing");
    tui.send(CTRL_J);
    tui.wait_for("the JSON view closed", |text| !text.contains("JSON"));
    // Alone, so that the terminal does not read it as Alt with the next key.
    tui.type_slowly(ESC);
    tui.wait_for("the list", |text| bottom_line(text).contains("quit"));
    open(&mut tui, "ship");
    let screen = tui.wait_for("the ship form", |text| field_row(text, "ship_to").is_some());
    assert!(!screen.contains("JSON"), "the view does not follow to the next tool:\n{screen}");
    tui.quit();
}

/// After Ctrl-T, Esc, Ctrl-S, a path and Enter, the path goes to the case-file prompt (typing
/// replaces the suggested file name) and the `query` field stays empty.
#[cfg(unix)]
#[test]
fn token_prompt_closed_then_save_puts_the_path_in_the_prompt() {
    const CTRL_S: &str = "\x13";
    const CTRL_T: &str = "\x14";
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
    tui.send(CTRL_T);
    tui.wait_text("type the token");
    tui.type_slowly(ESC);
    tui.wait_for("the prompt closed", |text| !text.contains("type the token"));
    tui.send(CTRL_S);
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

/// A config naming the test server twice, as `alpha` and `beta` (two copies of one server), and
/// `down` at `down_url`; the `--config` argument.
fn two_copies_config(dir: &std::path::Path, down_url: &str) -> String {
    let command = server_command();
    let config = dir.join("config.toml");
    let text = format!(
        "[endpoints.alpha]\nmcp = {command:?}\n[endpoints.beta]\nmcp = {command:?}\n[endpoints.down]\nmcp_url = {down_url:?}\n"
    );
    std::fs::write(&config, text).expect("the config is written");
    config.display().to_string()
}

/// Two copies of one server are two sessions: both lists show, a call goes to the copy whose
/// tool it is, and its result keeps naming that copy when the cursor moves onto the other's tools.
#[cfg(unix)]
#[test]
fn two_copies_of_one_server_list_both_and_a_result_keeps_its_server() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = two_copies_config(dir.path(), "http://127.0.0.1:9/mcp");
    let args = ["--config", config.as_str(), "--server", "alpha", "--server", "beta"];
    let home = dir.path().display().to_string();
    let mut tui = Terminal::spawn(&args, 40, 120, &[("TOOLDECK_CLIENTS_HOME", home.as_str())]);
    tui.wait_for("both servers' tools", |text| {
        text.contains("server alpha") && text.contains("server beta") && text.matches("Get Sum").count() == 2
    });
    // beta's echo: the last group's first tool.
    tui.send("\x1b[F");
    tui.type_slowly("kk");
    tui.send(ENTER);
    tui.wait_for("the form", |text| bottom_line(text).contains(" edit "));
    tui.type_slowly("hi");
    tui.send(CTRL_R);
    tui.wait_text("call 1: hi");
    tui.type_slowly(ESC);
    tui.type_slowly(ESC);
    tui.wait_for("the list", |text| bottom_line(text).contains("Enter form"));
    // Up past beta's header to alpha's echo (k in the list, where letters are commands).
    tui.type_slowly("kkk");
    let screen = tui.wait_for("alpha's echo selected", |text| text.contains("echo · mcp · server alpha"));
    let line = screen.lines().find(|l| l.contains(" ms · call ")).unwrap_or_default();
    assert!(line.contains("beta") && !line.contains("alpha"), "the result names beta:\n{screen}");
    tui.quit();
}

/// A server that is down when tooldeck starts stays in the list, its reason in its pane; once
/// it is up, `R` connects it and its tools take the entry's place.
#[cfg(unix)]
#[test]
fn a_server_down_at_start_stays_listed_and_is_retried_once_it_is_up() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = two_copies_config(dir.path(), &format!("http://127.0.0.1:{port}/mcp"));
    let home = dir.path().display().to_string();
    let args = ["--config", config.as_str(), "--server", "down"];
    let mut tui = Terminal::spawn(&args, 40, 120, &[("TOOLDECK_CLIENTS_HOME", home.as_str())]);
    tui.wait_for("the entry that stands for it", |text| text.contains("server down") && text.contains("not connected"));
    tui.type_slowly("i");
    tui.wait_text("could not be listed");
    tui.type_slowly(ESC);
    tui.wait_for("the list again", |text| text.contains("not connected") && !text.contains("could not be listed"));

    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime");
    let service = StreamableHttpService::new(
        || Ok(Echo::default()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = runtime.block_on(tokio::net::TcpListener::bind(("127.0.0.1", port))).expect("the port again");
    runtime.spawn(async move { axum::serve(listener, router).await });

    tui.type_slowly("R");
    let screen = tui.wait_for("its tools", |text| text.contains("Get Sum") && !text.contains("not connected"));
    assert!(screen.contains("server down"), "{screen}");
    tui.quit();
}
