//! The app driven through `update` alone, as the runtime drives it.

use super::*;
use crate::app::{RunState, update};
use crate::catalog::{LoadOptions, load_samples};
use crate::invoke::InvokeError;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn app() -> App {
    let loaded = load_samples(&LoadOptions::default());
    App::new(loaded.catalog, &loaded.diagnostics, (120, 40))
}

fn press(app: &mut App, code: KeyCode) {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
}

fn type_text(app: &mut App, text: &str) {
    text.chars().for_each(|c| press(app, KeyCode::Char(c)));
}

#[test]
fn filter_then_fill_a_field() {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "search_pro");
    assert_eq!(app.list.filter().text(), "search_pro");
    assert_eq!(app.selected_tool().map(|t| t.id.as_str()), Some("search_products"), "the best match at once");
    // One Enter opens it; on a text field a printable key is text: it starts the edit.
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Form);
    type_text(&mut app, "lap");
    assert!(app.form_pane.editing(), "the first letter started editing the field under the cursor");
    press(&mut app, KeyCode::Esc);
    assert!(!app.form_pane.editing());
    press(&mut app, KeyCode::Enter);
    type_text(&mut app, "top");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.form().unwrap().arguments(), &serde_json::json!({"query": "laptop"}));
}

/// Run, help and save work while a field is being edited; the text typed stays, and after a
/// command the letters are commands again (the edit ends), help excepted.
#[test]
fn commands_work_while_editing_and_keep_the_edit() {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "search_pro");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    type_text(&mut app, "lap");
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))));
    let (_, request) = invoked(&effects).expect("Ctrl-R runs while editing");
    assert_eq!(request.arguments["query"], "lap");
    assert!(!app.form_pane.editing(), "a command ends the edit, so S next is not typed");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::F(1));
    assert_eq!(app.prompts.popup(), Some(&Popup::help()));
    press(&mut app, KeyCode::Esc);
    assert!(app.form_pane.editing(), "help leaves the person where they were");
    type_text(&mut app, "top");
    assert_eq!(app.form().unwrap().arguments()["query"], "laptop");
    // Ctrl-U deletes to the line start and stays in the box.
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL))));
    assert!(app.form_pane.editing());
    assert_eq!(app.form().unwrap().arguments()["query"], "");
}

/// The filter ranks exact and prefix matches first and moves the selection on every key.
#[test]
fn the_filter_selects_the_best_match_as_it_is_typed() {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "math.add");
    assert_eq!(app.selected_tool().map(|t| t.id.as_str()), Some("Math.Add@1.0.0"));
    // Ctrl-U clears the box (deletes to its start), and the next text picks again.
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL))));
    assert!(app.list.filtering() && app.list.filter().text().is_empty());
    type_text(&mut app, "write");
    assert_eq!(app.selected_tool().map(|t| t.id.as_str()), Some("write_file"), "a prefix beats a fuzzy match");
    // `/` again starts a new filter; it does not append to the last.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.list.filter().text(), "");
}

/// A key that does nothing where it is pressed says what it does elsewhere.
#[test]
fn a_dead_key_says_what_it_does_elsewhere() {
    let mut app = app();
    press(&mut app, KeyCode::Char('W'));
    assert!(status(&app).contains("W does nothing here; in result"), "{}", status(&app));
}

/// ← in an empty optional number field used to mark it set: "a number is needed here" for a
/// field the user never filled in. Keys that change nothing leave it out; typing sets it.
#[test]
fn cursor_keys_in_an_empty_optional_number_change_nothing() {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "search_pro");
    press(&mut app, KeyCode::Enter);
    let limit = app.form().unwrap().row_index()["/limit"];
    app.form_pane.click_row(limit);
    press(&mut app, KeyCode::Enter);
    assert!(app.form_pane.editing());
    let errors = |app: &App| app.form().unwrap().validation.errors.get("/limit").cloned();
    for code in [KeyCode::Left, KeyCode::Right, KeyCode::Home, KeyCode::End, KeyCode::Backspace, KeyCode::Delete] {
        press(&mut app, code);
        assert_eq!(errors(&app), None, "{code:?}");
    }
    assert!(app.form_pane.editing());
    assert_eq!(app.form().unwrap().arguments().get("limit"), None);
    press(&mut app, KeyCode::Char('5'));
    assert_eq!(app.form().unwrap().arguments()["limit"], 5);
    press(&mut app, KeyCode::Backspace);
    assert_eq!(errors(&app), Some(vec!["a number is needed here".to_string()]));
}

