//! `tooldeck attach` and the frames under the traffic pane: the app's own session handed to a
//! frame sink both ways, proxies published on sockets, listed, watched live, and records opened.

use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::wire::{Ring, Side};

/// The app's record of the wire is frames: a sink added to a real session sees what tooldeck
/// (the client) sent and what the server answered, each named by who sent it.
#[tokio::test]
async fn a_frame_sink_sees_both_directions_of_a_real_session() {
    let endpoint = McpEndpoint::connect_stdio(&crate::mcp::stdio_command_with("")).await.unwrap();
    let ring = Ring::new(100);
    endpoint.events().add_sink(Box::new(ring.sink()));
    assert!(!endpoint.list_tools().await.unwrap().is_empty());
    endpoint.close().await;
    let frames = ring.frames();
    let request = frames.iter().find(|f| f.method() == Some("tools/list")).expect("the request as a frame");
    assert_eq!(request.from, Side::Client);
    let answer = frames.iter().find(|f| f.is_response() && f.id() == request.id()).expect("its answer");
    assert_eq!(answer.from, Side::Server);
    assert!(answer.is_json_rpc() && answer.kept());
}

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooldeck::proxy::live;

fn tooldeck() -> &'static str {
    env!("CARGO_BIN_EXE_tooldeck")
}

/// A name of this run's own: the folder of running proxies is the user's, shared with every
/// other proxy and test.
fn unique(name: &str) -> String {
    format!("{name}-{}-{}", std::process::id(), &uuid::Uuid::new_v4().simple().to_string()[..8])
}

/// A client speaking JSON-RPC by hand to `tooldeck proxy --name NAME` in front of this binary's
/// stdio test server.
struct Client {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Client {
    fn start(name: &str) -> Client {
        Client::start_in(name, None)
    }

    /// With `runtime` as the user's runtime folder (`XDG_RUNTIME_DIR`), where running proxies
    /// are found: a folder of the test's own holds this proxy alone.
    fn start_in(name: &str, runtime: Option<&std::path::Path>) -> Client {
        let server: Vec<String> = shlex::split(&crate::mcp::stdio_command_with("")).unwrap();
        let mut command = Command::new(tooldeck());
        if let Some(runtime) = runtime {
            command.env("XDG_RUNTIME_DIR", runtime);
        }
        let mut child = command
            .args(["proxy", "--name", name, "--"])
            .args(&server)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut client = Client { child, input, output };
        let init =
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        client.request(0, "initialize", init);
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// Sends a request and reads lines until its answer (the test server's libtest line and
    /// notifications are passed over).
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "the proxy closed before answering {method}");
            if let Ok(answer) = serde_json::from_str::<Value>(&line)
                && answer["id"] == json!(id)
            {
                return answer;
            }
        }
    }

    /// Closes the client's side: the server ends, then the proxy.
    fn end(mut self) {
        drop(self.input);
        let start = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            assert!(start.elapsed() < Duration::from_secs(20), "the proxy did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn running(name: &str) -> Option<live::Running> {
    live::list().unwrap().into_iter().find(|r| r.about.name == name)
}

/// A proxy in front of a stdio server is listed (its server, pid, messages), and its feed brings
/// the recent frames (the tool list among them) and then each frame as it passes, both ways. A
/// second proxy of the same name gets another and says so; a dead proxy's socket is removed.
#[test]
fn a_running_proxy_is_listed_and_its_feed_brings_frames_both_ways() {
    let name = unique("feed");
    let mut client = Client::start(&name);
    let listed = client.request(1, "tools/list", json!({}));
    assert!(listed.to_string().contains("\"add\""), "{listed}");

    let proxy = running(&name).expect("the proxy is listed");
    assert_eq!(proxy.about.pid, u64::from(client.child.id()));
    assert!(proxy.about.server_shown().contains("stdio_server_mode"), "{:?}", proxy.about.server);
    assert!(proxy.about.messages >= 4, "{:?}", proxy.about);

    // The command lists it too: name, server, pid, since, messages.
    let listing = Command::new(tooldeck()).arg("attach").output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout).into_owned();
    let row = listing.lines().find(|l| l.starts_with(&name)).unwrap_or_else(|| panic!("{listing}"));
    assert!(listing.starts_with("NAME") && row.contains(&client.child.id().to_string()), "{listing}");

    let (about, recent, feed) = live::open(&name).unwrap();
    assert_eq!(about.name, name);
    let tools = live::recorded_tools(&recent).expect("the tool list in the recent frames");
    assert!(tools.contains("\"add\""), "{tools}");

    let ring = tooldeck::wire::Ring::new(100);
    let stop = Arc::new(AtomicBool::new(false));
    let following = {
        let (mut sink, stop) = (ring.sink(), Arc::clone(&stop));
        let mut take = move |line| match line {
            live::FeedLine::Frame(frame, _) => tooldeck::wire::FrameSink::accept(&mut sink, &frame),
            live::FeedLine::Notice(_) => Ok(()),
        };
        std::thread::spawn(move || feed.follow(&mut take, &stop))
    };
    let answer = client.request(2, "tools/call", json!({"name": "add", "arguments": {"a": 40, "b": 2}}));
    assert!(answer.to_string().contains("42"), "{answer}");
    let start = Instant::now();
    let seen = loop {
        let frames = ring.frames();
        let call = frames.iter().find(|f| f.method() == Some("tools/call")).map(|f| f.from);
        let answered = frames.iter().find(|f| f.is_response() && f.id() == Some(&json!(2))).map(|f| f.from);
        if let (Some(call), Some(answered)) = (call, answered) {
            break (call, answered);
        }
        assert!(start.elapsed() < Duration::from_secs(15), "the feed brought {frames:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(seen, (Side::Client, Side::Server));

    // Another proxy with the same name runs beside it under another name, and says so.
    let mut second = Client::start(&name);
    let mut said = String::new();
    BufReader::new(second.child.stderr.take().unwrap()).read_line(&mut said).unwrap();
    assert!(said.contains(&format!("this one is {name}-2")), "{said}");
    assert!(running(&format!("{name}-2")).is_some());
    second.request(1, "tools/list", json!({}));
    second.end();

    client.end();
    assert!(following.join().unwrap(), "the feed ends with the proxy");
    stop.store(true, Ordering::Relaxed);
    assert!(running(&name).is_none(), "its socket went with it");

    // A proxy that died without removing its socket: the listing removes it.
    #[cfg(unix)]
    {
        let stale = live::folder().unwrap().join(format!("{}.sock", unique("stale")));
        drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
        assert!(stale.exists());
        live::list().unwrap();
        assert!(!stale.exists(), "the stale socket is removed on listing");
    }
    let refused = live::open(&unique("nobody")).err().unwrap().to_string();
    assert!(refused.contains("no running proxy is named"), "{refused}");
}

// The PTY harness; this file uses only part of it.
#[allow(dead_code)]
#[path = "support/terminal.rs"]
mod terminal;

/// `tooldeck attach NAME` in a real terminal: the tool the server listed to the client is in the
/// list, and the client's call is a line of the traffic pane.
#[test]
fn attach_opens_the_app_on_a_running_proxy() {
    use terminal::Terminal;
    let name = unique("pty");
    let mut client = Client::start(&name);
    client.request(1, "tools/list", json!({}));
    client.request(2, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}));
    let mut tui = Terminal::spawn(&["attach", name.as_str()], 40, 120, &[]);
    tui.wait_for("the recorded tool", |text| text.contains("add"));
    tui.send("X");
    tui.wait_for("the client's call in the traffic", |text| text.contains("→ tools/call #2"));
    tui.wait_text("← tools/call #2 (result)");
    tui.quit();
    client.end();
}

