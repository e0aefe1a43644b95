//! `update`: the one place the app's state changes.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::keymap::{Action, action_for, is_force_quit};
use super::layout::{contains, inner};
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
    };
    keep_in_view(app);
    effects
}

fn key_pressed(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    // Only a second Run straight after the first sends invalid input.
    let run_armed = std::mem::take(&mut app.run_armed);
    if app.popup.is_some() {
        popup_key(app, key);
        return Vec::new();
    }
    if app.list.filtering {
        filter_key(app, key);
        return Vec::new();
    }
    if app.focus == Focus::Json {
        json_key(app, key);
        return Vec::new();
    }
    if app.editing {
        edit_key(app, key);
        return Vec::new();
    }
    match action_for(key) {
        Some(Action::Run) => run(app, run_armed),
        Some(action) => return act(app, action),
        None => {}
    }
    Vec::new()
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
        Action::Run => run(app, false),
        Action::Unset | Action::AddItem | Action::DeleteItem | Action::MoveItemUp | Action::MoveItemDown => {
            app.status = Some("select a tool and press Enter to fill in its form".into());
        }
    }
    sync_json_from_form(app);
    Vec::new()
}

fn select_tool(app: &mut App, delta: isize) {
    app.list.move_by(delta);
    tool_changed(app);
}

/// A new tool is selected: its form is built (so it shows at once) and the cursor starts over.
pub fn tool_changed(app: &mut App) {
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

fn move_cursor(app: &mut App, delta: isize) {
    let count = app.form().map_or(0, |f| f.rows().len());
    if count == 0 {
        return;
    }
    app.cursor = app.cursor.saturating_add_signed(delta).min(count - 1);
}

/// Runs `edit` on the selected form at the focused row's path.
fn with_focused(app: &mut App, edit: impl FnOnce(&mut crate::form::Form, &[usize])) {
    let Some(path) = app.focused_path() else { return };
    if let Some(form) = app.form_mut() {
        edit(form, &path);
    }
}

fn focused_field(app: &App) -> Option<(Vec<usize>, Field)> {
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

fn focus_path(app: &mut App, path: Option<Vec<usize>>) {
    let Some(path) = path else { return };
    if let Some(index) = app.form().and_then(|f| f.rows().iter().position(|r| r.path == path)) {
        app.cursor = index;
    }
}

fn run(app: &mut App, armed: bool) {
    let Some(tool) = app.selected_tool() else { return };
    let title = tool.display_title().to_string();
    let Some(form) = app.form_mut() else { return };
    let body = pretty(form.arguments());
    let errors = form.validation.error_count;
    if errors > 0 && !armed {
        app.run_armed = true;
        let plural = if errors == 1 { "error" } else { "errors" };
        app.status = Some(format!("{errors} {plural}: not sent. Press Ctrl-R again to send it anyway"));
        return;
    }
    app.popup = Some(Popup::Request { title, body, valid: errors == 0 });
}

fn toggle_json(app: &mut App) {
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
fn sync_json_from_form(app: &mut App) {
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

fn json_key(app: &mut App, key: KeyEvent) {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Esc => {
            app.focus = Focus::Form;
            sync_json_from_form(app);
            return;
        }
        KeyCode::Char('j') if ctrl => {
            toggle_json(app);
            return;
        }
        KeyCode::Tab => {
            app.focus = Focus::Form;
            sync_json_from_form(app);
            return;
        }
        _ => {}
    }
    let Some(json) = app.json.as_mut() else { return };
    if !edit_input(&mut json.input, key, true) {
        return;
    }
    apply_json(app);
}

/// Parses the JSON view; a valid object replaces the form's content, anything else is an error
/// shown in the view and the form stays as it was.
fn apply_json(app: &mut App) {
    let Some(json) = app.json.as_ref() else { return };
    let parsed: Result<serde_json::Value, String> = serde_json::from_str(json.input.text()).map_err(|e| e.to_string());
    let error = match parsed {
        Ok(value @ serde_json::Value::Object(_)) => {
            if let Some(form) = app.form_mut() {
                form.set_arguments(&value);
            }
            None
        }
        Ok(_) => Some("the arguments must be a JSON object".to_string()),
        Err(e) => Some(e),
    };
    if let Some(json) = app.json.as_mut() {
        json.error = error;
    }
}

fn edit_key(app: &mut App, key: KeyEvent) {
    let Some((path, field)) = focused_field(app) else {
        app.editing = false;
        return;
    };
    let multiline = matches!(field.widget, Widget::Text { multiline: true, .. } | Widget::Raw { .. });
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Esc => app.editing = false,
        KeyCode::Enter if !multiline => app.editing = false,
        KeyCode::Tab => {
            app.editing = false;
            move_cursor(app, 1);
        }
        KeyCode::BackTab => {
            app.editing = false;
            move_cursor(app, -1);
        }
        KeyCode::Char('u') if ctrl => {
            app.editing = false;
            with_focused(app, |form, path| form.unset(path));
        }
        KeyCode::Down if matches!(field.widget, Widget::Suggest { .. }) => {
            if let Widget::Suggest { suggestions, .. } = &field.widget {
                app.popup = Some(Popup::Picker {
                    path,
                    title: format!("{}: suggestions (other values allowed)", field.label()),
                    options: suggestions.iter().map(show).collect(),
                    selected: 0,
                    purpose: PickerPurpose::Suggestion,
                });
            }
        }
        KeyCode::Up | KeyCode::Down if !multiline => {
            app.editing = false;
            move_cursor(app, if key.code == KeyCode::Up { -1 } else { 1 });
        }
        _ => {
            if let Some(form) = app.form_mut() {
                form.edit_text(&path, |input, multiline| {
                    edit_input(input, key, multiline);
                });
            }
        }
    }
    sync_json_from_form(app);
}

/// Applies an editing key to a text; false when the key is not an edit.
pub fn edit_input(input: &mut TextInput, key: KeyEvent, multiline: bool) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Char('w') if ctrl => input.delete_word_left(),
        KeyCode::Char('a') if ctrl => input.home(),
        KeyCode::Char('e') if ctrl => input.end(),
        KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => input.insert_char(c),
        KeyCode::Backspace if ctrl => input.delete_word_left(),
        KeyCode::Backspace => input.backspace(),
        KeyCode::Delete => input.delete(),
        KeyCode::Left if ctrl => input.word_left(),
        KeyCode::Right if ctrl => input.word_right(),
        KeyCode::Left => input.left(),
        KeyCode::Right => input.right(),
        KeyCode::Home => input.home(),
        KeyCode::End => input.end(),
        KeyCode::Up if multiline => {
            input.up();
        }
        KeyCode::Down if multiline => {
            input.down();
        }
        KeyCode::Enter if multiline => input.insert_char('\n'),
        KeyCode::Tab if multiline => input.insert_str("  ", true),
        _ => return false,
    }
    // Movement is not an edit of the value, but the caller only re-parses; harmless.
    true
}

