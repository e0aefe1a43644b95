use std::path::PathBuf;

use super::places::{Layout, Place};
use super::*;

fn place(client: Client, layout: Layout) -> Place {
    Place { client, path: PathBuf::from("/h/config.json"), layout }
}

fn read_json(client: Client, layout: Layout, text: &str) -> (Vec<FoundServer>, Vec<Problem>) {
    clients::read(&place(client, layout), text, Some(std::path::Path::new("/work/app/sub")))
}

#[test]
fn claude_desktop_with_comments_and_trailing_commas() {
    let text = r#"{
  // a comment, as people write in JSONC
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp",],
      "env": {"DEBUG": "1", "PORT": 8080},
    },
  },
  "globalShortcut": "Ctrl+Space",
}"#;
    let (servers, problems) = read_json(Client::ClaudeDesktop, Layout::McpServers, text);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(servers.len(), 1);
    let server = &servers[0];
    assert_eq!((server.name.as_str(), server.line), ("filesystem", 4));
    let Transport::Stdio { command, args, env, .. } = &server.transport else { panic!("{server:?}") };
    assert_eq!(command, "npx");
    assert_eq!(args, &["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]);
    assert_eq!(env["PORT"], "8080", "a number where a string was meant is taken as its text");
}

#[test]
fn claude_code_top_level_and_the_current_project() {
    let text = r#"{
  "numStartups": 3,
  "mcpServers": {"everything": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}},
  "projects": {
    "/work/app": {"mcpServers": {"api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer x"}}}},
    "/elsewhere": {"mcpServers": {"other": {"command": "other"}}}
  }
}"#;
    let (servers, problems) = read_json(Client::ClaudeCode, Layout::ClaudeCode, text);
    assert!(problems.is_empty(), "{problems:?}");
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["everything", "api"], "only the project tooldeck runs in");
    assert_eq!(servers[1].scope.as_deref(), Some("project /work/app"));
    let Transport::Http { url, headers } = &servers[1].transport else { panic!() };
    assert_eq!((url.as_str(), headers["Authorization"].as_str()), ("https://api.example.com/mcp", "Bearer x"));
}

#[test]
fn cursor_windsurf_and_gemini_urls() {
    let cursor = r#"{"mcpServers": {"remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "k"}}}}"#;
    let (servers, _) = read_json(Client::Cursor, Layout::McpServers, cursor);
    assert!(matches!(&servers[0].transport, Transport::Http { url, .. } if url == "http://127.0.0.1:9/mcp"));
    let windsurf = r#"{"mcpServers": {"remote": {"serverUrl": "https://w.example/mcp"}}}"#;
    let (servers, _) = read_json(Client::Windsurf, Layout::McpServers, windsurf);
    assert!(matches!(&servers[0].transport, Transport::Http { url, .. } if url == "https://w.example/mcp"));
    let gemini = r#"{"theme": "x", "mcpServers": {
        "streamed": {"httpUrl": "https://g.example/mcp", "timeout": 5000, "trust": true},
        "sse": {"url": "https://g.example/sse"}}}"#;
    let (servers, problems) = read_json(Client::GeminiCli, Layout::McpServers, gemini);
    assert!(problems.is_empty());
    assert!(matches!(&servers[0].transport, Transport::Http { url, .. } if url == "https://g.example/mcp"));
    assert!(servers[0].notes.is_empty(), "{:?}", servers[0].notes);
    assert!(servers[1].notes[0].contains("HTTP+SSE"), "{:?}", servers[1].notes);
}

#[test]
fn vscode_servers_with_type() {
    let text = r#"{
  "inputs": [{"type": "promptString", "id": "key", "password": true}],
  "servers": {
    "local": {"type": "stdio", "command": "node", "args": ["server.js"], "cwd": "${workspaceFolder}"},
    "remote": {"type": "http", "url": "https://v.example/mcp"},
  }
}"#;
    let (servers, problems) = read_json(Client::VsCode, Layout::VsCode, text);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(servers.len(), 2);
    assert!(matches!(&servers[0].transport, Transport::Stdio { cwd: Some(cwd), .. } if cwd == "${workspaceFolder}"));
    assert_eq!(servers[1].transport.kind(), "http");
    let (servers, _) = read_json(Client::VsCode, Layout::VsCode, r#"{"mcpServers": {"x": {"command": "y"}}}"#);
    assert!(servers.is_empty(), "VS Code reads `servers`, not `mcpServers`");
}