/// `tooldeck attach` with no name, as `tmux attach`: none running says how to start one; the
/// one running is opened in a terminal (and listed for a script).
#[cfg(target_os = "linux")]
#[test]
fn attach_with_no_name_opens_the_one_running_proxy() {
    use std::os::unix::fs::PermissionsExt;
    use terminal::Terminal;
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let folder = runtime.path().display().to_string();
    let attach = || Command::new(tooldeck()).arg("attach").env("XDG_RUNTIME_DIR", &folder).output().unwrap();
    let none = String::from_utf8_lossy(&attach().stdout).into_owned();
    assert!(none.contains("no proxy is running: `tooldeck proxy --name NAME -- COMMAND` starts one"), "{none}");
    let name = unique("only");
    let mut client = Client::start_in(&name, Some(runtime.path()));
    client.request(1, "tools/list", json!({}));
    let listed = String::from_utf8_lossy(&attach().stdout).into_owned();
    assert!(listed.starts_with("NAME") && listed.contains(&name), "a script gets the list: {listed}");
    let mut tui = Terminal::spawn(&["attach"], 40, 120, &[("XDG_RUNTIME_DIR", folder.as_str())]);
    tui.wait_for("the one proxy's tools", |text| text.contains("add") && text.contains(&format!("proxy {name}")));
    tui.quit();
    client.end();
}