fn invoked(effects: &[Effect]) -> Option<(u64, crate::invoke::CallRequest)> {
    effects.iter().find_map(|e| match e {
        Effect::Server(ServerEffect::Invoke { id, request, .. }) => Some((*id, request.clone())),
        _ => None,
    })
}

fn answer(app: &mut App, id: u64, body: &str) -> Vec<Effect> {
    let outcome =
        crate::invoke::envelope::read_otc_response(200, Some("application/json"), body.as_bytes(), false, "x");
    let answer = crate::app::Answer::new(outcome, crate::invoke::Exchange::default(), None);
    update(app, Msg::Call(CallMsg::Done { id, result: Ok(Box::new(answer)) }))
}

#[test]
fn waiting_for_authorization_asks_again_until_granted() {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "Math.Add");
    press(&mut app, KeyCode::Enter);
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))));
    let first = invoked(&effects);
    assert!(first.is_none(), "invalid input is not sent at once");
    let (id, _) =
        invoked(&update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)))))
            .expect("sent anyway");
    let auth = r#"{"invocation_id":"x","finished_at":"2025-01-01T00:00:00Z","success":false,"output":{"requires_authorization":{"message":"sign in","oauth2":{"url":"http://127.0.0.1:1/a"}}}}"#;
    answer(&mut app, id, auth);
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL))));
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::NONE))));
    assert!(
        effects.contains(&Effect::Task(TaskEffect::RetryAfter { id, ms: crate::app::result::RETRY_EVERY_MS })),
        "{effects:?}"
    );
    let (again, _) = invoked(&update(&mut app, Msg::Call(CallMsg::RetryDue { id }))).expect("asked again");
    let effects = answer(&mut app, again, auth);
    assert!(
        effects.iter().any(|e| matches!(e, Effect::Task(TaskEffect::RetryAfter { .. }))),
        "still waiting: {effects:?}"
    );
    let (last, _) = invoked(&update(&mut app, Msg::Call(CallMsg::RetryDue { id: again }))).expect("asked again");
    let effects = answer(&mut app, last, r#"{"result":{"call_id":"x","success":true,"value":3}}"#);
    assert!(!effects.iter().any(|e| matches!(e, Effect::Task(TaskEffect::RetryAfter { .. }))), "granted: {effects:?}");
    assert!(!app.result.waiting_for_authorization());
    // A stale retry after that changes nothing.
    assert!(invoked(&update(&mut app, Msg::Call(CallMsg::RetryDue { id: last }))).is_none());
}

/// Math.Add sent (as it is, invalid) and answered with `value`, the result pane in focus.
fn result_in_focus(value: &str) -> App {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "Math.Add");
    press(&mut app, KeyCode::Enter);
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))));
    let (id, _) =
        invoked(&update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)))))
            .expect("sent anyway");
    answer(&mut app, id, &format!(r#"{{"result":{{"call_id":"x","success":true,"value":{value}}}}}"#));
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL))));
    app
}

#[test]
fn chords_in_the_result_pane_are_not_letters() {
    let mut app = result_in_focus("1");
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL))));
    assert!(effects.is_empty(), "Ctrl-O is not o (open)");
    assert_eq!(app.focus, Focus::Form, "Ctrl-O leaves the result for where the person was");
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL))));
    // The form is invalid: refused once, sent on the second press, as from the form.
    let ctrl_r = || Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)));
    assert!(invoked(&update(&mut app, ctrl_r())).is_none());
    assert!(invoked(&update(&mut app, ctrl_r())).is_some(), "sent anyway");
}

