//! The form pane's keys: a field being edited and the JSON view take keys as they are
//! pressed; otherwise the form's actions move the cursor and change its fields. Back leaves
//! the form for the list (a focus move, the app's); what the form does not take, the list
//! and then the app do.

use crossterm::event::{KeyCode, KeyEvent};

use super::FormPane;
use crate::app::keymap::Key;
use crate::app::typing::{edit_input, leaves_box};
use crate::app::{Action, Component, Context, Cx, Focus, Input, PickerPurpose, Popup, Reply};
use crate::form::{Field, Widget, build::show};

impl Component for FormPane {
    fn context(&self) -> Option<Context> {
        // The JSON view having the keys is the app's focus (`Focus::Json`), which the app
        // routes as a text box too.
        (!self.editing).then_some(Context::Form)
    }

    fn handle(&mut self, input: Input, cx: &Cx) -> Option<Reply> {
        let id = cx.tool.map(|tool| tool.id.as_str());
        match input {
            Input::Key(key) if cx.focus == Focus::Json => Some(self.json_key(id, key, cx)),
            Input::Key(key) if self.editing => Some(self.edit_key(key, cx)),
            Input::Key(key) if cx.focus == Focus::Form && is_printable(key) => Some(self.typed_on_row(key, cx)),
            Input::Key(_) => None,
            Input::Paste(text) => self.paste(text, cx),
            Input::Action(Action::Back) => Some(Reply::focus(Focus::List)),
            // The app brings the JSON view along after the action (`actions::act`).
            Input::Action(action) => self.act(id, action),
        }
    }
}

/// A key that types a character (no Ctrl or Alt): on a form, text, never a command.
fn is_printable(key: KeyEvent) -> bool {
    Key::of(key).is_printable()
}

impl FormPane {
    /// The field being edited hands the keys to the one `delta` rows away, which goes on taking
    /// them when it is a text field; on any other row (a group, a checkbox, a choice) the edit
    /// ends there. At either end of the form the edit ends where it is.
    fn edit_next(&mut self, id: &str, delta: isize) {
        let before = self.cursor();
        self.stop_editing();
        self.move_cursor(id, delta);
        if self.cursor() != before && self.focused_field(id).is_some_and(|(_, field)| field.input().is_some()) {
            self.start_editing_here(id);
        }
    }

    /// A printable key on a row not being edited: a text field starts taking the keys with it
    /// (a default shown is replaced); a checkbox toggles on Space; any other row says how it is
    /// edited, and nothing else happens.
    fn typed_on_row(&mut self, key: KeyEvent, cx: &Cx) -> Reply {
        let Some(tool) = cx.tool else { return Reply::default() };
        let Some((_, field)) = self.focused_field(&tool.id) else {
            return Reply::status(
                cx.keymap.say("this tool takes no parameters: {key:run} runs it", &[Context::Typing]),
            );
        };
        if field.input().is_some() {
            self.start_editing_here(&tool.id);
            return self.edit_key(key, cx);
        }
        if matches!(field.widget, Widget::Bool(_)) && key.code == KeyCode::Char(' ') {
            return self.activate(&tool.id);
        }
        Reply::status(how_to_edit(&field, cx))
    }
}

/// What to press on a row that takes no typed text, said when a printable key lands there.
fn how_to_edit(field: &Field, cx: &Cx) -> String {
    let name = crate::text::visible(field.label()).into_owned();
    let text = match &field.widget {
        Widget::Bool(_) => "{key:activate} or Space toggles it",
        Widget::Choice { .. } => "{key:activate} picks its value from a list",
        Widget::Variant { .. } => "{key:activate} picks its variant",
        Widget::Array { .. } => "{key:add_item} adds an item, {key:down} goes to its items",
        Widget::Object { additional: Some(_), .. } => "{key:add_item} adds an entry, {key:down} goes to its entries",
        Widget::Object { .. } => "{key:activate} folds or unfolds it, {key:down} goes to its fields",
        Widget::Const(_) => "it is fixed",
        _ => "{key:activate} edits it",
    };
    let how = cx.keymap.say(text, &[Context::Form]);
    format!("nothing typed: {name} takes no text; {how}")
}

impl FormPane {
    /// A key in the JSON view: the keys that leave a text box give the focus back to the form.
    fn json_key(&mut self, id: Option<&str>, key: KeyEvent, cx: &Cx) -> Reply {
        if key.code == KeyCode::Esc || leaves_box(cx.keymap, Context::Form, key).is_some() {
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
        let leaves = leaves_box(cx.keymap, Context::Form, key);
        let mut reply = Reply::default();
        match key.code {
            _ if leaves == Some(0) => self.stop_editing(),
            // The web-form habit: Tab and Shift-Tab go on editing the next or previous field.
            _ if let Some(delta) = leaves => self.edit_next(id, delta),
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
                self.edit_next(id, if key.code == KeyCode::Up { -1 } else { 1 })
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
