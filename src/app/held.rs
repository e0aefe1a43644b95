//! Breakpoints in `tooldeck attach` (docs/proxy.md): in the traffic pane of a session that watches
//! a running proxy, `b` asks the proxy to hold every later message like the selected one (its
//! method, its tool for a call, its direction) and `B` clears them all. A held message comes as a
//! traffic entry marked held; it opens in the app's JSON editor, one at a time: Ctrl-R sends it as
//! edited (as it was if not edited), Ctrl-D drops it, Esc leaves it held (Enter on it opens it
//! again). It stops being held when the proxy says it was released. What the proxy is told
//! goes out as `ServerEffect::Control`; what it says comes back as `ProxyMsg`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::json_view::JsonView;
use super::keymap::{Action, Context};
use super::traffic::TrafficLog;
use super::{App, Effect, Overlay, ProxyMsg, Reply, ServerEffect};
use crate::catalog::SessionId;
use crate::invoke::mcp::traffic::{Direction, TrafficEntry};
use crate::proxy::live::{Breakpoint, Control, Notice, Release};
use crate::wire::Side;

/// Releases remembered, to mark their entries (the oldest forgotten first).
const RELEASES_KEPT: usize = 10_000;

/// A session's breakpoints and held messages, as its proxy said them.
#[derive(Debug, Default)]
pub struct Hold {
    /// The session watches a running proxy: breakpoints can be set.
    attached: bool,
    /// The proxy's breakpoints (shared by every watcher of it).
    breakpoints: Vec<Breakpoint>,
    /// Messages held now: hold id → the entry's sequence number, in the order held.
    held: BTreeMap<u64, u64>,
    /// Held messages this app sent or dropped, not yet said released.
    acted: BTreeSet<u64>,
    /// How holds ended.
    released: BTreeMap<u64, Release>,
    /// The held message open in the editor.
    editor: Option<HeldEditor>,
    /// Esc left a held message: what is held next waits in the list rather than taking the keys
    /// (so `B` can be reached while a client keeps calling), until Enter opens one.
    left_alone: bool,
}

/// A held message open in the JSON editor.
#[derive(Debug)]
pub struct HeldEditor {
    id: u64,
    /// The entry's one-line summary, for the editor's title and what is said.
    summary: String,
    /// A request (dropping it answers the client with an error).
    request: bool,
    /// The text as it was opened, and the message it parses to.
    original_text: String,
    original: Option<Value>,
    view: JsonView,
}

impl HeldEditor {
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn summary(&self) -> &str {
        &self.summary
    }

    pub fn view(&self) -> &JsonView {
        &self.view
    }
}

impl Hold {
    pub fn attached(&self) -> bool {
        self.attached
    }

    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// How many messages are held now.
    pub fn held_count(&self) -> usize {
        self.held.len()
    }

    pub fn editor(&self) -> Option<&HeldEditor> {
        self.editor.as_ref()
    }

    /// What the list says of an entry the proxy held: `held`, `sending` (told, not yet
    /// released), or how it was released.
    pub fn tag(&self, entry: &TrafficEntry) -> Option<&'static str> {
        let id = entry.marks.held?;
        if self.acted.contains(&id) {
            return Some("sending");
        }
        if self.held.contains_key(&id) {
            return Some("held");
        }
        Some(match self.released.get(&id)? {
            Release::Sent | Release::Unattached => "sent",
            Release::Edited => "edited",
            Release::Dropped => "dropped",
        })
    }

    /// An entry arrived: one the proxy holds (and did not release already) is held.
    pub(super) fn arrived(&mut self, entry: &TrafficEntry) {
        if let Some(id) = entry.marks.held
            && !self.released.contains_key(&id)
        {
            self.held.insert(id, entry.seq);
        }
    }

    /// The first held message not yet sent or dropped.
    fn next_waiting(&self) -> Option<(u64, u64)> {
        self.held.iter().map(|(id, seq)| (*id, *seq)).find(|(id, _)| !self.acted.contains(id))
    }

    /// The proxy released `id`: true when it was open in the editor and this app did not act on
    /// it (another watcher did, or the proxy let it go), so the editor closed.
    fn released(&mut self, id: u64, how: Release) -> bool {
        self.held.remove(&id);
        self.acted.remove(&id);
        self.released.insert(id, how);
        while self.released.len() > RELEASES_KEPT {
            self.released.pop_first();
        }
        let open = self.editor.as_ref().is_some_and(|e| e.id == id);
        if open {
            self.editor = None;
        }
        open
    }
}

impl TrafficLog {
    /// The held message `id` (entry `seq`) opens in the editor, selected in the list; false when
    /// its entry is no longer in the log.
    fn open_held(&mut self, id: u64, seq: u64) -> bool {
        let Some(entry) = self.get(seq) else { return false };
        let original = entry.message();
        let original_text = match &original {
            Some(message) => crate::form::value::pretty(message),
            None => entry.shown_text(),
        };
        let request = entry.direction == Direction::ClientToServer && !entry.answer && entry.id.is_some();
        let editor = HeldEditor {
            id,
            summary: entry.summary(),
            request,
            view: JsonView::new(original_text.clone()),
            original_text,
            original,
        };
        self.hold_mut().editor = Some(editor);
        self.select(seq);
        true
    }