#[test]
fn h_in_the_result_pane_opens_past_calls() {
    let mut app = result_in_focus("1");
    press(&mut app, KeyCode::Char('H'));
    assert!(matches!(app.prompts.popup(), Some(Popup::History { .. })), "{:?}", app.status());
}

#[test]
fn find_in_the_result_moves_to_the_match() {
    let mut app = result_in_focus(r#"{"a":1,"b":2,"needle":3,"c":4}"#);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "NEEDLE");
    press(&mut app, KeyCode::Enter);
    // Line 0 is "{", then a, b, needle.
    assert_eq!(app.result.value_view().cursor(), 3);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "x");
    press(&mut app, KeyCode::Enter);
    assert!(app.status().is_some_and(|s| s.contains("is not in the value")), "{:?}", app.status());
}

#[test]
fn the_value_folds_and_a_search_unfolds_the_way_to_its_hit() {
    let mut app = result_in_focus(r#"{"a":{"deep":{"needle":1}},"b":2}"#);
    press(&mut app, KeyCode::Char('-'));
    let Some(RunState::Done { value_lines, .. }) = app.result.run().map(|r| r.state()) else { panic!("a value") };
    let shown: Vec<usize> = app.result.value_view().window(value_lines).collect();
    assert_eq!(shown.len(), 4, "{{, a folded, b, }}: {shown:?}");
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Right);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "needle");
    press(&mut app, KeyCode::Enter);
    let Some(RunState::Done { value_lines, .. }) = app.result.run().map(|r| r.state()) else { panic!("a value") };
    assert!(value_lines.lines()[app.result.value_view().cursor()].contains("needle"));
    assert_eq!(
        app.result.value_view().window(value_lines).count(),
        value_lines.len(),
        "nothing left folded on the way"
    );
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn status(app: &App) -> &str {
    app.status().unwrap_or_default()
}

/// Every result-pane action by its default key, with the change it makes.
#[test]
fn the_result_pane_actions_answer_their_keys() {
    let mut app = result_in_focus(r#"{"a":{"b":1},"c":2}"#);
    assert!(
        matches!(key(&mut app, KeyCode::Char('y')).as_slice(), [Effect::Desktop(DesktopEffect::Copy(v))] if v.contains("\"c\": 2"))
    );
    assert!(
        matches!(key(&mut app, KeyCode::Char('c')).as_slice(), [Effect::Desktop(DesktopEffect::Copy(c))] if c.starts_with("curl "))
    );
    key(&mut app, KeyCode::Char('o'));
    assert_eq!(status(&app), "this result has no link");
    key(&mut app, KeyCode::Char('f'));
    assert!(status(&app).starts_with("f fetches an artifact"), "{}", status(&app));
    key(&mut app, KeyCode::Char('s'));
    assert!(status(&app).starts_with("f fetches the artifact first"), "{}", status(&app));
    key(&mut app, KeyCode::Char('t'));
    assert!(status(&app).starts_with("t gives a token"), "{}", status(&app));
    key(&mut app, KeyCode::Char('w'));
    assert!(status(&app).starts_with("w waits on an authorization prompt"), "{}", status(&app));
    // Folding: all, none, and one by one with the cursor.
    key(&mut app, KeyCode::Char('-'));
    assert!(app.result.value_view().is_folded(1), "an outline: \"a\" folded");
    key(&mut app, KeyCode::Char('='));
    assert!(!app.result.value_view().is_folded(1));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    assert!(app.result.value_view().is_folded(1), "Enter folds the container under the cursor");
    key(&mut app, KeyCode::Char('l'));
    assert!(!app.result.value_view().is_folded(1));
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.result.value_view().cursor(), 5, "the last line");
    key(&mut app, KeyCode::Char('g'));
    assert_eq!(app.result.value_view().cursor(), 0);
    // Find, then find the next.
    key(&mut app, KeyCode::Char('/'));
    assert!(matches!(app.prompts.popup(), Some(Popup::Search { .. })));
    type_text(&mut app, "\"b\"");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.result.value_view().cursor(), 2);
    key(&mut app, KeyCode::Char('n'));
    assert!(status(&app).contains("on line 3"), "{}", status(&app));
    // The exact exchange, scrolled like any text.
    key(&mut app, KeyCode::Char('x'));
    assert!(app.result.show_exchange() && !app.result.shows_value());
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.result.scroll(), 1);
    key(&mut app, KeyCode::PageDown);
    key(&mut app, KeyCode::PageDown);
    let bottom = app.result.scroll();
    assert!(bottom > 1 && bottom < 40, "scrolling stops near the last line: {bottom}");
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::PageUp);
    assert_eq!(app.result.scroll(), 0);
    key(&mut app, KeyCode::PageDown);
    key(&mut app, KeyCode::Home);
    assert_eq!(app.result.scroll(), 0);
    // The call again, saved as a case, and back to the form.
    let (id, _) = invoked(&key(&mut app, KeyCode::Char('r'))).expect("r sends the same call");
    answer(&mut app, id, r#"{"result":{"call_id":"x","success":true,"value":1}}"#);
    assert!(invoked(&key(&mut app, KeyCode::F(5))).is_none(), "F5 runs the (invalid) form: refused once");
    assert!(status(&app).contains("not sent"), "{}", status(&app));
    key(&mut app, KeyCode::Char('S'));
    assert!(matches!(app.prompts.popup(), Some(Popup::CaseFile { .. })), "the case file is asked for");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Form, "Tab goes back to the form");
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL))));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Form, "and Esc");
}

