//! Keys that type: text fields being edited, the JSON view, the filter, and pastes. These are
//! the text box's own keys, not the keymap's, and every text box (fields, the filter, prompts,
//! a server's questions) takes the same ones through [`edit_input`]. Chords bound in the
//! keymap's every-pane context are looked up before a box sees a key, so none types.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Focus, PickerPurpose, Popup};
use crate::form::{TextInput, Widget, build::show};

impl App {
    pub(super) fn json_key(&mut self, key: KeyEvent) {
        if key.code == KeyCode::Esc || self.leaves_box(key).is_some() {
            self.focus = Focus::Form;
            self.sync_json();
            return;
        }
        if !self.form_pane.type_json(key) {
            return;
        }
        self.form_op(|pane, id| pane.apply_json(id));
    }

    pub(super) fn edit_key(&mut self, key: KeyEvent) {
        let Some((path, field)) = self.form_op(|pane, id| pane.focused_field(id)) else {
            self.form_pane.stop_editing();
            return;
        };
        let multiline = matches!(field.widget, Widget::Text { multiline: true, .. } | Widget::Raw { .. });
        let leaves = self.leaves_box(key);
        match key.code {
            _ if leaves == Some(0) => self.form_pane.stop_editing(),
            _ if let Some(delta) = leaves => {
                self.form_pane.stop_editing();
                self.form_op(|pane, id| pane.move_cursor(id, delta));
            }
            KeyCode::Esc => self.form_pane.stop_editing(),
            KeyCode::Enter if !multiline => self.form_pane.stop_editing(),
            KeyCode::Down if matches!(field.widget, Widget::Suggest { .. }) => {
                if let Widget::Suggest { suggestions, .. } = &field.widget {
                    self.prompts.open(Popup::Picker {
                        path,
                        title: format!("{}: suggestions (other values allowed)", field.label()),
                        options: suggestions.iter().map(show).collect(),
                        selected: 0,
                        purpose: PickerPurpose::Suggestion,
                    });
                }
            }
            KeyCode::Up | KeyCode::Down if !multiline => {
                self.form_pane.stop_editing();
                let delta = if key.code == KeyCode::Up { -1 } else { 1 };
                self.form_op(|pane, id| pane.move_cursor(id, delta));
            }
            _ => {
                let mut changed = false;
                if let Some(form) = self.form_mut() {
                    form.edit_text(&path, |input, multiline| changed = edit_input(input, key, multiline));
                }
                if !changed {
                    // The form is as it was: nothing new for the JSON view.
                    return;
                }
            }
        }
        self.sync_json();
    }

    /// The table's keys that leave a text box (Back, and Next or Previous field: by default Esc,
    /// Tab and Shift-Tab) when `key` is one and cannot type: `Some(0)` to stop, `Some(±1)` to
    /// stop and move on. A printable key always types into the box the person chose.
    fn leaves_box(&self, key: KeyEvent) -> Option<isize> {
        if is_editing_key(key) {
            return None;
        }
        match self.keymap.action_for(super::Context::Main, key)? {
            super::Action::Back => Some(0),
            super::Action::NextField => Some(1),
            super::Action::PreviousField => Some(-1),
            _ => None,
        }
    }

    /// A key in the filter box: every keystroke selects the best match; Enter opens it.
    pub(super) fn filter_key(&mut self, key: KeyEvent) {
        let chosen = self.list.filter_key(key, &self.catalog);
        self.tool_changed();
        if chosen {
            self.open_selected_form();
        }
    }

    pub(super) fn paste(&mut self, text: &str) {
        // Every text box takes a paste, as it takes the same editing keys.
        if self.prompts.paste(text) {
            // An open popup took it, or has nowhere to put it.
        } else if self.list.paste_filter(text, &self.catalog) {
            self.tool_changed();
        } else if self.focus == Focus::Json {
            self.form_pane.paste_json(text);
            self.form_op(|pane, id| pane.apply_json(id));
        } else if self.focus == Focus::Form {
            let Some((path, field)) = self.form_op(|pane, id| pane.focused_field(id)) else { return };
            if field.input().is_some() {
                // A paste is text the person means for the focused field: it chooses the field.
                self.form_pane.start_editing();
                if let Some(form) = self.form_mut() {
                    form.edit_text(&path, |input, multiline| input.insert_str(text, multiline));
                }
                self.sync_json();
            }
        }
    }
}

/// True when `key` is one of a text box's own keys (what [`edit_input`] acts on, besides Enter
/// and Tab in a multi-line box): a box that has the keys takes these, and leaves the others to
/// the keymap.
pub fn is_editing_key(key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Char('w' | 'u' | 'k' | 'a' | 'e') if ctrl => !alt,
        KeyCode::Char(_) => !ctrl && !alt,
        KeyCode::Backspace | KeyCode::Delete | KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End => true,
        _ => false,
    }
}

/// Applies an editing key to a text: true when the text changed. Moving the cursor is no change,
/// nor is a key that is not an edit, nor a deletion with nothing to delete: the callers re-parse
/// and mark a field set only on a change.
pub fn edit_input(input: &mut TextInput, key: KeyEvent, multiline: bool) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let length = input.text().len();
    match key.code {
        KeyCode::Char('w') if ctrl => input.delete_word_left(),
        KeyCode::Char('u') if ctrl => input.delete_to_line_start(),
        KeyCode::Char('k') if ctrl => input.delete_to_line_end(),
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