fn filter_key(app: &mut App, key: KeyEvent) {
    match key.code {
        KeyCode::Esc => {
            app.list.filtering = false;
            app.list.filter.clear();
        }
        KeyCode::Enter => app.list.filtering = false,
        KeyCode::Up => app.list.move_by(-1),
        KeyCode::Down => app.list.move_by(1),
        _ => {
            edit_input(&mut app.list.filter, key, false);
        }
    }
    app.list.refresh(&app.catalog);
    tool_changed(app);
}

fn popup_key(app: &mut App, key: KeyEvent) {
    let Some(popup) = app.popup.as_mut() else { return };
    match popup {
        Popup::Picker { options, selected, .. } => match key.code {
            KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => *selected = (*selected + 1).min(options.len().saturating_sub(1)),
            KeyCode::Esc => app.popup = None,
            KeyCode::Enter | KeyCode::Char(' ') => pick(app),
            _ => {}
        },
        Popup::KeyPrompt { input, path } => match key.code {
            KeyCode::Esc => app.popup = None,
            KeyCode::Enter => {
                let (key, path) = (input.text().to_string(), path.clone());
                let added = app.form_mut().and_then(|form| form.add_item(&path, Some(&key)));
                if added.is_some() {
                    app.popup = None;
                    focus_path(app, added);
                    sync_json_from_form(app);
                } else {
                    app.status = Some(format!("\"{key}\" is empty or already there: pick another key"));
                }
            }
            _ => {
                edit_input(input, key, false);
            }
        },
        Popup::Help | Popup::Request { .. } => app.popup = None,
    }
}

