//! However the proxy's client goes away, the server behind it is ended the MCP stdio way (its
//! input closed, a grace, SIGTERM, a second, SIGKILL): a server that ignores the end of its input,
//! or SIGTERM too, does not outlive the proxy.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Long enough for the grace, SIGTERM's second and a slow machine; far below "never".
const ENDED_WITHIN: Duration = Duration::from_secs(12);

/// The proxy in front of `sh -c SCRIPT` (which says its pid first), and that pid.
fn proxy_before(script: &str) -> (Child, BufReader<std::process::ChildStdout>, u32) {
    let mut proxy = Command::new(super::tooldeck())
        .args(["proxy", "--", "sh", "-c", &format!("echo $$; {script}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(proxy.stdout.take().unwrap());
    let mut pid = String::new();
    stdout.read_line(&mut pid).unwrap();
    (proxy, stdout, pid.trim().parse().expect("the server's pid"))
}

/// Waits for the proxy to exit; panics (after ending it) when it does not within `ENDED_WITHIN`.
fn ended(proxy: &mut Child, what: &str) -> Option<i32> {
    let deadline = Instant::now() + ENDED_WITHIN;
    loop {
        if let Some(status) = proxy.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = proxy.kill();
            panic!("the proxy still runs {ENDED_WITHIN:?} after {what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// True while process `pid` runs (`kill -0`).
fn running(pid: u32) -> bool {
    Command::new("kill").args(["-0", &pid.to_string()]).stderr(Stdio::null()).status().unwrap().success()
}

fn assert_gone(pid: u32) {
    if running(pid) {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        panic!("the server {pid} outlived the proxy");
    }
}

#[test]
fn a_server_that_ignores_the_end_of_its_input_is_ended_when_the_client_closes() {
    let (mut proxy, _stdout, pid) = proxy_before("exec sleep 60");
    drop(proxy.stdin.take());
    assert_eq!(ended(&mut proxy, "the client closed its input"), Some(143), "the proxy had to end it");
    assert_gone(pid);
}

#[test]
fn a_server_that_ignores_sigterm_too_is_killed() {
    let (mut proxy, _stdout, pid) = proxy_before("trap '' TERM; while :; do sleep 0.05; done");
    drop(proxy.stdin.take());
    ended(&mut proxy, "the client closed its input");
    assert_gone(pid);
}

#[test]
fn a_client_that_stops_reading_ends_the_server() {
    let (mut proxy, stdout, pid) = proxy_before("while :; do echo tick; sleep 0.05; done");
    // Its input stays open: it is the output that tells.
    drop(stdout);
    ended(&mut proxy, "the client stopped reading");
    assert_gone(pid);
    drop(proxy.stdin.take());
}

#[test]
fn a_signal_ends_a_server_that_ignores_it() {
    let (mut proxy, _stdout, pid) = proxy_before("trap '' TERM INT HUP; while :; do sleep 0.05; done");
    assert!(Command::new("kill").args(["-TERM", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(ended(&mut proxy, "SIGTERM"), Some(143));
    assert_gone(pid);
}

#[test]
fn a_server_that_ends_on_its_own_keeps_its_exit_code() {
    let (mut proxy, _stdout, _) = proxy_before("cat >/dev/null; exit 7");
    drop(proxy.stdin.take());
    assert_eq!(ended(&mut proxy, "the client closed its input"), Some(7));
}
