//! Evals in the app, for real: the runtime's eval run (`runtime::run_eval`, what carries out
//! `ServerEffect::Eval`) against the scripted model and an rmcp server, and the binary in a
//! pseudo-terminal, with `--eval-report FILE` (a report read back) and with `--evals FILE`
//! (a tool's cases run from its form with F12, their results read in the pane).

use std::sync::Mutex;

use tokio_util::sync::CancellationToken;
use tooldeck::app::EffectError;
use tooldeck::invoke::endpoint::EndpointOptions;
use tooldeck_evals::run::Progress;

#[path = "support/eval_server.rs"]
#[allow(dead_code)]
mod eval_server;
#[path = "support/scripted_model.rs"]
#[allow(dead_code)]
mod scripted_model;
#[path = "support/terminal.rs"]
#[allow(dead_code)]
mod terminal;

use scripted_model::{Script, ScriptedModel, Step};
use terminal::{ENTER, Terminal};

const KELVIN: &str = "What is 25 degrees Celsius in Kelvin?";

/// Right, wrong (30), and a model that refuses (401): 1 of 3, each iteration on its own.
fn plans() -> Vec<Vec<Step>> {
    let call = |c: &str| Step::Call(vec![("to_kelvin", format!("{{\"celsius\": {c}}}"))]);
    vec![
        vec![call("25"), Step::Text("298.15 K")],
        vec![call("30"), Step::Text("303.15 K")],
        vec![Step::Status(401, None)],
    ]
}

fn eval_file(dir: &std::path::Path, server: &str, model: &str, key: &str) -> std::path::PathBuf {
    let text = format!(
        "mcp_url: {server}\nmodel:\n  url: {model}\n  name: scripted\n{key}iterations: 3\ncases:
  - name: kelvin
    prompt: \"{KELVIN}\"
    expect:
      calls:
        - tool: to_kelvin
          args: {{celsius: 25}}
    min_pass_rate: 0.5
  - name: other
    prompt: \"Say hello\"
    expect:
      calls:
        - tool: plain
"
    );
    let path = dir.join("evals.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// What the app's run effect does, against a server and the scripted model: each iteration's
/// progress, then a report with the known score; a model that refuses fails its iteration only.
#[test]
fn the_runtime_runs_a_tools_cases_and_its_results_arrive() {
    let dir = tempfile::tempdir().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let model = ScriptedModel::start(Script::new(vec![(KELVIN, plans())]));
    let mut file = tooldeck_evals::file::load(&eval_file(dir.path(), &server.url, &model.url, ""));
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    // The app narrows the file to the selected tool's cases.
    file.cases.retain(|c| c.name == "kelvin");
    let heard = Mutex::new(Vec::<Progress>::new());
    let report = runtime().block_on(async {
        let options = EndpointOptions { mcp_url: Some(server.url.clone()), ..EndpointOptions::default() };
        let endpoint = options.connect(Vec::new(), None).await.expect("the server answers");
        let mut progress = |p: Progress| heard.lock().unwrap().push(p);
        let cancel = CancellationToken::new();
        let report = tooldeck::runtime::run_eval(&endpoint, "eval server", &file, false, &cancel, &mut progress).await;
        endpoint.close().await;
        report
    });
    let report = report.expect("the run ends with a report");
    let heard = heard.into_inner().unwrap();
    assert_eq!(heard.len(), 3, "{heard:?}");
    assert_eq!(heard.last().map(|p| (p.done, p.total)), Some((3, 3)));
    let case = &report.cases[0];
    assert_eq!((case.name.as_str(), case.passed, case.iterations, case.ok), ("kelvin", 1, 3, false));
    let mut failures: Vec<&str> = case.verdicts.iter().flat_map(|v| v.failures.iter().map(String::as_str)).collect();
    failures.sort();
    assert_eq!(failures[0], "call 1 to to_kelvin: wrong: /celsius: expected 25, got 30");
    assert_eq!(failures[1], "missing: no call to to_kelvin");
    assert!(failures[2].starts_with("turn 1: the model refused the request (401)"), "{failures:?}");
    assert_eq!(report.cases.len(), 1, "only the tool's cases ran");
    // What `--report` writes reads back as the same report (the typed model error aside: it
    // is kept as its words).
    let mut written = Vec::new();
    tooldeck::json_out::write_pretty(&mut written, &report).unwrap();
    let read: tooldeck_evals::report::EvalReport = serde_json::from_slice(&written).expect("a report reads back");
    let mut report = report;
    report.cases[0].verdicts.iter_mut().for_each(|v| v.trajectory.model_error = None);
    assert_eq!(read, report);
}

/// A `${VAR}` key that is not set: the run says so and asks nothing.
#[test]
fn a_key_that_is_not_set_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let model = ScriptedModel::start(Script::new(vec![(KELVIN, plans())]));
    let key = "  key: ${TOOLDECK_EVAL_APP_KEY_NOT_SET}\n";
    let file = tooldeck_evals::file::load(&eval_file(dir.path(), &server.url, &model.url, key));
    let failed = runtime().block_on(async {
        let options = EndpointOptions { mcp_url: Some(server.url.clone()), ..EndpointOptions::default() };
        let endpoint = options.connect(Vec::new(), None).await.expect("the server answers");
        let cancel = CancellationToken::new();
        tooldeck::runtime::run_eval(&endpoint, "eval server", &file, false, &cancel, &mut |_| {}).await
    });
    let Err(why @ EffectError::EvalModel(_)) = failed else { panic!("{failed:?}") };
    assert!(why.to_string().contains("TOOLDECK_EVAL_APP_KEY_NOT_SET"), "{why}");
    assert!(model.script.requests.lock().unwrap().is_empty(), "the model was not asked");
}

/// The binary opens a report with `--eval-report`: its cases, then a failed iteration's
/// trajectory, read as a person reads them.
#[test]
fn the_app_opens_a_report_file_in_the_eval_pane() {
    let report = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/support/eval_report.json");
    let mut term = Terminal::spawn(&["--eval-report", report], 40, 120, &[]);
    term.wait_text("FAIL kelvin: 1/3 passed (33%, 95% interval 6–79%)");
    term.send(ENTER);
    term.wait_text("#2   failed: call 1 to to_kelvin: wrong");
    term.send("j");
    term.send(ENTER);
    let shown = term.wait_text("✗ wrong: /celsius: expected 25, got 30");
    assert!(!shown.contains("hunter2"), "a secret argument is masked:\n{shown}");
    term.quit();
}

/// `--evals FILE` on the file's own server: F12 in the tool's form runs the cases that name it,
/// and their results come into the pane.
#[test]
fn a_tools_cases_run_from_its_form_and_their_results_show() {
    let dir = tempfile::tempdir().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let model = ScriptedModel::start(Script::new(vec![(KELVIN, plans())]));
    let file = eval_file(dir.path(), &server.url, &model.url, "");
    let file = file.display().to_string();
    let mut term = Terminal::spawn(&["--evals", file.as_str()], 40, 120, &[]);
    term.wait_text("to_kelvin");
    term.type_slowly("/to_kel");
    term.send(ENTER);
    term.wait_text("celsius");
    // F12, as xterm sends it.
    term.send("\x1b[24~");
    let done = term.wait_text("kelvin: 1/3 passed");
    assert!(done.contains("evals · to_kelvin"), "{done}");
    assert!(!done.contains("other"), "only the tool's cases ran:\n{done}");
    term.quit();
}
