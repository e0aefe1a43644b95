//! Suggestions for a template's variable or a prompt's argument while it is typed in (MCP
//! `completion/complete`, `ServerEffect::Complete` and `FaceMsg::Completed`). A server may answer with
//! 100,000 values, values of megabytes, or slowly: the answer is read bounded (at most 100 values
//! of at most 4 KiB, the rest counted), waited for 5 s at most (`invoke::mcp::completion`), the
//! question before is cancelled when a new one is asked (`runtime/faces.rs`), and an answer to
//! anything but the last question is dropped.

use serde_json::Value;

use super::faces::strings;
use super::{App, Effect, EffectError, ServerEffect};
use crate::catalog::Face;
use crate::form::{TextInput, Widget};
use crate::invoke::mcp::completion::{MAX_SUGGESTION_BYTES, Reference, Suggestions};
use crate::text::human_bytes;

impl App {
    /// While a template's variable or a prompt's argument is typed in, the server is asked for
    /// suggestions for what is there (once per text).
    pub(super) fn ask_completion(&mut self) -> Vec<Effect> {
        if !self.form_pane.editing() {
            return Vec::new();
        }
        let Some(tool) = self.selected_tool() else { return Vec::new() };
        let reference = match &tool.written.face {
            Face::Template { uri_template } => Reference::Resource(uri_template.clone()),
            Face::Prompt { name } => Reference::Prompt(name.clone()),
            _ => return Vec::new(),
        };
        if !self.faces.completes(self.session_of(tool)) {
            return Vec::new();
        }
        let tool_id = tool.id.clone();
        let Some((path, field)) = self.form_op(|pane, id| pane.focused_field(id)) else { return Vec::new() };
        let Some(typed) = field.input().map(|i| i.text().to_string()).filter(|_| path.len() == 1) else {
            return Vec::new();
        };
        if !self.faces.ask((tool_id.clone(), field.name.clone(), typed.clone())) {
            return Vec::new();
        }
        let mut context = self.form().map(|f| strings(f.arguments())).unwrap_or_default();
        context.remove(&field.name);
        vec![Effect::Server(ServerEffect::Complete { tool_id, reference, argument: field.name, typed, context })]
    }

    /// The server's suggestions for `argument` of entry `tool_id`, given `typed`: the field
    /// offers them (↓) while it still holds that text. An answer to anything but the last
    /// question asked is stale (the person typed on) and dropped, a failure too.
    pub(super) fn completed(&mut self, asked: (String, String, String), result: Result<Suggestions, EffectError>) {
        if !self.faces.is_asked(&asked) || self.selected_id().as_deref() != Some(asked.0.as_str()) {
            return;
        }
        let (_, argument, typed) = asked;
        let suggestions = match result {
            Ok(suggestions) => suggestions,
            Err(why) => {
                self.tell(format!("no suggestions: {why}"));
                return;
            }
        };
        let status = suggestions_said(&suggestions);
        let mut offered = false;
        self.form_op(|pane, id| {
            pane.with_focused(id, |form, path| {
                let Some(field) = form.field_mut(path).filter(|f| f.name == argument) else { return };
                let Some(input) = field.input().filter(|i| i.text() == typed).cloned() else { return };
                field.widget = suggesting(input, suggestions.values);
                offered = true;
            })
        });
        if offered {
            let said = status.or(self.take_status());
            self.set_status(said);
        }
    }
}

/// What the status line says of suggestions: how many, how many more the server has (typing on
/// narrows them), and how many were too long to offer; None when there are none at all.
fn suggestions_said(suggestions: &Suggestions) -> Option<String> {
    let count = suggestions.values.len();
    let mut said = match count {
        0 => String::from("no suggestions from the server"),
        1 => String::from("1 suggestion from the server"),
        n => format!("{n} suggestions from the server"),
    };
    match suggestions.more() {
        Some(0) => said.push_str(", and more (type on to narrow them)"),
        Some(n) => said.push_str(&format!(", {n} more (type on to narrow them)")),
        None if count == 0 && suggestions.too_long == 0 => return None,
        None => {}
    }
    if suggestions.too_long > 0 {
        said.push_str(&format!(
            " · {} over {} left out",
            suggestions.too_long,
            human_bytes(MAX_SUGGESTION_BYTES as u64)
        ));
    }
    if count > 0 {
        said.push_str(" · ↓ picks one");
    }
    Some(said)
}

