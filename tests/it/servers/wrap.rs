//! `tooldeck servers --wrap NAME` / `--unwrap NAME` on the fake home's configs: the wrapped file
//! is valid, its server runs through the proxy (which records), and unwrapping gives the
//! original bytes back; an HTTP entry and an ambiguous name are refused with why.

use serde_json::Value;

use super::{Fixture, http_server, text};

#[tokio::test(flavor = "multi_thread")]
async fn a_wrapped_entry_runs_through_the_proxy_and_unwraps_to_the_same_bytes() {
    let url = http_server("beta").await;
    let fixture = Fixture::new(&url);
    let cursor = fixture.root.path().join("home/.cursor/mcp.json");
    let original = std::fs::read(&cursor).unwrap();

    let output = fixture.tooldeck(&["servers", "--wrap", "alpha", "--client", "cursor"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let said = text(&output.stdout);
    assert!(said.contains("wrapped: it runs through tooldeck proxy, recording to"), "{said}");
    let wrapped = std::fs::read_to_string(&cursor).unwrap();
    assert!(wrapped.starts_with("{\n  // servers for Cursor\n"), "comments kept: {wrapped}");
    let mut backup = cursor.clone().into_os_string();
    backup.push(".tooldeck-backup");
    assert_eq!(std::fs::read(&backup).unwrap(), original, "the backup is the file as it was");

    // The listing marks it, and the wrapped entry runs: the proxy in front of the server.
    let listed = fixture.tooldeck(&["servers", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let alpha = listed["servers"].as_array().unwrap().iter().find(|s| s["name"] == "alpha").unwrap().clone();
    assert_eq!(alpha["wrapped"], true, "{alpha}");
    assert!(alpha["notes"].to_string().contains("wrapped: runs through tooldeck proxy"), "{alpha}");
    assert!(listed["problems"].as_array().unwrap().is_empty(), "{listed}");
    let table = text(&fixture.tooldeck(&["servers"]).stdout);
    assert!(table.contains("! wrapped: runs through tooldeck proxy"), "{table}");
    let called = fixture.tooldeck(&["call", "greet_alpha", "--server", "cursor:alpha"]);
    assert!(called.status.success(), "{}", text(&called.stderr));
    assert!(text(&called.stdout).contains("hello from alpha"), "{}", text(&called.stdout));
    let record = fixture.root.path().join("data/tooldeck/records/cursor-alpha.jsonl");
    let kept = std::fs::read_to_string(&record).expect("the proxy recorded");
    assert!(kept.contains("\"tools/call\""), "{kept}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&record).unwrap().permissions().mode() & 0o777, 0o600);
    }

    let again = fixture.tooldeck(&["servers", "--wrap", "alpha", "--client", "cursor"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("already runs through tooldeck proxy"), "{}", text(&again.stderr));
    let output = fixture.tooldeck(&["servers", "--unwrap", "alpha"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(std::fs::read(&cursor).unwrap(), original, "unwrap gives the original bytes back");
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_tables_wrap_and_unwrap_and_what_cannot_be_wrapped_says_why() {
    let url = http_server("beta").await;
    let fixture = Fixture::new(&url);
    let codex = fixture.root.path().join("home/.codex/config.toml");
    let original = std::fs::read(&codex).unwrap();

    let output = fixture.tooldeck(&["servers", "--wrap", "gamma"]);
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output.stderr);
    assert!(said.contains("pick one with --client") && said.contains("cursor") && said.contains("codex"), "{said}");

    let output = fixture.tooldeck(&["servers", "--wrap", "gamma", "--client", "codex"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let wrapped = std::fs::read_to_string(&codex).unwrap();
    let table: toml::Table = toml::from_str(&wrapped).expect("still TOML");
    let gamma = &table["mcp_servers"]["gamma"];
    assert_eq!(gamma["args"][0].as_str(), Some("proxy"));
    assert_eq!(gamma["args"].as_array().unwrap().last().and_then(|a| a.as_str()), Some("gamma-two"));
    assert_eq!(table["mcp_servers"]["ghost"]["command"].as_str(), Some("surely-not-installed-xyz"));
    let output = fixture.tooldeck(&["servers", "--unwrap", "gamma", "--client", "codex"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(std::fs::read(&codex).unwrap(), original);

    let vscode = fixture.project().join(".vscode/mcp.json");
    let before = std::fs::read(&vscode).unwrap();
    let output = fixture.tooldeck(&["servers", "--wrap", "beta"]);
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output.stderr);
    assert!(said.contains("reached over HTTP") && said.contains("tooldeck proxy --listen"), "{said}");
    assert_eq!(std::fs::read(&vscode).unwrap(), before, "a refused wrap changes nothing");
    let output = fixture.tooldeck(&["servers", "--unwrap", "ghost"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("is not wrapped"), "{}", text(&output.stderr));
}

/// Run from the home folder, `.cursor/mcp.json` of the project is the user's own: listed once,
/// not "also in" itself, and `--wrap` picks it without `--client`.
#[test]
fn run_from_the_home_folder_each_config_is_read_once_and_wrap_picks_it() {
    let fixture = Fixture::new("http://127.0.0.1:9/mcp");
    let home = fixture.root.path().join("home");
    let listed = fixture.tooldeck_in(&home, &["servers", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let alphas: Vec<&Value> = listed["servers"].as_array().unwrap().iter().filter(|s| s["name"] == "alpha").collect();
    assert_eq!(alphas.len(), 1, "{alphas:?}");
    assert!(!alphas[0]["notes"].to_string().contains("also in"), "{}", alphas[0]);

    let cursor = home.join(".cursor/mcp.json");
    let original = std::fs::read(&cursor).unwrap();
    let output = fixture.tooldeck_in(&home, &["servers", "--wrap", "alpha"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_ne!(std::fs::read(&cursor).unwrap(), original);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let files: Vec<String> = std::fs::read_dir(home.join(".cursor"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(files.len(), 2, "the config and its backup, no temporary file left: {files:?}");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&home.join(".cursor/mcp.json.tooldeck-backup")), 0o600);
    }
    let output = fixture.tooldeck_in(&home, &["servers", "--unwrap", "alpha"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(std::fs::read(&cursor).unwrap(), original);
}
