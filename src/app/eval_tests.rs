//! The eval pane driven through `update`, as the runtime drives it: a report opened at start,
//! moving case → iteration → trajectory and back, the eval key asking for the selected tool's
//! cases, progress and the end of a run, Esc stopping it, an older run's answer dropped.

use super::eval::{EvalState, View};
use super::*;
use crate::catalog::{LoadOptions, load_samples};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tooldeck_evals::report::EvalReport;
use tooldeck_evals::run::Progress;

const REPORT: &str = include_str!("../../tests/it/support/eval_report.json");

/// Cases for two sample tools and one of them twice; the demo server answers them.
const EVALS: &str = "model: {url: \"http://127.0.0.1:9/v1\", name: scripted}
iterations: 3
cases:
  - name: euros
    prompt: Convert 10 USD to EUR
    expect: {calls: [{tool: convert_currency, args: {amount: 10}}]}
  - name: weather
    prompt: Weather in Paris?
    expect: {calls: [{tool: get_weather}]}
  - name: both
    prompt: Weather, then convert
    expect: {calls: [{tool: get_weather}, {tool: convert_currency}]}
";

fn report() -> EvalReport {
    serde_json::from_str(REPORT).expect("the fixture reads back as a report")
}

fn app_with(setup: AppSetup) -> App {
    let loaded = load_samples(&LoadOptions::default());
    App::new(loaded.catalog, &loaded.diagnostics, (120, 40)).with_setup(setup)
}

fn with_evals() -> App {
    let file = tooldeck_evals::file::parse(std::path::Path::new("evals.yaml"), "evals.yaml", EVALS);
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    app_with(AppSetup { evals: Some(file), ..AppSetup::default() })
}

fn key(app: &mut App, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, modifiers))))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    key(app, code, KeyModifiers::NONE)
}

fn select(app: &mut App, id: &str) {
    while app.selected_tool().map(|t| t.id.as_str()) != Some(id) {
        press(app, KeyCode::Down);
    }
}

/// `E` on `tool`: the run's id and the cases it asked for.
fn run(app: &mut App, tool: &str) -> (u64, Vec<String>) {
    select(app, tool);
    let effects = key(app, KeyCode::Char('E'), KeyModifiers::SHIFT);
    let [Effect::Server(ServerEffect::Eval { id, file })] = effects.as_slice() else { panic!("{effects:?}") };
    (*id, file.cases.iter().map(|c| c.name.clone()).collect())
}

fn progress(done: usize, case: &str, passed: bool) -> Progress {
    Progress { done, total: 6, case: case.into(), iteration: done, passed }
}

#[test]
fn a_report_opened_at_start_fills_the_pane_and_opens_level_by_level() {
    let mut app = app_with(AppSetup { eval_report: Some(("r.json".into(), report())), ..AppSetup::default() });
    assert!(app.shows(Overlay::Eval), "the report is on screen from the start");
    let shown = app.eval.shown().unwrap();
    assert_eq!(shown.state(), &EvalState::Read);
    assert_eq!(shown.report().unwrap().cases.len(), 2);
    // Case → its iterations → one iteration's trajectory, and back up one level at a time.
    press(&mut app, KeyCode::Down);
    assert_eq!(app.eval.selected_case().unwrap().name, "never delete");
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.eval.view(), View::Iterations);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.eval.selected_iteration().unwrap().iteration, 2);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.eval.view(), View::Trajectory);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.eval.scroll(), 0, "a trajectory shorter than the pane does not scroll");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.eval.view(), View::Iterations);
    assert_eq!(app.eval.selected_iteration().unwrap().iteration, 2, "the iteration chosen is kept");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.eval.view(), View::Cases);
    press(&mut app, KeyCode::Esc);
    assert!(!app.shows(Overlay::Eval), "Esc on the cases closes the pane");
    // Without an eval file the key shows the report again: there is nothing to run.
    assert!(key(&mut app, KeyCode::Char('E'), KeyModifiers::SHIFT).is_empty());
    assert!(app.shows(Overlay::Eval));
}

#[test]
fn a_long_trajectory_scrolls_and_stops_at_its_end() {
    let mut report = report();
    let long = "a line of the model's answer\n".repeat(80);
    report.cases[0].verdicts[0].trajectory.text = Some(long);
    let mut app = app_with(AppSetup { eval_report: Some(("r.json".into(), report)), ..AppSetup::default() });
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::PageDown);
    assert!(app.eval.scroll() > 10, "{}", app.eval.scroll());
    press(&mut app, KeyCode::End);
    let last = app.eval.scroll();
    press(&mut app, KeyCode::Down);
    assert_eq!(app.eval.scroll(), last, "no scrolling past the last row");
    press(&mut app, KeyCode::Home);
    assert_eq!(app.eval.scroll(), 0);
}

