//! Trust, round three, what tooldeck writes: every `--json` output and every JSON file escapes C1
//! controls and bidi marks (a hostile MCP server on 127.0.0.1 puts U+009B and U+202E in every
//! name, description and text), and a `${VAR}` expanded into a config server's URL or arguments
//! is a secret wherever it lands (stderr, `--json`, fuzz reports, saved cases, the app's screen
//! and the history).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::{Value, json};

#[path = "support/terminal.rs"]
#[allow(dead_code)]
mod terminal;

/// A CSI introducer (a terminal that honours C1 controls obeys what follows) and a right-to-left
/// override (it reorders the rest of the line).
const HOSTILE: &str = "evil\u{9b}31m\u{202e}txt";
const SECRET: &str = "s3cr3t-QX7wz";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime")
}

/// An MCP server over Streamable HTTP (JSON answers) whose every name, description and text holds
/// [`HOSTILE`]; `echo` answers "pong", `refuse` always fails with an internal error (a fuzz
/// finding: a plain refusal of every input reads as the tool's domain). Its URL.
fn hostile_server(runtime: &tokio::runtime::Runtime) -> String {
    let handler = |axum::Json(message): axum::Json<Value>| async move {
        let Some(id) = message.get("id").cloned() else { return StatusCode::ACCEPTED.into_response() };
        let no_args = json!({"type": "object", "properties": {}});
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                "serverInfo": {"name": HOSTILE, "version": "1"}
            }),
            "tools/list" => json!({"tools": [
                {"name": "echo", "description": HOSTILE, "inputSchema": no_args},
                {"name": "refuse", "description": "always fails", "inputSchema": no_args, "annotations": {"readOnlyHint": true}}
            ]}),
            "tools/call" if message["params"]["name"] == "refuse" => {
                json!({"content": [{"type": "text", "text": "TypeError: cannot read properties of undefined"}], "isError": true})
            }
            "tools/call" => json!({"content": [{"type": "text", "text": "pong"}]}),
            "resources/list" => {
                json!({"resources": [{"uri": "test://x", "name": HOSTILE, "description": HOSTILE, "mimeType": "text/plain"}]})
            }
            "resources/templates/list" => {
                json!({"resourceTemplates": [{"uriTemplate": "test://t/{id}", "name": HOSTILE}]})
            }
            "resources/read" => json!({"contents": [{"uri": "test://x", "mimeType": "text/plain", "text": HOSTILE}]}),
            "prompts/list" => json!({"prompts": [
                {"name": "p", "description": HOSTILE, "arguments": [{"name": "a", "description": HOSTILE}]}
            ]}),
            "prompts/get" => json!({"description": HOSTILE, "messages": [
                {"role": "user", "content": {"type": "text", "text": HOSTILE}}
            ]}),
            _ => json!({}),
        };
        let mut response = axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response();
        response.headers_mut().insert("mcp-session-id", "s-1".parse().expect("header"));
        response
    };
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let router = axum::Router::new().route("/mcp", axum::routing::post(handler));
    runtime.spawn(async move { axum::serve(listener, router).await });
    url
}

/// A port nothing listens on: bound, then let go.
fn dead_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

/// A fake home whose Cursor config names `dead` (a URL on a dead port), `live` (the hostile
/// server) and `cmd` (a command that does not exist), each with `${SECRET}` in its URL or
/// arguments; and a project folder to run in.
struct Fixture {
    root: tempfile::TempDir,
}

impl Fixture {
    fn new(live: &str) -> Fixture {
        let root = tempfile::tempdir().expect("temp dir");
        let servers = json!({"mcpServers": {
            "dead": {"url": format!("http://127.0.0.1:{}/mcp?k=${{SECRET}}", dead_port())},
            "live": {"url": format!("{live}?k=${{SECRET}}")},
            "cmd": {"command": "/nonexistent/tooldeck-test-server", "args": ["--k", "${SECRET}"]},
            HOSTILE: {"url": format!("{live}?d={HOSTILE}")},
        }});
        let cursor = root.path().join("home/.cursor/mcp.json");
        std::fs::create_dir_all(cursor.parent().expect("a folder")).expect("home");
        // serde_json writes U+009B and U+202E raw, as a hostile config would hold them.
        std::fs::write(&cursor, servers.to_string()).expect("config");
        std::fs::create_dir_all(root.path().join("project")).expect("project");
        Fixture { root }
    }

