//! `--watch PATH` headless: the test edits a stdio server written as a POSIX `sh` script in a temp
//! folder, and `test --watch` / `call --watch` run again after each edit, say which cases turned,
//! report a server that no longer starts (its stderr) and try again on the next edit; after
//! SIGINT nothing they started is left running.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A stdio MCP server answering `initialize`, `tools/list` (one tool, `echo`) and `tools/call`
/// (with the text `answer`); each start appends its pid to `pids`.
fn server_script(answer: &str, pids: &Path) -> String {
    let reply = format!(r#"{{"jsonrpc":"2.0","id":%s,"result":{{"content":[{{"type":"text","text":"{answer}"}}]}}}}"#);
    script(ECHO, &reply, pids)
}

/// The one tool `server_script` lists.
const ECHO: &str = r#"[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]"#;

/// The same server listing `tools` (a JSON array) and answering every `tools/call` with `reply`
/// (a printf format, `%s` the id).
fn script(tools: &str, reply: &str, pids: &Path) -> String {
    format!(
        r#"echo $$ >> '{pids}'
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^.*"id":\([0-9]*\).*$/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}}}\n' "$id";;
    *'"method":"tools/list"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"tools":{tools}}}}}\n' "$id";;
    *'"method":"tools/call"'*)
      printf '{reply}\n' "$id";;
    *'"id":'*)
      printf '{{"jsonrpc":"2.0","id":%s,"error":{{"code":-32601,"message":"no such method"}}}}\n' "$id";;
  esac
done
"#,
        pids = pids.display(),
    )
}

/// The folders of one test: `src` holds the watched server, `run` what must not be watched (the
/// pids the server writes, the case file, tooldeck's output).
struct Place {
    _dir: tempfile::TempDir,
    server: PathBuf,
    pids: PathBuf,
    run: PathBuf,
}

fn place() -> Place {
    let dir = tempfile::tempdir().expect("temp dir");
    let (src, run) = (dir.path().join("src"), dir.path().join("run"));
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::create_dir_all(&run).expect("mkdir");
    Place { server: src.join("server.sh"), pids: run.join("pids"), run, _dir: dir }
}

impl Place {
    fn write_server(&self, answer: &str) {
        std::fs::write(&self.server, server_script(answer, &self.pids)).expect("server written");
    }

    /// tooldeck with `args`, its stdout and stderr going to files in `run`.
    fn start(&self, args: &[&str]) -> Child {
        let out = std::fs::File::create(self.run.join("out")).expect("out");
        let err = std::fs::File::create(self.run.join("err")).expect("err");
        Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(args)
            .current_dir(&self.run)
            .env("TOOLDECK_HISTORY", self.run.join("history.jsonl"))
            .env("HOME", &self.run)
            .env("XDG_CONFIG_HOME", self.run.join("config"))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("the binary runs")
    }

    fn said(&self) -> (String, String) {
        let read = |name: &str| std::fs::read_to_string(self.run.join(name)).unwrap_or_default();
        (read("out"), read("err"))
    }