fn pick(app: &mut App) {
    let Some(Popup::Picker { path, selected, purpose, options, .. }) = app.popup.take() else { return };
    let Some(form) = app.form_mut() else { return };
    match purpose {
        PickerPurpose::Enum => form.choose(&path, selected),
        PickerPurpose::Variant => form.pick_variant(&path, selected),
        PickerPurpose::Suggestion => {
            let value = options.get(selected).cloned().unwrap_or_default();
            form.edit_text(&path, |input, _| input.set(value));
            app.editing = false;
        }
    }
    sync_json_from_form(app);
}

fn paste(app: &mut App, text: &str) {
    if let Some(Popup::KeyPrompt { input, .. }) = app.popup.as_mut() {
        input.insert_str(text, false);
    } else if app.list.filtering {
        app.list.filter.insert_str(text, false);
        app.list.refresh(&app.catalog);
    } else if app.focus == Focus::Json {
        if let Some(json) = app.json.as_mut() {
            json.input.insert_str(text, true);
        }
        apply_json(app);
    } else if app.focus == Focus::Form {
        let Some((path, field)) = focused_field(app) else { return };
        if field.input().is_some() {
            app.editing = true;
            if let Some(form) = app.form_mut() {
                form.edit_text(&path, |input, multiline| input.insert_str(text, multiline));
            }
            sync_json_from_form(app);
        }
    }
}

fn mouse_event(app: &mut App, mouse: MouseEvent) {
    let layout = app.layout();
    if layout.too_small || app.popup.is_some() {
        return;
    }
    let (column, row) = (mouse.column, mouse.row);
    let over_list = contains(layout.list, column, row);
    let over_form = contains(layout.form, column, row);
    match mouse.kind {
        MouseEventKind::ScrollUp if over_list => select_tool(app, -1),
        MouseEventKind::ScrollDown if over_list => select_tool(app, 1),
        MouseEventKind::ScrollUp if over_form => move_cursor(app, -1),
        MouseEventKind::ScrollDown if over_form => move_cursor(app, 1),
        MouseEventKind::Down(MouseButton::Left) if over_list => {
            let area = inner(layout.list);
            if row >= area.y {
                let index = app.list.offset + usize::from(row - area.y);
                if app.list.select_entry(index) {
                    app.focus = Focus::List;
                    tool_changed(app);
                }
            }
        }
        MouseEventKind::Down(MouseButton::Left) if over_form => {
            let area = inner(layout.form);
            if row < area.y {
                return;
            }
            let line = app.form_scroll + usize::from(row - area.y);
            if let Some(index) = row_at_line(app, line) {
                app.focus = Focus::Form;
                app.editing = false;
                app.cursor = index;
            }
        }
        MouseEventKind::Down(MouseButton::Left) if layout.json.is_some_and(|j| contains(j, column, row)) => {
            app.focus = Focus::Json;
            app.editing = false;
        }
        _ => {}
    }
    sync_json_from_form(app);
}

/// How many lines each form row takes: the row, its text area, its errors.
pub fn row_heights(app: &App) -> Vec<usize> {
    let Some(form) = app.form() else { return Vec::new() };
    form.rows()
        .iter()
        .map(|row| {
            let text_lines = match form.field(&row.path).map(|f| &f.widget) {
                Some(Widget::Text { multiline: true, input }) => input.line_count().min(TEXTAREA_LINES),
                Some(Widget::Raw { input }) if input.line_count() > 1 => input.line_count().min(TEXTAREA_LINES),
                _ => 0,
            };
            1 + text_lines + form.errors_at(&row.pointer).len()
        })
        .collect()
}

fn row_at_line(app: &App, line: usize) -> Option<usize> {
    let mut start = 0;
    for (index, height) in row_heights(app).into_iter().enumerate() {
        if line < start + height {
            return Some(index);
        }
        start += height;
    }
    None
}

/// Scrolls the list and the form so the selection and the cursor show.
fn keep_in_view(app: &mut App) {
    let layout = app.layout();
    if layout.too_small {
        return;
    }
    app.list.ensure_visible(usize::from(inner(layout.list).height));
    let heights = row_heights(app);
    if heights.is_empty() {
        app.cursor = 0;
        app.form_scroll = 0;
        return;
    }
    app.cursor = app.cursor.min(heights.len() - 1);
    let start: usize = heights[..app.cursor].iter().sum();
    let end = start + heights[app.cursor];
    let height = usize::from(inner(layout.form).height).max(1);
    if start < app.form_scroll {
        app.form_scroll = start;
    } else if end > app.form_scroll + height {
        app.form_scroll = end.saturating_sub(height).min(start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
