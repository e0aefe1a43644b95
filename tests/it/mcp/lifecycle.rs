//! No server process outlives tooldeck, nor anything a server starts: on a normal end, and when
//! `tooldeck call` is ended by a signal, even with a server that ignores SIGTERM.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::*;

/// The server's notes once they hold `lines` lines.
fn notes_with(path: &std::path::Path, lines: usize) -> String {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().count() >= lines {
            return text;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the server never wrote {lines} lines: {text:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pids(notes: &str) -> Vec<u32> {
    notes.lines().filter_map(|line| line.trim_start_matches("child ").parse().ok()).collect()
}

fn gone_within(pid: u32, limit: Duration) -> bool {
    let started = Instant::now();
    while alive(pid) {
        if started.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

fn call_in_background(env: &str, tool: &str, notes: &std::path::Path, history: &std::path::Path) -> Child {
    let server = stdio_command_with(&format!("{NOTES_ENV}='{}' {env}", notes.display()));
    Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", tool, "--mcp", &server])
        .env("TOOLDECK_HISTORY", history)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tooldeck runs")
}

#[test]
fn what_a_server_forks_ends_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let notes = dir.path().join("notes");
    let mut call = call_in_background(&format!("{FORK_ENV}=1"), "add", &notes, &dir.path().join("h.jsonl"));
    let _ = call.wait();
    let text = notes_with(&notes, 2);
    for pid in pids(&text) {
        assert!(gone_within(pid, Duration::from_secs(5)), "{pid} outlived tooldeck call ({text:?})");
    }
}

#[cfg(unix)]
#[test]
fn a_signal_to_call_ends_a_stubborn_server_and_its_children() {
    for signal in ["TERM", "HUP", "INT"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let notes = dir.path().join("notes");
        let env = format!("{FORK_ENV}=1 {STUBBORN_ENV}=1 {LINGER_ENV}=1");
        let mut call = call_in_background(&env, "slow", &notes, &dir.path().join("h.jsonl"));
        let text = notes_with(&notes, 2);
        // The call is under way (the slow tool takes ten seconds): end tooldeck.
        std::thread::sleep(Duration::from_millis(300));
        let sent = Command::new("kill").args([&format!("-{signal}"), &call.id().to_string()]).status();
        assert!(sent.expect("kill runs").success());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = call.try_wait().expect("wait") {
                break status;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "SIG{signal}: tooldeck call did not end");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(!status.success(), "SIG{signal}: {status:?}");
        for pid in pids(&text) {
            assert!(gone_within(pid, Duration::from_secs(5)), "SIG{signal}: {pid} outlived tooldeck ({text:?})");
        }
    }
}

/// An answer over the cap is said to be one at once, not waited for until the timeout.
#[test]
fn an_oversized_answer_is_reported_as_such() {
    let dir = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "huge", "--mcp", &stdio_command(), "--timeout", "60"])
        .env("TOOLDECK_HISTORY", dir.path().join("h.jsonl"))
        .output()
        .expect("tooldeck runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("larger than 16 MiB"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30), "waited {:?}", started.elapsed());
}
