//! What an MCP server asks while a call runs, put to the person: an elicitation form (built by
//! the same form core as tool forms, from `requestedSchema`), a URL to visit, or a sampling
//! request to write the model's reply to. One question at a time takes the keys; the others
//! wait in turn. The reply goes back as `TaskEffect::AnswerAsk`.

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::{Value, json};

use super::Effect;
use super::keymap::{Action, Context, Keymap};
use super::typing::edit_input;
use crate::app::{DesktopEffect, ServerMsg, TaskEffect};
use crate::form::{Form, TextInput, Widget};
use crate::invoke::mcp::asks::{Ask, AskReply};

/// The runtime's side: the reply channels of questions on screen, by id (the app holds only
/// plain data).
#[derive(Debug, Default)]
pub struct Waiting {
    next: u64,
    replies: std::collections::HashMap<u64, tokio::sync::oneshot::Sender<AskReply>>,
}

impl Waiting {
    /// A question from the server becomes the message that puts it on screen.
    pub fn waiting(&mut self, pending: crate::invoke::mcp::asks::PendingAsk) -> super::Msg {
        self.next += 1;
        // Questions whose caller gave up (a cancelled call) are dropped here.
        self.replies.retain(|_, reply| !reply.is_closed());
        self.replies.insert(self.next, pending.reply);
        super::Msg::Server(ServerMsg::Asked { id: self.next, ask: pending.ask })
    }

    pub fn answer(&mut self, id: u64, reply: AskReply) {
        if let Some(to) = self.replies.remove(&id) {
            let _ = to.send(reply);
        }
    }
}

/// The questions waiting for the person, the first one shown (`current()`, `waiting()`); they
/// change only through this module's methods.
#[derive(Debug, Default)]
pub struct Asks {
    current: Option<Question>,
    waiting: VecDeque<(u64, Ask)>,
    /// The roots offered to the server (`--root`, `R` changes them).
    roots: Vec<String>,
    /// The MCP protocol revision agreed with the server, once known.
    protocol: Option<String>,
    /// The person's answers during the current call, kept with its result so that a case saved
    /// from it replays them.
    given: Vec<AskReply>,
}

/// The roots as typed in the roots prompt: separated by commas.
pub fn parse_roots(text: &str) -> Vec<String> {
    text.split(',').map(str::trim).filter(|r| !r.is_empty()).map(str::to_string).collect()
}

/// One question on screen.
#[derive(Debug)]
pub struct Question {
    id: u64,
    ask: Ask,
    /// The elicitation form (form mode only).
    form: Option<Form>,
    /// The focused row of the form, or the focused box of a sampling reply.
    focus: usize,
    /// A sampling reply: the text, the model name, the stop reason.
    reply: [TextInput; 3],
    /// Why the last Enter did not send (the form's errors).
    problem: Option<String>,
}

impl Question {
    /// The id the answer goes back with.
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn ask(&self) -> &Ask {
        &self.ask
    }

    /// The elicitation form (form mode only).
    pub fn form(&self) -> Option<&Form> {
        self.form.as_ref()
    }

    /// The focused row of the form, or the focused box of a sampling reply.
    pub fn focus(&self) -> usize {
        self.focus
    }

    /// A sampling reply: the text, the model name, the stop reason.
    pub fn reply(&self) -> &[TextInput; 3] {
        &self.reply
    }

    /// Why the last Enter did not send (the form's errors).
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    fn new(id: u64, ask: Ask) -> Question {
        let mut form = match &ask {
            Ask::Form { schema, .. } => form_for(schema),
            _ => None,
        };
        // Defaults offered by the server are replaced by typing, as every prefilled value is.
        if let Some(form) = form.as_mut() {
            let defaults: Vec<Vec<usize>> = form
                .rows()
                .iter()
                .filter(|row| form.field(&row.path).is_some_and(|f| f.from_default))
                .map(|row| row.path.clone())
                .collect();
            for path in defaults {
                form.edit_text(&path, |input, _| input.select_all());
            }
        }
        let reply = [TextInput::new(""), TextInput::prefilled("tooldeck"), TextInput::prefilled("endTurn")];
        Question { id, ask, form, focus: 0, reply, problem: None }
    }

    fn rows(&self) -> usize {
        match (&self.ask, &self.form) {
            (Ask::Form { .. }, Some(form)) => form.rows().len(),
            (Ask::Sample { .. }, _) => 3,
            _ => 0,
        }
    }

    /// The focused row's path in the form.
    pub fn focused_path(&self) -> Option<Vec<usize>> {
        self.form.as_ref()?.rows().get(self.focus).map(|row| row.path.clone())
    }
}

