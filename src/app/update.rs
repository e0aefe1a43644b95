//! `update`: the one place the app's state changes.

use crossterm::event::KeyEvent;

use super::keymap::{Action, action_for, is_force_quit};
use super::typing::{edit_key, filter_key, json_key, paste, popup_key};
use super::view::{keep_in_view, mouse_event};
use super::{App, Effect, Focus, JsonView, Msg, PickerPurpose, Popup};
use crate::form::{Field, TextInput, Widget, build::show, value::pretty};

/// Lines a text area shows at most before it scrolls within itself.
pub const TEXTAREA_LINES: usize = 6;

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let effects = match msg {
        Msg::Resize(width, height) => {
            app.size = (width, height);
            Vec::new()
        }
        Msg::Key(key) if is_force_quit(key) => vec![Effect::Quit],
        Msg::Key(key) => key_pressed(app, key),
        Msg::Paste(text) => {
            paste(app, &text);
            Vec::new()
        }
        Msg::Mouse(mouse) => {
            mouse_event(app, mouse);
            Vec::new()
        }
        Msg::Tick { elapsed_ms } => {
            super::run::tick(app, elapsed_ms);
            Vec::new()
        }
        Msg::InvocationDone { id, result } => super::run::done(app, id, result),
        Msg::RetryDue { id } => super::run::retry_due(app, id),
        Msg::Progress { id, progress } => {
            super::run::progress(app, id, progress);
            Vec::new()
        }
        Msg::ArtifactProgress { received, total } => {
            super::artifact::progress(app, received, total);
            Vec::new()
        }
        Msg::ServerNamed { label, lists_tools } => {
            if lists_tools {
                app.status = Some(format!("connecting to {label} and listing its tools…"));
            }
            app.endpoint = label;
            if lists_tools { vec![Effect::ListServerTools] } else { Vec::new() }
        }
        Msg::ServerWantsToken { url, challenge } => {
            app.status = None;
            super::run::server_wants_token(app, &url, challenge.as_deref());
            Vec::new()
        }
        Msg::HistoryRead(mut entries) => {
            // Calls made before the file was read stay the newest.
            entries.append(&mut app.history);
            app.history = entries;
            Vec::new()
        }
        Msg::ServerTools { label, result } => {
            super::run::server_tools(app, &label, result);
            Vec::new()
        }
        Msg::ArtifactFetched(result) => {
            super::artifact::fetched(app, result);
            Vec::new()
        }
        Msg::CaseSaved(result) => {
            super::cases::saved(app, result);
            Vec::new()
        }
        Msg::Saved(result) => {
            app.status = Some(match result {
                Ok(path) => format!("saved to {path}"),
                Err(e) => format!("not saved: {e}"),
            });
            Vec::new()
        }
    };
    keep_in_view(app);
    effects
}

fn key_pressed(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    // Only a second Run straight after the first sends invalid input.
    let run_armed = std::mem::take(&mut app.run_armed);
    if app.popup.is_some() {
        return popup_key(app, key);
    }
    if app.list.filtering {
        filter_key(app, key);
        return Vec::new();
    }
    if app.focus == Focus::Json {
        json_key(app, key);
        return Vec::new();
    }
    if app.focus == Focus::Result {
        return super::run::result_key(app, key, run_armed);
    }
    if app.editing {
        edit_key(app, key);
        return Vec::new();
    }
    let running = app.run.as_ref().is_some_and(|r| r.state == super::RunState::Running);
    match action_for(key) {
        Some(Action::Run) => super::run::start(app, run_armed),
        Some(Action::Back) if running => super::run::cancel(app),
        Some(action) => act(app, action),
        None => Vec::new(),
    }
}

