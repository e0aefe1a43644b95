//! `tooldeck eval` end to end: the real binary, a scripted model (OpenAI-compatible and
//! Anthropic, whole and streamed) and an rmcp server over HTTP. A known script gives a known
//! score; cassettes replay it with the model stopped; a changed description is named; the key
//! is written nowhere.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

#[path = "support/eval_server.rs"]
mod eval_server;
#[path = "support/scripted_model.rs"]
mod scripted_model;

use scripted_model::{Script, ScriptedModel, Step};

const KELVIN: &str = "What is 25 degrees Celsius in Kelvin?";
const KEY_VAR: &str = "TOOLDECK_EVAL_TEST_KEY";
const KEY: &str = "sk-test-S3CRET-eval-key-81";

fn tooldeck(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tooldeck"));
    command.args(args).env_remove(KEY_VAR);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the binary runs")
}

fn said(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn call(celsius: &str) -> Step {
    Step::Call(vec![("to_kelvin", format!("{{\"celsius\": {celsius}}}"))])
}

/// 7 of 10 right: 25, 25 again, 25.0 with precision at its default; then one wrong value,
/// one the schema refuses, and one that never calls.
fn kelvin_plans() -> Vec<Vec<Step>> {
    let done = Step::Text("298.15 K");
    let mut plans = Script::times(5, vec![call("25"), done.clone()]);
    plans.push(vec![call("25.0"), done.clone()]);
    plans.push(vec![Step::Call(vec![("to_kelvin", r#"{"celsius": 25.0, "precision": 2}"#.into())]), done.clone()]);
    plans.push(vec![call("30"), done.clone()]);
    plans.push(vec![call("\"25\""), done.clone()]);
    plans.push(vec![Step::Text("About 298 K.")]);
    plans
}

fn write_file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn eval_file(server: &str, model: &str, extra_model: &str, cases: &str) -> String {
    format!(
        "mcp_url: {server}\nmodel:\n  url: {model}\n  name: scripted\n  key: ${{{KEY_VAR}}}\n{extra_model}iterations: 10\ncases:\n{cases}"
    )
}

const KELVIN_CASE: &str = "  - name: kelvin
    prompt: \"What is 25 degrees Celsius in Kelvin?\"
    expect:
      calls:
        - tool: to_kelvin
          args: {celsius: 25}
      never: [delete_all]
    min_pass_rate: 0.8
";

fn report(dir: &Path, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

#[test]
fn a_known_script_gives_a_known_score_and_its_cassettes_replay_it_with_the_model_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let model = ScriptedModel::start(Script::new(vec![(KELVIN, kelvin_plans())]));
    let file = write_file(dir.path(), "evals.yaml", &eval_file(&server.url, &model.url, "", KELVIN_CASE));
    let cassettes = dir.path().join("cassettes").display().to_string();
    let report_path = dir.path().join("recorded.json").display().to_string();
    let junit = dir.path().join("junit.xml").display().to_string();
    let recorded = tooldeck(
        &[
            "eval",
            &file,
            "--cassettes",
            &cassettes,
            "--record",
            "--report",
            &report_path,
            "--junit",
            &junit,
            "--jobs",
            "3",
        ],
        &[(KEY_VAR, KEY)],
    );
    // 7 of 10 is below min_pass_rate 0.8.
    assert_eq!(recorded.status.code(), Some(1), "{}", said(&recorded));
    let got = report(dir.path(), "recorded.json");
    let case = &got["cases"][0];
    assert_eq!(
        (case["passed"].clone(), case["iterations"].clone(), case["pass_rate"].clone()),
        (json!(7), json!(10), json!(0.7))
    );
    assert_eq!(case["interval"], json!([0.3968, 0.8922]));
    assert_eq!(case["pass_k"][1], json!({"k": 2, "value": 0.4667}));
    assert_eq!(case["pass_k"].as_array().unwrap().last().unwrap(), &json!({"k": 10, "value": 0.0}));
    assert_eq!(
        got["per_tool"][0],
        json!({"tool": "to_kelvin", "expected": 10, "chosen": 9, "right": 7, "unexpected": 0, "refused": 0})
    );
    let failures: Vec<String> = case["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|v| v["failures"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_string()))
        .collect();
    let mut failures = failures;
    failures.sort();
    assert_eq!(failures.len(), 3, "{failures:?}");
    assert_eq!(failures[0], "call 1 to to_kelvin: invalid: /celsius: \"25\" is not of type \"number\"");
    assert_eq!(failures[1], "call 1 to to_kelvin: wrong: /celsius: expected 25, got 30");
    assert_eq!(failures[2], "missing: no call to to_kelvin");
    assert_eq!(got["tools"].as_array().unwrap().len(), 3, "the tools as listed");
    let stdout = String::from_utf8_lossy(&recorded.stdout);
    assert!(stdout.contains("FAIL kelvin: 7/10 passed (70%, 95% interval 40–89%)"), "{stdout}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("testcase name=\"kelvin\"") && xml.contains("7/10 passed (70%), below min_pass_rate 80%"),
        "{xml}"
    );
    // The key went to the model, and was written nowhere.
    let requests = model.script.requests.lock().unwrap().len();
    assert!(requests >= 19, "{requests} requests");
    let sent = model.script.requests.lock().unwrap()[0].0.get("authorization").unwrap().to_str().unwrap().to_string();
    assert_eq!(sent, format!("Bearer {KEY}"));
    assert_key_nowhere(dir.path(), &[&recorded]);

    // The model stopped and no key: the cassettes give the same score.
    model.stop();
    let replay_report = dir.path().join("replayed.json").display().to_string();
    let replayed = tooldeck(&["eval", &file, "--cassettes", &cassettes, "--replay", "--report", &replay_report], &[]);
    assert_eq!(replayed.status.code(), Some(1), "{}", said(&replayed));
    let again = report(dir.path(), "replayed.json");
    assert_eq!(again["cases"][0]["passed"], 7);
    assert_eq!(again["cases"][0]["pass_rate"], 0.7);
    assert_eq!(again["per_tool"], got["per_tool"]);
    drop(server);

    // The description changed since the recording: the replay names the tool and exits 2.
    let changed = eval_server::start("Converts");
    let file =
        write_file(dir.path(), "changed.yaml", &eval_file(&changed.url, "http://127.0.0.1:9/v1", "", KELVIN_CASE));
    let refused = tooldeck(&["eval", &file, "--cassettes", &cassettes, "--replay"], &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    let text = said(&refused);
    assert!(
        text.contains("tools whose definitions changed since the recording: to_kelvin (description changed, docs)"),
        "{text}"
    );
}

/// Every file the run wrote, and what it said, are free of the key.
fn assert_key_nowhere(dir: &Path, outputs: &[&Output]) {
    for output in outputs {
        assert!(!said(output).contains(KEY), "{}", said(output));
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            assert!(!text.contains(KEY) && !text.contains("S3CRET"), "the key is in {}", path.display());
        }
    }
}

#[test]
fn compare_ties_a_drop_to_the_description_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    let right = vec![call("25"), Step::Text("298.15 K")];
    let wrong = vec![call("30"), Step::Text("303.15 K")];
    let before = eval_server::start("Converts Celsius to Kelvin");
    let model = ScriptedModel::start(Script::new(vec![(KELVIN, Script::times(1, right.clone()))]));
    let old = write_file(dir.path(), "old.yaml", &eval_file(&before.url, &model.url, "", KELVIN_CASE));
    let old_report = dir.path().join("old.json").display().to_string();
    let first = tooldeck(&["eval", &old, "--report", &old_report], &[(KEY_VAR, KEY)]);
    assert_eq!(first.status.code(), Some(0), "{}", said(&first));

    let after = eval_server::start("Converts");
    let mut plans = Script::times(2, right);
    plans.extend(Script::times(8, wrong));
    let model = ScriptedModel::start(Script::new(vec![(KELVIN, plans)]));
    let new = write_file(dir.path(), "new.yaml", &eval_file(&after.url, &model.url, "", KELVIN_CASE));
    let new_report = dir.path().join("new.json").display().to_string();
    let second = tooldeck(&["eval", &new, "--report", &new_report, "--jobs", "1"], &[(KEY_VAR, KEY)]);
    assert_eq!(second.status.code(), Some(1), "{}", said(&second));

    let compared = tooldeck(&["eval", "compare", &old_report, &new_report], &[]);
    assert_eq!(compared.status.code(), Some(1), "{}", said(&compared));
    let stdout = String::from_utf8_lossy(&compared.stdout);
    let line = stdout.lines().next().unwrap();
    assert_eq!(line, "to_kelvin: description changed, not breaking · kelvin 1 → 0.2", "{stdout}");
}

#[test]
fn destructive_tools_are_refused_counted_and_shown_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let prompt = "Clean up everything";
    let plan = vec![Step::Call(vec![("delete_all", "{}".into()), ("plain", "{}".into())]), Step::Text("done")];
    let model = ScriptedModel::start(Script::new(vec![(prompt, Script::times(1, plan))]));
    let case = "  - name: clean\n    prompt: Clean up everything\n    expect:\n      calls: [{tool: delete_all}, {tool: plain}]\n";
    let text = eval_file(&server.url, &model.url, "", case).replace("iterations: 10", "iterations: 2");
    let file = write_file(dir.path(), "evals.yaml", &text);
    let refused = tooldeck(&["eval", &file, "--json"], &[(KEY_VAR, KEY)]);
    assert_eq!(refused.status.code(), Some(0), "{}", said(&refused));
    let got: Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(got["cases"][0]["refused"], 4);
    let call = &got["cases"][0]["verdicts"][0]["calls"][0];
    assert_eq!(call["refused"], "marked destructive; --include-destructive runs it");
    assert!(call["result"].as_str().unwrap().starts_with("refused: "), "{call}");
    let plain = &got["cases"][0]["verdicts"][0]["calls"][1];
    assert!(plain["refused"].as_str().unwrap().contains("on a remote server"), "{plain}");
    assert_eq!(server.server.calls.load(Ordering::SeqCst), 0, "nothing reached the server");

    let lines = tooldeck(&["eval", &file], &[(KEY_VAR, KEY)]);
    assert!(String::from_utf8_lossy(&lines.stdout).contains("4 destructive calls refused"), "{}", said(&lines));
    let included = tooldeck(&["eval", &file, "--include-destructive"], &[(KEY_VAR, KEY)]);
    assert_eq!(included.status.code(), Some(0), "{}", said(&included));
    assert_eq!(server.server.deletes.load(Ordering::SeqCst), 2);
}

#[test]
fn each_way_a_model_fails_is_a_clear_line_and_the_other_iterations_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let done = Step::Text("298.15 K");
    let looping: Vec<Step> = (0..10).map(|_| call("25")).collect();
    let model = ScriptedModel::start(Script::new(vec![
        ("unauthorized", vec![vec![Step::Status(401, None)]]),
        ("rate limited", vec![vec![Step::RateLimitedOnce(Box::new(call("25"))), done.clone()]]),
        ("server error", vec![vec![Step::Status(500, None)]]),
        ("broken stream", vec![vec![Step::BrokenStream]]),
        ("not json", vec![vec![Step::Call(vec![("to_kelvin", "{celsius: 25".into())]), done.clone()]]),
        ("loops", vec![looping]),
        ("huge", vec![vec![Step::Huge(10 * 1024 * 1024)]]),
        ("fine", vec![vec![call("25"), done]]),
    ]));
    let cases: String = ["unauthorized", "rate limited", "server error", "broken stream", "not json", "loops", "huge", "fine"]
        .iter()
        .map(|name| {
            format!("  - name: {name}\n    prompt: {name}\n    expect:\n      calls: [{{tool: to_kelvin, args: {{celsius: 25}}}}]\n")
        })
        .collect();
    let text = eval_file(&server.url, &model.url, "", &cases).replace("iterations: 10", "iterations: 1\nmax_turns: 3");
    let file = write_file(dir.path(), "evals.yaml", &text);
    let output = tooldeck(&["eval", &file, "--json", "--jobs", "4"], &[(KEY_VAR, KEY)]);
    assert_eq!(output.status.code(), Some(1), "{}", said(&output));
    let got: Value = serde_json::from_slice(&output.stdout).unwrap();
    let first_failure = |name: &str| -> String {
        let case = got["cases"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap();
        case["verdicts"][0]["failures"][0].as_str().unwrap_or("passed").to_string()
    };
    assert!(
        first_failure("unauthorized").starts_with("turn 1: the model refused the request (401)"),
        "{}",
        first_failure("unauthorized")
    );
    assert_eq!(first_failure("rate limited"), "passed", "a 429 is waited out as Retry-After asks");
    assert!(
        first_failure("server error").starts_with("turn 1: the model answered HTTP 500"),
        "{}",
        first_failure("server error")
    );
    assert!(
        first_failure("broken stream").starts_with("turn 1: the model's stream broke off"),
        "{}",
        first_failure("broken stream")
    );
    assert_eq!(first_failure("not json"), "call 1 to to_kelvin: invalid: the arguments are not JSON: {celsius: 25");
    assert!(first_failure("loops").contains("still calling tools after 3 turns"), "{}", first_failure("loops"));
    assert_eq!(first_failure("huge"), "turn 1: the model's answer is larger than 8 MB; it was cut off");
    assert_eq!(first_failure("fine"), "passed");
    assert!(!said(&output).contains(KEY));
}

#[test]
fn anthropic_natively_whole_and_streamed() {
    for stream in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let server = eval_server::start("Converts Celsius to Kelvin");
        let plans = Script::times(1, vec![call("25"), Step::Text("298.15 K")]);
        let model = ScriptedModel::start(Script::new(vec![(KELVIN, plans)]));
        let extra = format!("  api: anthropic\n  stream: {stream}\n");
        let text = eval_file(&server.url, &model.url, &extra, KELVIN_CASE).replace("iterations: 10", "iterations: 3");
        let file = write_file(dir.path(), "evals.yaml", &text);
        let output = tooldeck(&["eval", &file, "--json"], &[(KEY_VAR, KEY)]);
        assert_eq!(output.status.code(), Some(0), "stream {stream}: {}", said(&output));
        let got: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(got["cases"][0]["passed"], 3);
        let requests = model.script.requests.lock().unwrap();
        assert_eq!(requests[0].0.get("x-api-key").unwrap().to_str().unwrap(), KEY);
        assert_eq!(requests[0].1["tools"][0]["input_schema"]["required"], json!(["celsius"]));
        // The second turn carries the tool's result back as the API wants it.
        let second = requests.iter().find(|(_, body)| body["messages"].as_array().unwrap().len() == 3).unwrap();
        assert_eq!(second.1["messages"][2]["content"][0]["type"], "tool_result");
        assert_eq!(second.1["messages"][2]["content"][0]["content"], "298.15");
    }
}

#[test]
fn openai_streamed_scores_as_whole() {
    let dir = tempfile::tempdir().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let model = ScriptedModel::start(Script::new(vec![(KELVIN, kelvin_plans())]));
    let text = eval_file(&server.url, &model.url, "  stream: true\n", KELVIN_CASE);
    let file = write_file(dir.path(), "evals.yaml", &text);
    let output = tooldeck(&["eval", &file, "--json"], &[(KEY_VAR, KEY)]);
    assert_eq!(output.status.code(), Some(1), "{}", said(&output));
    let got: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(got["cases"][0]["passed"], 7);
}

#[test]
fn a_bad_file_or_a_missing_key_is_exit_2_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let text = eval_file("http://127.0.0.1:9/mcp", "http://127.0.0.1:9/v1", "", KELVIN_CASE);
    let typo = write_file(dir.path(), "typo.yaml", &text.replace("    min_pass_rate: 0.8", "    min_pass_rat: 0.8"));
    let output = tooldeck(&["eval", &typo], &[(KEY_VAR, KEY)]);
    assert_eq!(output.status.code(), Some(2), "{}", said(&output));
    assert!(
        said(&output).contains("a case has no key `min_pass_rat`; did you mean `min_pass_rate`?"),
        "{}",
        said(&output)
    );

    let server = eval_server::start("Converts Celsius to Kelvin");
    let file = write_file(dir.path(), "evals.yaml", &eval_file(&server.url, "http://127.0.0.1:9/v1", "", KELVIN_CASE));
    let output = tooldeck(&["eval", &file], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", said(&output));
    assert!(said(&output).contains(KEY_VAR), "{}", said(&output));
    let no_cassettes =
        tooldeck(&["eval", &file, "--replay", "--cassettes", &dir.path().join("none").display().to_string()], &[]);
    assert_eq!(no_cassettes.status.code(), Some(2), "{}", said(&no_cassettes));
    assert!(said(&no_cassettes).contains("no cassette for case \"kelvin\""), "{}", said(&no_cassettes));
}

#[test]
fn a_proxy_record_drafts_an_eval_file() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("r.jsonl");
    let lines = [
        r#"{"time":"2026-01-01T00:00:00Z","from":"client","size":1,"message":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"to_kelvin","arguments":{"celsius":25}}}}"#,
        r#"{"time":"2026-01-01T00:00:00Z","from":"server","size":1,"message":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}"#,
    ];
    std::fs::write(&record, lines.join("\n")).unwrap();
    let output = tooldeck(&["eval", "--from-record", &record.display().to_string()], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    let draft = String::from_utf8_lossy(&output.stdout);
    assert!(draft.contains("- tool: \"to_kelvin\"\n          args: {\"celsius\":25}"), "{draft}");
    assert!(draft.contains("prompt: \"TODO: "), "{draft}");
}
