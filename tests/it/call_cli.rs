//! `tooldeck call` end to end: the real binary against the built-in demo server and against a
//! misbehaving server on 127.0.0.1, checking the printed outcome and every exit code.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::thread;

use serde_json::Value;

/// Runs the binary with its history in a temporary file, never the user's.
fn tooldeck(args: &[&str]) -> Output {
    let history = std::env::temp_dir().join(format!("tooldeck-test-history-{}.jsonl", std::process::id()));
    Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .env("TOOLDECK_HISTORY", history)
        .output()
        .expect("the binary runs")
}

#[test]
fn calls_are_recorded_in_the_history_without_tokens() {
    let dir = tempfile::tempdir().expect("temp dir");
    let history = dir.path().join("history.jsonl");
    let output = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "Gmail.ListEmails@1.0.0", "--arg", "query=x", "--token", "google=s3cret-token"])
        .env("TOOLDECK_HISTORY", &history)
        .output()
        .expect("runs");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = std::fs::read_to_string(&history).expect("history written");
    let entry: Value = serde_json::from_str(text.lines().next().expect("one line")).expect("JSON line");
    assert_eq!(entry["tool"], "Gmail.ListEmails@1.0.0");
    assert_eq!(entry["outcome"], "value");
    assert_eq!(entry["arguments"]["query"], "x");
    assert!(!text.contains("s3cret-token"), "no token in the history: {text}");
}

#[test]
fn the_history_keeps_no_secret_argument() {
    let dir = tempfile::tempdir().expect("temp dir");
    let history = dir.path().join("history.jsonl");
    let arguments = r#"{"query": "x", "author": "ann", "api_key": "hist-secret-98765", "note": "Bearer abc123def456"}"#;
    let output = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "Gmail.ListEmails@1.0.0", "--args-json", arguments, "--no-validate"])
        .args(["--token", "google=s3cret-token"])
        .env("TOOLDECK_HISTORY", &history)
        .output()
        .expect("runs");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = std::fs::read_to_string(&history).expect("history written");
    for secret in ["hist-secret-98765", "abc123def456", "s3cret-token"] {
        assert!(!text.contains(secret), "{secret} in the history: {text}");
    }
    let entry: Value = serde_json::from_str(text.lines().next().expect("one line")).expect("JSON line");
    assert_eq!(entry["arguments"]["api_key"], "••••");
    assert_eq!(entry["arguments"]["author"], "ann");
    assert_eq!(entry["arguments"]["note"], "Bearer ••••");
}

fn outcome(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("an exit code")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A one-shot server answering every connection with `response` (raw HTTP), in the background.
fn misbehaving_server(response: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 65536];
            let _ = stream.read(&mut buffer);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    url
}