    /// Waits (20 s at most) until `what` holds of stdout and stderr.
    fn wait_for(&self, what: &str, holds: impl Fn(&str, &str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (out, err) = self.said();
            if holds(&out, &err) {
                return;
            }
            assert!(Instant::now() < deadline, "waited for {what}\nstdout:\n{out}\nstderr:\n{err}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGINT, then the exit (10 s at most), then no server it started still running.
    fn stop(&self, mut child: Child) {
        let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait().expect("wait").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("tooldeck did not end on SIGINT: {:?}", self.said());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let started = std::fs::read_to_string(&self.pids).unwrap_or_default();
        let left: Vec<&str> = started.lines().filter(|pid| running(pid)).collect();
        assert!(left.is_empty(), "servers still running: {left:?} of {started:?}");
    }
}

/// True when `pid`, or a process in the group it led, still runs (zombies do not count).
fn running(pid: &str) -> bool {
    let listed = Command::new("ps").args(["-A", "-o", "pid=,pgid=,stat="]).output().expect("ps runs");
    String::from_utf8_lossy(&listed.stdout).lines().any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        matches!(fields.as_slice(), [p, g, stat] if (*p == pid || *g == pid) && !stat.starts_with('Z'))
    })
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn test_watch_reports_a_case_that_starts_failing_a_broken_server_and_the_mend() {
    let place = place();
    place.write_server("v1");
    let cases = place.run.join("cases.yaml");
    std::fs::write(
        &cases,
        "cases:\n  - name: says v1\n    tool: echo\n    args: {text: hi}\n    expect: {value: v1}\n",
    )
    .expect("cases written");
    let command = format!("sh {}", place.server.display());
    let child = place.start(&[
        "test",
        &cases.display().to_string(),
        "--mcp",
        &command,
        "--watch",
        &place.server.display().to_string(),
    ]);
    place.wait_for("the first run", |out, _| out.contains("1 passed, 0 failed"));

    place.write_server("v2");
    place.wait_for("the case to turn", |out, _| out.contains("now failing: says v1"));
    let (out, err) = place.said();
    assert!(out.contains(r#"expected "v1", got "v2""#), "{out}");
    assert!(err.contains("server.sh changed · run 2"), "{err}");

    // A server that no longer starts is reported with its stderr, and tried again on the next edit.
    std::fs::write(&place.server, "echo 'syntax error near line 3' >&2\nexit 3\n").expect("broken");
    place.wait_for("the broken server", |out, _| out.contains("syntax error near line 3"));
    place.write_server("v1");
    place.wait_for("the mend", |out, _| out.contains("passing again: says v1"));
    let (out, _) = place.said();
    assert_eq!(count(&out, "1 passed, 0 failed"), 2, "{out}");
    place.stop(child);
    let starts = std::fs::read_to_string(&place.pids).unwrap_or_default().lines().count();
    assert!(starts >= 3, "the server was started for each good run: {starts}");
}

#[test]
fn call_watch_calls_again_after_each_change_and_survives_a_server_that_fails() {
    let place = place();
    place.write_server("first");
    let command = format!("sh {}", place.server.display());
    // The folder is watched: the edit is seen however the file is written.
    let folder = place.server.parent().expect("folder").display().to_string();
    let child = place.start(&["call", "echo", "--mcp", &command, "--arg", "text=x", "--watch", &folder]);
    place.wait_for("the first call", |out, _| out.contains(r#""value": "first""#));

    std::fs::write(&place.server, "echo 'cannot find module' >&2\nexit 1\n").expect("broken");
    place.wait_for("the failure", |_, err| err.contains("cannot find module"));
    place.write_server("second");
    place.wait_for("the second call", |out, _| out.contains(r#""value": "second""#));
    place.stop(child);
}

// The PTY harness; this file uses only part of it.
#[allow(dead_code)]
#[path = "support/terminal.rs"]
mod terminal;

/// The app with `--watch`: an edit of the server restarts it, the list follows, what was typed
/// into the form stays, and the next run gets the new server's answer.
#[test]
fn the_app_restarts_the_server_on_a_change_and_keeps_what_was_typed() {
    use terminal::{CTRL_R, ENTER, Terminal, bottom_line};
    let place = place();
    place.write_server("one");
    let command = format!("sh '{}'", place.server.display());
    let src = place.server.parent().expect("src").display().to_string();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str(), "--watch", src.as_str()], 40, 120, &[]);
    tui.wait_for("the server's tool", |text| text.contains("echo"));
    tui.send(ENTER);
    tui.wait_for("the form", |text| bottom_line(text).contains(" edit "));
    tui.type_slowly("hi");
    tui.send(CTRL_R);
    tui.wait_text("one");
    place.write_server("two");
    // Ctrl-R as soon as the restart begins: the call waits for the new server (sent at once it
    // would reach the old one, still up until the new one is).
    tui.wait_for("the restart", |text| text.contains("changed: restarting") || text.contains("reconnected to"));
    tui.send(CTRL_R);
    let screen = tui.wait_text("two");
    assert!(screen.contains("\"hi\""), "what was typed stays:\n{screen}");
    tui.quit();
    let pids = std::fs::read_to_string(&place.pids).unwrap_or_default();
    assert_eq!(pids.lines().count(), 2, "started once, then again after the change");
    std::thread::sleep(Duration::from_millis(500));
    assert!(pids.lines().all(|pid| !running(pid)), "nothing left running: {pids}");
}

/// `fuzz --watch`: a server that fails every call is a finding; after the edit that mends it,
/// the report opens with the finding gone; after the edit that breaks it again, with it new.
#[test]
fn fuzz_watch_says_which_findings_are_new_and_which_are_gone() {
    let place = place();
    let failing = r#"{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"internal boom"}}"#;
    std::fs::write(&place.server, script(ECHO, failing, &place.pids)).expect("server written");
    let command = format!("sh {}", place.server.display());
    let child = place.start(&[
        "fuzz",
        "--mcp",
        &command,
        "--max-calls",
        "4",
        "--seed",
        "1",
        "--watch",
        &place.server.display().to_string(),
    ]);
    place.wait_for("the first report", |out, _| out.contains("internal boom"));
    assert!(!place.said().0.contains("gone:"), "the first run has nothing to be held against");

    place.write_server("fine");
    place.wait_for("the finding gone", |out, _| out.contains("gone: echo: "));
    let (out, err) = place.said();
    assert!(err.contains("server.sh changed · run 2"), "{err}");
    assert!(!out.contains("new:  echo"), "{out}");

    std::fs::write(&place.server, script(ECHO, failing, &place.pids)).expect("broken again");
    place.wait_for("the finding new", |out, _| out.contains("new:  echo: "));
    place.stop(child);
}

/// The app with `--watch-run`: an edit that adds a parameter restarts the server, the last call
/// runs again by itself and the status line says how its result changed, the typed value is
/// kept, and the server pane keeps the old run's log above the restart line, with the diff
/// engine's line below it.
#[test]
fn the_app_with_watch_run_calls_again_and_says_what_changed() {
    use terminal::{CTRL_R, ENTER, Terminal, bottom_line};
    let place = place();
    place.write_server("one");
    let command = format!("sh '{}'", place.server.display());
    let src = place.server.parent().expect("src").display().to_string();
    let args = ["--mcp", command.as_str(), "--watch", src.as_str(), "--watch-run"];
    let mut tui = Terminal::spawn(&args, 40, 140, &[]);
    tui.wait_for("the server's tool", |text| text.contains("echo"));
    tui.send(ENTER);
    tui.wait_for("the form", |text| bottom_line(text).contains(" edit "));
    tui.type_slowly("hi");
    tui.send(CTRL_R);
    tui.wait_text("one");

    let tools = r#"[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}}}}]"#;
    let reply = r#"{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"two"}]}}"#;
    std::fs::write(&place.server, script(tools, reply, &place.pids)).expect("server edited");
    let screen = tui.wait_for("the call run again", |text| text.contains("run again after the change: result changed"));
    assert!(screen.contains("\"hi\""), "what was typed stays:\n{screen}");
    assert!(screen.contains("count"), "the new parameter is in the form:\n{screen}");

    // F2: the server pane, the restart line between the old run's log and the new one's.
    tui.send("\x1bOQ");
    let pane = tui.wait_for("the server pane", |text| text.contains("── restarted "));
    let restart = pane.find("── restarted ").expect("the restart line");
    let change = pane
        .find("echo: new optional parameter \"count\", not breaking")
        .unwrap_or_else(|| panic!("the diff line:\n{pane}"));
    assert!(restart < change, "{pane}");
    assert!(pane.contains("after server.sh changed ──"), "{pane}");
    tui.quit();
    std::thread::sleep(Duration::from_millis(500));
    let pids = std::fs::read_to_string(&place.pids).unwrap_or_default();
    assert_eq!(pids.lines().count(), 2, "started once, then again after the change");
    assert!(pids.lines().all(|pid| !running(pid)), "nothing left running: {pids}");
}

/// `list --watch`: each listing after a change is preceded, on stderr, by how the tools changed.
#[test]
fn list_watch_says_how_the_tools_changed() {
    let place = place();
    place.write_server("x");
    let command = format!("sh {}", place.server.display());
    let child = place.start(&["list", "--mcp", &command, "--watch", &place.server.display().to_string()]);
    place.wait_for("the first listing", |out, _| out.contains("echo"));
    let tools = r#"[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"integer"}}}},{"name":"ping","inputSchema":{"type":"object"}}]"#;
    std::fs::write(&place.server, script(tools, "", &place.pids)).expect("server edited");
    place.wait_for("the changes", |_, err| err.contains("ping: new tool, not breaking"));
    let (_, err) = place.said();
    let retyped = err.find("echo: type of parameter \"text\"").unwrap_or_else(|| panic!("{err}"));
    assert!(retyped < err.find("ping: new tool").unwrap_or(0), "breaking first:\n{err}");
    assert!(err.contains("server.sh changed · run 2"), "{err}");
    place.write_server("x");
    place.wait_for("run 3", |_, err| err.contains("run 3"));
    std::thread::sleep(Duration::from_millis(300));
    place.stop(child);
}

/// The app with `--watch`: an edit that breaks the server shows its stderr, and the next edit,
/// which mends it, starts it again and lists its tools.
#[test]
fn the_app_shows_a_server_broken_by_a_change_and_tries_again_on_the_next() {
    use terminal::Terminal;
    let place = place();
    place.write_server("one");
    let command = format!("sh '{}'", place.server.display());
    let src = place.server.parent().expect("src").display().to_string();
    let mut tui = Terminal::spawn(&["--mcp", command.as_str(), "--watch", src.as_str()], 40, 140, &[]);
    tui.wait_for("the server's tool", |text| text.contains("echo"));
    // F2: the server pane, where the restart and its failure are said.
    tui.send("\x1bOQ");
    tui.wait_for("the server pane", |text| text.contains("stderr and log"));
    std::fs::write(&place.server, "echo 'syntax error near line 3' >&2\nexit 3\n").expect("broken");
    tui.wait_for("the failure", |text| text.contains("syntax error near line 3"));
    let tools = r#"[{"name":"mended","inputSchema":{"type":"object"}}]"#;
    std::fs::write(&place.server, script(tools, "", &place.pids)).expect("mended");
    let screen = tui.wait_for("the mend", |text| text.contains("mended: new tool, not breaking"));
    assert!(screen.contains("echo: tool removed, breaking"), "{screen}");
    tui.quit();
    std::thread::sleep(Duration::from_millis(500));
    let pids = std::fs::read_to_string(&place.pids).unwrap_or_default();
    assert!(pids.lines().all(|pid| !running(pid)), "nothing left running: {pids}");
}

/// A call made while a stdio server restarts reaches the new server, not the old one still up
/// until the new one is: the restart holds the connection until it has the new one. The new
/// server takes half a second to start, so a call that did not wait would get the old answer.
#[tokio::test]
async fn a_call_during_a_restart_reaches_the_new_server() {
    use tooldeck::invoke::otc::CallRequest;
    let place = place();
    place.write_server("one");
    let options = tooldeck::invoke::endpoint::EndpointOptions {
        mcp: Some(format!("sh '{}'", place.server.display())),
        ..Default::default()
    };
    let endpoint = std::sync::Arc::new(options.connect(Vec::new(), None).await.expect("connects"));
    let request = CallRequest::new("echo", serde_json::json!({}));
    let (outcome, _) = endpoint.call(&request).await.expect("answers");
    assert!(format!("{:?}", outcome.value).contains("one"), "{:?}", outcome.value);
    std::fs::write(&place.server, format!("sleep 0.5\n{}", server_script("two", &place.pids))).unwrap();
    let restarting = std::sync::Arc::clone(&endpoint);
    let restart = tokio::spawn(async move { restarting.reconnect().await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (outcome, _) = endpoint.call(&request).await.expect("answers");
    assert!(format!("{:?}", outcome.value).contains("two"), "the new server answered: {:?}", outcome.value);
    restart.await.unwrap().expect("restarted");
    match std::sync::Arc::try_unwrap(endpoint) {
        Ok(endpoint) => endpoint.close().await,
        Err(_) => panic!("the endpoint is still shared"),
    }
    let pids = std::fs::read_to_string(&place.pids).unwrap_or_default();
    std::thread::sleep(Duration::from_millis(300));
    assert!(pids.lines().all(|pid| !running(pid)), "nothing left running: {pids}");
}