fn act(app: &mut App, action: Action) -> Vec<Effect> {
    app.status = None;
    let in_form = app.focus == Focus::Form;
    match action {
        Action::Quit => return vec![Effect::Quit],
        Action::Up if in_form => move_cursor(app, -1),
        Action::Down if in_form => move_cursor(app, 1),
        Action::PageUp if in_form => move_cursor(app, -10),
        Action::PageDown if in_form => move_cursor(app, 10),
        Action::Top if in_form => move_cursor(app, isize::MIN / 2),
        Action::Bottom if in_form => move_cursor(app, isize::MAX / 2),
        Action::Up => select_tool(app, -1),
        Action::Down => select_tool(app, 1),
        Action::PageUp => select_tool(app, -10),
        Action::PageDown => select_tool(app, 10),
        Action::Top => select_tool(app, isize::MIN / 2),
        Action::Bottom => select_tool(app, isize::MAX / 2),
        Action::Activate if in_form => activate_field(app),
        Action::Back if in_form => app.focus = Focus::List,
        Action::Back => {
            if !app.list.filter.text().is_empty() {
                app.list.filter.clear();
                app.list.refresh(&app.catalog);
            }
        }
        Action::NextField if in_form => move_cursor(app, 1),
        Action::PreviousField if in_form => move_cursor(app, -1),
        Action::PreviousField => {}
        Action::Filter => {
            app.focus = Focus::List;
            app.list.filtering = true;
        }
        Action::ToggleJson => toggle_json(app),
        Action::Unset if in_form => with_focused(app, |form, path| form.unset(path)),
        Action::AddItem if in_form => add_item(app),
        Action::DeleteItem if in_form => delete_item(app),
        Action::MoveItemUp if in_form => move_item(app, -1),
        Action::MoveItemDown if in_form => move_item(app, 1),
        Action::Collapse if in_form => set_collapsed(app, true),
        Action::Expand if in_form => set_collapsed(app, false),
        Action::Collapse => {}
        Action::Activate | Action::Expand | Action::NextField => open_form(app),
        Action::Help => app.popup = Some(Popup::Help),
        Action::ToggleRunOption(n) => {
            let path = app.form().and_then(|f| f.run_options().get(n).map(|(path, _)| path.clone()));
            match (path, app.form_mut()) {
                (Some(path), Some(form)) => form.toggle_bool(&path),
                _ => app.status = Some(format!("this tool has no run option {}", n + 1)),
            }
        }
        Action::Run => return super::run::start(app, false),
        Action::Retry => return super::run::retry(app),
        Action::GiveToken => super::run::ask_token(app),
        Action::FocusResult if app.run.is_some() => app.focus = Focus::Result,
        Action::History if app.history.is_empty() => app.status = Some("no calls yet".into()),
        Action::History => app.popup = Some(Popup::History { selected: 0 }),
        Action::SaveCase => return super::cases::save_current(app),
        Action::FocusResult => app.status = Some("no result yet: Ctrl-R runs the tool".into()),
        Action::Unset | Action::AddItem | Action::DeleteItem | Action::MoveItemUp | Action::MoveItemDown => {
            app.status = Some("select a tool and press Enter to fill in its form".into());
        }
    }
    sync_json_from_form(app);
    Vec::new()
}

pub(super) fn select_tool(app: &mut App, delta: isize) {
    app.list.move_by(delta);
    tool_changed(app);
}

/// A new tool is selected: its form is built (so it shows at once) and the cursor starts over.
pub(super) fn tool_changed(app: &mut App) {
    app.form_mut();
    app.cursor = 0;
    app.form_scroll = 0;
    app.editing = false;
    sync_json_from_form(app);
}

fn open_form(app: &mut App) {
    let Some(form) = app.form_mut() else { return };
    if form.rows().is_empty() {
        app.status = Some("this tool takes no parameters: Ctrl-R runs it".into());
    }
    app.focus = Focus::Form;
}

pub(super) fn move_cursor(app: &mut App, delta: isize) {
    let count = app.form().map_or(0, |f| f.rows().len());
    if count == 0 {
        return;
    }
    app.cursor = app.cursor.saturating_add_signed(delta).min(count - 1);
}