/// The user's keys replace the defaults in dispatch, in the hints and in the help.
#[test]
fn overridden_keys_drive_the_app() {
    let run = ["f9".to_string()];
    let quit = ["ctrl-q".to_string()];
    let keymap = Keymap::with_overrides([("run", &run[..]), ("quit", &quit[..])]).expect("valid");
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40)).with_keymap(keymap);
    assert!(key(&mut app, KeyCode::Char('q')).is_empty(), "q no longer quits");
    let ctrl_q = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::CONTROL))));
    assert_eq!(ctrl_q, vec![Effect::Quit]);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "Math.Add");
    press(&mut app, KeyCode::Enter);
    let ctrl_r = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))));
    assert!(ctrl_r.is_empty() && app.result.run().is_none(), "Ctrl-R is unbound: {:?}", app.status());
    key(&mut app, KeyCode::F(9));
    assert!(status(&app).contains("Press F9 again to send it anyway"), "{}", status(&app));
    assert!(invoked(&key(&mut app, KeyCode::F(9))).is_some(), "F9 sends it");
}

/// A named server's tools are listed after the first frame: the app says so until the answer.
#[test]
fn the_server_listing_shows_until_it_is_answered() {
    let mut app = App::new(crate::catalog::Catalog::default(), &[], (120, 40));
    let effects = update(&mut app, Msg::Server(ServerMsg::Named { label: "http://x/mcp".into(), lists_tools: true }));
    assert_eq!(effects, vec![Effect::Server(ServerEffect::ListTools)]);
    assert!(app.server().listing());
    update(
        &mut app,
        Msg::Server(ServerMsg::Tools {
            label: "http://x/mcp".into(),
            result: Err(InvokeError::Broken("refused".into()).into()),
        }),
    );
    assert!(!app.server().listing());
    update(&mut app, Msg::Server(ServerMsg::Named { label: "http://x/mcp".into(), lists_tools: true }));
    update(&mut app, Msg::Server(ServerMsg::WantsToken { url: "http://x/mcp".into(), challenge: None }));
    assert!(!app.server().listing(), "it asks for a token instead");
    type_text(&mut app, "t0k");
    let effects = key(&mut app, KeyCode::Enter);
    assert!(effects.iter().any(|e| matches!(e, Effect::Server(ServerEffect::Authorize { .. }))), "{effects:?}");
    assert!(app.server().listing(), "listed again with the token");
    let demo = &mut App::new(crate::catalog::Catalog::default(), &[], (120, 40));
    assert!(update(demo, Msg::Server(ServerMsg::Named { label: "demo server".into(), lists_tools: false })).is_empty());
    assert!(!demo.server().listing());
}