/// The form for an elicitation's `requestedSchema`, the server's defaults filled in.
pub fn form_for(schema: &Value) -> Option<Form> {
    crate::form::defaults::elicitation_form(schema)
}

impl Asks {
    /// The question on screen.
    pub fn current(&self) -> Option<&Question> {
        self.current.as_ref()
    }

    /// The questions waiting behind it.
    pub fn waiting(&self) -> &VecDeque<(u64, Ask)> {
        &self.waiting
    }

    /// A server asked something: shown now, or after the questions before it.
    pub fn asked(&mut self, id: u64, ask: Ask) {
        if self.current.is_none() {
            self.current = Some(Question::new(id, ask));
        } else {
            self.waiting.push_back((id, ask));
        }
    }

    /// The roots offered to the server.
    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// The roots offered from now on (`--root` at startup, the roots prompt after).
    pub fn set_roots(&mut self, roots: Vec<String>) {
        self.roots = roots;
    }

    /// The MCP protocol revision agreed with the server.
    pub fn agreed(&mut self, version: String) {
        self.protocol = Some(version);
    }

    /// The person's answers during the call that just ended, taken to keep with its result.
    pub fn take_given(&mut self) -> Vec<AskReply> {
        std::mem::take(&mut self.given)
    }

    /// The call ended (answered, failed or cancelled): its questions go.
    pub fn call_ended(&mut self) {
        self.current = None;
        self.waiting.clear();
    }

    pub fn is_open(&self) -> bool {
        self.current.is_some()
    }

    fn answered(&mut self, reply: AskReply) -> Vec<Effect> {
        let Some(question) = self.current.take() else { return Vec::new() };
        if let Some((id, ask)) = self.waiting.pop_front() {
            self.current = Some(Question::new(id, ask));
        }
        self.given.push(reply.clone());
        vec![Effect::Task(TaskEffect::AnswerAsk { id: question.id, reply })]
    }

    /// A key while a question is open.
    fn key(&mut self, keymap: &Keymap, key: KeyEvent) -> Vec<Effect> {
        let Some(question) = self.current.as_mut() else { return Vec::new() };
        // Typing goes to the focused box first; chords and other keys are actions.
        if typed(question, key) {
            question.problem = None;
            return Vec::new();
        }
        let rows = question.rows();
        match keymap.action_for(Context::Ask, key) {
            Some(Action::Up | Action::PreviousField) if rows > 0 => question.focus = (question.focus + rows - 1) % rows,
            Some(Action::Down | Action::NextField) if rows > 0 => question.focus = (question.focus + 1) % rows,
            Some(action @ (Action::Collapse | Action::Expand | Action::Activate)) => {
                step_choice(question, if action == Action::Collapse { -1 } else { 1 })
            }
            Some(Action::AddItem) => add_item(question),
            Some(Action::DeleteItem) => delete_item(question),
            Some(Action::OpenLink) => {
                if let Ask::Url { url, .. } = &question.ask {
                    if crate::invoke::http::is_web_link(url) {
                        return vec![Effect::Desktop(DesktopEffect::Open(url.clone()))];
                    }
                    question.problem = Some("not an http(s) link, so it is not opened".to_string());
                }
            }
            Some(Action::AskAccept) => return self.accept(),
            Some(Action::AskDecline) => {
                let reply = match question.ask {
                    Ask::Sample { .. } => AskReply::Rejected("the user rejected it".into()),
                    _ => AskReply::Decline,
                };
                return self.answered(reply);
            }
            Some(Action::AskCancel) => {
                let reply = match question.ask {
                    Ask::Sample { .. } => AskReply::Rejected("the user rejected it".into()),
                    _ => AskReply::Cancel,
                };
                return self.answered(reply);
            }
            _ => {}
        }
        Vec::new()
    }

    /// Enter: send the form's content (when it is valid), accept the URL, send the reply.
    fn accept(&mut self) -> Vec<Effect> {
        let Some(question) = self.current.as_mut() else { return Vec::new() };
        let reply = match &question.ask {
            Ask::Form { .. } => match &mut question.form {
                Some(form) => {
                    form.revalidate();
                    let errors = form.validation.error_count;
                    if errors > 0 {
                        let first =
                            form.validation.errors.iter().next().map(|(at, m)| format!("{at} {}", m.join("; ")));
                        question.problem = Some(format!("{errors} problem(s): {}", first.unwrap_or_default()));
                        return Vec::new();
                    }
                    AskReply::Accept(Some(form.arguments().clone()))
                }
                None => AskReply::Accept(Some(json!({}))),
            },
            Ask::Url { .. } => AskReply::Accept(None),
            Ask::Sample { .. } => {
                let [text, model, stop] = &question.reply;
                let stop = stop.text().trim();
                AskReply::Sampled {
                    text: text.text().to_string(),
                    model: model.text().trim().to_string(),
                    stop_reason: (!stop.is_empty()).then(|| stop.to_string()),
                }
            }
        };
        self.answered(reply)
    }
}