/// A text field that offers `values` (↓), or plain text when there are none.
fn suggesting(input: TextInput, values: Vec<String>) -> Widget {
    match values.is_empty() {
        true => Widget::Text { input, multiline: false },
        false => Widget::Suggest { input, suggestions: values.into_iter().map(Value::String).collect() },
    }
}

#[cfg(test)]
mod tests {
    use crate::app::{FaceMsg, InputMsg};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use serde_json::json;

    use super::*;
    use crate::app::{Msg, update};
    use crate::invoke::InvokeError;
    use crate::invoke::mcp::completion::read_suggestions;
    use crate::invoke::{Faces, ResourceListing};

    fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
        update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
    }

    /// The app with a template of one variable from a server that completes, its field being
    /// typed in: `typed` typed, and the question each key asked.
    fn typing(typed: &str) -> (App, Vec<(String, String, String)>) {
        let mut warnings = Vec::new();
        let entry = json!({"uriTemplate": "test://items/{id}", "name": "item"});
        let templates = crate::invoke::mcp::resources::read_templates(&[entry], &mut warnings);
        let faces =
            Faces { listing: ResourceListing { templates, ..Default::default() }, completes: true, ..Faces::default() };
        let mut app = App::new(crate::catalog::Catalog::default(), &[], (120, 40));
        update(&mut app, Msg::Face(FaceMsg::Listed { label: "mcp:x".into(), faces: Box::new(faces) }));
        key(&mut app, KeyCode::Enter);
        key(&mut app, KeyCode::Enter);
        let mut asked = Vec::new();
        for c in typed.chars() {
            for effect in key(&mut app, KeyCode::Char(c)) {
                if let Effect::Server(ServerEffect::Complete { tool_id, argument, typed, .. }) = effect {
                    asked.push((tool_id, argument, typed));
                }
            }
        }
        assert_eq!(asked.len(), typed.chars().count(), "a question per key");
        (app, asked)
    }

    fn answer(
        app: &mut App,
        (tool_id, argument, typed): (String, String, String),
        result: Result<Suggestions, EffectError>,
    ) {
        update(app, Msg::Face(FaceMsg::Completed { tool_id, argument, typed, result }));
    }

    fn offered(app: &App) -> Option<usize> {
        let form = app.form()?;
        let field = form.root.children().into_iter().find(|f| f.name == "id")?;
        match &field.widget {
            Widget::Suggest { suggestions, .. } => Some(suggestions.len()),
            _ => None,
        }
    }

    #[test]
    fn a_flood_of_100k_suggestions_offers_100_and_says_how_many_more() {
        let (mut app, mut asked) = typing("4");
        let values: Vec<Value> = (0..100_000).map(|i| json!(format!("4{i}"))).collect();
        let read = read_suggestions(&json!({"completion": {"values": values, "total": 250_000, "hasMore": true}}));
        answer(&mut app, asked.remove(0), Ok(read));
        assert_eq!(offered(&app), Some(100));
        let status = app.status().unwrap_or_default();
        assert!(status.contains("100 suggestions") && status.contains("249900 more"), "{status}");
    }

    #[test]
    fn suggestions_too_long_to_offer_are_left_out_and_counted() {
        let (mut app, mut asked) = typing("a");
        let long = "a".repeat(MAX_SUGGESTION_BYTES * 100);
        answer(&mut app, asked.remove(0), Ok(read_suggestions(&json!({"completion": {"values": ["ab", long]}}))));
        assert_eq!(offered(&app), Some(1));
        let status = app.status().unwrap_or_default();
        assert!(status.contains("1 suggestion from") && status.contains("1 over 4.0 KiB left out"), "{status}");
    }

    #[test]
    fn an_answer_for_text_typed_over_is_dropped_and_the_current_one_kept() {
        let (mut app, asked) = typing("ab");
        let suggestions = |v: &str| Ok(read_suggestions(&json!({"completion": {"values": [v]}})));
        answer(&mut app, asked[0].clone(), suggestions("a-stale"));
        assert_eq!(offered(&app), None, "the answer for \"a\" came after \"ab\" was typed");
        assert_eq!(app.status(), None);
        let slow = || Err(EffectError::Server(InvokeError::timeout("mcp:x", "5 s")));
        answer(&mut app, asked[1].clone(), slow());
        let status = app.status().map(str::to_string).unwrap_or_default();
        assert!(status.contains("no answer from mcp:x within 5 s"), "{status}");
        answer(&mut app, asked[0].clone(), slow());
        assert_eq!(app.status(), Some(status.as_str()), "a stale failure says nothing");
        answer(&mut app, asked[1].clone(), suggestions("abc"));
        assert_eq!(offered(&app), Some(1));
    }
}
