//! The eval pane on ratatui's TestBackend: a report's cases, a failed iteration's trajectory
//! (its verdict, the result the model was given, secrets masked) at 120x40, a run going on, and
//! a tiny screen (no panic). Driven through `update`, the report read back as `--eval-report`
//! reads it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{App, AppSetup, Effect, EvalMsg, InputMsg, Msg, ServerEffect, update};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::theme::Styles;

const REPORT: &str = include_str!("support/eval_report.json");

fn app(width: u16, height: u16, setup: AppSetup) -> App {
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (width, height)).with_setup(setup);
    let _ = update(&mut app, Msg::Input(InputMsg::Resize(width, height)));
    app
}

fn with_report(width: u16, height: u16) -> App {
    let report = serde_json::from_str(REPORT).expect("a report");
    app(width, height, AppSetup { eval_report: Some(("r.json".into(), report)), ..AppSetup::default() })
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

#[test]
fn a_reports_cases_then_a_failed_iterations_trajectory_at_120x40() {
    let mut app = with_report(120, 40);
    let cases = screen(&app);
    assert!(cases.contains("FAIL kelvin: 1/3 passed (33%, 95% interval 6–79%) · pass^3 0.00 · needs 80%"), "{cases}");
    assert!(cases.contains("tool to_kelvin: chosen 3/4 times expected, right 2"), "{cases}");
    insta::assert_snapshot!("eval_01_cases_120x40", cases);

    key(&mut app, KeyCode::Enter);
    let iterations = screen(&app);
    assert!(
        iterations.contains("#2   failed: call 1 to to_kelvin: wrong: /celsius: expected 25, got 30"),
        "{iterations}"
    );
    insta::assert_snapshot!("eval_02_iterations_120x40", iterations);

    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    let trajectory = screen(&app);
    assert!(trajectory.contains("✗ wrong: /celsius: expected 25, got 30"), "{trajectory}");
    assert!(trajectory.contains("model: Let me convert that."), "{trajectory}");
    assert!(
        !trajectory.contains("hunter2") && !trajectory.contains("abcdefghijklmnop"),
        "secrets masked: {trajectory}"
    );
    insta::assert_snapshot!("eval_03_failed_trajectory_120x40", trajectory);

    // A refused call (a tool that may be destructive, on a remote server) says why it did not run.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    let refused = screen(&app);
    assert!(refused.contains("⊘ not run: says nothing of being destructive"), "{refused}");
    assert!(refused.contains("no verdict: calls besides the expected ones are allowed here"), "{refused}");
}

#[test]
fn a_run_going_on_shows_its_progress() {
    let file = tooldeck::app::AppSetup {
        evals: Some(tooldeck_evals::file::parse(
            std::path::Path::new("evals.yaml"),
            "evals.yaml",
            "model: {url: \"http://127.0.0.1:9/v1\", name: scripted}\niterations: 4\ncases:\n  - name: euros\n    prompt: Convert 10 USD\n    expect: {calls: [{tool: convert_currency}]}\n",
        )),
        ..AppSetup::default()
    };
    let mut app = app(120, 40, file);
    while app.selected_tool().map(|t| t.id.as_str()) != Some("convert_currency") {
        key(&mut app, KeyCode::Down);
    }
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('E'), KeyModifiers::SHIFT))));
    let [Effect::Server(ServerEffect::Eval { id, .. })] = effects.as_slice() else { panic!("{effects:?}") };
    let progress =
        tooldeck_evals::run::Progress { done: 3, total: 4, case: "euros".into(), iteration: 2, passed: false };
    update(&mut app, Msg::Eval(EvalMsg::Progress { id: *id, progress }));
    let running = screen(&app);
    assert!(running.contains("⟳ 3/4 iterations · euros iteration 2 failed · Esc stops"), "{running}");
    assert!(running.contains("euros  1/4 done · 0 passed"), "{running}");
    insta::assert_snapshot!("eval_04_running_120x40", running);
}

#[test]
fn a_tiny_screen_draws_every_level_without_panicking() {
    for (width, height) in [(20, 8), (40, 10), (60, 12)] {
        let mut app = with_report(width, height);
        let _ = screen(&app);
        key(&mut app, KeyCode::Enter);
        let _ = screen(&app);
        key(&mut app, KeyCode::Down);
        key(&mut app, KeyCode::Enter);
        for _ in 0..5 {
            key(&mut app, KeyCode::PageDown);
            let _ = screen(&app);
        }
    }
    // The smallest screen the app draws on: the trajectory wraps to it.
    let mut app = with_report(60, 20);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("eval_05_trajectory_60x20", screen(&app));
}