/// Runs `edit` on the selected form at the focused row's path.
pub(super) fn with_focused(app: &mut App, edit: impl FnOnce(&mut crate::form::Form, &[usize])) {
    let Some(path) = app.focused_path() else { return };
    if let Some(form) = app.form_mut() {
        edit(form, &path);
    }
}

pub(super) fn focused_field(app: &App) -> Option<(Vec<usize>, Field)> {
    let path = app.focused_path()?;
    let field = app.form()?.field(&path)?.clone();
    Some((path, field))
}

fn activate_field(app: &mut App) {
    let Some((path, field)) = focused_field(app) else { return };
    match &field.widget {
        Widget::Text { .. } | Widget::Number { .. } | Widget::Suggest { .. } | Widget::Raw { .. } => app.editing = true,
        Widget::Bool(_) => with_focused(app, |form, path| form.toggle_bool(path)),
        Widget::Choice { choices, selected } => {
            app.popup = Some(Popup::Picker {
                path,
                title: format!("{}: pick a value", field.label()),
                options: choices.iter().map(|c| c.label.clone()).collect(),
                selected: selected.unwrap_or(0),
                purpose: PickerPurpose::Enum,
            });
        }
        Widget::Variant { variants, selected, .. } => {
            app.popup = Some(Popup::Picker {
                path,
                title: format!("{}: pick a variant", field.label()),
                options: variants.iter().map(|c| c.label.clone()).collect(),
                selected: *selected,
                purpose: PickerPurpose::Variant,
            });
        }
        Widget::Const(value) => app.status = Some(format!("{} is fixed to {}", field.label(), show(value))),
        Widget::Object { .. } | Widget::Array { .. } => with_focused(app, |form, path| form.toggle_collapsed(path)),
    }
}

fn set_collapsed(app: &mut App, collapsed: bool) {
    let Some((path, field)) = focused_field(app) else { return };
    if field.is_group() && field.collapsed != collapsed {
        with_focused(app, |form, path| form.toggle_collapsed(path));
    } else if collapsed && !field.is_group() && !path.is_empty() {
        // ← on a field inside a group goes to the group.
        if let Some(index) = app.form().and_then(|f| f.rows().iter().position(|r| r.path == path[..path.len() - 1])) {
            app.cursor = index;
        }
    }
}

fn add_item(app: &mut App) {
    let Some((path, field)) = focused_field(app) else { return };
    let Some(form) = app.form() else { return };
    // On an item, add to the array it is in.
    let target = match &field.widget {
        Widget::Array { .. } | Widget::Object { additional: Some(_), .. } => path,
        _ if form.is_item(&path) => path[..path.len() - 1].to_vec(),
        _ => {
            app.status = Some("a / d add and delete items of an array or entries of a map".into());
            return;
        }
    };
    let target_is_map = matches!(form.field(&target).map(|f| &f.widget), Some(Widget::Object { .. }));
    if target_is_map {
        app.popup = Some(Popup::KeyPrompt { path: target, input: TextInput::default() });
        return;
    }
    let new_path = app.form_mut().and_then(|form| form.add_item(&target, None));
    focus_path(app, new_path);
}

fn delete_item(app: &mut App) {
    let Some(path) = app.focused_path() else { return };
    let Some(form) = app.form_mut() else { return };
    if !form.is_item(&path) {
        app.status = Some("only array items and map entries can be deleted; Ctrl-U unsets a field".into());
        return;
    }
    form.remove_item(&path);
    move_cursor(app, 0);
}

fn move_item(app: &mut App, delta: isize) {
    let Some(path) = app.focused_path() else { return };
    let new_path = app.form_mut().and_then(|form| form.move_item(&path, delta));
    focus_path(app, new_path);
}

pub(super) fn focus_path(app: &mut App, path: Option<Vec<usize>>) {
    let Some(path) = path else { return };
    if let Some(index) = app.form().and_then(|f| f.rows().iter().position(|r| r.path == path)) {
        app.cursor = index;
    }
}

