//! Breakpoints, the proxy's side: a watcher on the live feed's socket (as `tooldeck attach` is)
//! sets one, a call through the proxy is held (the feed says so), and the watcher sends it as
//! edited, drops it, or goes away (the message then goes on as it was).

#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooldeck::wire::jsonrpc;

use crate::proxy_faults::Hand;

/// A watcher of the proxy `name`'s live feed: reads its lines, writes its own.
struct Watcher {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Watcher {
    fn attach(runtime: &Path, name: &str) -> Watcher {
        Watcher::attach_in(&runtime.join("tooldeck").join("proxies"), name)
    }

    /// In `folder`, the folder of running proxies.
    fn attach_in(folder: &Path, name: &str) -> Watcher {
        let socket = folder.join(format!("{name}.sock"));
        let deadline = Instant::now() + Duration::from_secs(30);
        let stream = loop {
            match UnixStream::connect(&socket) {
                Ok(stream) => break stream,
                Err(e) => assert!(Instant::now() < deadline, "no feed at {}: {e}", socket.display()),
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let writer = stream.try_clone().unwrap();
        let mut watcher = Watcher { reader: BufReader::new(stream), writer };
        let first = watcher.line();
        assert!(first.get("tooldeck_proxy").is_some(), "{first}");
        // Right after the first line: the breakpoints, none yet.
        assert_eq!(watcher.line(), json!({"breakpoints": []}));
        watcher
    }

    fn line(&mut self) -> Value {
        let mut line = String::new();
        assert!(self.reader.read_line(&mut line).unwrap() > 0, "the feed ended");
        serde_json::from_str(&line).unwrap()
    }

    /// Reads lines until one `wanted` says yes to.
    fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let line = self.line();
            if wanted(&line) {
                return line;
            }
        }
    }

    fn say(&mut self, line: Value) {
        writeln!(self.writer, "{line}").unwrap();
        self.writer.flush().unwrap();
    }

    /// The id of the next held message, and its feed line.
    fn held(&mut self) -> (u64, Value) {
        let line = self.until(|l| l.get("held").is_some());
        (line["held"].as_u64().unwrap(), line)
    }
}

fn unique(name: &str) -> String {
    format!("{name}-{}", &uuid::Uuid::new_v4().simple().to_string()[..8])
}

/// The text of a `tools/call` answer's first content item.
fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_held_call_is_sent_edited_dropped_or_let_go_when_the_watcher_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique("bp");
    let record = dir.path().join("held.jsonl");
    let record_arg = record.display().to_string();
    let mut client = Hand::start(&["--name", &name, "--record", &record_arg], dir.path());
    let mut watcher = Watcher::attach(dir.path(), &name);
    watcher.say(json!({"break": {"method": "tools/call", "tool": "echo", "from": "client"}}));
    let set = watcher.until(|l| l.get("breakpoints").is_some());
    assert_eq!(set["breakpoints"], json!([{"method": "tools/call", "tool": "echo", "from": "client"}]));

