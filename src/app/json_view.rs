//! The app's one JSON editor: a text box of JSON and why it does not parse. The form's JSON
//! view of the arguments (Ctrl-J) and a message a proxy holds at a breakpoint (`tooldeck attach`)
//! are both edited in it, with the same keys, and drawn by `ui::json`.

use crossterm::event::KeyEvent;
use serde_json::Value;

use crate::form::TextInput;

/// The editable JSON: its text, and why it does not parse (if it does not).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonView {
    input: TextInput,
    error: Option<String>,
}

impl JsonView {
    /// A view of `text`, the cursor at its end.
    pub fn new(text: impl Into<String>) -> JsonView {
        JsonView { input: TextInput::new(text), error: None }
    }

    /// The JSON text, as typed.
    pub fn input(&self) -> &TextInput {
        &self.input
    }

    /// Why the text does not parse (or is not what is wanted), if it does not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// A key typed into it (the text box's own keys; Enter and Tab type too): true when the text
    /// changed.
    pub fn type_key(&mut self, key: KeyEvent) -> bool {
        super::typing::edit_input(&mut self.input, key, true)
    }

    /// Text pasted into it.
    pub fn paste(&mut self, text: &str) {
        self.input.insert_str(text, true);
    }

    /// The text becomes `text` (what it stands for changed elsewhere), no error shown.
    pub fn set_text(&mut self, text: impl Into<String>) {
        self.input.set(text);
        self.error = None;
    }

    /// Says why the text is not what is wanted (none: it is).
    pub fn set_error(&mut self, error: Option<String>) {
        self.error = error;
    }

    /// The text as JSON; else `None`, and why not is kept to be shown ([`JsonView::error`]).
    pub fn parse(&mut self) -> Option<Value> {
        match serde_json::from_str::<Value>(self.input.text()) {
            Ok(value) => {
                self.error = None;
                Some(value)
            }
            Err(e) => {
                self.error = Some(e.to_string());
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn typed_text_is_parsed_and_a_mistake_is_kept_to_show() {
        let mut view = JsonView::new("{\"a\": 1}");
        assert_eq!(view.parse(), Some(serde_json::json!({"a": 1})));
        assert!(view.type_key(KeyEvent::new(KeyCode::Char(','), KeyModifiers::NONE)));
        assert!(view.parse().is_none());
        assert!(view.error().is_some_and(|e| e.contains("line 1")), "{:?}", view.error());
        view.paste("\"b\": 2}");
        assert!(view.parse().is_none(), "the closing brace typed first is still there");
    }
}
