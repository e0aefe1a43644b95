//! `tooldeck proxy` between a real client and a real server: tooldeck's own MCP client (rmcp's
//! client side) on one side, rmcp's server side (this test binary run as a stdio server, or
//! Streamable HTTP in-process) on the other; and POSIX shell servers for the byte-level checks.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tooldeck::invoke::Status;
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::otc::CallRequest;

fn tooldeck() -> &'static str {
    env!("CARGO_BIN_EXE_tooldeck")
}

/// The command line a client runs: the proxy in front of this binary's stdio test server.
fn proxied(options: &str) -> String {
    format!("'{}' proxy {options} -- {}", tooldeck(), crate::mcp::stdio_command_with(""))
}

fn record_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("the record");
    text.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect()
}

#[tokio::test]
async fn a_client_and_a_server_talk_through_the_proxy_and_the_record_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("session.jsonl");
    let cases = dir.path().join("cases.yaml");
    let options = format!("--record '{}' --save-cases '{}' --name t", record.display(), cases.display());
    let endpoint = McpEndpoint::connect_stdio(&proxied(&options)).await.unwrap();
    assert!(!endpoint.list_tools().await.unwrap().is_empty());
    let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": 40, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 42.0})));
    let (outcome, _) = endpoint.call(&CallRequest::new("fail", json!({}))).await.unwrap();
    assert_eq!(outcome.status, Status::Error);
    endpoint.close().await;
    tooldeck::invoke::mcp::process::wait_for_endings();

    let lines = record_lines(&record);
    let from = |side: &str| lines.iter().filter(|l| l["from"] == side).count();
    assert!(from("client") >= 4 && from("server") >= 4, "{lines:#?}");
    let call = lines.iter().find(|l| l["message"]["method"] == "tools/call").expect("a call recorded");
    assert_eq!(call["from"], "client");
    assert_eq!(call["message"]["params"]["arguments"], json!({"a": 40, "b": 2}));
    // libtest's "running 1 test" line reaches the client before the server speaks.
    let junk = lines.iter().find(|l| l.get("note").is_some()).expect("the junk line flagged");
    assert_eq!(junk["note"], "not JSON-RPC: clients will fail here");
    assert_eq!(junk["from"], "server");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&record).unwrap().permissions().mode() & 0o777, 0o600);
    }

    // The cases saved from the session replay green against the server.
    let text = std::fs::read_to_string(&cases).unwrap();
    assert!(text.contains("\"add\"") && text.contains("\"fail\""), "{text}");
    let output = Command::new(tooldeck()).arg("test").arg(&cases).output().unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );

    // The record served back answers a client as the server did, and says what it cannot answer.
    let mock = format!("'{}' serve-mock --record '{}'", tooldeck(), record.display());
    let endpoint = McpEndpoint::connect_stdio(&mock).await.unwrap();
    assert!(!endpoint.list_tools().await.unwrap().is_empty());
    let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": 40, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 42.0})));
    let unknown = endpoint.call(&CallRequest::new("add", json!({"a": 1, "b": 2}))).await;
    let said = format!("{unknown:?}");
    assert!(said.contains("the record holds no answer to tools/call of add"), "{said}");
    endpoint.close().await;

    // Fuzz seeded from the record calls the tool first with what the client sent.
    let seen = dir.path().join("fuzzed.jsonl");
    let server = proxied(&format!("--record '{}'", seen.display()));
    let output = Command::new(tooldeck())
        .args(["fuzz", "add", "--max-calls", "1", "--seed", "1", "--mcp", &server, "--seed-from"])
        .arg(&record)
        .output()
        .unwrap();
    assert!(output.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&output.stderr));
    let first =
        record_lines(&seen).into_iter().find(|l| l["message"]["method"] == "tools/call").expect("fuzz called the tool");
    assert_eq!(first["message"]["params"]["arguments"], json!({"a": 40, "b": 2}));
}

#[tokio::test]
async fn streamable_http_passes_through_the_proxy_with_its_sessions_and_streams() {
    let upstream = crate::mcp::serve_http_with(crate::mcp::TestServer::default).await;

    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("http.jsonl");
    let (mut proxy, listen, _stderr) =
        listening_proxy(&["--mcp-url".as_ref(), upstream.as_ref(), "--record".as_ref(), record.as_os_str()]);

    let headers = vec![("Authorization".to_string(), "Bearer s3cret-token".to_string())];
    let endpoint = McpEndpoint::connect_http(&format!("http://{listen}/mcp"), headers).await.unwrap();
    assert!(!endpoint.list_tools().await.unwrap().is_empty());
    let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": 1, "b": 2}))).await.unwrap();
    assert_eq!(outcome.value, Some(json!({"sum": 3.0})));
    endpoint.close().await;
    assert!(Command::new("kill").args(["-INT", &proxy.id().to_string()]).status().unwrap().success());
    assert_eq!(proxy.wait().unwrap().code(), Some(0));

    let text = std::fs::read_to_string(&record).unwrap();
    assert!(!text.contains("s3cret-token"), "the token is masked");
    let lines = record_lines(&record);
    let post = lines.iter().find(|l| l["message"]["method"] == "tools/call").expect("the call recorded");
    assert_eq!(post["http"]["method"], "POST");
    let answer = lines
        .iter()
        .find(|l| l["from"] == "server" && l["message"]["result"]["structuredContent"]["sum"] == 3.0)
        .expect("the answer recorded");
    assert_eq!(answer["http"]["status"], 200);
    // The answer came as an SSE stream, event by event.
    assert_eq!(answer["http"]["headers"]["content-type"], "text/event-stream", "{text}");
}