pub(super) fn toggle_json(app: &mut App) {
    if app.json.is_some() && app.focus == Focus::Json {
        app.json = None;
        app.focus = Focus::Form;
        return;
    }
    let Some(form) = app.form_mut() else { return };
    let text = pretty(form.arguments());
    app.json = Some(JsonView { input: TextInput::new(text), error: None });
    app.focus = Focus::Json;
    app.editing = false;
}

/// The JSON view follows the form, except while it is being edited (its text is the truth then).
pub(super) fn sync_json_from_form(app: &mut App) {
    if app.focus == Focus::Json {
        return;
    }
    let text = app.form().map(|f| pretty(f.arguments()));
    if let (Some(json), Some(text)) = (app.json.as_mut(), text)
        && json.input.text() != text
    {
        json.input.set(text);
        json.error = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::RunState;
    use crate::catalog::{LoadOptions, load_samples};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn app() -> App {
        let loaded = load_samples(&LoadOptions::default());
        App::new(loaded.catalog, &loaded.diagnostics, (120, 40))
    }

    fn press(app: &mut App, code: KeyCode) {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    fn type_text(app: &mut App, text: &str) {
        text.chars().for_each(|c| press(app, KeyCode::Char(c)));
    }

    #[test]
    fn filter_then_fill_a_field() {
        let mut app = app();
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "search_pro");
        assert_eq!(app.list.filter.text(), "search_pro");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.selected_tool().map(|t| t.id.as_str()), Some("search_products"));
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.focus, Focus::Form);
        press(&mut app, KeyCode::Enter);
        type_text(&mut app, "laptop");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.form().unwrap().arguments(), &serde_json::json!({"query": "laptop"}));
    }

    /// ← in an empty optional number field used to mark it set: "a number is needed here" for a
    /// field the user never filled in. Keys that change nothing leave it out; typing sets it.
    #[test]
    fn cursor_keys_in_an_empty_optional_number_change_nothing() {
        let mut app = app();
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "search_pro");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        app.cursor = app.form().unwrap().row_index()["/limit"];
        press(&mut app, KeyCode::Enter);
        assert!(app.editing);
        let errors = |app: &App| app.form().unwrap().validation.errors.get("/limit").cloned();
        for code in [KeyCode::Left, KeyCode::Right, KeyCode::Home, KeyCode::End, KeyCode::Backspace, KeyCode::Delete] {
            press(&mut app, code);
            assert_eq!(errors(&app), None, "{code:?}");
        }
        assert!(app.editing);
        assert_eq!(app.form().unwrap().arguments().get("limit"), None);
        press(&mut app, KeyCode::Char('5'));
        assert_eq!(app.form().unwrap().arguments()["limit"], 5);
        press(&mut app, KeyCode::Backspace);
        assert_eq!(errors(&app), Some(vec!["a number is needed here".to_string()]));
    }

    fn invoked(effects: &[Effect]) -> Option<(u64, crate::invoke::otc::CallRequest)> {
        effects.iter().find_map(|e| match e {
            Effect::Invoke { id, request, .. } => Some((*id, request.clone())),
            _ => None,
        })
    }

    fn answer(app: &mut App, id: u64, body: &str) -> Vec<Effect> {
        let outcome =
            crate::invoke::envelope::read_otc_response(200, Some("application/json"), body.as_bytes(), false, "x");
        let answer = super::super::Answer::new(outcome, crate::invoke::Exchange::default(), None);
        update(app, Msg::InvocationDone { id, result: Ok(Box::new(answer)) })
    }

    #[test]
    fn waiting_for_authorization_asks_again_until_granted() {
        let mut app = app();
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "Math.Add");
        press(&mut app, KeyCode::Enter);
        let effects = update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)));
        let first = invoked(&effects);
        assert!(first.is_none(), "invalid input is not sent at once");
        let (id, _) = invoked(&update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))))
            .expect("sent anyway");
        let auth = r#"{"invocation_id":"x","finished_at":"2025-01-01T00:00:00Z","success":false,"output":{"requires_authorization":{"message":"sign in","oauth2":{"url":"http://127.0.0.1:1/a"}}}}"#;
        answer(&mut app, id, auth);
        update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)));
        let effects = update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::NONE)));
        assert!(effects.contains(&Effect::RetryAfter { id, ms: super::super::run::RETRY_EVERY_MS }), "{effects:?}");
        let (again, _) = invoked(&update(&mut app, Msg::RetryDue { id })).expect("asked again");
        let effects = answer(&mut app, again, auth);
        assert!(effects.iter().any(|e| matches!(e, Effect::RetryAfter { .. })), "still waiting: {effects:?}");
        let (last, _) = invoked(&update(&mut app, Msg::RetryDue { id: again })).expect("asked again");
        let effects = answer(&mut app, last, r#"{"result":{"call_id":"x","success":true,"value":3}}"#);
        assert!(!effects.iter().any(|e| matches!(e, Effect::RetryAfter { .. })), "granted: {effects:?}");
        assert!(!app.waiting_for_authorization);
        // A stale retry after that changes nothing.
        assert!(invoked(&update(&mut app, Msg::RetryDue { id: last })).is_none());
    }

    /// Math.Add sent (as it is, invalid) and answered with `value`, the result pane in focus.
    fn result_in_focus(value: &str) -> App {
        let mut app = app();
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "Math.Add");
        press(&mut app, KeyCode::Enter);
        update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)));
        let (id, _) = invoked(&update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))))
            .expect("sent anyway");
        answer(&mut app, id, &format!(r#"{{"result":{{"call_id":"x","success":true,"value":{value}}}}}"#));
        update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)));
        app
    }

    #[test]
    fn chords_in_the_result_pane_are_not_letters() {
        let mut app = result_in_focus("1");
        let effects = update(&mut app, Msg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)));
        assert!(effects.is_empty() && app.status.is_none(), "Ctrl-O is not o (open): {:?}", app.status);
        // The form is invalid: refused once, sent on the second press, as from the form.
        let ctrl_r = || Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL));
        assert!(invoked(&update(&mut app, ctrl_r())).is_none());
        assert!(invoked(&update(&mut app, ctrl_r())).is_some(), "sent anyway");
    }

    #[test]
    fn find_in_the_result_moves_to_the_match() {
        let mut app = result_in_focus(r#"{"a":1,"b":2,"needle":3,"c":4}"#);
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "NEEDLE");
        press(&mut app, KeyCode::Enter);
        // Line 0 is "{", then a, b, needle.
        assert_eq!(app.value_view.cursor, 3);
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "x");
        press(&mut app, KeyCode::Enter);
        assert!(app.status.as_deref().is_some_and(|s| s.contains("is not in the value")), "{:?}", app.status);
    }

    #[test]
    fn the_value_folds_and_a_search_unfolds_the_way_to_its_hit() {
        let mut app = result_in_focus(r#"{"a":{"deep":{"needle":1}},"b":2}"#);
        press(&mut app, KeyCode::Char('-'));
        let Some(RunState::Done { value_lines, .. }) = app.run.as_ref().map(|r| &r.state) else { panic!("a value") };
        let shown: Vec<usize> = app.value_view.window(value_lines).collect();
        assert_eq!(shown.len(), 4, "{{, a folded, b, }}: {shown:?}");
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Right);
        press(&mut app, KeyCode::Char('/'));
        type_text(&mut app, "needle");
        press(&mut app, KeyCode::Enter);
        let Some(RunState::Done { value_lines, .. }) = app.run.as_ref().map(|r| &r.state) else { panic!("a value") };
        assert!(value_lines.lines[app.value_view.cursor].contains("needle"));
        assert_eq!(app.value_view.window(value_lines).count(), value_lines.len(), "nothing left folded on the way");
    }
}
