//! `--watch` in the app, driven through `update` with the messages the runtime sends: after a
//! restart a change made, the diff engine's line on the status line and every change in the
//! server pane, typed values carried to the new schema where they still fit, the restart line
//! in the pane, and `--watch-run` running the last call again and saying how its result changed.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use tooldeck::app::server_pane::LineKind;
use tooldeck::app::{Answer, App, AppSetup, CallMsg, Effect, InputMsg, Msg, ServerEffect, ServerMsg, update};
use tooldeck::catalog::{Catalog, SessionId};
use tooldeck::invoke::endpoint::server_tools;
use tooldeck::invoke::envelope::read_otc_response;
use tooldeck::invoke::{CallRequest, Exchange};

fn listed(tools: Value) -> Msg {
    let text = json!({ "tools": tools }).to_string();
    Msg::Server(ServerMsg::Tools { label: "srv".into(), result: Ok(server_tools("srv", &text)) })
}

fn search(properties: Value) -> Value {
    json!([{"name": "search", "inputSchema": {"type": "object", "properties": properties}}])
}

/// An app with one server listing `search(q, limit: string)`, its form selected.
fn app(watch_run: bool) -> App {
    let setup = AppSetup { watch: true, watch_run, ..AppSetup::default() };
    let mut app = App::new(Catalog::default(), &[], (120, 30)).with_setup(setup);
    update(&mut app, Msg::Input(InputMsg::Resize(120, 30)));
    update(&mut app, Msg::Server(ServerMsg::Named { label: "srv".into(), lists_tools: true }));
    update(&mut app, listed(search(json!({"q": {"type": "string"}, "limit": {"type": "string"}}))));
    app
}

fn changed(app: &mut App) -> Vec<Effect> {
    update(app, Msg::FilesChanged { summary: "server.sh".into(), at: "12:01:03".into() })
}

fn status(app: &App) -> String {
    app.status().unwrap_or_default().to_string()
}

fn notes(app: &App) -> Vec<String> {
    app.server_pane().log().iter().filter(|l| l.kind() == LineKind::Note).map(|l| l.text().to_string()).collect()
}

#[test]
fn a_restart_says_what_changed_and_keeps_what_still_fits() {
    let mut app = app(false);
    app.form_mut().expect("the form").set_arguments(&json!({"q": "cats", "limit": "5"}));

    let effects = changed(&mut app);
    assert_eq!(effects, [Effect::Session { id: SessionId::FIRST, effect: ServerEffect::Reconnect }]);
    assert!(notes(&app).contains(&"── restarted 12:01:03 after server.sh changed ──".to_string()), "{:?}", notes(&app));

    // `limit` becomes an integer, `page` is new: two changes, the breaking one first.
    update(&mut app, Msg::Server(ServerMsg::Reconnected(Ok(()))));
    let properties = json!({"q": {"type": "string"}, "limit": {"type": "integer"}, "page": {"type": "integer"}});
    update(&mut app, listed(search(properties)));
    let said = status(&app);
    assert!(said.starts_with("reconnected to srv: search: type of parameter \"limit\""), "{said}");
    assert!(said.contains("breaking (+1 more), i lists them"), "{said}");
    assert!(said.contains("search: `limit` dropped: its type is now integer"), "{said}");
    let notes = notes(&app);
    assert!(notes.iter().any(|n| n == "search: new optional parameter \"page\", not breaking"), "{notes:?}");
    assert!(notes.iter().any(|n| n == "search: `limit` dropped: its type is now integer"), "{notes:?}");
    assert_eq!(app.form().expect("the form").arguments(), &json!({"q": "cats"}), "q kept, limit dropped");

    // A restart that changes nothing says so; the value typed stays.
    changed(&mut app);
    update(
        &mut app,
        listed(search(json!({"q": {"type": "string"}, "limit": {"type": "integer"}, "page": {"type": "integer"}}))),
    );
    assert_eq!(status(&app), "reconnected to srv: the same tools");
    assert_eq!(app.form().expect("the form").arguments(), &json!({"q": "cats"}));
}

/// Ctrl-R: the call the app asks the runtime to make.
fn run(app: &mut App) -> Option<(u64, CallRequest)> {
    ctrl_r(app).into_iter().find_map(|e| match e {
        Effect::Server(ServerEffect::Invoke { id, request, .. })
        | Effect::Session { effect: ServerEffect::Invoke { id, request, .. }, .. } => Some((id, request)),
        _ => None,
    })
}

fn ctrl_r(app: &mut App) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))))
}

fn answer(app: &mut App, id: u64, request: &CallRequest, value: &str) {
    let body = json!({"result": {"call_id": request.call_id, "success": true, "value": value}}).to_string();
    let outcome = read_otc_response(200, Some("application/json"), body.as_bytes(), false, &request.call_id);
    let exchange = Exchange { status: Some(200), response_body: body, ..Exchange::default() };
    update(app, Msg::Call(CallMsg::Done { id, result: Ok(Box::new(Answer::new(outcome, exchange, None))) }));
}

