//! Trust: what a hostile server, web page or file tries, each made here on 127.0.0.1 or in a temp
//! folder, and what tooldeck does instead (secrets stay masked, nothing hangs, nothing is sent
//! where it should not go).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use serde_json::Value;
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::mock::MockServer;

fn tooldeck(args: &[&str], history: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .env("TOOLDECK_HISTORY", history)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A server that answers every request with `response` and counts the requests it got.
fn raw_server(response: String) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    thread::spawn(move || {
        for stream in listener.incoming().take(16) {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, Ordering::SeqCst);
            let mut buffer = [0u8; 65536];
            let _ = stream.read(&mut buffer);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    (url, hits)
}

#[test]
fn a_redirect_to_another_origin_is_not_followed() {
    let (elsewhere, elsewhere_hits) = raw_server("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}".into());
    // "localhost" is another origin than "127.0.0.1", though the same machine.
    let target = elsewhere.replace("127.0.0.1", "localhost") + "/steal";
    let redirect = format!("HTTP/1.1 307 Temporary Redirect\r\nlocation: {target}\r\ncontent-length: 0\r\n\r\n");
    let (server, _) = raw_server(redirect);
    let dir = tempfile::tempdir().unwrap();
    let output = tooldeck(
        &[
            "call",
            "Math.Add@1.0.0",
            "--endpoint",
            &server,
            "--arg",
            "a=1",
            "--arg",
            "b=2",
            "--header",
            "X-Api-Key: k3y",
            "--token",
            "google=t0ken",
        ],
        &dir.path().join("history.jsonl"),
    );
    let outcome: Value = serde_json::from_slice(&output.stdout).expect("an outcome");
    let warnings = outcome["warnings"].to_string();
    assert!(warnings.contains("redirected to") && warnings.contains("/steal"), "{outcome}");
    assert_eq!(elsewhere_hits.load(Ordering::SeqCst), 0, "the other origin got a request");
}

#[test]
fn usage_errors_never_repeat_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.jsonl");
    for args in [
        ["call", "Math.Add@1.0.0", "--token", "SECRETVALUE"],
        ["call", "Math.Add@1.0.0", "--header", "Authorization Bearer SECRETVALUE"],
    ] {
        let output = tooldeck(&args, &history);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(!stderr(&output).contains("SECRETVALUE"), "{}", stderr(&output));
        assert!(stderr(&output).contains("--token") || stderr(&output).contains("--header"), "{}", stderr(&output));
    }
}

#[test]
fn secrets_in_the_dry_run_are_masked() {
    let dir = tempfile::tempdir().unwrap();
    let output = tooldeck(
        &[
            "call",
            "Math.Add@1.0.0",
            "--arg",
            "a=1",
            "--arg",
            "b=2",
            "--dry-run",
            "--endpoint",
            "http://user:PASSW0RD@127.0.0.1:9/?api_key=QUERYK3Y",
            "--header",
            "X-Api-Key: HEADERK3Y",
            "--header",
            "Cookie: sid=C00KIE",
            "--header",
            "Proxy-Authorization: Basic PR0XY",
            "--header",
            "X-Auth-Token: T0KEN",
        ],
        &dir.path().join("history.jsonl"),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let shown = format!("{}{}", String::from_utf8_lossy(&output.stdout), stderr(&output));
    for secret in ["PASSW0RD", "QUERYK3Y", "HEADERK3Y", "C00KIE", "PR0XY", "T0KEN"] {
        assert!(!shown.contains(secret), "{secret} shown: {shown}");
    }
    assert!(shown.contains("X-Api-Key"), "{shown}");
}

#[test]
fn the_history_is_private_and_holds_no_url_password() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let demo = runtime.block_on(MockServer::start(load_samples(&LoadOptions::default()).catalog, 0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("new-folder/history.jsonl");
    let endpoint = demo.url().replace("http://", "http://user:PASSW0RD@");
    let output =
        tooldeck(&["call", "Math.Add@1.0.0", "--endpoint", &endpoint, "--arg", "a=1", "--arg", "b=2"], &history);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = std::fs::read_to_string(&history).expect("history written");
    assert!(!text.contains("PASSW0RD"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&history), 0o600);
        assert_eq!(mode(history.parent().unwrap()), 0o700);
    }
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_never_hang_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // A FIFO as the history: the call is made, the history is only a warning.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "Math.Add@1.0.0", "--arg", "a=1", "--arg", "b=2"])
        .env("TOOLDECK_HISTORY", &fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_at_most(&mut child, Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("not a regular file"), "{}", stderr(&output));
    // /dev/zero and a FIFO as --args-json @FILE, a case file and a config file: refused at once.
    let history = dir.path().join("history.jsonl");
    let args_json = format!("@{}", fifo.display());
    for args in [
        vec!["call", "Math.Add@1.0.0", "--args-json", "@/dev/zero"],
        vec!["call", "Math.Add@1.0.0", "--args-json", &args_json],
        vec!["call", "Math.Add@1.0.0", "--endpoint", "named", "--config", "/dev/zero"],
        vec!["test", "/dev/zero"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(&args)
            .env("TOOLDECK_HISTORY", &history)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = wait_at_most(&mut child, Duration::from_secs(20));
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains("not a regular file"), "{args:?}: {}", stderr(&output));
    }
}

/// The child's output once it exits; killed (and the test failed) if it takes longer than `limit`.
fn wait_at_most(child: &mut std::process::Child, limit: Duration) -> Output {
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
    Output { status: child.wait().unwrap(), stdout, stderr }
}

#[tokio::test]
async fn the_demo_server_answers_only_local_pages() {
    let demo = MockServer::start(load_samples(&LoadOptions::default()).catalog, 0).await.unwrap();
    let client = tooldeck::invoke::http::client_builder().build().unwrap();
    let call = format!("{}/tools/call", demo.url());
    let body = r#"{"request":{"call_id":"c1","tool_id":"Math.Add@1.0.0","input":{"a":1,"b":2}}}"#;
    let json = |request: reqwest::RequestBuilder| request.header("content-type", "application/json").body(body);
    let ok = json(client.post(&call)).send().await.unwrap();
    assert_eq!(ok.status(), 200);
    let rebound = json(client.post(&call)).header("host", "evil.example").send().await.unwrap();
    assert_eq!(rebound.status(), 403, "a foreign Host (DNS rebinding)");
    let foreign = json(client.post(&call)).header("origin", "https://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), 403, "a foreign Origin");
    let plain = client.post(&call).header("content-type", "text/plain").body(body).send().await.unwrap();
    assert_eq!(plain.status(), 415, "a simple (no preflight) POST");
}

#[test]
fn a_token_goes_only_to_tools_that_ask_for_its_provider() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.jsonl");
    let dry_run = |tool: &str, args: &[&str]| {
        let mut all = vec!["call", tool, "--token", "google=T0KEN", "--dry-run"];
        all.extend_from_slice(args);
        tooldeck(&all, &history)
    };
    let unasked = dry_run("Math.Add@1.0.0", &["--arg", "a=1", "--arg", "b=2"]);
    assert_eq!(unasked.status.code(), Some(0), "{}", stderr(&unasked));
    let request: Value = serde_json::from_slice(&unasked.stdout).unwrap();
    let sent = request["body"]["request"]["context"]["authorization"].as_array().map_or(0, Vec::len);
    assert_eq!(sent, 0, "a tool with no requirement got the token: {request}");
    assert!(stderr(&unasked).contains("not sent"), "{}", stderr(&unasked));
    let asked = dry_run("Gmail.ListEmails@1.0.0", &["--arg", "query=x"]);
    let request: Value = serde_json::from_slice(&asked.stdout).unwrap();
    let sent = &request["body"]["request"]["context"]["authorization"];
    assert_eq!(sent[0]["id"], "google", "{request}");
    assert!(!request.to_string().contains("T0KEN"), "masked in the dry run: {request}");
}

#[cfg(unix)]
#[test]
fn a_fifo_in_a_folder_of_definitions_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.json"), r#"{"name": "good", "parameters": {"type": "object"}}"#).unwrap();
    assert!(Command::new("mkfifo").arg(dir.path().join("stuck.json")).status().unwrap().success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .arg("check")
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_at_most(&mut child, Duration::from_secs(20));
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("stuck.json") && report.contains("not a regular file"), "{report}");
    assert!(report.contains("1 tool, 0 errors, 1 warning"), "{report}");
    // A FIFO named directly is an error, at once.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .arg("check")
        .arg(dir.path().join("stuck.json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_at_most(&mut child, Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stdout));
}

/// A server that answers a GET with `length` bytes of body, sent in pieces; if `stall`, it sends
/// the headers and then nothing.
fn artifact_server(length: usize, stall: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/big.bin", listener.local_addr().expect("address"));
    thread::spawn(move || {
        for stream in listener.incoming().take(4) {
            let Ok(mut stream) = stream else { continue };
            thread::spawn(move || {
                let mut buffer = [0u8; 4096];
                let _ = stream.read(&mut buffer);
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: {length}\r\n\r\n"
                );
                let _ = stream.write_all(head.as_bytes());
                if stall {
                    thread::sleep(Duration::from_secs(30));
                    return;
                }
                let piece = vec![b'x'; 1 << 20];
                let mut left = length;
                while left > 0 {
                    let n = left.min(piece.len());
                    if stream.write_all(&piece[..n]).is_err() {
                        return;
                    }
                    left -= n;
                }
            });
        }
    });
    url
}

/// Saving streams the whole artifact (not the 16 MiB preview) and a server that stalls after its
/// headers is given up on after the timeout.
#[tokio::test]
async fn saves_stream_the_whole_artifact_and_a_stall_times_out() {
    use tooldeck::invoke::save::{SaveSource, Saved, save};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bin");
    let at = path.to_str().unwrap();
    let size = 20 << 20;
    let mut last = 0;
    let saved = save(at, SaveSource::Download(artifact_server(size, false)), false, Duration::from_secs(10), |n, _| {
        last = n;
    })
    .await
    .expect("saved");
    assert_eq!(saved, Saved::Written { path: at.into(), bytes: size as u64 });
    assert_eq!(std::fs::metadata(&path).unwrap().len(), size as u64);
    assert_eq!(last, size as u64, "progress reached the end");
    let stalled = dir.path().join("stalled.bin");
    let started = std::time::Instant::now();
    let result = save(
        stalled.to_str().unwrap(),
        SaveSource::Download(artifact_server(1000, true)),
        false,
        Duration::from_secs(1),
        |_, _| {},
    )
    .await;
    assert!(result.is_err(), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "waited {:?}", started.elapsed());
    assert!(!stalled.exists(), "nothing half-written is left under the name");
}

/// Header values that came from the environment or the config file are secrets whatever the
/// header is called.
#[test]
fn headers_from_the_environment_or_the_config_file_are_masked() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[endpoints.staging]\nurl = \"http://127.0.0.1:9\"\nheaders = { X-Plain-Name = \"FR0M-C0NFIG\" }\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "Math.Add@1.0.0", "--arg", "a=1", "--arg", "b=2", "--dry-run", "--endpoint", "staging"])
        .arg("--config")
        .arg(&config)
        .args(["--header", "X-Other: ${TOOLDECK_TRUST_TEST_VALUE}"])
        .env("TOOLDECK_TRUST_TEST_VALUE", "FR0M-ENV")
        .env("TOOLDECK_HISTORY", dir.path().join("h.jsonl"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let shown = format!("{}{}", String::from_utf8_lossy(&output.stdout), stderr(&output));
    assert!(!shown.contains("FR0M-C0NFIG") && !shown.contains("FR0M-ENV"), "{shown}");
    assert!(shown.contains("X-Plain-Name") && shown.contains("X-Other"), "{shown}");
}