/// Going through many tools keeps only the recently used forms built.
#[test]
fn the_forms_kept_are_bounded() {
    let mut app = app();
    for _ in 0..app.catalog.len() {
        press(&mut app, KeyCode::Down);
    }
    assert!(app.form_pane.built() <= form::FORMS_KEPT, "{}", app.form_pane.built());
    assert!(app.form().is_some(), "the selected tool's form is there");
}

/// With background checks, a newly opened form asks for its schema to be compiled elsewhere and
/// checks only what it can by itself until the compiled checker comes back as a message.
#[test]
fn schemas_are_compiled_off_the_ui_thread_and_arrive_as_messages() {
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40)).with_background_checks();
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE))));
    let tool = app.selected_tool().expect("a tool").clone();
    let compile = effects.iter().find_map(|effect| match effect {
        Effect::Work(WorkEffect::CompileChecker { tool_id, schema }) => Some((tool_id.clone(), schema.clone())),
        _ => None,
    });
    let (tool_id, schema) = compile.expect("the new form's schema is sent off to compile");
    assert_eq!(tool_id, tool.id);
    assert!(app.form().expect("a form").checking());
    let errors_before = app.form().expect("a form").validation.error_count;
    let checker = crate::form::validate::Checker::new(&schema);
    update(&mut app, Msg::Load(LoadMsg::Checker { tool_id, checker }));
    let form = app.form().expect("a form");
    assert!(!form.checking());
    let expected = crate::form::Form::new(&tool).validation.error_count;
    assert_eq!(form.validation.error_count, expected, "the same errors as a form compiled in place");
    assert!(errors_before <= expected);
}

/// The files are read after the first frame: until then the list says so; when they arrive their
/// tools come first, and tools a server listed meanwhile stay.
#[test]
fn the_catalog_arrives_after_the_first_frame() {
    let loaded = load_samples(&LoadOptions::default());
    let mut app = App::new(crate::catalog::Catalog::default(), &[], (120, 40)).loading();
    assert!(app.loading && app.selected_tool().is_none());
    let server_tool = loaded.catalog.tools()[0].clone();
    let mut from_server = server_tool.clone();
    from_server.id = "from.server".into();
    update(&mut app, Msg::Server(ServerMsg::Tools { label: "server".into(), result: Ok(vec![from_server]) }));
    let tools = loaded.catalog.tools().to_vec();
    update(&mut app, Msg::Load(LoadMsg::Catalog { tools: tools.clone(), diagnostics: loaded.diagnostics }));
    assert!(!app.loading);
    assert_eq!(app.catalog.len(), tools.len() + 1);
    assert_eq!(app.catalog.tools()[0].id, tools[0].id, "the files' tools come first");
    assert!(app.catalog.get("from.server").is_some(), "the server's tool stays");
    assert!(app.selected_tool().is_some() && app.form().is_some());
}

/// An app whose catalog is these MCP tools (a `tools/list` result), the first selected.
fn mcp_app(tools: serde_json::Value) -> App {
    let text = serde_json::json!({ "tools": tools }).to_string();
    let (tools, _) = crate::catalog::load_text("server", &text, &crate::catalog::LoadOptions::default());
    let mut catalog = crate::catalog::Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    App::new(catalog, &[], (120, 40))
}

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))))
}

/// Ctrl-R on the selected tool, answered with this MCP `tools/call` result; what the answer asked
/// the runtime to do, and the run's id.
fn mcp_answer(app: &mut App, result: serde_json::Value) -> (u64, Vec<Effect>) {
    let (id, request) = invoked(&ctrl(app, 'r')).expect("sent");
    let outcome = crate::invoke::envelope::read_mcp_result(&result, &request.call_id);
    let answer = crate::app::Answer::new(outcome, crate::invoke::Exchange::default(), None);
    (id, update(app, Msg::Call(CallMsg::Done { id, result: Ok(Box::new(answer)) })))
}