    /// The next held message not yet acted on opens in the editor (when none is open): what to
    /// say of it.
    pub(super) fn open_next_held(&mut self, keymap: &super::Keymap) -> Option<String> {
        if self.hold().editor.is_some() {
            return None;
        }
        while let Some((id, seq)) = self.hold().next_waiting() {
            if self.open_held(id, seq) {
                let editor = self.hold().editor.as_ref()?;
                let more = self.hold().held.len().saturating_sub(self.hold().acted.len() + 1);
                let more = if more > 0 { format!(" ({more} more held)") } else { String::new() };
                let keys = |action| keymap.key_name(Context::Held, action);
                return Some(format!(
                    "held: {} (hold {id}){more} · {} sends, {} drops, {} leaves it held",
                    editor.summary,
                    keys(Action::SendHeld),
                    keys(Action::DropHeld),
                    keys(Action::Back)
                ));
            }
            // Let go from the log: it cannot be shown (the proxy still holds it).
            self.hold_mut().acted.insert(id);
        }
        None
    }

    /// `b`: a breakpoint on the selected message's method (its tool, for a call), its way.
    pub(super) fn break_at_selected(&self) -> Reply {
        if !self.hold().attached {
            return Reply::status(NOT_ATTACHED);
        }
        let Some(entry) = self.selected_entry() else { return Reply::status("no message chosen") };
        let from = match entry.direction {
            Direction::ClientToServer => Side::Client,
            Direction::ServerToClient => Side::Server,
            Direction::Http => {
                return Reply::status("breakpoints hold JSON-RPC messages: choose one, not an HTTP exchange");
            }
            Direction::ServerStderr => {
                return Reply::status("the server's stderr passes beside the wire: choose a message to break on");
            }
        };
        let Some(method) = entry.method.clone().filter(|m| !m.contains(' ')) else {
            return Reply::status("this message has no method to break on");
        };
        let tool = match method.as_str() {
            "tools/call" => {
                let request = if entry.answer { self.request_of(entry) } else { Some(entry) };
                request
                    .and_then(TrafficEntry::message)
                    .and_then(|m| m.pointer("/params/name")?.as_str().map(str::to_string))
            }
            _ => None,
        };
        let breakpoint = Breakpoint { method, tool, from };
        if self.hold().breakpoints.contains(&breakpoint) {
            return Reply::status(format!("already set: {}", visible(&breakpoint.to_string())));
        }
        let said = format!("breakpoint: {} (the proxy holds the next)", visible(&breakpoint.to_string()));
        Reply::effect(Effect::Server(ServerEffect::Control(Control::Break(breakpoint)))).with_status(said)
    }

    /// `B`: every breakpoint cleared.
    pub(super) fn clear_breaks(&self) -> Reply {
        if !self.hold().attached {
            return Reply::status(NOT_ATTACHED);
        }
        if self.hold().breakpoints.is_empty() {
            return Reply::status("no breakpoint is set");
        }
        Reply::effect(Effect::Server(ServerEffect::Control(Control::Clear)))
            .with_status("breakpoints cleared (what is held stays held)")
    }

    /// Enter on a message still held (and not yet acted on): it opens in the editor.
    pub(super) fn reopen_selected(&mut self) -> Option<Reply> {
        let entry = self.selected_entry()?;
        let id = entry.marks.held.filter(|id| self.hold().held.contains_key(id) && !self.hold().acted.contains(id))?;
        let seq = entry.seq;
        self.hold_mut().left_alone = false;
        self.open_held(id, seq);
        Some(Reply::default())
    }

    /// A key while the editor is open: Ctrl-R sends, Ctrl-D drops, Esc leaves it held; other
    /// keys type.
    pub(super) fn held_key(&mut self, input: super::Input, cx: &super::Cx) -> Option<Reply> {
        let editor = self.hold_mut().editor.as_mut()?;
        let reply = match input {
            super::Input::Action(Action::SendHeld) => return Some(self.send_held(cx)),
            super::Input::Action(Action::DropHeld) => return Some(self.drop_held(cx)),
            super::Input::Action(Action::Back) => {
                self.hold_mut().editor = None;
                self.hold_mut().left_alone = true;
                let enter = cx.keymap.key_name(Context::Traffic, Action::Activate);
                Reply::status(format!("left held: {enter} on it opens it again"))
            }
            super::Input::Action(Action::Help) => return None,
            super::Input::Action(_) => Reply::default(),
            super::Input::Key(key) => {
                editor.view.type_key(key);
                Reply::default()
            }
            super::Input::Paste(text) => {
                editor.view.paste(text);
                Reply::default()
            }
        };
        Some(reply)
    }