#[test]
fn codex_tables() {
    let text = r#"model = "o3"

[mcp_servers.docs]
command = "npx"
args = ["-y", "mcp-server"]
env = { "API_KEY" = "v" }
startup_timeout_sec = 20

[mcp_servers.remote]
url = "https://c.example/mcp"
bearer_token_env_var = "C_TOKEN"
flavour = "new"

[mcp_servers.broken]
args = ["x"]
"#;
    let (servers, problems) = codex::read(&place(Client::Codex, Layout::Codex), text);
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["docs", "remote"]);
    assert_eq!(servers[0].line, 3);
    assert!(servers[0].notes.is_empty(), "{:?}", servers[0].notes);
    let Transport::Http { headers, .. } = &servers[1].transport else { panic!() };
    assert_eq!(headers["Authorization"], "Bearer ${C_TOKEN}");
    assert_eq!(servers[1].notes, ["fields tooldeck does not use: flavour"]);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].line, 14);
    assert!(problems[0].message.contains("server \"broken\": neither"), "{}", problems[0]);
    let (_, problems) = codex::read(&place(Client::Codex, Layout::Codex), "[mcp_servers\nx = 1");
    assert!(problems[0].message.starts_with("not readable as TOML"), "{}", problems[0]);
}

#[test]
fn bad_entries_are_lines_and_the_rest_still_read() {
    let text = r#"{"mcpServers": {
  "no-command": {"args": ["x"]},
  "odd": 3,
  "bad-args": {"command": "x", "args": "not a list"},
  "fine": {"command": "x", "colour": "blue", "disabled": true}
}}"#;
    let (servers, problems) = read_json(Client::Cursor, Layout::McpServers, text);
    assert_eq!(servers.len(), 1);
    assert_eq!(
        servers[0].notes,
        ["disabled in Cursor".to_string(), "fields tooldeck does not use: colour".to_string()]
    );
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "/h/config.json:2: server \"no-command\": neither a \"command\" nor a \"url\"",
            "/h/config.json:3: server \"odd\": not an object",
            "/h/config.json:4: server \"bad-args\": \"args\" is not a list of strings",
        ]
    );
    let (servers, problems) = read_json(Client::Cursor, Layout::McpServers, "{\"mcpServers\": {\"a\": ");
    assert!(servers.is_empty());
    assert!(problems[0].message.starts_with("not readable as JSON"), "{}", problems[0]);
    let (_, problems) = read_json(Client::Cursor, Layout::McpServers, "[1]");
    assert_eq!(problems[0].message, "the file is not a JSON object");
    let (_, problems) = read_json(Client::Cursor, Layout::McpServers, "{\"mcpServers\": []}");
    assert!(problems[0].message.contains("not an object"));
}

fn stdio(name: &str, client: Client, command: &str) -> FoundServer {
    FoundServer {
        name: name.into(),
        client,
        path: PathBuf::from(format!("/{}.json", client.name())),
        line: 1,
        scope: None,
        transport: Transport::Stdio { command: command.into(), args: vec![], env: Default::default(), cwd: None },
        notes: vec![],
    }
}

#[test]
fn the_same_server_under_two_names_is_noted_and_a_name_picks_it() {
    let mut servers = vec![
        stdio("fs", Client::Cursor, "serve-fs"),
        stdio("filesystem", Client::ClaudeDesktop, "serve-fs"),
        stdio("fs", Client::Codex, "serve-fs"),
    ];
    note_same_servers(&mut servers);
    assert!(
        servers[0]
            .notes
            .contains(&"the same server as \"filesystem\" in Claude Desktop (/claude-desktop.json:1)".into())
    );
    assert!(servers[0].notes.contains(&"also in Codex (/codex.json:1)".into()));
    let found = Found { servers, problems: vec![] };
    assert_eq!(found.named("fs").unwrap().client, Client::Cursor, "one server under one name is no ambiguity");
}

#[test]
fn one_name_for_two_servers_is_an_error_listing_both() {
    let found = Found {
        servers: vec![stdio("git", Client::Cursor, "git-a"), stdio("git", Client::VsCode, "git-b")],
        problems: vec![],
    };
    let error = found.named("git").unwrap_err().to_string();
    assert!(error.contains("cursor:git (/cursor.json:1)") && error.contains("vscode:git (/vscode.json:1)"), "{error}");
    assert_eq!(found.named("vscode:git").unwrap().client, Client::VsCode);
    let error = found.named("nope").unwrap_err().to_string();
    assert!(error.contains("named: git"), "{error}");
}

