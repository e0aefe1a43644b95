//! Keys that type: text fields being edited, the JSON view, the filter, the popups, and pastes.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::update::{
    focus_path, focused_field, move_cursor, sync_json_from_form, toggle_json, tool_changed, with_focused,
};
use super::{App, Focus, PickerPurpose, Popup};
use crate::form::{TextInput, Widget, build::show};

pub(super) fn json_key(app: &mut App, key: KeyEvent) {
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
pub(super) fn apply_json(app: &mut App) {
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

pub(super) fn edit_key(app: &mut App, key: KeyEvent) {
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
            let mut changed = false;
            if let Some(form) = app.form_mut() {
                form.edit_text(&path, |input, multiline| changed = edit_input(input, key, multiline));
            }
            if !changed {
                // The form is as it was: nothing new for the JSON view.
                return;
            }
        }
    }
    sync_json_from_form(app);
}

/// Applies an editing key to a text: true when the text changed. Moving the cursor is no change,
/// nor is a key that is not an edit, nor a deletion with nothing to delete: the callers re-parse
/// and mark a field set only on a change.
pub fn edit_input(input: &mut TextInput, key: KeyEvent, multiline: bool) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let length = input.text().len();
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
    // Every edit above inserts or deletes, so the length tells whether one happened.
    input.text().len() != length
}

pub(super) fn filter_key(app: &mut App, key: KeyEvent) {
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

pub(super) fn popup_key(app: &mut App, key: KeyEvent) -> Vec<super::Effect> {
    let Some(popup) = app.popup.as_mut() else { return Vec::new() };
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
        Popup::TokenPrompt { provider, input, .. } => match key.code {
            KeyCode::Esc => app.popup = None,
            KeyCode::Enter => {
                let (provider, token) = (provider.clone(), input.text().to_string());
                return super::run::token_given(app, provider, token);
            }
            _ => {
                edit_input(input, key, false);
            }
        },
        Popup::Search { input } => match key.code {
            KeyCode::Esc => app.popup = None,
            KeyCode::Enter => {
                app.result_search = input.text().to_string();
                app.popup = None;
                super::run::find_next(app);
            }
            _ => {
                edit_input(input, key, false);
            }
        },
        Popup::SavePrompt { input } => match key.code {
            KeyCode::Esc => app.popup = None,
            KeyCode::Enter => {
                let path = input.text().to_string();
                return super::artifact::save_to(app, path);
            }
            _ => {
                edit_input(input, key, false);
            }
        },
        Popup::CaseFile { input } => match key.code {
            KeyCode::Esc => super::cases::cancel(app),
            KeyCode::Enter => {
                let path = input.text().to_string();
                return super::cases::file_chosen(app, path);
            }
            _ => {
                edit_input(input, key, false);
            }
        },
        Popup::History { selected } => match key.code {
            KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => *selected = (*selected + 1).min(app.history.len().saturating_sub(1)),
            KeyCode::Enter => {
                let index = *selected;
                app.popup = None;
                super::run::reopen(app, index);
            }
            KeyCode::Char('r') => {
                let index = *selected;
                app.popup = None;
                super::run::reopen(app, index);
                // It was sent before: send it again as it was, valid or not.
                return super::run::start(app, true);
            }
            KeyCode::Char('S') => {
                let index = *selected;
                return super::cases::save_from_history(app, index);
            }
            _ => app.popup = None,
        },
        Popup::Help => app.popup = None,
    }
    Vec::new()
}

pub(super) fn pick(app: &mut App) {
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

pub(super) fn paste(app: &mut App, text: &str) {
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
