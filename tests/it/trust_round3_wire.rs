//! Trust, round three, on the wire: nothing a run started outlives it (fuzz's restarts
//! included), a Streamable HTTP server that dies mid-call is noticed at once, and a server's
//! deviations (a result without `content`, a line no JSON parser takes) are named, not
//! defaulted or waited out. Every server here is made by the test: a POSIX `sh` script in a
//! temp folder, or axum on 127.0.0.1.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn tooldeck(args: &[&str], home: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .env("TOOLDECK_HISTORY", home.join("history.jsonl"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A stdio MCP server in POSIX sh, written to `dir`: `start` runs once first; it answers
/// `initialize` (2025-06-18) and `tools/list` (one tool, `echo`), any other request with
/// "method not found" (so the `server/discover` probe falls back at once), and runs `on_call`
/// (sh, with `$id` set) for `tools/call`. Returns the command line.
#[cfg(unix)]
fn sh_server(dir: &std::path::Path, start: &str, on_call: &str) -> String {
    let script = format!(
        r#"{start}
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^.*"id":\([0-9]*\).*$/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}}}\n' "$id";;
    *'"method":"tools/list"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"tools":[{{"name":"echo","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string"}}}}}}}}]}}}}\n' "$id";;
    *'"method":"tools/call"'*)
      {on_call};;
    *'"id":'*)
      printf '{{"jsonrpc":"2.0","id":%s,"error":{{"code":-32601,"message":"no such method"}}}}\n' "$id";;
  esac
done
"#
    );
    let path = dir.join("server.sh");
    std::fs::write(&path, script).expect("script written");
    format!("sh {}", path.display())
}

/// The processes still running (zombies, dead and waiting for init to reap them, do not count)
/// that are `pid` or in the process group it led.
#[cfg(unix)]
fn running(pid: &str) -> Vec<String> {
    let listed = Command::new("ps").args(["-A", "-o", "pid=,pgid=,stat="]).output().expect("ps runs");
    text(&listed.stdout)
        .lines()
        .filter(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            matches!(fields.as_slice(), [p, g, stat] if (*p == pid || *g == pid) && !stat.starts_with('Z'))
        })
        .map(str::to_string)
        .collect()
}

#[cfg(unix)]
#[test]
fn fuzz_leaves_no_server_process_running() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pids = dir.path().join("pids");
    // Each start writes its pid; a call is never answered (the tool hangs in a child of its own,
    // as a server busy in a subprocess would, not reading its input meanwhile).
    let server = sh_server(dir.path(), &format!("echo $$ >> '{}'", pids.display()), "sleep 600");
    let output = tooldeck(
        &["fuzz", "--mcp", &server, "--timeout", "1", "--max-calls", "3", "--seed", "1"],
        dir.path(),
    );
    let said = text(&output.stdout) + &text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "a hang is a finding: {said}");
    assert!(said.contains("hang"), "{said}");
    let started = std::fs::read_to_string(&pids).expect("the server started");
    let started: Vec<&str> = started.lines().collect();
    assert!(started.len() >= 2, "the server was started again after the hang: {started:?}");
    let left: Vec<String> = started.iter().flat_map(|pid| running(pid)).collect();
    assert!(left.is_empty(), "still running after tooldeck exited (pid pgid stat): {left:?} of {started:?}\n{said}");
}