/// `tooldeck proxy --listen` on a free loopback port with `args` after it, once it says it
/// listens: the process, its address, and its stderr (kept open for what it says later).
pub(crate) fn listening_proxy(
    args: &[&std::ffi::OsStr],
) -> (std::process::Child, std::net::SocketAddr, std::io::BufReader<std::process::ChildStderr>) {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = free.local_addr().unwrap();
    drop(free);
    let mut proxy = Command::new(tooldeck())
        .args(["proxy", "--listen", &listen.to_string()])
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    let mut stderr = std::io::BufReader::new(proxy.stderr.take().unwrap());
    std::io::BufRead::read_line(&mut stderr, &mut said).unwrap();
    assert!(said.contains("listening on"), "{said}");
    (proxy, listen, stderr)
}

/// Runs the proxy in front of a shell script, feeding it `input`; (stdout, stderr, exit code).
#[cfg(unix)]
fn through_a_script(options: &[&str], script: &str, input: &[u8]) -> (Vec<u8>, String, Option<i32>) {
    use std::io::Write;
    let mut child = Command::new(tooldeck())
        .arg("proxy")
        .args(options)
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (output.stdout, String::from_utf8_lossy(&output.stderr).into_owned(), output.status.code())
}

#[cfg(unix)]
#[test]
fn bytes_pass_unchanged_junk_is_said_once_and_the_exit_code_is_the_servers() {
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":{{\"s\":\"{}\"}}}}\n",
        "y".repeat(16 << 20)
    );
    let input = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\r\n{big}no newline at the end");
    let script = "echo 'console.log junk'; echo 'more junk'; cat; echo 'to stderr' >&2; exit 3";
    let (stdout, stderr, code) = through_a_script(&[], script, input.as_bytes());
    assert_eq!(code, Some(3));
    let mut expected = b"console.log junk\nmore junk\n".to_vec();
    expected.extend_from_slice(input.as_bytes());
    assert!(stdout == expected, "{} bytes out, {} expected", stdout.len(), expected.len());
    assert!(stderr.contains("to stderr"), "{stderr}");
    assert_eq!(stderr.matches("not JSON-RPC: clients will fail here").count(), 1, "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_record_that_cannot_be_written_is_said_once_and_messages_still_flow() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere.jsonl");
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = dir.path().join("fifo.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let under_a_file = file.join("record.jsonl");
    let message = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    for path in [&link, &fifo, &under_a_file] {
        let path = path.display().to_string();
        let (stdout, stderr, code) = through_a_script(&["--record", &path], "cat", message.as_bytes());
        assert_eq!(code, Some(0));
        assert_eq!(String::from_utf8_lossy(&stdout), message);
        assert_eq!(stderr.matches("messages still pass").count(), 1, "{stderr}");
    }
    assert!(!target.exists(), "nothing written through the symlink");
}

#[cfg(unix)]
#[test]
fn sigterm_is_passed_on_and_its_answer_is_the_exit_code() {
    let mut child = Command::new(tooldeck())
        .args([
            "proxy",
            "--",
            "sh",
            "-c",
            "trap 'echo got TERM >&2; exit 42' TERM; echo ready; while :; do sleep 0.05; done",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 6];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    assert_eq!(&first, b"ready\n");
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "the proxy did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(42));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("got TERM"), "{stderr}");
}

/// Client ends that are not pipes of their own (a file for stdin; a stdout that is the proxy's
/// stderr too, as `2>&1` gives) pass byte for byte, the server's stderr line whole among them.
#[cfg(unix)]
#[test]
fn a_file_as_stdin_and_stdout_shared_with_stderr_are_relayed_too() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let messages = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".repeat(1000);
    let file = dir.path().join("input.jsonl");
    std::fs::write(&file, &messages).unwrap();
    let (mut from_proxy, output) = std::io::pipe().unwrap();
    let mut child = Command::new(tooldeck())
        .args(["proxy", "--", "sh", "-c", "cat; echo 'from the server' >&2"])
        .stdin(std::fs::File::open(&file).unwrap())
        .stdout(output.try_clone().unwrap())
        .stderr(output)
        .spawn()
        .unwrap();
    let mut seen = String::new();
    from_proxy.read_to_string(&mut seen).unwrap();
    assert!(child.wait().unwrap().success());
    // The server's stderr line passes on its own thread: wherever it landed, it is whole.
    assert!(seen.contains("from the server\n"), "{seen}");
    assert!(seen.replacen("from the server\n", "", 1) == messages, "{} bytes seen", seen.len());
}

#[cfg(unix)]
#[path = "proxy/ending.rs"]
mod ending;
#[path = "proxy/guard.rs"]
mod guard;
#[path = "proxy/listen.rs"]
mod listen;
#[path = "proxy/record_bounds.rs"]
mod record_bounds;
#[path = "proxy/redact.rs"]
mod redact;
#[cfg(unix)]
#[path = "proxy/sse_relay.rs"]
mod sse_relay;
