//! `tooldeck test` end to end: the real binary runs case files against the built-in demo server
//! and against a server on 127.0.0.1 that the test breaks, and the tests read what a person
//! (or a CI server, from the JUnit file) would see.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};
use tooldeck::cases::record::{append_case, case_from_outcome};
use tooldeck::invoke::{Outcome, Status};

const DEMO_CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/demo.yaml");
const OTC_TOOLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-tools/otc/tools.json");

fn tooldeck(args: &[&str]) -> Output {
    let history = std::env::temp_dir().join(format!("tooldeck-cases-history-{}.jsonl", std::process::id()));
    tooldeck_with_history(args, &history)
}

fn tooldeck_with_history(args: &[&str], history: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .env("TOOLDECK_HISTORY", history)
        .env("TOOLDECK_CASES_TOKEN", "demo-google")
        .output()
        .expect("the binary runs")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("an exit code")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("case file written");
    path
}

/// An OTC server that answers every call with `value` (a broken Math.Add, say), on 127.0.0.1.
fn server_answering(value: Value) -> (String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new().route(
        "/tools/call",
        axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
            let value = value.clone();
            async move {
                let call_id = body["request"]["call_id"].clone();
                axum::Json(json!({"result": {"call_id": call_id, "success": true, "value": value}}))
            }
        }),
    );
    runtime.spawn(async move { axum::serve(listener, router).await });
    (url, runtime)
}

#[test]
fn the_demo_cases_pass_and_leave_no_history() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.jsonl");
    let output = tooldeck_with_history(&["test", DEMO_CASES], &history);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    let out = stdout(&output);
    assert_eq!(last_line(&out), "6 passed, 0 failed", "{out}");
    assert!(out.contains("ok    adds two numbers"), "a line per case when not on a terminal: {out}");
    assert!(!history.exists(), "test runs are not past calls of the user's");
}

/// An OTC server whose Math.Add can be broken while the test runs: broken, it drops the
/// fractional part (a regression only one of the recorded cases catches).
fn math_server() -> (String, Arc<AtomicBool>, tokio::runtime::Runtime) {
    let broken = Arc::new(AtomicBool::new(false));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let state = Arc::clone(&broken);
    let router = axum::Router::new().route(
        "/tools/call",
        axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
            let broken = state.load(Ordering::SeqCst);
            async move {
                let request = &body["request"];
                let input = &request["input"];
                let sum = input["a"].as_f64().unwrap_or(0.0) + input["b"].as_f64().unwrap_or(0.0);
                let sum = if broken { sum.trunc() } else { sum };
                axum::Json(json!({"result": {"call_id": request["call_id"], "success": true, "value": sum}}))
            }
        }),
    );
    runtime.spawn(async move { axum::serve(listener, router).await });
    (url, broken, runtime)
}

/// The issue's "done when": record three cases (as `S` in the app does, from real calls), run
/// them, break the server, and see exactly which case failed and why, in the terminal and in
/// the JUnit file.
#[test]
fn record_three_cases_run_them_break_the_server() {
    let (url, broken, _server) = math_server();
    let dir = tempfile::tempdir().unwrap();
    let cases = write(dir.path(), "math.yaml", &format!("endpoint: {url}\ndefs: [{OTC_TOOLS}]\ncases:\n"));
    for (name, a, b) in [("small", "1", "2"), ("fractions", "0.5", "0.25"), ("negative", "-3", "3")] {
        let arg_a = format!("a={a}");
        let arg_b = format!("b={b}");
        let call = ["call", "Math.Add@1.0.0", OTC_TOOLS, "--endpoint", &url, "--arg", &arg_a, "--arg", &arg_b];
        let output = tooldeck(&call);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let printed: Value = serde_json::from_slice(&output.stdout).expect("the outcome as JSON");
        let mut outcome = Outcome::new(Status::Value, printed["call_id"].as_str().unwrap());
        outcome.value = Some(printed["value"].clone());
        let arguments = json!({"a": a.parse::<f64>().unwrap(), "b": b.parse::<f64>().unwrap()});
        append_case(&cases, &case_from_outcome(name, "Math.Add@1.0.0", &arguments, &outcome)).unwrap();
    }
    let junit = dir.path().join("junit.xml");
    let run = || tooldeck(&["test", cases.to_str().unwrap(), "--junit", junit.to_str().unwrap()]);
    let output = run();
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    assert_eq!(last_line(&stdout(&output)), "3 passed, 0 failed");

    broken.store(true, Ordering::SeqCst);
    let output = run();
    assert_eq!(code(&output), 1, "{}{}", stdout(&output), stderr(&output));
    let out = stdout(&output);
    assert_eq!(last_line(&out), "2 passed, 1 failed", "{out}");
    let failure = out.lines().find(|l| l.starts_with("FAIL")).expect("a FAIL line");
    assert!(failure.starts_with("FAIL  fractions  (") && failure.contains(", call "), "{failure}");
    assert!(out.contains("/: expected 0.75, got 0.0"), "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"3\" skipped=\"0\" errors=\"0\" failures=\"1\""), "{xml}");
    assert!(xml.contains("<testcase name=\"fractions\" classname=\"Math.Add@1.0.0\""), "{xml}");
    assert!(xml.contains("<failure message=\"value differs: /: expected 0.75, got 0.0\">"), "{xml}");
    assert!(
        xml.contains("<testcase name=\"small\" classname=\"Math.Add@1.0.0\" time=\"") && xml.contains("\"/>"),
        "{xml}"
    );
}