/// `tooldeck attach FILE` on a saved record: the listed tools, the traffic, and Enter on a call
/// puts its arguments in the form, but for a masked one, which is asked for (never the mask, nor
/// a mask of it).
#[test]
fn attach_opens_a_saved_record() {
    use terminal::{ENTER, Terminal, bottom_line};
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let lines = [
        json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}),
        json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "greet_person", "inputSchema": {"type": "object", "properties": {
                "who": {"type": "string"}, "api_key": {"type": "string"}}}}]}}}),
        json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "greet_person", "arguments": {"who": "Ada Lovelace", "api_key": "•••• (18 chars)"}}}}),
        json!({"from": "server", "text": "debug: greeting", "note": tooldeck::wire::NOT_JSON_RPC}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&record, text.join("\n")).unwrap();
    let path = record.display().to_string();
    let mut tui = Terminal::spawn(&["attach", path.as_str()], 40, 120, &[]);
    tui.wait_text("greet_person");
    tui.send("X");
    let shown = tui.wait_text("← not JSON-RPC: clients will fail here");
    assert!(shown.contains("traffic · record "), "the record names the session: {shown}");
    tui.send("k");
    tui.wait_text("── → tools/call #2");
    tui.send(ENTER);
    let shown = tui.wait_for("the call in the form", |text| bottom_line(text).contains("api_key was masked"));
    let who = terminal::field_row(&shown, "who").unwrap_or_default();
    assert!(who.contains("Ada Lovelace"), "{shown}");
    let key = terminal::field_row(&shown, "api_key").unwrap_or_default();
    assert!(!key.contains('•'), "the mask is not put in the form: {shown}");
    tui.quit();
}

/// `tooldeck attach FILE` on a record a proxy is still writing follows it as `tail -F`: a line
/// written later appears, a rotation (FILE moved to FILE.1, a new FILE begun with the carried
/// lines) is followed into the new file, and a stderr line reads as the server's stderr.
#[test]
fn attach_follows_a_record_as_it_is_written_and_rotated() {
    use std::time::SystemTime;

    use bytes::Bytes;
    use terminal::Terminal;
    use tooldeck::wire::{Frame, FrameSink, JsonLinesSink, RecordLimits};

    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("live.jsonl");
    let limits = RecordLimits { max_size: Some(2000), keep: 3 };
    let mut sink = JsonLinesSink::open_within(&record, limits, None).unwrap();
    let mut write = |from: Side, message: Value| {
        sink.accept(&Frame::new(from, SystemTime::now(), Bytes::from(message.to_string()), None)).unwrap();
        sink.flush().unwrap();
    };
    write(Side::Client, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    write(
        Side::Server,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "greet_person", "inputSchema": {"type": "object"}}]}}),
    );
    let path = record.display().to_string();
    let mut tui = Terminal::spawn(&["attach", path.as_str()], 40, 120, &[]);
    tui.wait_text("greet_person");
    tui.send("X");
    tui.wait_text("← tools/list #1 (result)");
    let call = |n: u64| json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "greet_person", "arguments": {"who": "x".repeat(300)}}});
    write(Side::Client, call(2));
    tui.wait_text("→ tools/call #2");
    for n in 3..12 {
        write(Side::Client, call(n));
    }
    assert!(tooldeck::wire::numbered(&record, 1).exists(), "the record was rotated");
    sink.accept(&Frame::new(Side::Stderr, SystemTime::now(), Bytes::from_static(b"warming the cache"), None)).unwrap();
    sink.flush().unwrap();
    let shown = tui.wait_text("⇠ stderr: warming the cache");
    assert!(shown.contains("→ tools/call #11"), "every call of the rotated files: {shown}");
    assert_eq!(shown.matches("← tools/list #1 (result)").count(), 1, "carried lines are not shown twice: {shown}");
    tui.send("/stderr");
    tui.wait_text("filter: stderr");
    tui.send(terminal::ENTER);
    tui.wait_text("(1 shown)");
    tui.quit();
}

/// `tooldeck attach NAME` shows what the proxy's record keeps: its server's stderr lines, and
/// long strings trimmed (`--trim-payload`) as in the record, while the client gets them whole.
#[cfg(target_os = "linux")]
#[test]
fn attach_shows_the_servers_stderr_and_trims_as_the_record_does() {
    use std::os::unix::fs::PermissionsExt;
    use terminal::Terminal;

    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let name = unique("bounds");
    let server = format!("echo 'warming up' >&2; exec {}", crate::mcp::stdio_command_with(""));
    let mut proxy = Command::new(tooldeck())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .args(["proxy", "--name", &name, "--trim-payload", "100", "--", "sh", "-c", &server])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let input = proxy.stdin.take().unwrap();
    let output = BufReader::new(proxy.stdout.take().unwrap());
    let mut client = Client { child: proxy, input, output };
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    client.request(0, "initialize", init);
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = client.request(1, "tools/call", json!({"name": "echo", "arguments": {"text": "y".repeat(5000)}}));
    assert!(answer.to_string().contains(&"y".repeat(5000)), "the client gets the whole string");

    let folder = runtime.path().display().to_string();
    let mut tui = Terminal::spawn(&["attach", name.as_str()], 40, 120, &[("XDG_RUNTIME_DIR", folder.as_str())]);
    tui.wait_for("the proxy opened", |text| text.contains(&format!("proxy {name}")));
    tui.send("X");
    tui.wait_text("⇠ stderr: warming up");
    tui.wait_text("← tools/call #1 (result)");
    tui.wait_text("… [trimmed: 4.9 KiB]");
    tui.quit();
    client.end();
}