/// A text box's own keys (printable keys and the editing chords every box has) go to the
/// focused text box; true when one took it.
fn typed(question: &mut Question, key: KeyEvent) -> bool {
    let editing = super::typing::is_editing_key(key)
        && (!matches!(key.code, KeyCode::Left | KeyCode::Right) || focused_is_text(question));
    if !editing || !focused_is_text(question) {
        return false;
    }
    match &question.ask {
        Ask::Sample { .. } => {
            let focus = question.focus.min(2);
            edit_input(&mut question.reply[focus], key, false)
        }
        Ask::Form { .. } => {
            let Some(path) = question.focused_path() else { return false };
            let Some(form) = question.form.as_mut() else { return false };
            if !focused_is_text_in(form, &path) {
                return false;
            }
            let mut took = false;
            form.edit_text(&path, |input, multiline| took = edit_input(input, key, multiline));
            form.revalidate();
            took
        }
        Ask::Url { .. } => false,
    }
}

fn focused_is_text(question: &Question) -> bool {
    match (&question.ask, question.focused_path(), &question.form) {
        (Ask::Sample { .. }, _, _) => true,
        (Ask::Form { .. }, Some(path), Some(form)) => focused_is_text_in(form, &path),
        _ => false,
    }
}

fn focused_is_text_in(form: &Form, path: &[usize]) -> bool {
    form.field(path)
        .is_some_and(|f| matches!(f.widget, Widget::Text { .. } | Widget::Suggest { .. } | Widget::Number { .. }))
}

/// `a` on a list (a multi-select) or one of its items: a new item of the list's kind (a choice
/// of the allowed values), focused.
fn add_item(question: &mut Question) {
    let Some(path) = question.focused_path() else { return };
    let Some(form) = question.form.as_mut() else { return };
    let target = match form.field(&path).map(|f| &f.widget) {
        Some(Widget::Array { .. }) => path,
        _ if form.is_item(&path) => path[..path.len() - 1].to_vec(),
        _ => {
            question.problem = Some("only a list takes new items".to_string());
            return;
        }
    };
    let added = form.add_item(&target, None);
    form.revalidate();
    if let Some(at) = added.and_then(|added| form.rows().iter().position(|row| row.path == added)) {
        question.focus = at;
    }
}

/// `d` on a list's item: the item removed.
fn delete_item(question: &mut Question) {
    let Some(path) = question.focused_path() else { return };
    let Some(form) = question.form.as_mut() else { return };
    if !form.is_item(&path) {
        question.problem = Some("only a list's items can be deleted".to_string());
        return;
    }
    form.remove_item(&path);
    form.revalidate();
    question.focus = question.focus.min(form.rows().len().saturating_sub(1));
}

/// ←/→/Space on a checkbox or a choice: toggle it, or take the next (previous) option.
fn step_choice(question: &mut Question, delta: isize) {
    let Some(path) = question.focused_path() else { return };
    let Some(form) = question.form.as_mut() else { return };
    let Some(field) = form.field(&path) else { return };
    match &field.widget {
        // A question's checkbox is ticked or not: the form core's third state (unset) is skipped.
        Widget::Bool(_) => {
            form.toggle_bool(&path);
            if matches!(form.field(&path).map(|f| &f.widget), Some(Widget::Bool(None))) {
                form.toggle_bool(&path);
            }
        }
        Widget::Choice { choices, selected } => {
            let count = choices.len() as isize;
            if count > 0 {
                // Unset (shown as —): → takes the first option, ← the last.
                let now = selected.map_or(if delta > 0 { -1 } else { 0 }, |s| s as isize);
                let next = (now + delta).rem_euclid(count) as usize;
                form.choose(&path, next);
            }
        }
        Widget::Variant { variants, selected, .. } => {
            let count = variants.len() as isize;
            if count > 0 {
                let next = (*selected as isize + delta).rem_euclid(count) as usize;
                form.pick_variant(&path, next);
            }
        }
        _ => return,
    }
    form.revalidate();
}

/// A question takes every key until it is answered: its boxes type, the rest are its actions.
impl super::Component for Asks {
    fn context(&self) -> Option<Context> {
        None
    }

    fn handle(&mut self, input: super::Input, cx: &super::Cx) -> Option<super::Reply> {
        match input {
            super::Input::Key(key) if self.is_open() => Some(super::Reply::effects(self.key(cx.keymap, key))),
            _ => None,
        }
    }
}