/// Every kind of problem a case file can have, each at its path:line:column, and the good case
/// among them still runs.
#[test]
fn every_kind_of_bad_case_is_placed() {
    let dir = tempfile::tempdir().unwrap();
    let cases = write(
        dir.path(),
        "bad.yaml",
        r#"endpont: http://127.0.0.1:9
defs: [./no-such-tools]
cases:
  - name: good
    tool: Math.Add@1.0.0
    args: {a: 1, b: 1}
    expect: {value: 2}
  - name: no tool
    args: {a: 1}
    expect: {value: 2}
  - tool: Math.Add@1.0.0
    expect: {status: maybe}
  - tool: Math.Add@1.0.0
    expect: {max_ms: soon}
  - tool: Math.Add@1.0.0
    args: {a: "${TOOLDECK_CASES_SURELY_UNSET}"}
    expect: {status: value}
"#,
    );
    let output = tooldeck(&["test", cases.to_str().unwrap()]);
    assert_eq!(code(&output), 2, "{}{}", stdout(&output), stderr(&output));
    let err = stderr(&output);
    let path = cases.display().to_string();
    for expected in [
        format!("{path}:1:1: a case file has no key `endpont`; did you mean `endpoint`?"),
        format!("{path}:2:8: `defs`: no file or folder "),
        format!("{path}:8:5: the case has no `tool`"),
        format!("{path}:12:14: `status` is one of value, error, requires_authorization, artifact, null, not \"maybe\""),
        format!("{path}:14:14: `max_ms` is a number of milliseconds, not \"soon\""),
        format!("{path}:16:15: environment variable TOOLDECK_CASES_SURELY_UNSET is not set"),
    ] {
        assert!(err.contains(&expected), "{expected:?} in:\n{err}");
    }
    assert_eq!(last_line(&stdout(&output)), "1 passed, 0 failed", "the good case ran: {}", stdout(&output));
}

/// A definition file in `defs` with a broken tool: the error is shown (its cases fail for it),
/// and the other tools still load.
#[test]
fn errors_in_defs_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tools.json",
        r#"[{"name": "get_weather", "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}},
            {"name": "bad", "parameters": {"type": 5}}]"#,
    );
    let cases = write(
        dir.path(),
        "c.yaml",
        "defs: [tools.json]\ncases:\n  - tool: get_weather\n    args: {location: Oslo, unit: celsius}\n    expect: {status: value}\n  - tool: bad\n    expect: {status: value}\n",
    );
    let output = tooldeck(&["test", cases.to_str().unwrap()]);
    assert_eq!(code(&output), 1, "{}{}", stdout(&output), stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("tools.json:") && err.contains("error:") && err.contains("(in the defs of"), "{err}");
    let out = stdout(&output);
    assert!(out.contains("no tool \"bad\" in the catalog"), "{out}");
    assert_eq!(last_line(&out), "1 passed, 1 failed", "{out}");
}