fn rerun(effects: &[Effect]) -> Option<(u64, CallRequest)> {
    effects.iter().find_map(|e| match e {
        Effect::Server(ServerEffect::Invoke { id, request, .. })
        | Effect::Session { effect: ServerEffect::Invoke { id, request, .. }, .. } => Some((*id, request.clone())),
        _ => None,
    })
}

#[test]
fn watch_run_runs_the_last_call_again_and_says_how_its_result_changed() {
    let mut app = app(true);
    app.form_mut().expect("the form").set_arguments(&json!({"q": "cats"}));
    let (id, request) = run(&mut app).expect("the first call");
    answer(&mut app, id, &request, "one");

    changed(&mut app);
    let same = search(json!({"q": {"type": "string"}, "limit": {"type": "string"}}));
    let effects = update(&mut app, listed(same.clone()));
    let (again, request) = rerun(&effects).expect("the last call runs again after the restart");
    assert_eq!(request.arguments, json!({"q": "cats"}));
    answer(&mut app, again, &request, "two");
    assert_eq!(status(&app), "run again after the change: result changed: value /: \"two\" now, \"one\" before");

    changed(&mut app);
    let effects = update(&mut app, listed(same.clone()));
    let (again, request) = rerun(&effects).expect("and again");
    answer(&mut app, again, &request, "two");
    assert_eq!(status(&app), "run again after the change: the same result");

    // Alt-W turns it off: a restart lists the tools and runs nothing.
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('W'), KeyModifiers::ALT))));
    assert!(!app.watching.run_after(), "{}", status(&app));
    changed(&mut app);
    assert_eq!(rerun(&update(&mut app, listed(same))), None);
}

/// A change that breaks the server: the pane says why, and the next change tries again.
#[test]
fn a_server_that_fails_after_a_change_is_tried_again_on_the_next() {
    let mut app = app(false);
    changed(&mut app);
    let refused = tooldeck::app::EffectError::from(tooldeck::invoke::InvokeError::Broken(
        "the server exited with code 3 during initialize; its last stderr lines: syntax error".into(),
    ));
    update(&mut app, Msg::Server(ServerMsg::Reconnected(Err(refused))));
    assert!(status(&app).contains("syntax error"), "{}", status(&app));
    assert!(notes(&app).iter().any(|n| n.contains("syntax error")), "{:?}", notes(&app));
    let effects = changed(&mut app);
    assert_eq!(effects, [Effect::Session { id: SessionId::FIRST, effect: ServerEffect::Reconnect }]);
    update(&mut app, Msg::Server(ServerMsg::Reconnected(Ok(()))));
    update(&mut app, listed(search(json!({"q": {"type": "string"}}))));
    assert!(status(&app).starts_with("reconnected to srv: search: parameter \"limit\" removed"), "{}", status(&app));
}

/// Ctrl-R while the servers restart after a change: nothing goes to the old server; the call is
/// sent once the new one has listed its tools. A restart that fails drops the waiting call.
#[test]
fn a_run_during_a_restart_waits_for_the_new_server() {
    let mut app = app(false);
    app.form_mut().expect("the form").set_arguments(&json!({"q": "cats"}));
    changed(&mut app);
    assert_eq!(run_effects(&mut app), None, "nothing sent while the server restarts");
    assert!(status(&app).contains("sent once it is back"), "{}", status(&app));
    update(&mut app, Msg::Server(ServerMsg::Reconnected(Ok(()))));
    let effects = update(&mut app, listed(search(json!({"q": {"type": "string"}, "limit": {"type": "string"}}))));
    let (_, request) = rerun(&effects).expect("the call, sent to the new server");
    assert_eq!(request.arguments, json!({"q": "cats"}));

    changed(&mut app);
    assert_eq!(run_effects(&mut app), None);
    let refused = tooldeck::app::EffectError::from(tooldeck::invoke::InvokeError::Broken("exited".into()));
    update(&mut app, Msg::Server(ServerMsg::Reconnected(Err(refused))));
    assert!(notes(&app).iter().any(|n| n == "the call waiting for the restart was not sent"), "{:?}", notes(&app));
    let effects = update(&mut app, listed(search(json!({"q": {"type": "string"}}))));
    assert_eq!(rerun(&effects), None, "a failed restart's waiting call is not sent later");
}

fn run_effects(app: &mut App) -> Option<(u64, CallRequest)> {
    run(app)
}

/// Alt-W without `--watch`: nothing restarts the servers, so it says what it needs and turns
/// nothing on.
#[test]
fn the_watch_run_key_without_watch_says_it_needs_watch() {
    let mut app = App::new(Catalog::default(), &[], (120, 30));
    update(&mut app, Msg::Input(InputMsg::Resize(120, 30)));
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('W'), KeyModifiers::ALT))));
    assert!(status(&app).contains("needs --watch PATH"), "{}", status(&app));
    assert!(!app.watching.run_after());
}