    fn history(&self) -> PathBuf {
        self.root.path().join("history.jsonl")
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        let at = |p: &str| self.root.path().join(p).display().to_string();
        vec![
            (tooldeck::servers::HOME_VAR, at("home")),
            ("TOOLDECK_CONFIG", at("no-config.toml")),
            ("TOOLDECK_HISTORY", self.history().display().to_string()),
            ("SECRET", SECRET.to_string()),
        ]
    }

    fn tooldeck<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(args)
            .current_dir(self.root.path().join("project"))
            .envs(self.env())
            .stdin(Stdio::null())
            .output()
            .expect("tooldeck runs")
    }
}

/// JSON on stdout with no raw C1 control or bidi mark, the escapes in their place, and
/// [`HOSTILE`] read back whole from it.
fn assert_escaped(what: &str, output: &Output) {
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{what}: {}{stdout}", text(&output.stderr));
    assert!(!stdout.contains('\u{9b}') && !stdout.contains('\u{202e}'), "{what} wrote them raw: {stdout}");
    assert!(stdout.contains(r"\u009b") && stdout.contains(r"\u202e"), "{what}: {stdout}");
    let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {stdout}"));
    assert!(value.to_string().contains(HOSTILE), "{what} lost the characters: {value}");
}

#[test]
fn every_json_output_escapes_c1_controls_and_bidi_marks() {
    let runtime = runtime();
    let url = hostile_server(&runtime);
    let fixture = Fixture::new(&url);
    let with = |args: &[&'static str]| -> Vec<String> {
        args.iter().map(|a| a.to_string()).chain(["--mcp-url".into(), url.clone(), "--json".into()]).collect()
    };
    assert_escaped("resources", &fixture.tooldeck(&with(&["resources"])));
    assert_escaped("read", &fixture.tooldeck(&with(&["read", "test://x"])));
    assert_escaped("prompts", &fixture.tooldeck(&with(&["prompts"])));
    assert_escaped("prompt", &fixture.tooldeck(&with(&["prompt", "p", "--arg", "a=1"])));
    assert_escaped("list", &fixture.tooldeck(&with(&["list"])));
    assert_escaped("servers", &fixture.tooldeck(&["servers", "--json"]));
}

#[test]
fn every_json_file_escapes_them_too() {
    let dir = tempfile::tempdir().expect("temp dir");
    let history = dir.path().join("history.jsonl");
    let entry = tooldeck::history::PastCall {
        at: "2025-01-01T00:00:00Z".into(),
        tool: HOSTILE.into(),
        arguments: json!({"q": HOSTILE}),
        endpoint: "http://127.0.0.1:1/mcp".into(),
        outcome: "value".into(),
        duration_ms: 1,
        call_id: "c".into(),
        http_status: None,
    };
    tooldeck::history::append(&history, &entry).expect("history written");
    let cases = dir.path().join("cases.yaml");
    let case = json!({"name": HOSTILE, "tool": "t", "args": {"q": HOSTILE}, "expect": {"status": "null"}});
    tooldeck::cases::record::append_case(&cases, &case).expect("case written");
    for path in [&history, &cases] {
        let written = std::fs::read_to_string(path).expect("written");
        assert!(!written.contains('\u{9b}') && !written.contains('\u{202e}'), "{}: {written}", path.display());
        assert!(written.contains(r"\u202e"), "{}: {written}", path.display());
    }
    assert_eq!(tooldeck::history::read_last(&history, 1).expect("read back")[0], entry);
    let (read, problems) = tooldeck::cases::file::load(&cases).read_all();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(read[0].name, HOSTILE);
}

fn assert_no_secret(what: &str, output: &Output) {
    let said = text(&output.stdout) + &text(&output.stderr);
    assert!(!said.contains(SECRET), "{what} shows the secret: {said}");
}