    /// Ctrl-R: the held message goes on, as edited or (unchanged) as it was.
    fn send_held(&mut self, cx: &super::Cx) -> Reply {
        let Some(editor) = self.hold_mut().editor.as_mut() else { return Reply::default() };
        let (id, summary) = (editor.id, editor.summary.clone());
        let message = if editor.view.input().text() == editor.original_text {
            None
        } else {
            match editor.view.parse() {
                Some(edited) if Some(&edited) == editor.original.as_ref() => None,
                Some(edited @ Value::Object(_)) => Some(edited),
                Some(_) => return Reply::status("a JSON-RPC message is a JSON object: not sent"),
                None => {
                    let why = editor.view.error().unwrap_or_default();
                    return Reply::status(format!("not sent: the message does not parse ({why})"));
                }
            }
        };
        let said = if message.is_some() { "sent as edited" } else { "sent as it was" };
        self.acted(id, cx, format!("{said}: {summary}"), Control::Send { id, message })
    }

    /// Ctrl-D: the held message is dropped.
    fn drop_held(&mut self, cx: &super::Cx) -> Reply {
        let Some(editor) = self.hold().editor.as_ref() else { return Reply::default() };
        let id = editor.id;
        let said = match editor.request {
            true => format!("dropped: the client is told ({})", editor.summary),
            false => format!("dropped: not delivered ({})", editor.summary),
        };
        self.acted(id, cx, said, Control::Drop(id))
    }

    /// The proxy is told what to do with held message `id`; the next one held opens.
    fn acted(&mut self, id: u64, cx: &super::Cx, said: String, control: Control) -> Reply {
        self.hold_mut().acted.insert(id);
        self.hold_mut().editor = None;
        let said = match self.open_next_held(cx.keymap) {
            Some(next) => format!("{said} · {next}"),
            None => said,
        };
        Reply::effect(Effect::Server(ServerEffect::Control(control))).with_status(said)
    }
}

/// What `b` and `B` say outside `tooldeck attach`.
const NOT_ATTACHED: &str =
    "breakpoints need `tooldeck attach`: the traffic of a running proxy, which holds the messages";

fn visible(text: &str) -> String {
    crate::text::visible(text).into_owned()
}

impl App {
    /// What session `session`'s proxy said.
    pub(super) fn proxy_msg(&mut self, session: SessionId, msg: ProxyMsg) {
        let current = session == self.sessions.current_id();
        let log = self.sessions.pane_mut(session).traffic_mut();
        let said = match msg {
            ProxyMsg::Attached => {
                log.hold_mut().attached = true;
                None
            }
            ProxyMsg::Ended => {
                *log.hold_mut() = Hold::default();
                None
            }
            ProxyMsg::NotWritten(why) => Some(format!("the proxy was not told: {why}")),
            ProxyMsg::Notice(Notice::Breakpoints { breakpoints }) => {
                log.hold_mut().attached = true;
                log.hold_mut().breakpoints = breakpoints;
                None
            }
            ProxyMsg::Notice(Notice::Released { released, how }) => {
                let elsewhere = log.hold_mut().released(released, how);
                let next = log.open_next_held(&self.keymap);
                let word = match how {
                    Release::Sent => "sent as it was",
                    Release::Edited => "sent as edited",
                    Release::Dropped => "dropped",
                    Release::Unattached => "let go (no watcher left)",
                };
                match (elsewhere, next) {
                    (true, Some(next)) => Some(format!("hold {released} was {word} by another watcher · {next}")),
                    (true, None) => Some(format!("hold {released} was {word} by another watcher")),
                    (false, next) => next,
                }
            }
            ProxyMsg::Notice(Notice::Error { error }) => Some(format!("the proxy refused: {}", visible(&error))),
            ProxyMsg::Notice(Notice::Dropped { .. }) => None,
        };
        if let Some(said) = said
            && current
        {
            self.tell(said);
        }
    }

    /// After traffic arrived for `session`: a message newly held opens in the editor, in the
    /// traffic pane (opened for it when the session is the one shown).
    pub(super) fn open_held_arrivals(&mut self, session: SessionId) {
        let current = session == self.sessions.current_id();
        let log = self.sessions.pane_mut(session).traffic_mut();
        if !current || log.hold().editor.is_some() {
            return;
        }
        if log.hold().left_alone {
            let waiting = log.hold().held.len().saturating_sub(log.hold().acted.len());
            let enter = self.keymap.key_name(Context::Traffic, Action::Activate);
            self.tell(format!("{waiting} held · {enter} on one opens it"));
            return;
        }
        if let Some(said) = log.open_next_held(&self.keymap) {
            if !self.shows(Overlay::Traffic) {
                self.open_overlay(Overlay::Traffic);
            }
            self.tell(said);
        }
    }
}

#[cfg(test)]
#[path = "held_tests.rs"]
mod tests;