/// Record a case, break the server, and see exactly which case failed and why: in the terminal
/// and in the JUnit file, with the call id.
#[test]
fn a_broken_server_fails_the_case_that_catches_it() {
    let (url, _server) = server_answering(json!(4));
    let dir = tempfile::tempdir().unwrap();
    let cases = write(
        dir.path(),
        "math.yaml",
        &format!(
            "endpoint: {url}\ndefs: [{OTC_TOOLS}]\ncases:\n  - name: adds two numbers\n    tool: Math.Add@1.0.0\n    args: {{a: 1, b: 2}}\n    expect: {{status: value, value: 3}}\n  - name: four is fine\n    tool: Math.Add@1.0.0\n    args: {{a: 2, b: 2}}\n    expect: {{value: 4}}\n"
        ),
    );
    let junit = dir.path().join("junit.xml");
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--junit", junit.to_str().unwrap()]);
    assert_eq!(code(&output), 1, "{}{}", stdout(&output), stderr(&output));
    let out = stdout(&output);
    assert_eq!(last_line(&out), "1 passed, 1 failed", "{out}");
    let failure = out.lines().find(|l| l.starts_with("FAIL")).expect("a FAIL line");
    assert!(failure.contains("adds two numbers") && failure.contains("math.yaml:4:5"), "{failure}");
    assert!(failure.contains(", call "), "the call id: {failure}");
    assert!(out.contains("/: expected 3, got 4"), "what came back: {out}");

    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    assert!(xml.contains("tests=\"2\" skipped=\"0\" errors=\"0\" failures=\"1\""), "{xml}");
    assert!(xml.contains("<testcase name=\"four is fine\" classname=\"Math.Add@1.0.0\""), "{xml}");
    assert!(xml.contains("<failure message=\"value differs: /: expected 3, got 4\">"), "{xml}");
}

/// The command line's endpoint wins over the file's.
#[test]
fn flags_override_the_file_target() {
    let (url, _server) = server_answering(json!(4));
    let dir = tempfile::tempdir().unwrap();
    let cases = write(
        dir.path(),
        "c.yaml",
        &format!(
            "endpoint: http://127.0.0.1:9\ndefs: [{OTC_TOOLS}]\ncases:\n  - tool: Math.Add@1.0.0\n    args: {{a: 1, b: 3}}\n    expect: {{value: 4}}\n"
        ),
    );
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--endpoint", &url]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    // Without the flag, the file's (closed) port: a failure that says there was no answer.
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--timeout", "5"]);
    assert_eq!(code(&output), 1);
    assert!(stdout(&output).contains("no answer"), "{}", stdout(&output));
}

/// A bad case is reported with path:line:column and exit 2, and never hides the good ones.
#[test]
fn a_bad_case_file_exits_2_and_the_good_cases_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let cases = write(
        dir.path(),
        "bad.yaml",
        "cases:\n  - tool: Math.Add@1.0.0\n    args: {a: 1, b: 1}\n    expect: {value: 2}\n  - tool: Math.Add@1.0.0\n    expect: {staus: value}\n",
    );
    let broken = write(dir.path(), "broken.json", "{\"cases\": [\n  {\"tool\": }]}");
    let missing = dir.path().join("missing.yaml");
    let output = tooldeck(&["test", cases.to_str().unwrap(), broken.to_str().unwrap(), missing.to_str().unwrap()]);
    assert_eq!(code(&output), 2, "{}{}", stdout(&output), stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("bad.yaml:6:14: `expect` has no key `staus`; did you mean `status`?"), "{err}");
    assert!(err.contains("broken.json:2:12: invalid JSON"), "{err}");
    assert!(err.contains("missing.yaml:1:1: cannot read"), "{err}");
    assert_eq!(last_line(&stdout(&output)), "1 passed, 0 failed", "the good case ran: {}", stdout(&output));
}

/// `--token` authorizes without a `tokens:` in the file.
#[test]
fn a_token_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = write(dir.path(), "c.yaml", "cases:\n  - tool: Gmail.ListEmails@1.0.0\n    expect: {status: value}\n");
    let output = tooldeck(&["test", cases.to_str().unwrap()]);
    assert_eq!(code(&output), 1, "without a token: {}", stdout(&output));
    assert!(stdout(&output).contains("status: expected value, got requires_authorization"), "{}", stdout(&output));
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--token", "google=demo-google"]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--token", "nonsense"]);
    assert_eq!(code(&output), 2, "a malformed --token is a usage error");
}