#[test]
fn a_command_that_does_not_exist_is_noted() {
    let folder = std::env::temp_dir().join(format!("tooldeck-servers-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("present"), "").unwrap();
    let path_var = std::ffi::OsString::from(&folder);
    let mut servers = vec![stdio("a", Client::Cursor, "present"), stdio("b", Client::Cursor, "surely-absent-xyz")];
    note_missing_commands(&mut servers, &path_var);
    assert!(servers[0].notes.is_empty());
    assert_eq!(servers[1].notes, ["command not found: surely-absent-xyz"]);
    assert!(program_exists(&folder.join("present").display().to_string(), None, &path_var));
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn tooldecks_own_endpoints_are_servers() {
    let folder = std::env::temp_dir().join(format!("tooldeck-own-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("config.toml");
    std::fs::write(
        &path,
        "[endpoints.prod]\nurl = \"https://t.example\"\n\n[endpoints.local]\nmcp = \"node 's p.js'\"\n",
    )
    .unwrap();
    let mut found = Found::default();
    tooldeck::read(&path, &mut found);
    assert_eq!(found.servers.len(), 2);
    let local = found.named("local").unwrap();
    assert_eq!(local.line, 4);
    assert!(
        matches!(&local.transport, Transport::Stdio { command, args, .. } if command == "node" && args == &["s p.js"])
    );
    assert_eq!(found.named("prod").unwrap().transport.kind(), "otc");
    std::fs::write(&path, "[endpoints.x]\nurll = 1\n").unwrap();
    let mut found = Found::default();
    tooldeck::read(&path, &mut found);
    assert_eq!(found.problems[0].line, 2, "{:?}", found.problems);
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn shown_transports_mask_secrets() {
    let server = Transport::Stdio {
        command: "server".into(),
        args: vec!["--api-key".into(), "S3CRET".into(), "a b".into()],
        env: Default::default(),
        cwd: None,
    };
    assert_eq!(server.shown(), "server --api-key •••• 'a b'");
    let http = Transport::Http { url: "https://u:pw@h.example/mcp?api_key=k".into(), headers: Default::default() };
    assert_eq!(http.shown(), "https://u:••••@h.example/mcp?api_key=••••");
}

/// 3,000 entries that start the same command (an 83 KB `.mcp.json`) once made a note for every
/// pair: 9 million lines. Now each entry names a few of the others and counts the rest.
#[test]
fn thousands_of_alike_entries_get_a_bounded_number_of_notes() {
    let entries: Vec<String> = (0..3000).map(|i| format!("\"s{i}\": {{\"command\": \"same\"}}")).collect();
    let text = format!("{{\"mcpServers\": {{{}}}}}", entries.join(",\n"));
    let (mut servers, problems) = read_json(Client::ClaudeCode, Layout::McpServers, &text);
    assert!(problems.is_empty() && servers.len() == 3000, "{problems:?}");
    servers.push(stdio("lone", Client::Cursor, "different"));
    note_same_servers(&mut servers);
    for server in &servers[..3000] {
        assert_eq!(server.notes.len(), MAX_SAME_SERVER_NOTES + 1, "{:?}", server.notes);
        assert_eq!(server.notes.last().unwrap(), "and 2994 more entries that start the same server");
    }
    assert_eq!(servers[0].notes[0], "the same server as \"s1\" in Claude Code (/h/config.json:2)");
    assert!(servers[3000].notes.is_empty(), "a server alone has no note");
    let total: usize = servers.iter().map(|s| s.notes.len()).sum();
    assert_eq!(total, 3000 * (MAX_SAME_SERVER_NOTES + 1));
}

/// Run from the home folder, the project's `.cursor/mcp.json` is the user's: one file, read
/// once, its servers listed once and not "also in" themselves.
#[test]
fn a_project_folder_that_is_the_home_folder_lists_its_configs_once() {
    let home = tempfile::tempdir().unwrap();
    for (folder, file) in [(".cursor", "mcp.json"), (".gemini", "settings.json")] {
        std::fs::create_dir_all(home.path().join(folder)).unwrap();
        std::fs::write(home.path().join(folder).join(file), r#"{"mcpServers": {"notes": {"command": "notes"}}}"#)
            .unwrap();
    }
    // The same folder by another name too: a link to it is the same file.
    let linked = tempfile::tempdir().unwrap();
    let project = linked.path().join("here");
    #[cfg(unix)]
    std::os::unix::fs::symlink(home.path(), &project).unwrap();
    #[cfg(not(unix))]
    let project = home.path().to_path_buf();
    let places =
        Places { home: Some(home.path().to_path_buf()), project: Some(project), tooldeck_config: None, app_data: None };
    let found = discover(&places);
    let listed: Vec<String> =
        found.servers.iter().map(|s| format!("{} {}", s.qualified_name(), s.location())).collect();
    assert_eq!(found.servers.len(), 2, "{listed:?}");
    assert_eq!(found.servers[0].client, Client::Cursor);
    assert_eq!(found.servers[1].client, Client::GeminiCli);
    for server in &found.servers {
        assert!(!server.notes.iter().any(|n| n.contains(&server.path.display().to_string())), "{:?}", server.notes);
    }
    assert_eq!(found.named("cursor:notes").unwrap().client, Client::Cursor);
}