fn every_kind() -> serde_json::Value {
    serde_json::json!({"content": [
        {"type": "text", "text": "two\nlines", "annotations": {"audience": ["user"], "priority": 0.9}},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "resource_link", "uri": "test://notes", "name": "notes.txt", "mimeType": "text/plain"},
        {"type": "resource", "resource": {"uri": "test://blob", "blob": "AAEC", "mimeType": "application/octet-stream"}},
        {"type": "video", "url": "x"},
    ]})
}

#[test]
fn content_items_are_chosen_previewed_read_and_saved() {
    let mut app = mcp_app(serde_json::json!([{"name": "everything", "inputSchema": {"type": "object"}}]));
    let (run, effects) = mcp_answer(&mut app, every_kind());
    // The first item that is not text is selected, and an image is decoded to be drawn at once.
    assert_eq!(app.result.item(), 1);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Work(WorkEffect::DecodeInline { run: r, item: 1, content_type: Some(t), .. })
            if *r == run && t == "image/png")),
        "{effects:?}"
    );
    assert!(app.result.shows_items() && !app.result.shows_value());
    ctrl(&mut app, 'o');
    // `]` moves to the link; `f` reads it with resources/read.
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(app.result.item(), 2);
    assert!(status(&app).starts_with("item 3 of 5: resource_link"), "{}", status(&app));
    let effects = key(&mut app, KeyCode::Char('f'));
    assert_eq!(effects, [Effect::Server(ServerEffect::ReadResource { run, item: 2, uri: "test://notes".into() })]);
    // `s` before it was read: nothing to save yet.
    key(&mut app, KeyCode::Char('s'));
    assert!(status(&app).starts_with("f reads the resource first"), "{}", status(&app));
    // A preview for an item no longer previewed is dropped; a failed read says why.
    update(
        &mut app,
        Msg::Content(ContentMsg::ItemDecoded { run, item: 1, result: Err(EffectError::Stopped("late".into())) }),
    );
    let gone = EffectError::Unreadable { uri: "test://notes".into(), why: "gone".into() };
    update(&mut app, Msg::Content(ContentMsg::ResourceRead { run, item: 2, result: Err(gone) }));
    let view = app.result.artifact().expect("the link's preview");
    assert_eq!((view.item(), view.state()), (Some(2), &ArtifactState::Failed("cannot read test://notes: gone".into())));
    assert!(status(&app).contains("gone"), "{}", status(&app));
    // Read after all: it can be saved.
    key(&mut app, KeyCode::Char('f'));
    let fetched = crate::invoke::artifact::Fetched { bytes: b"notes".to_vec(), ..Default::default() };
    update(&mut app, Msg::Content(ContentMsg::ResourceRead { run, item: 2, result: Ok(Box::new(fetched)) }));
    key(&mut app, KeyCode::Char('s'));
    let Some(Popup::SavePrompt { input }) = &app.prompts.popup() else { panic!("a save prompt: {}", status(&app)) };
    assert_eq!(input.text(), "notes");
    key(&mut app, KeyCode::Esc);
    // The embedded blob saves without a preview: decoded as it is written.
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char('s'));
    let Some(Popup::SavePrompt { input }) = &app.prompts.popup() else { panic!("a save prompt") };
    assert_eq!(input.text(), "blob");
    let effects = key(&mut app, KeyCode::Enter);
    let inline = crate::invoke::mcp::content::Inline::Base64("AAEC".into());
    let saved = crate::invoke::save::SaveSource::Inline(inline);
    assert_eq!(effects, [Effect::Work(WorkEffect::Save { path: "blob".into(), source: saved, overwrite: false })]);
    // The unreadable block: selected, said why, never past the end.
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(app.result.item(), 4);
    assert!(key(&mut app, KeyCode::Char('f')).is_empty());
    assert!(status(&app).contains("\"video\" is not an MCP content type"), "{}", status(&app));
    // Back to the text: its lines are on screen, `s` offers them as a file.
    for _ in 0..9 {
        key(&mut app, KeyCode::Char('['));
    }
    assert_eq!((app.result.item(), app.result.scroll()), (0, 0));
    key(&mut app, KeyCode::Char('s'));
    let Some(Popup::SavePrompt { input }) = &app.prompts.popup() else { panic!("a save prompt") };
    assert_eq!(input.text(), "text-1.txt");
    key(&mut app, KeyCode::Esc);
    let doc = crate::app::result::content::document(&app);
    let words: Vec<&str> = doc.iter().map(|l| l.words()).collect();
    assert!(words.contains(&"1 text · 2 lines · for user · priority 0.9"), "{words:?}");
    assert!(words.contains(&"two") && words.contains(&"lines"), "{words:?}");
    // A new answer starts over.
    let (_, effects) = mcp_answer(&mut app, serde_json::json!({"content": [{"type": "text", "text": "x"}]}));
    assert!(effects.iter().all(|e| !matches!(e, Effect::Work(WorkEffect::DecodeInline { .. }))));
    assert_eq!((app.result.item(), app.result.artifact().is_none()), (0, true));
}

