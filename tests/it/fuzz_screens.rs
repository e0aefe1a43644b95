//! The fuzz pane (`Z`) on ratatui's TestBackend, at 120x40 and 80x24: a run going on with its
//! progress line, its findings with the chosen one's shrunk arguments (a server's escapes shown,
//! never obeyed), and Enter putting them in the form. Driven through `update` with the messages
//! the runtime sends (`FuzzMsg::Progress`, `FuzzMsg::Done`).

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tooldeck::app::{App, Effect, EffectError, Focus, FuzzMsg, InputMsg, Msg, ServerEffect, update};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::fuzz::{Finding, Kind, Phase, Progress, Report, ToolSummary};
use tooldeck::invoke::InvokeError;
use tooldeck::theme::Styles;

const TOOL: &str = "convert_currency";

fn app(width: u16, height: u16) -> App {
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (width, height));
    let _ = update(&mut app, Msg::Input(InputMsg::Resize(width, height)));
    app
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

/// `Z` on the tool: the run's id from the effect it asks for.
fn start(app: &mut App) -> u64 {
    while app.selected_tool().map(|t| t.id.as_str()) != Some(TOOL) {
        key(app, KeyCode::Down);
    }
    match key(app, KeyCode::Char('Z')).as_slice() {
        [Effect::Server(ServerEffect::Fuzz { id, tool })] if tool.id == TOOL => *id,
        other => panic!("{other:?}"),
    }
}

fn progress() -> Progress {
    Progress { tool: TOOL.into(), phase: Phase::Valid, calls: 1530, findings: 2, elapsed: Duration::from_millis(900) }
}

fn finding(kind: Kind, arguments: serde_json::Value, message: &str, valid: bool) -> Finding {
    Finding {
        tool: TOOL.into(),
        kind,
        severity: kind.severity(),
        original: json!({"amount": 129.99, "from": "USD", "to": "EUR"}),
        arguments,
        message: message.into(),
        valid,
        phase: if valid { Phase::Coverage } else { Phase::Invalid },
        shrink_calls: 12,
        count: 1,
        success_status: None,
        then: None,
    }
}

fn findings() -> Vec<Finding> {
    vec![
        finding(
            Kind::RefusesValid,
            json!({"amount": 1, "from": "USD", "to": "EUR"}),
            "refused valid input: \u{1b}[31mno rate\u{1b}[0m for today",
            true,
        ),
        finding(
            Kind::AcceptsInvalid,
            json!({"amount": -1, "from": "USD", "to": "EUR"}),
            "answered input the schema refuses as a success (ok)",
            false,
        ),
        finding(Kind::Slow, json!({"amount": 1, "from": "JPY", "to": "EUR"}), "answered in 2417 ms", true),
    ]
}

fn done(app: &mut App, id: u64) {
    let tools = vec![ToolSummary { tool: TOOL.into(), calls: 200, ..ToolSummary::default() }];
    let report = Report {
        seed: 42,
        calls: 236,
        findings: findings(),
        tools,
        elapsed_ms: 1200,
        restarts: 0,
        ..Report::default()
    };
    let _ = update(app, Msg::Fuzz(FuzzMsg::Done { id, result: Ok(Box::new(report)) }));
}

#[test]
fn the_fuzz_pane_shows_progress_then_findings_at_120x40() {
    let mut app = app(120, 40);
    let id = start(&mut app);
    let _ = update(&mut app, Msg::Fuzz(FuzzMsg::Progress { id, progress: progress() }));
    let running = screen(&app);
    assert!(running.contains("random valid · 1530 calls · 2 findings · 1700 calls/s · Esc stops"), "{running}");
    insta::assert_snapshot!("fuzz_01_running_120x40", running);

    done(&mut app, id);
    key(&mut app, KeyCode::Down);
    let shown = screen(&app);
    assert!(shown.contains("✓ 3 findings · 236 calls in 1.2 s"), "{shown}");
    assert!(shown.contains("␛[31mno rate"), "a server's escape is shown, not obeyed: {shown}");
    assert!(shown.contains("{\"amount\":-1,\"from\":\"USD\",\"to\":\"EUR\"}"), "{shown}");
    insta::assert_snapshot!("fuzz_02_findings_120x40", shown);
}

#[test]
fn the_fuzz_pane_fits_80x24_and_enter_fills_the_form() {
    let mut app = app(80, 24);
    let id = start(&mut app);
    let _ = update(&mut app, Msg::Fuzz(FuzzMsg::Progress { id, progress: progress() }));
    insta::assert_snapshot!("fuzz_03_running_80x24", screen(&app));
    done(&mut app, id);
    let shown = screen(&app);
    assert!(shown.contains("refuses-valid") && shown.contains("slow"), "{shown}");
    insta::assert_snapshot!("fuzz_04_findings_80x24", shown);

    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Form);
    assert!(!app.shows(tooldeck::app::Overlay::Fuzz));
    assert_eq!(app.form().expect("the tool's form").arguments(), &json!({"amount": 1, "from": "JPY", "to": "EUR"}));
    let form = screen(&app);
    assert!(form.contains("the slow finding's arguments in the form: Ctrl-R sends them"), "{form}");
    insta::assert_snapshot!("fuzz_05_finding_in_the_form_80x24", form);
}

#[test]
fn a_run_that_could_not_start_says_why() {
    let mut app = app(80, 24);
    let id = start(&mut app);
    let refused = InvokeError::connect("http://127.0.0.1:9", "connection refused");
    let why = EffectError::FuzzConnection(refused);
    assert_eq!(
        why.to_string(),
        "cannot open a connection for fuzzing: cannot connect to http://127.0.0.1:9: connection refused"
    );
    let _ = update(&mut app, Msg::Fuzz(FuzzMsg::Done { id, result: Err(why) }));
    let shown = screen(&app);
    assert!(shown.contains("✗ not fuzzed") && shown.contains("connection refused"), "{shown}");
    // Esc closes it; the palette finds "fuzz" to start again.
    key(&mut app, KeyCode::Esc);
    assert!(!app.shows(tooldeck::app::Overlay::Fuzz));
    let _ = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL))));
    for c in "fuzz".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    match key(&mut app, KeyCode::Enter).as_slice() {
        [Effect::Server(ServerEffect::Fuzz { tool, .. })] => assert_eq!(tool.id, TOOL),
        other => panic!("the palette's fuzz starts a run: {other:?}"),
    }
    assert!(app.shows(tooldeck::app::Overlay::Fuzz) && app.fuzz.running());
}