#[test]
fn the_eval_key_runs_the_cases_that_name_the_selected_tool() {
    let mut app = with_evals();
    let (_, cases) = run(&mut app, "convert_currency");
    assert_eq!(cases, ["euros", "both"]);
    assert!(app.shows(Overlay::Eval) && app.eval.running());
    assert!(
        app.status().unwrap().contains("2 eval cases of convert_currency (6 iterations in all)"),
        "{:?}",
        app.status()
    );
    // From the form, while a field is being typed in, F12 runs them: no printable key does.
    let mut app = with_evals();
    select(&mut app, "get_weather");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('E'));
    assert!(app.form_pane.editing(), "E is text in a field");
    let effects = press(&mut app, KeyCode::F(12));
    let [Effect::Server(ServerEffect::Eval { file, .. })] = effects.as_slice() else { panic!("{effects:?}") };
    let names: Vec<&str> = file.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["weather", "both"]);
    assert_eq!(file.model.name, "scripted", "the file's model goes with the cases");
}

#[test]
fn without_an_eval_file_or_a_case_the_key_says_what_to_do() {
    let mut app = app_with(AppSetup::default());
    assert!(key(&mut app, KeyCode::Char('E'), KeyModifiers::SHIFT).is_empty());
    assert!(app.status().unwrap().contains("--evals FILE"), "{:?}", app.status());
    assert!(!app.shows(Overlay::Eval));
    let mut app = with_evals();
    select(&mut app, "search_products");
    assert!(key(&mut app, KeyCode::Char('E'), KeyModifiers::SHIFT).is_empty());
    assert_eq!(app.status(), Some("no case in evals.yaml expects a call to search_products"));
}

#[test]
fn progress_then_the_report_fill_the_pane_and_an_older_runs_answer_is_dropped() {
    let mut app = with_evals();
    let (first, _) = run(&mut app, "convert_currency");
    update(&mut app, Msg::Eval(EvalMsg::Progress { id: first, progress: progress(1, "euros", true) }));
    update(&mut app, Msg::Eval(EvalMsg::Progress { id: first, progress: progress(2, "euros", false) }));
    let shown = app.eval.shown().unwrap();
    assert_eq!(shown.progress().unwrap().done, 2);
    assert_eq!(shown.tally()[0], ("euros".to_string(), 2, 1));
    // Esc stops the run; the pane stays for the report that still comes.
    assert_eq!(press(&mut app, KeyCode::Esc), vec![Effect::Task(TaskEffect::StopEval { id: first })]);
    assert_eq!(app.eval.shown().unwrap().state(), &EvalState::Stopping);
    update(&mut app, Msg::Eval(EvalMsg::Done { id: first, result: Ok(Box::new(report())) }));
    assert_eq!(app.eval.shown().unwrap().state(), &EvalState::Done { stopped: true });
    assert!(app.status().unwrap().contains("stopped: 1 of 2 at or above"), "{:?}", app.status());
    // r runs the same tool's cases again; the first run's late answers no longer count.
    let effects = press(&mut app, KeyCode::Char('r'));
    let [Effect::Server(ServerEffect::Eval { id: second, .. })] = effects.as_slice() else { panic!("{effects:?}") };
    assert_ne!(*second, first);
    update(&mut app, Msg::Eval(EvalMsg::Progress { id: first, progress: progress(5, "euros", true) }));
    update(&mut app, Msg::Eval(EvalMsg::Done { id: first, result: Ok(Box::new(report())) }));
    assert!(app.eval.running() && app.eval.shown().unwrap().progress().is_none(), "{:?}", app.eval.shown());
    let key_missing = tooldeck_evals::provider::ModelError::Key("TOOLDECK_KEY is not set".into());
    update(&mut app, Msg::Eval(EvalMsg::Done { id: *second, result: Err(key_missing.into()) }));
    let EvalState::Failed(why) = app.eval.shown().unwrap().state() else { panic!("{:?}", app.eval.shown()) };
    assert_eq!(why, "the eval file's model: the model's key: TOOLDECK_KEY is not set");
    // Closed, the finished run of this tool is shown again by the key, not run again.
    press(&mut app, KeyCode::Esc);
    assert!(!app.shows(Overlay::Eval));
}

#[test]
fn a_finished_run_is_shown_again_and_the_key_closes_the_pane() {
    let mut app = with_evals();
    let (id, _) = run(&mut app, "convert_currency");
    update(&mut app, Msg::Eval(EvalMsg::Done { id, result: Ok(Box::new(report())) }));
    assert!(key(&mut app, KeyCode::Char('E'), KeyModifiers::SHIFT).is_empty(), "E in the pane closes it");
    assert!(!app.shows(Overlay::Eval));
    assert!(key(&mut app, KeyCode::Char('E'), KeyModifiers::SHIFT).is_empty(), "shown again, not run again");
    assert!(app.shows(Overlay::Eval));
    assert!(press(&mut app, KeyCode::F(12)).is_empty());
    assert!(!app.shows(Overlay::Eval), "F12 closes it too");
}