#[test]
fn filter_skips_and_says_so() {
    let output = tooldeck(&["test", DEMO_CASES, "--filter", "WEATHER"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(last_line(&stdout(&output)), "1 passed, 0 failed, 5 skipped");
}

#[test]
fn json_report() {
    let output = tooldeck(&["test", DEMO_CASES, "--json", "--filter", "adds"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(
        (report["passed"].as_u64(), report["failed"].as_u64(), report["skipped"].as_u64()),
        (Some(1), Some(0), Some(5))
    );
    let first = &report["cases"][0];
    assert_eq!(first["name"], "adds two numbers");
    assert_eq!(first["result"], "passed");
    assert!(first["call_id"].is_string());
    assert!(first["location"].as_str().unwrap().ends_with("demo.yaml:4:5"), "{first}");
}

/// Tokens from the environment authorize a call that otherwise asks for authorization; every
/// expectation kind fails with a message saying what came back.
#[test]
fn tokens_and_every_kind_of_failure() {
    let dir = tempfile::tempdir().unwrap();
    let cases = write(
        dir.path(),
        "c.yaml",
        r#"tokens: {google: "${TOOLDECK_CASES_TOKEN}"}
cases:
  - name: authorized
    tool: Gmail.ListEmails@1.0.0
    expect: {status: value, schema: {type: object, required: [emails]}}
  - name: writing a file answers nothing
    tool: write_file
    args: {path: notes/todo.txt, content: "buy milk"}
    expect: {status: null}
  - name: null expected, value came
    tool: Math.Add@1.0.0
    args: {a: 1, b: 1}
    expect: {status: "null"}
  - name: every kind wrong
    tool: get_weather
    args: {location: Paris, unit: celsius}
    expect:
      status: error
      value: {city: Paris}
      contains: {unit: kelvin}
      pointer: {"/city": "Rome"}
      schema: {type: object, required: [wind]}
      max_ms: 0
      error_contains: boom
"#,
    );
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--jobs", "1"]);
    assert_eq!(code(&output), 1, "{}{}", stdout(&output), stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("ok    authorized"), "{out}");
    assert!(out.contains("ok    writing a file answers nothing"), "{out}");
    assert!(out.contains("status: expected null, got value"), "{out}");
    for expected in [
        "status: expected error, got value",
        "value differs:",
        "/temperature: not expected, got",
        "/unit: expected \"kelvin\", got \"celsius\"",
        "/city: expected \"Rome\", got \"Paris\"",
        "value does not match the schema:",
        "more than max_ms 0",
        "expected an error containing \"boom\", got value",
    ] {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }
}

/// `--compare-with`: the same cases against a second server, passing where both servers agree
/// and naming each place where they do not; a compared server that is down fails every case
/// and says which server it was; bad options are a usage error that echoes no value.
#[test]
fn outcomes_compared_across_two_servers() {
    let (good, _, _good_server) = math_server();
    let (changed, broken, _changed_server) = math_server();
    broken.store(true, Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let cases = write(
        dir.path(),
        "math.yaml",
        &format!(
            "defs: [{OTC_TOOLS}]\ncases:\n  - name: whole\n    tool: Math.Add@1.0.0\n    args: {{a: 1, b: 2}}\n    expect: {{status: value}}\n  \
             - name: fractions\n    tool: Math.Add@1.0.0\n    args: {{a: 0.5, b: 0.25}}\n    expect: {{value: 99}}\n"
        ),
    );
    let compare = format!("--endpoint {changed}");
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--endpoint", &good, "--compare-with", &compare]);
    assert_eq!(code(&output), 1, "{}{}", stdout(&output), stderr(&output));
    let out = stdout(&output);
    assert_eq!(last_line(&out), "1 passed, 1 failed", "what the case expects is not checked: {out}");
    assert!(out.contains("ok    whole"), "{out}");
    assert!(out.contains("FAIL  fractions"), "{out}");
    assert!(out.contains("value /: 0.75 here, 0.0 from the compared server"), "{out}");

    let same = format!("--endpoint {good}");
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--endpoint", &good, "--compare-with", &same]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));

    let down = "--endpoint http://127.0.0.1:9";
    let output = tooldeck(&["test", cases.to_str().unwrap(), "--endpoint", &good, "--compare-with", down]);
    assert_eq!(code(&output), 1, "{}{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).contains("no answer from the compared server"), "{}", stdout(&output));

    for bad in ["--header 'X-Api-Key: s3cret' --bogus", "--timeout", "--header 'X: s3cret'"] {
        let output = tooldeck(&["test", cases.to_str().unwrap(), "--compare-with", bad]);
        assert_eq!(code(&output), 2, "{bad}: {}", stderr(&output));
        let err = stderr(&output);
        assert!(err.contains("--compare-with") && !err.contains("s3cret"), "{err}");
    }
}
