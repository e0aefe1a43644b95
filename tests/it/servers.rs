//! `tooldeck servers` and `--server NAME` against a fake home holding other clients' configs
//! (`TOOLDECK_CLIENTS_HOME`): a stdio server in a Cursor config (this test binary run again as
//! the server, with the config's `env`) and an HTTP server in a VS Code project config (rmcp's
//! server side on 127.0.0.1), both used by name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Value, json};

/// Set (to the greeting's name) in the server process this binary becomes.
const SERVER_ENV: &str = "TOOLDECK_SERVERS_TEST_GREETER";

/// A server with one tool, `greet_<who>`, that answers "hello from <who>".
#[derive(Debug, Clone)]
struct Greeter {
    who: String,
}

impl ServerHandler for Greeter {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = Arc::new(json!({"type": "object"}).as_object().cloned().unwrap_or_default());
        let tool = Tool::new(format!("greet_{}", self.who), "Says hello", schema);
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("hello from {}", self.who))]).into())
    }
}

/// Not a test: the stdio server a config's command starts (does nothing in a normal run).
#[tokio::test]
async fn stdio_server_mode() {
    let Ok(who) = std::env::var(SERVER_ENV) else { return };
    {
        // libtest wrote "test stdio_server_mode ... " without a newline: end that line.
        use std::io::Write;
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(b"\n").and_then(|()| stdout.flush());
    }
    let greeter = Greeter { who };
    if let Ok(server) = greeter.serve(rmcp::transport::stdio()).await {
        let _ = server.waiting().await;
    }
    std::process::exit(0);
}

/// An HTTP MCP server on 127.0.0.1 that greets as `who`; its URL.
async fn http_server(who: &str) -> String {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let who = who.to_string();
    let service = StreamableHttpService::new(
        move || Ok(Greeter { who: who.clone() }),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

/// A fake home and project: Cursor's config names the stdio server `alpha` (with comments and
/// trailing commas), VS Code's names the HTTP one `beta`; `gamma` is two different servers in
/// Cursor's and Codex's configs; Codex's `ghost` runs a command that does not exist.
struct Fixture {
    root: tempfile::TempDir,
}

impl Fixture {
    fn new(url: &str) -> Fixture {
        let root = tempfile::tempdir().expect("temp dir");
        let exe = std::env::current_exe().expect("this test binary");
        let write = |path: &str, text: String| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let cursor = json!({
            "command": exe.display().to_string(),
            "args": ["--exact", "servers::stdio_server_mode", "--nocapture", "--test-threads=1"],
            "env": {SERVER_ENV: "alpha", "SECRET_TOKEN": "s3cr3t"}
        });
        write(
            "home/.cursor/mcp.json",
            format!(
                "{{\n  // servers for Cursor\n  \"mcpServers\": {{\n    \"alpha\": {cursor},\n    \"gamma\": {{\"command\": \"gamma-one\"}},\n  }},\n}}\n"
            ),
        );
        let vscode = json!({"servers": {"beta": {"type": "http", "url": url, "headers": {"X-Team": "blue"}}}});
        write("project/.vscode/mcp.json", vscode.to_string());
        write(
            "home/.codex/config.toml",
            "[mcp_servers.gamma]\ncommand = \"gamma-two\"\n\n[mcp_servers.ghost]\ncommand = \"surely-not-installed-xyz\"\n"
                .to_string(),
        );
        Fixture { root }
    }

    fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    fn tooldeck(&self, args: &[&str]) -> Output {
        self.tooldeck_in(&self.project(), args)
    }

    /// tooldeck run in `folder` (the project folder is where it runs).
    fn tooldeck_in(&self, folder: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(args)
            .current_dir(folder)
            .env(tooldeck::servers::HOME_VAR, self.root.path().join("home"))
            .env("TOOLDECK_CONFIG", self.root.path().join("no-config.toml"))
            .env("XDG_DATA_HOME", self.root.path().join("data"))
            .env_remove("TOOLDECK_RECORDS")
            .output()
            .expect("tooldeck runs")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn in_folder(path: &str, folder: &Path) -> bool {
    Path::new(path).starts_with(folder)
}

#[tokio::test(flavor = "multi_thread")]
async fn servers_lists_each_with_where_it_was_found() {
    let url = http_server("beta").await;
    let fixture = Fixture::new(&url);
    let output = fixture.tooldeck(&["servers", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let servers = listed["servers"].as_array().expect("servers");
    let named = |name: &str, client: &str| {
        servers.iter().find(|s| s["name"] == name && s["client"] == client).unwrap_or_else(|| panic!("{name} {client}"))
    };
    let alpha = named("alpha", "cursor");
    assert!(in_folder(alpha["path"].as_str().unwrap(), &fixture.root.path().join("home/.cursor")));
    assert_eq!(alpha["line"], 4);
    assert_eq!(alpha["env"]["SECRET_TOKEN"], "••••", "secrets are masked");
    let beta = named("beta", "vscode");
    assert_eq!((beta["transport"].as_str(), beta["url"].as_str()), (Some("http"), Some(url.as_str())));
    assert!(in_folder(beta["path"].as_str().unwrap(), &fixture.project()));
    assert_eq!(beta["headers"]["X-Team"], "••••");
    let ghost = named("ghost", "codex");
    assert_eq!(ghost["notes"][0], "command not found: surely-not-installed-xyz");
    assert_eq!(named("gamma", "codex")["qualified_name"], "codex:gamma");
    assert!(listed["problems"].as_array().unwrap().is_empty(), "{listed}");

    let table = fixture.tooldeck(&["servers"]);
    let table = text(&table.stdout);
    assert!(table.contains("alpha") && table.contains("cursor") && table.contains("! command not found"), "{table}");
    assert!(!table.contains("s3cr3t"), "{table}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_found_in_a_cursor_config_is_used_by_name() {
    let url = http_server("beta").await;
    let fixture = Fixture::new(&url);
    let listed = fixture.tooldeck(&["list", "--server", "alpha"]);
    let stdout = text(&listed.stdout);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert!(stdout.contains("greet_alpha") && stdout.contains("server alpha"), "{stdout}");
    // The config's `env` reached the server: it greets by the name given there.
    let called = fixture.tooldeck(&["call", "greet_alpha", "--server", "alpha"]);
    assert!(called.status.success(), "{}", text(&called.stderr));
    assert!(text(&called.stdout).contains("hello from alpha"), "{}", text(&called.stdout));
    let called = fixture.tooldeck(&["call", "greet_beta", "--server", "vscode:beta"]);
    assert!(called.status.success(), "{}", text(&called.stderr));
    assert!(text(&called.stdout).contains("hello from beta"), "{}", text(&called.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn one_name_for_two_servers_lists_the_candidates() {
    let fixture = Fixture::new("http://127.0.0.1:9/mcp");
    let output = fixture.tooldeck(&["list", "--server", "gamma"]);
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output.stderr);
    assert!(said.contains("cursor:gamma") && said.contains("codex:gamma"), "{said}");
    let output = fixture.tooldeck(&["list", "--server", "nobody"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("no server is named \"nobody\""), "{}", text(&output.stderr));
    let output = fixture.tooldeck(&["list", "--server", "alpha", "--server", "beta"]);
    assert_eq!(output.status.code(), Some(2), "a headless command talks to one server");
    assert!(text(&output.stderr).contains("the app takes several"), "{}", text(&output.stderr));
}

#[path = "servers/wrap.rs"]
mod wrap;
