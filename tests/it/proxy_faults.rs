//! `tooldeck proxy --fault`: errors, delays, drops and corrupt lines injected between a client
//! speaking JSON-RPC by hand and this binary's stdio test server (rmcp's server side), over
//! stdio and behind `--listen`; each said on stderr and written in the record as injected.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::otc::CallRequest;
use tooldeck::wire::jsonrpc;

fn tooldeck() -> &'static str {
    env!("CARGO_BIN_EXE_tooldeck")
}

/// How long an answer may take before a test gives up on it.
const PATIENCE: Duration = Duration::from_secs(30);

/// A client speaking JSON-RPC by hand to `tooldeck proxy OPTIONS -- <the test server>`: what
/// the proxy writes to it arrives line by line on a thread of its own, so a test can wait for a
/// line with a deadline (and see that an answer never comes).
pub(crate) struct Hand {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Hand {
    /// The proxy with `options`, its runtime folder `runtime` (where its live feed is), the
    /// session initialized.
    pub(crate) fn start(options: &[&str], runtime: &Path) -> Hand {
        let server: Vec<String> = shlex::split(&crate::mcp::stdio_command_with("")).unwrap();
        let mut child = Command::new(tooldeck())
            .env("XDG_RUNTIME_DIR", runtime)
            .arg("proxy")
            .args(options)
            .arg("--")
            .args(&server)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        let output = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in output.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let said = Arc::clone(&stderr);
        let errors = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in errors.lines().map_while(Result::ok) {
                said.lock().unwrap().push_str(&format!("{line}\n"));
            }
        });
        let mut hand = Hand { child, input, lines, stderr };
        let init =
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        hand.request(0, "initialize", init);
        hand.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        hand
    }

    pub(crate) fn send(&mut self, message: &Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// The next line the proxy writes to the client, skipping libtest's own; `None` when none
    /// comes within `wait`.
    pub(crate) fn next_line(&self, wait: Duration) -> Option<String> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.trim().is_empty() || line.starts_with("running ") => {}
                Ok(line) => return Some(line),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// The answer with `id`, waiting at most `wait`; lines before it are skipped.
    pub(crate) fn answer_within(&self, id: u64, wait: Duration) -> Option<Value> {
        let deadline = Instant::now() + wait;
        loop {
            let line = self.next_line(deadline.saturating_duration_since(Instant::now()))?;
            if let Ok(answer) = serde_json::from_str::<Value>(&line)
                && answer["id"] == json!(id)
            {
                return Some(answer);
            }
        }
    }

    pub(crate) fn answer(&self, id: u64) -> Value {
        self.answer_within(id, PATIENCE).unwrap_or_else(|| panic!("no answer to {id}; stderr: {}", self.said()))
    }

    pub(crate) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(id)
    }

    pub(crate) fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        let params = json!({"name": tool, "arguments": arguments});
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    }

    /// What the proxy said on stderr so far.
    pub(crate) fn said(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Closes the client's side and waits for the proxy to end; its stderr.
    pub(crate) fn end(mut self) -> String {
        drop(self.input);
        let start = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            assert!(start.elapsed() < PATIENCE, "the proxy did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
        // The stderr thread reads to the end.
        std::thread::sleep(Duration::from_millis(100));
        self.stderr.lock().unwrap().clone()
    }
}

pub(crate) fn record_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("the record");
    text.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect()
}

#[test]
fn each_action_over_stdio_is_done_said_and_recorded_as_injected() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("faults.jsonl");
    let record_arg = record.display().to_string();
    let rules = [
        "tools/call@echo:error=-32000",
        "tools/call@add:delay=700ms",
        "tools/call@fail:drop",
        "tools/call@wipe:corrupt",
        "notifications/roots/list_changed:drop",
    ];
    let mut options = vec!["--record", &record_arg];
    for rule in &rules {
        options.extend(["--fault", rule]);
    }
    let mut client = Hand::start(&options, dir.path());
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));

    client.call(1, "echo", json!({"text": "hi"}));
    let answer = client.answer(1);
    assert_eq!(answer["error"]["code"], jsonrpc::SERVER_ERROR, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("injected"), "{answer}");

    // The delayed answer comes late, and the answer asked after it is not kept waiting.
    let asked = Instant::now();
    client.call(2, "add", json!({"a": 1, "b": 2}));
    client.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    let first = client.next_line(PATIENCE).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&first).unwrap()["id"], 3, "the ping answer first: {first}");
    assert!(client.answer(2)["result"]["structuredContent"]["sum"] == 3.0);
    assert!(asked.elapsed() >= Duration::from_millis(700));

    // A dropped answer never comes; the session goes on.
    client.call(4, "fail", json!({}));
    assert!(client.answer_within(4, Duration::from_millis(800)).is_none());
    assert_eq!(client.request(5, "ping", json!({}))["result"], json!({}));

    // A corrupt answer is a line that is not JSON.
    client.call(6, "wipe", json!({}));
    let line = client.next_line(PATIENCE).unwrap();
    assert!(serde_json::from_str::<Value>(&line).is_err(), "{line}");
    let said = client.end();

    for expected in [
        "injected error -32000 for tools/call echo (id 1)",
        "injected delay 700ms for the answer to tools/call add (id 2)",
        "injected drop for the answer to tools/call fail (id 4)",
        "injected corrupt for the answer to tools/call wipe (id 6)",
        "injected drop for notifications/roots/list_changed from the client",
    ] {
        assert_eq!(said.matches(expected).count(), 1, "{expected:?} in {said}");
    }
    let lines = record_lines(&record);
    let injected = |rule: &str| lines.iter().filter(|l| l["injected"] == rule).cloned().collect::<Vec<_>>();
    let error = injected(rules[0]);
    assert_eq!(error.len(), 2, "the request (not forwarded) and the proxy's answer: {error:#?}");
    assert_eq!((&error[0]["from"], &error[1]["from"]), (&json!("client"), &json!("proxy")));
    assert_eq!(error[1]["message"]["error"]["code"], jsonrpc::SERVER_ERROR);
    let delayed = injected(rules[1]);
    assert_eq!(delayed.len(), 1);
    assert_eq!((&delayed[0]["from"], &delayed[0]["message"]["id"]), (&json!("server"), &json!(2)));
    assert_eq!(injected(rules[2])[0]["message"]["id"], 4);
    let corrupt = injected(rules[3]);
    assert_eq!(corrupt.len(), 2, "{corrupt:#?}");
    assert_eq!((&corrupt[1]["from"], corrupt[1]["text"].is_string()), (&json!("proxy"), true));
    assert_eq!(injected(rules[4])[0]["message"]["method"], "notifications/roots/list_changed");
    // Only the echo request was kept from the server.
    assert!(!lines.iter().any(|l| l["from"] == "server" && l["message"]["id"] == 1), "{lines:#?}");
}