    // Held: no answer until the watcher says; sent edited, a masked secret kept as it was.
    client.call(1, "echo", json!({"api_key": "sk-live-0123456789abcdef", "n": 1}));
    let (id, line) = watcher.held();
    assert_eq!(line["from"], "client");
    let mut edited = line["message"].clone();
    assert_ne!(edited["params"]["arguments"]["api_key"], "sk-live-0123456789abcdef", "the feed masks it");
    assert!(client.answer_within(1, Duration::from_millis(500)).is_none(), "held");
    edited["params"]["arguments"]["n"] = json!(2);
    watcher.say(json!({"send": id, "message": edited}));
    assert_eq!(watcher.until(|l| l.get("released").is_some()), json!({"released": id, "as": "edited"}));
    let sent = text_of(&client.answer(1));
    assert!(sent.contains(r#""n":2"#) && sent.contains("sk-live-0123456789abcdef"), "{sent}");

    // Other calls pass while one is held.
    client.call(2, "echo", json!({"n": 3}));
    let (id, _) = watcher.held();
    client.call(3, "add", json!({"a": 1, "b": 1}));
    assert_eq!(client.answer(3)["result"]["structuredContent"]["sum"], 2.0);
    watcher.say(json!({"drop": id}));
    let dropped = client.answer(2);
    assert_eq!(dropped["error"]["code"], jsonrpc::DROPPED_AT_BREAKPOINT, "{dropped}");
    assert!(dropped["error"]["message"].as_str().unwrap().contains("dropped at a breakpoint"));

    // An answer held from the server's side, sent as it was.
    watcher.say(json!({"break": {"method": "tools/call", "tool": "add", "from": "server"}}));
    client.call(4, "add", json!({"a": 2, "b": 2}));
    let (id, line) = watcher.held();
    assert_eq!((line["from"].clone(), line["message"]["id"].clone()), (json!("server"), json!(4)));
    watcher.say(json!({"send": id}));
    assert_eq!(client.answer(4)["result"]["structuredContent"]["sum"], 4.0);

    // A line that does not read is answered to its watcher alone.
    watcher.say(json!({"send": "what"}));
    assert!(watcher.until(|l| l.get("error").is_some())["error"].as_str().unwrap().contains("unknown line"));

    // The watcher goes: what was held goes on as it was, and nothing more is held.
    client.call(5, "echo", json!({"n": 5}));
    watcher.held();
    drop(watcher);
    assert!(text_of(&client.answer(5)).contains(r#""n":5"#));
    client.call(6, "echo", json!({"n": 6}));
    assert!(text_of(&client.answer(6)).contains(r#""n":6"#));
    client.end();

    let lines = crate::proxy_faults::record_lines(&record);
    let edited = lines.iter().find(|l| l["injected"] == "breakpoint: edited").expect("the edit recorded");
    assert_eq!(edited["message"]["params"]["arguments"]["n"], 2);
    assert!(!std::fs::read_to_string(&record).unwrap().contains("sk-live-0123456789abcdef"), "masked in the record");
    assert!(lines.iter().any(|l| l["from"] == "proxy" && l["injected"] == "breakpoint: dropped"));
}

/// A watcher that never writes (an older `tooldeck attach`) still reads the feed; with no
/// watcher at all nothing is held.
#[test]
fn a_watcher_that_never_writes_still_watches_and_nothing_is_held_unwatched() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique("quiet");
    let mut client = Hand::start(&["--name", &name], dir.path());
    let mut watcher = Watcher::attach(dir.path(), &name);
    client.call(1, "echo", json!({"n": 1}));
    assert!(text_of(&client.answer(1)).contains(r#""n":1"#));
    let seen = watcher.until(|l| l["message"]["id"] == 1 && l["from"] == "server");
    assert!(seen.get("held").is_none());
    drop(watcher);
    client.call(2, "echo", json!({"n": 2}));
    assert!(text_of(&client.answer(2)).contains(r#""n":2"#));
    client.end();
}

/// Behind `--listen -- COMMAND`, a call held at a breakpoint waits in its POST, and goes on
/// edited to the server, as over stdio.
#[tokio::test]
async fn a_call_behind_listen_is_held_and_sent_edited() {
    let name = unique("bp-http");
    let server: Vec<String> = shlex::split(&crate::mcp::stdio_command_with("")).unwrap();
    let mut args: Vec<&std::ffi::OsStr> = vec!["--name".as_ref(), name.as_ref(), "--".as_ref()];
    args.extend(server.iter().map(std::ffi::OsStr::new));
    let (mut proxy, listen, _stderr) = crate::proxy::listening_proxy(&args);
    let folder = tooldeck::proxy::live::folder().unwrap();
    let mut watcher = tokio::task::spawn_blocking(move || {
        let mut watcher = Watcher::attach_in(&folder, &name);
        watcher.say(json!({"break": {"method": "tools/call", "tool": "echo", "from": "client"}}));
        watcher.until(|l| l["breakpoints"].as_array().is_some_and(|b| !b.is_empty()));
        watcher
    })
    .await
    .unwrap();
    let endpoint =
        tooldeck::invoke::mcp::McpEndpoint::connect_http(&format!("http://{listen}/mcp"), Vec::new()).await.unwrap();
    let call = tokio::spawn(async move {
        let request = tooldeck::invoke::otc::CallRequest::new("echo", json!({"n": 1}));
        let answer = endpoint.call(&request).await.map(|(outcome, _)| format!("{outcome:?}"));
        endpoint.close().await;
        answer
    });
    let watcher = tokio::task::spawn_blocking(move || {
        let (id, line) = watcher.held();
        let mut edited = line["message"].clone();
        edited["params"]["arguments"]["n"] = json!(2);
        watcher.say(json!({"send": id, "message": edited}));
        watcher
    })
    .await
    .unwrap();
    let said = call.await.unwrap().unwrap();
    assert!(said.contains(r#"\"n\":2"#), "{said}");
    drop(watcher);
    assert!(std::process::Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));
}