#[test]
fn a_secret_expanded_into_a_config_url_or_arguments_is_masked_when_the_server_is_dead() {
    let fixture = Fixture::new("http://127.0.0.1:9/mcp");
    let listed = fixture.tooldeck(&["list", "--server", "dead"]);
    assert_eq!(listed.status.code(), Some(5), "{}", text(&listed.stderr));
    let said = text(&listed.stderr);
    assert!(said.contains("cannot connect") && said.contains("k=••••"), "{said}");
    assert_no_secret("list", &listed);
    for args in [
        &["call", "echo", "--server", "dead"][..],
        &["call", "echo", "--server", "cmd"],
        &["resources", "--server", "dead", "--json"],
        &["fuzz", "--server", "dead", "--json", "--max-calls", "1"],
        &["list", "--server", "cmd"],
    ] {
        let output = fixture.tooldeck(args);
        assert!(!output.status.success(), "{args:?}");
        assert_no_secret(&args.join(" "), &output);
    }
}

#[test]
fn a_secret_expanded_into_a_config_url_is_masked_when_the_server_answers() {
    let runtime = runtime();
    let fixture = Fixture::new(&hostile_server(&runtime));
    let called = fixture.tooldeck(&["call", "echo", "--server", "live"]);
    assert!(called.status.success(), "{}", text(&called.stderr));
    assert!(text(&called.stdout).contains("pong"));
    assert_no_secret("call", &called);

    let cases = fixture.root.path().join("found.yaml");
    let cases_arg = cases.display().to_string();
    let fuzzed = fixture.tooldeck(&[
        "fuzz",
        "refuse",
        "--server",
        "live",
        "--json",
        "--max-calls",
        "2",
        "--seed",
        "1",
        "--save-cases",
        &cases_arg,
    ]);
    assert_eq!(fuzzed.status.code(), Some(1), "a finding: {}{}", text(&fuzzed.stdout), text(&fuzzed.stderr));
    assert_no_secret("fuzz", &fuzzed);
    let saved = std::fs::read_to_string(&cases).expect("cases saved");
    assert!(!saved.contains(SECRET), "{saved}");
    assert!(saved.contains("k=${SECRET}"), "the case names the variable again: {saved}");
    // The case goes to the same server: the variable expands there again.
    let tested = fixture.tooldeck(&["test", &cases_arg]);
    let said = text(&tested.stdout) + &text(&tested.stderr);
    assert_eq!(tested.status.code(), Some(1), "the case fails while the tool refuses: {said}");
    assert!(!said.contains("cannot connect"), "{said}");
    assert_no_secret("test", &tested);
}

/// In the app: the screen of a dead server, and the history of a call to a live one.
#[cfg(unix)]
#[test]
fn the_app_masks_it_on_screen_and_in_the_history() {
    use terminal::{CTRL_R, ENTER, Terminal};
    let runtime = runtime();
    let fixture = Fixture::new(&hostile_server(&runtime));
    let env = fixture.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();

    let tui = Terminal::spawn(&["--server", "dead"], 30, 200, &env);
    let screen = tui.wait_text("k=••••");
    assert!(!screen.contains(SECRET), "{screen}");
    drop(tui);

    let mut tui = Terminal::spawn(&["--server", "live"], 30, 200, &env);
    tui.wait_text("refuse");
    tui.send("/echo");
    tui.wait_text("/echo");
    tui.send(ENTER);
    tui.send(CTRL_R);
    let screen = tui.wait_text("pong");
    assert!(!screen.contains(SECRET), "{screen}");
    let history = wait_for_file(&fixture.history());
    tui.quit();
    assert!(history.contains("\"echo\""), "{history}");
    assert!(!history.contains(SECRET), "{history}");
}

/// The history is written off the app's thread: its first line, once it is there.
fn wait_for_file(path: &Path) -> String {
    let start = std::time::Instant::now();
    loop {
        if let Some(text) = std::fs::read_to_string(path).ok().filter(|t| t.ends_with('\n')) {
            return text;
        }
        assert!(start.elapsed() < terminal::TIMEOUT, "no history at {}", path.display());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