#[test]
fn a_tool_marked_destructive_asks_for_y_once() {
    let tools = serde_json::json!([
        {"name": "wipe", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": true}},
        {"name": "plain", "inputSchema": {"type": "object"}},
    ]);
    let mut app = mcp_app(tools.clone());
    assert!(invoked(&ctrl(&mut app, 'r')).is_none(), "asked first");
    assert!(matches!(&app.prompts.popup(), Some(Popup::ConfirmRun { tool_id, .. }) if tool_id == "wipe"));
    assert!(key(&mut app, KeyCode::Char('n')).is_empty(), "any other key: not run");
    assert_eq!((app.prompts.popup().is_none(), status(&app)), (true, "wipe was not run"));
    ctrl(&mut app, 'r');
    let (_, request) = invoked(&key(&mut app, KeyCode::Char('y'))).expect("y runs it");
    assert_eq!(request.tool_id, "wipe");
    assert!(invoked(&ctrl(&mut app, 'r')).is_some(), "not asked again this session");
    // A tool that does not say it is destructive is not asked about (the spec's default is a "may").
    key(&mut app, KeyCode::Down);
    assert_eq!(app.selected_tool().map(|t| t.id.as_str()), Some("plain"));
    assert!(invoked(&ctrl(&mut app, 'r')).is_some());
    // `[app] confirm_destructive = false`.
    let mut app = mcp_app(tools).with_confirm_destructive(false);
    assert!(invoked(&ctrl(&mut app, 'r')).is_some());
}

#[test]
fn the_protocol_is_said_once_when_a_server_is_listed_again() {
    let mut app = app();
    update(&mut app, Msg::Server(ServerMsg::Protocol("2025-11-25".into())));
    app.tell(format!("{} · the server lists the same tools", app.status().map(str::to_string).unwrap_or_default()));
    update(&mut app, Msg::Server(ServerMsg::Protocol("2025-11-25".into())));
    let status = app.status().map(str::to_string).unwrap_or_default();
    assert_eq!(status.matches("MCP 2025-11-25").count(), 1, "{status}");
    assert!(status.ends_with("lists the same tools"), "{status}");
}

#[test]
fn a_paste_lands_in_the_roots_prompt() {
    let mut app = app();
    app.prompts.open(Popup::Roots { input: crate::form::TextInput::new(String::new()) });
    update(&mut app, Msg::Input(InputMsg::Paste("/tmp/a, /tmp/b".into())));
    let Some(Popup::Roots { input }) = &app.prompts.popup() else { panic!("the roots prompt stays open") };
    assert_eq!(input.text(), "/tmp/a, /tmp/b");
}
