//! The form pane's keys: a field being edited and the JSON view take keys as they are
//! pressed; otherwise the form's actions move the cursor and change its fields. Back leaves
//! the form for the list (a focus move, the app's); what the form does not take, the list
//! and then the app do.

use crossterm::event::{KeyCode, KeyEvent};

use super::FormPane;
use crate::app::typing::{edit_input, leaves_box};
use crate::app::{Action, Component, Context, Cx, Focus, Input, PickerPurpose, Popup, Reply};
use crate::form::{Widget, build::show};

impl Component for FormPane {
    fn context(&self) -> Option<Context> {
        // The JSON view having the keys is the app's focus (`Focus::Json`), which the app
        // routes as a text box too.
        (!self.editing).then_some(Context::Main)
    }

    fn handle(&mut self, input: Input, cx: &Cx) -> Option<Reply> {
        let id = cx.tool.map(|tool| tool.id.as_str());
        match input {
            Input::Key(key) if cx.focus == Focus::Json => Some(self.json_key(id, key, cx)),
            Input::Key(key) if self.editing => Some(self.edit_key(key, cx)),
            Input::Key(_) => None,
            Input::Paste(text) => self.paste(text, cx),
            Input::Action(Action::Back) => Some(Reply::focus(Focus::List)),
            // The app brings the JSON view along after the action (`actions::act`).
            Input::Action(action) => self.act(id, action),
        }
    }
}

impl FormPane {
    /// A key in the JSON view: the keys that leave a text box give the focus back to the form.
    fn json_key(&mut self, id: Option<&str>, key: KeyEvent, cx: &Cx) -> Reply {
        if key.code == KeyCode::Esc || leaves_box(cx.keymap, key).is_some() {
            return Reply::focus(Focus::Form);
        }
        if self.type_json(key)
            && let Some(id) = id
        {
            self.apply_json(id);
        }
        Reply::default()
    }

    /// A key in the field being edited.
    fn edit_key(&mut self, key: KeyEvent, cx: &Cx) -> Reply {
        let Some(tool) = cx.tool else {
            self.stop_editing();
            return Reply::default();
        };
        let id = tool.id.as_str();
        let Some((path, field)) = self.focused_field(id) else {
            self.stop_editing();
            return Reply::default();
        };
        let multiline = matches!(field.widget, Widget::Text { multiline: true, .. } | Widget::Raw { .. });
        let leaves = leaves_box(cx.keymap, key);
        let mut reply = Reply::default();
        match key.code {
            _ if leaves == Some(0) => self.stop_editing(),
            _ if let Some(delta) = leaves => {
                self.stop_editing();
                self.move_cursor(id, delta);
            }
            KeyCode::Esc => self.stop_editing(),
            KeyCode::Enter if !multiline => self.stop_editing(),
            KeyCode::Down if matches!(field.widget, Widget::Suggest { .. }) => {
                if let Widget::Suggest { suggestions, .. } = &field.widget {
                    reply = Reply::popup(Popup::Picker {
                        path,
                        title: format!("{}: suggestions (other values allowed)", field.label()),
                        options: suggestions.iter().map(show).collect(),
                        selected: 0,
                        purpose: PickerPurpose::Suggestion,
                    });
                }
            }
            KeyCode::Up | KeyCode::Down if !multiline => {
                self.stop_editing();
                let delta = if key.code == KeyCode::Up { -1 } else { 1 };
                self.move_cursor(id, delta);
            }
            _ => {
                let mut changed = false;
                self.open(tool).edit_text(&path, |input, multiline| changed = edit_input(input, key, multiline));
                if !changed {
                    // The form is as it was: nothing new for the JSON view.
                    return reply;
                }
            }
        }
        self.sync_json(Some(id), cx.focus == Focus::Json);
        reply
    }

    /// A paste into the JSON view, or into the focused field (which it chooses: the person
    /// means the text for it); `None` when the form does not have the focus.
    fn paste(&mut self, text: &str, cx: &Cx) -> Option<Reply> {
        let tool = cx.tool;
        match cx.focus {
            Focus::Json => {
                self.paste_json(text);
                if let Some(tool) = tool {
                    self.apply_json(&tool.id);
                }
            }
            Focus::Form => {
                let Some(tool) = tool else { return Some(Reply::default()) };
                let Some((path, field)) = self.focused_field(&tool.id) else { return Some(Reply::default()) };
                if field.input().is_some() {
                    self.start_editing();
                    self.open(tool).edit_text(&path, |input, multiline| input.insert_str(text, multiline));
                    self.sync_json(Some(&tool.id), false);
                }
            }
            Focus::List | Focus::Result => return None,
        }
        Some(Reply::default())
    }
}