/// Whether each of 24 calls of `add` got the injected error, under `--fault-seed seed`.
fn choices(seed: &str, runtime: &Path) -> Vec<bool> {
    let options =
        ["--fault", "tools/call@add:error=-32000:p=0.5", "--fault", "tools/call@wipe:drop:p=0", "--fault-seed", seed];
    let mut client = Hand::start(&options, runtime);
    let mut fired = Vec::new();
    for id in 1..=24 {
        client.call(id, "add", json!({"a": 1, "b": 1}));
        fired.push(client.answer(id).get("error").is_some());
        // p=0: never fires.
        client.call(100 + id, "wipe", json!({}));
        assert!(client.answer(100 + id).get("result").is_some());
    }
    let said = client.end();
    assert!(!said.contains("--fault-seed"), "a seed given is not said: {said}");
    fired
}

#[test]
fn a_seed_repeats_the_choices_and_p_0_never_fires() {
    let dir = tempfile::tempdir().unwrap();
    let first = choices("42", dir.path());
    assert!(first.contains(&true) && first.contains(&false), "{first:?}");
    assert_eq!(choices("42", dir.path()), first);
    assert_ne!(choices("7", dir.path()), first);
}

#[test]
fn a_rule_that_does_not_read_is_refused_naming_it() {
    for (rule, why) in [
        ("tools/call:explode", "unknown action"),
        ("tools/call:drop:p=2", "from 0 to 1"),
        ("notifications/progress:error=-32000", "is a notification"),
        ("tools call:drop", "not a JSON-RPC method name"),
    ] {
        let output = Command::new(tooldeck()).args(["proxy", "--fault", rule, "--", "true"]).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{rule}");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(said.contains(rule) && said.contains(why), "{rule}: {said}");
    }
}

/// `--listen` in front of the stdio test server (each session a server of its own): the error
/// and the delayed answer reach a real client (tooldeck's own, rmcp's client side).
#[tokio::test]
async fn faults_behind_listen_in_front_of_a_command() {
    let server: Vec<String> = shlex::split(&crate::mcp::stdio_command_with("")).unwrap();
    let mut target: Vec<&std::ffi::OsStr> = vec!["--".as_ref()];
    target.extend(server.iter().map(std::ffi::OsStr::new));
    an_error_and_a_delay_reach_a_client_through(&target).await;
}

/// `--listen --mcp-url` in front of a Streamable HTTP server: the error answers the POST, the
/// delayed answer's SSE event comes late.
#[tokio::test]
async fn faults_behind_listen_in_front_of_a_url() {
    let upstream = crate::mcp::serve_http_with(crate::mcp::TestServer::default).await;
    an_error_and_a_delay_reach_a_client_through(&["--mcp-url".as_ref(), upstream.as_ref()]).await;
}

/// A proxy behind `--listen` in front of `target` with an error rule on `echo` and a delay on
/// `add`: a client gets the error and the late answer, and the record says which was injected.
async fn an_error_and_a_delay_reach_a_client_through(target: &[&std::ffi::OsStr]) {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("listen.jsonl");
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--fault".as_ref(),
        "tools/call@echo:error=-32042".as_ref(),
        "--fault".as_ref(),
        "tools/call@add:delay=300ms".as_ref(),
        "--record".as_ref(),
        record.as_os_str(),
    ];
    args.extend_from_slice(target);
    let (mut proxy, listen, _stderr) = crate::proxy::listening_proxy(&args);
    let endpoint = McpEndpoint::connect_http(&format!("http://{listen}/mcp"), Vec::new()).await.unwrap();
    let failed = endpoint.call(&CallRequest::new("echo", json!({"text": "hi"}))).await.unwrap_err();
    assert_eq!(failed.json_rpc_code(), Some(-32042), "{failed}");
    let started = Instant::now();
    let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": 1, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 3.0})));
    assert!(started.elapsed() >= Duration::from_millis(300));
    endpoint.close().await;
    assert!(Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));
    let lines = record_lines(&record);
    let error = lines.iter().find(|l| l["from"] == "proxy" && l["injected"] == "tools/call@echo:error=-32042");
    assert_eq!(error.expect("the injected error recorded")["message"]["error"]["code"], -32042, "{lines:#?}");
    assert!(lines.iter().any(|l| l["from"] == "server" && l["injected"] == "tools/call@add:delay=300ms"), "{lines:#?}");
}