#[test]
fn a_value_exits_0() {
    let output = tooldeck(&["call", "Math.Add@1.0.0", "--arg", "a=2", "--arg", "b=40"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let outcome = outcome(&output);
    assert_eq!(outcome["status"], "value");
    assert_eq!(outcome["value"], 42);
    assert_eq!(outcome["success"], true);
    assert!(outcome["call_id"].as_str().is_some_and(|id| id.len() == 36));
    assert!(outcome["duration_ms"].is_u64());
}

#[test]
fn a_tool_error_exits_1_with_both_messages() {
    let output = tooldeck(&["call", "Demo.AlwaysFails@1.0.0"]);
    assert_eq!(code(&output), 1);
    let outcome = outcome(&output);
    assert_eq!(outcome["status"], "error");
    assert!(outcome["error"]["message"].is_string());
    assert!(outcome["error"]["developer_message"].is_string());
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(code(&tooldeck(&["call", "no.such.tool"])), 2);
    let suggestion = stderr(&tooldeck(&["call", "Add"]));
    assert!(suggestion.contains("did you mean") && suggestion.contains("Math.Add@1.0.0"), "{suggestion}");
    assert_eq!(code(&tooldeck(&["call", "Math.Add@1.0.0", "--arg", "oops"])), 2);
    assert_eq!(code(&tooldeck(&["call", "Math.Add@1.0.0", "--args-json", "{nope"])), 2);
}

/// `call --help`, `help call` and the summary all describe the same command.
#[test]
fn the_call_command_line_is_the_same_whichever_way_it_is_asked_about() {
    let missing = tooldeck(&["call"]);
    assert_eq!(code(&missing), 2);
    assert!(stderr(&missing).contains("Usage: tooldeck call <TOOL>"), "{}", stderr(&missing));
    let help = String::from_utf8_lossy(&tooldeck(&["call", "--help"]).stdout).to_string();
    let via_help = String::from_utf8_lossy(&tooldeck(&["help", "call"]).stdout).to_string();
    assert_eq!(help, via_help, "`call --help` and `help call` differ");
    assert!(help.contains("Exit 0 for a value") && help.contains("--args-json"), "{help}");
    let summary = String::from_utf8_lossy(&tooldeck(&["--help"]).stdout).to_string();
    let call_line = summary.lines().find(|l| l.trim_start().starts_with("call "));
    assert!(
        call_line.is_some_and(|l| l.ends_with(" Call a tool once and print the normalised outcome as JSON")),
        "{summary}"
    );
    // An app option before a subcommand would be ignored: it is a usage error instead.
    let themed = tooldeck(&["--theme", "light", "call", "Math.Add@1.0.0", "--arg", "a=1", "--arg", "b=2"]);
    assert_eq!(code(&themed), 2, "{}", stderr(&themed));
    assert!(stderr(&themed).contains("go after the subcommand"), "{}", stderr(&themed));
    let server_first = tooldeck(&["--mcp", "some-server", "list"]);
    assert_eq!(code(&server_first), 2, "{}", stderr(&server_first));
}

#[test]
fn invalid_arguments_exit_3_with_each_error_at_its_path() {
    let output = tooldeck(&["call", "Math.Add@1.0.0", "--arg", "a=two"]);
    assert_eq!(code(&output), 3);
    let errors = stderr(&output);
    assert!(errors.contains("/a: \"two\" is not of type \"number\""), "{errors}");
    assert!(errors.contains("/b: required"), "{errors}");
    assert!(output.stdout.is_empty());
}

#[test]
fn no_validate_sends_anyway_and_the_server_says_422() {
    let output = tooldeck(&["call", "Math.Add@1.0.0", "--arg", "a=two", "--no-validate"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let outcome = outcome(&output);
    assert_eq!(outcome["status"], "error");
    assert!(outcome["error"]["parameter_errors"]["a"].is_string(), "{outcome}");
}

#[test]
fn authorization_exits_4_then_a_token_succeeds() {
    let output = tooldeck(&["call", "Gmail.ListEmails@1.0.0", "--arg", "query=invoices"]);
    assert_eq!(code(&output), 4);
    let outcome = outcome(&output);
    assert_eq!(outcome["status"], "requires_authorization");
    assert!(outcome["authorization"]["url"].as_str().is_some_and(|u| u.starts_with("http://127.0.0.1:")));
    let output =
        tooldeck(&["call", "Gmail.ListEmails@1.0.0", "--arg", "query=invoices", "--token", "google=demo-google"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(self::outcome(&output)["status"], "value");
}

#[test]
fn an_artifact_exits_0() {
    let output = tooldeck(&[
        "call",
        "Reports.ExportCsv@1.0.0",
        "--args-json",
        r#"{"report": "sales_by_day", "from": "2025-01-01", "to": "2025-01-31"}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let outcome = outcome(&output);
    assert_eq!(outcome["status"], "artifact");
    assert_eq!(outcome["artifacts"][0]["content_type"], "text/csv");
}

#[test]
fn dry_run_prints_the_request_and_masks_tokens() {
    let output =
        tooldeck(&["call", "Gmail.ListEmails@1.0.0", "--arg", "query=x", "--token", "google=s3cret", "--dry-run"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let request = outcome(&output);
    assert_eq!(request["method"], "POST");
    assert!(request["url"].as_str().is_some_and(|u| u.ends_with("/tools/call")));
    assert_eq!(request["body"]["request"]["tool_id"], "Gmail.ListEmails@1.0.0");
    assert_eq!(request["body"]["request"]["input"]["query"], "x");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("s3cret"));
}

#[test]
fn an_html_500_exits_5_and_says_what_was_wrong() {
    let url = misbehaving_server(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\nContent-Length: 58\r\nConnection: close\r\n\r\n<html><head><title>Oops</title></head><body>x</body></html>",
    );
    let output = tooldeck(&["call", "Math.Add@1.0.0", "--arg", "a=1", "--arg", "b=2", "--endpoint", &url]);
    assert_eq!(code(&output), 5, "{}", stderr(&output));
    let outcome = outcome(&output);
    assert_eq!(outcome["status"], "error");
    assert!(!outcome["warnings"].as_array().expect("warnings").is_empty(), "{outcome}");
}

#[test]
fn connection_refused_exits_5() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    drop(listener);
    let output =
        tooldeck(&["call", "Math.Add@1.0.0", "--arg", "a=1", "--arg", "b=2", "--endpoint", &url, "--timeout", "5"]);
    assert_eq!(code(&output), 5);
    assert!(stderr(&output).contains("cannot connect"), "{}", stderr(&output));
}

#[test]
fn a_named_endpoint_comes_from_the_config_file() {
    let body = r#"{"result": {"call_id": "x", "success": true, "value": 7}}"#;
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let url = misbehaving_server(Box::leak(response.into_boxed_str()));
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, format!("[endpoints.staging]\nurl = \"{url}\"\n")).expect("config written");
    let config = config.display().to_string();
    let output = tooldeck(&["call", "Seven", "--endpoint", "staging", "--config", &config]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(outcome(&output)["value"], 7);
    let output = tooldeck(&["call", "Seven", "--endpoint", "prod", "--config", &config]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("named: staging"), "{}", stderr(&output));
}
