//! The traffic pane (`X`, or F8 from every pane): every JSON-RPC message of the session with the
//! selected tool's server, in order (the handshake, requests both ways, notifications, cancelled
//! calls) and, over HTTP, each POST's status and headers. The runtime brings the entries of the
//! session's log (`invoke::mcp::traffic`) as `ServerMsg::Traffic`; each server's copy sits in its
//! server pane's state, so with several servers each has its own. Bounded as the session's log
//! is; an entry's text is shared with it, never copied. Secrets in HTTP headers are masked
//! before they reach the log.
//!
//! `x` keeps showing the current call's own exchange; `X` widens to the whole session with the
//! call's request selected, so what came before and after it is a scroll away.

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent};

use super::keymap::{Action, Context};
use super::{App, DesktopEffect, Effect, Reply};
use crate::form::TextInput;
use crate::invoke::mcp::traffic::{Direction, MAX_BYTES, MAX_ENTRIES, TrafficEntry};

/// One server's traffic as the app holds it, with the pane's filter and selection.
#[derive(Debug, Default)]
pub struct TrafficLog {
    entries: VecDeque<TrafficEntry>,
    bytes: usize,
    /// The sequence number the next entry of the session will have.
    next_seq: u64,
    /// What is being typed to narrow the list (method or text); `filtering` while typed.
    filter: TextInput,
    filtering: bool,
    /// The filter `shown` holds the entries of (lower case).
    shown_for: String,
    /// The sequence numbers of the entries that pass the filter, oldest first.
    shown: VecDeque<u64>,
    /// The selected entry; `None` follows the newest.
    selected: Option<u64>,
    /// Lines of the selected message scrolled past.
    message_scroll: usize,
    /// `tooldeck attach`: the proxy's breakpoints and the messages it holds (`held`).
    hold: super::held::Hold,
}

impl TrafficLog {
    /// The filter text (typed, or kept after typing).
    pub fn filter(&self) -> &TextInput {
        &self.filter
    }

    /// The filter is being typed: keys go to it.
    pub fn filtering(&self) -> bool {
        self.filtering
    }

    /// Whether the newest message is followed (none chosen).
    pub fn follows(&self) -> bool {
        self.selected.is_none()
    }

    /// Lines of the selected message scrolled past.
    pub fn message_scroll(&self) -> usize {
        self.message_scroll
    }

    /// The proxy's breakpoints and held messages (`tooldeck attach`).
    pub fn hold(&self) -> &super::held::Hold {
        &self.hold
    }

    pub(super) fn hold_mut(&mut self) -> &mut super::held::Hold {
        &mut self.hold
    }

    /// Selects the entry `seq` (shown whatever the filter), its message from its top.
    pub(super) fn select(&mut self, seq: u64) {
        if !self.shown.contains(&seq) {
            self.filter.clear();
            self.refilter();
        }
        self.selected = Some(seq);
        self.message_scroll = 0;
    }

    /// The filter stops taking keys; what was typed stays.
    pub fn stop_filter(&mut self) {
        self.filtering = false;
    }

    /// A key while the filter is typed: Enter keeps it, Esc empties it, ↑ and ↓ move.
    fn filter_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Enter => self.filtering = false,
            KeyCode::Esc => {
                self.filtering = false;
                self.filter.clear();
            }
            KeyCode::Up => self.move_by(-1),
            KeyCode::Down => self.move_by(1),
            _ => {
                super::typing::edit_input(&mut self.filter, key, false);
            }
        }
        self.refilter();
    }

    /// Moving in the list and the message, and starting a filter; false for any other action.
    fn act(&mut self, action: Action, page: isize) -> bool {
        match action {
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-page),
            Action::PageDown => self.move_by(page),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.follow(),
            Action::MessageUp => self.message_scroll = self.message_scroll.saturating_sub(1),
            Action::MessageDown => self.message_scroll += 1,
            Action::Filter => {
                self.filtering = true;
                self.filter.clear();
                self.refilter();
            }
            _ => return false,
        }
        true
    }

    /// Entries that arrived from the session's log (those already held are skipped).
    pub fn receive(&mut self, entries: Vec<TrafficEntry>) {
        for entry in entries {
            if entry.seq < self.next_seq {
                continue;
            }
            self.next_seq = entry.seq + 1;
            self.hold.arrived(&entry);
            if entry.matches(&self.shown_for) {
                self.shown.push_back(entry.seq);
            }
            self.bytes += entry.text.len();
            self.entries.push_back(entry);
        }
        while self.entries.len() > MAX_ENTRIES || (self.bytes > MAX_BYTES && self.entries.len() > 1) {
            let Some(old) = self.entries.pop_front() else { break };
            self.bytes -= old.text.len();
            if self.shown.front() == Some(&old.seq) {
                self.shown.pop_front();
            }
            if self.selected == Some(old.seq) {
                self.selected = self.shown.front().copied();
            }
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Messages of the session no longer held (the oldest, let go to stay bounded).
    pub fn dropped(&self) -> u64 {
        self.next_seq - self.entries.len() as u64
    }

    /// The entry with sequence number `seq`, if held (entries are held in one unbroken run).
    pub fn get(&self, seq: u64) -> Option<&TrafficEntry> {
        let first = self.entries.front()?.seq;
        self.entries.get(usize::try_from(seq.checked_sub(first)?).ok()?)
    }

    /// How many entries pass the filter.
    pub fn shown_len(&self) -> usize {
        self.shown.len()
    }

    /// The place of the selected entry among those shown (the newest when following).
    pub fn selected_index(&self) -> Option<usize> {
        match self.selected {
            None => self.shown.len().checked_sub(1),
            Some(seq) => Some(self.shown.partition_point(|s| *s < seq).min(self.shown.len().saturating_sub(1)))
                .filter(|_| !self.shown.is_empty()),
        }
    }

    pub fn selected_entry(&self) -> Option<&TrafficEntry> {
        self.selected_index().and_then(|i| self.shown.get(i)).and_then(|seq| self.get(*seq))
    }

    /// The `height` shown entries around the selected one, oldest first, and the selected
    /// one's place among them.
    pub fn window(&self, height: usize) -> (Vec<&TrafficEntry>, Option<usize>) {
        let Some(selected) = self.selected_index() else { return (Vec::new(), None) };
        let start = selected.saturating_sub(height / 2).min(self.shown.len().saturating_sub(height));
        let rows = self.shown.iter().skip(start).take(height).filter_map(|seq| self.get(*seq)).collect();
        (rows, Some(selected - start))
    }

    /// Moves the selection by `delta` shown entries; past the newest, it follows again.
    pub fn move_by(&mut self, delta: isize) {
        let Some(at) = self.selected_index() else { return };
        let to = at.saturating_add_signed(delta).min(self.shown.len().saturating_sub(1));
        self.selected = self.shown.get(to).copied();
        self.message_scroll = 0;
    }

    pub fn follow(&mut self) {
        self.selected = None;
        self.message_scroll = 0;
    }

    /// The filter as typed now applies. A longer filter narrows what is shown already; any
    /// other change looks at every entry again.
    pub fn refilter(&mut self) {
        let filter = self.filter.text().trim().to_lowercase();
        if filter == self.shown_for {
            return;
        }
        let narrows = !self.shown_for.is_empty() && filter.contains(&self.shown_for);
        let candidates: Vec<u64> =
            if narrows { self.shown.iter().copied().collect() } else { self.entries.iter().map(|e| e.seq).collect() };
        self.shown = candidates.into_iter().filter(|seq| self.get(*seq).is_some_and(|e| e.matches(&filter))).collect();
        self.shown_for = filter;
        self.message_scroll = 0;
    }

    /// The request `answer` answers: the latest message before it, the other way, with its id.
    pub fn request_of(&self, answer: &TrafficEntry) -> Option<&TrafficEntry> {
        self.entries
            .iter()
            .rev()
            .skip_while(|e| e.seq >= answer.seq)
            .find(|e| e.id == answer.id && !e.answer && e.direction != answer.direction && e.method.is_some())
    }

    /// Selects the request of the call whose JSON-RPC id is `id` (its latest, as a restarted
    /// server counts ids afresh), else the latest `tools/call` sent; the filter is cleared so
    /// that what surrounds it shows. False when there is none.
    pub fn select_call(&mut self, id: Option<&str>) -> bool {
        let sent_call =
            |e: &&TrafficEntry| e.direction == Direction::ClientToServer && e.method.as_deref() == Some("tools/call");
        let found = self
            .entries
            .iter()
            .rev()
            .filter(sent_call)
            .find(|e| id.is_none_or(|id| e.id.as_deref() == Some(id)))
            .or_else(|| self.entries.iter().rev().find(sent_call))
            .map(|e| e.seq);
        let Some(seq) = found else { return false };
        self.filter.clear();
        self.refilter();
        self.selected = Some(seq);
        self.message_scroll = 0;
        true
    }
}

/// The JSON-RPC id of a request, as JSON text, from the request body an exchange recorded.
fn request_id(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    value.get("id").filter(|id| !id.is_null()).map(serde_json::Value::to_string)
}

/// What went over the wire for the current call, answered or not.
fn current_exchange(app: &App) -> Option<&crate::invoke::Exchange> {
    let run = app.result.run()?;
    match run.state() {
        super::RunState::Done { exchange, .. } => Some(exchange),
        _ => run.failed_exchange(),
    }
}

impl App {
    /// Opens the traffic pane at the current call's request (the newest message without one),
    /// or closes it.
    pub(super) fn toggle_traffic(&mut self) {
        if self.shows(super::Overlay::Traffic) {
            self.close_overlay();
            return;
        }
        self.open_overlay(super::Overlay::Traffic);
        let id = current_exchange(self).and_then(|exchange| request_id(&exchange.request_body));
        if self.result.run().is_some() && self.server_pane_mut().traffic_mut().select_call(id.as_deref()) {
            return;
        }
        self.server_pane_mut().traffic_mut().follow();
        if self.server_pane_mut().traffic().is_empty() {
            self.tell("no MCP traffic yet (an Open Tool Calling server, or not connected)");
        }
    }
}

/// The traffic pane: the filter being typed takes the keys, else the pane's bindings; help is
/// the app's.
impl super::Component for TrafficLog {
    fn context(&self) -> Option<Context> {
        match self.hold.editor() {
            Some(_) => Some(Context::Held),
            None => (!self.filtering).then_some(Context::Traffic),
        }
    }

    fn handle(&mut self, input: super::Input, cx: &super::Cx) -> Option<Reply> {
        if self.hold.editor().is_some() {
            return self.held_key(input, cx);
        }
        let action = match input {
            super::Input::Key(key) if self.filtering => {
                self.filter_key(key);
                return Some(Reply::default());
            }
            super::Input::Action(action) => action,
            super::Input::Key(key) => return Some(super::component::dead_key_in(cx, Context::Traffic, key)),
            super::Input::Paste(_) => return None,
        };
        // The list's rows: the screen less the message below, borders and the status line.
        let page = (usize::from(cx.size.1) / 2).saturating_sub(3).max(1) as isize;
        Some(match action {
            Action::Back | Action::Traffic => Reply::close(),
            Action::Copy => match self.selected_entry() {
                Some(entry) => Reply::effect(Effect::Desktop(DesktopEffect::Copy(entry.shown_text())))
                    .with_status(format!("copied {}", entry.summary())),
                None => Reply::status("no message to copy"),
            },
            Action::Break => self.break_at_selected(),
            Action::ClearBreaks => self.clear_breaks(),
            // Enter opens a held message in the editor, a call in the form (another pane, so
            // the app's).
            Action::Activate => return self.reopen_selected(),
            Action::Help | Action::Quit => return None,
            action => {
                let _ = self.act(action, page);
                Reply::default()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoke::mcp::traffic::Traffic;
    use crate::wire::{Frame, Side};
    use serde_json::json;

    fn log_of(messages: &[(bool, serde_json::Value)]) -> TrafficLog {
        let traffic = Traffic::default();
        for (outgoing, value) in messages {
            traffic.frame(&Frame::of_value(if *outgoing { Side::Client } else { Side::Server }, value.clone()));
        }
        let mut log = TrafficLog::default();
        log.receive(traffic.since(0).0);
        log
    }

    fn session() -> TrafficLog {
        log_of(&[
            (true, json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})),
            (false, json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}})),
            (true, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            (true, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}})),
            (true, json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})),
            (true, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add"}})),
            (false, json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}})),
        ])
    }

    #[test]
    fn follows_the_newest_until_moved_and_filters_by_method_or_text() {
        let mut log = session();
        assert_eq!(log.len(), 7);
        assert_eq!(log.selected_entry().map(TrafficEntry::summary).as_deref(), Some("← tools/call #2 (result)"));
        log.move_by(-2);
        assert_eq!(
            log.selected_entry().map(TrafficEntry::summary).as_deref(),
            Some("→ notifications/cancelled (notification)")
        );
        log.filter.set("CANCEL");
        log.refilter();
        assert_eq!(log.shown_len(), 1);
        log.filter.set("cancelled\" ");
        log.refilter();
        log.filter.set("slow");
        log.refilter();
        assert_eq!(log.shown_len(), 1, "the text is searched, not only the method");
        assert_eq!(log.selected_entry().map(|e| e.seq), Some(3));
        log.filter.clear();
        log.refilter();
        assert_eq!(log.shown_len(), 7);
        let (rows, at) = log.window(3);
        assert_eq!((rows.len(), at), (3, Some(1)), "the selection sits mid-window");
    }

    #[test]
    fn a_call_is_found_by_its_id_else_the_latest_call() {
        let mut log = session();
        log.filter.set("initialize");
        log.refilter();
        assert!(log.select_call(Some("1")));
        assert_eq!(log.selected_entry().map(|e| e.seq), Some(3));
        assert_eq!(log.shown_len(), 7, "the filter is cleared to show what surrounds the call");
        assert!(log.select_call(Some("99")));
        assert_eq!(log.selected_entry().map(|e| e.seq), Some(5), "the latest call");
        assert!(!log_of(&[]).select_call(None));
    }

    #[test]
    fn stays_bounded_and_counts_what_it_let_go() {
        let traffic = Traffic::default();
        let frame = Frame::of_value(Side::Server, json!({"jsonrpc": "2.0", "method": "notifications/message"}));
        let mut log = TrafficLog::default();
        let mut seen = 0;
        for _ in 0..3 {
            for _ in 0..(MAX_ENTRIES / 2 + 7) {
                traffic.frame(&frame);
            }
            let (entries, _) = traffic.since(seen);
            seen = entries.last().map_or(seen, |e| e.seq + 1);
            log.receive(entries);
        }
        assert_eq!(log.len(), MAX_ENTRIES);
        assert_eq!(log.dropped(), 3 * (MAX_ENTRIES as u64 / 2 + 7) - MAX_ENTRIES as u64);
        assert_eq!(log.shown_len(), MAX_ENTRIES);
        let again = traffic.since(0).0;
        log.receive(again);
        assert_eq!(log.len(), MAX_ENTRIES, "entries held already are not taken twice");
    }

    #[test]
    fn request_ids_are_read_from_the_recorded_body() {
        assert_eq!(request_id("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\"}").as_deref(), Some("4"));
        assert_eq!(request_id("{\"id\":\"a\"}").as_deref(), Some("\"a\""));
        assert_eq!(request_id("not json"), None);
    }
}
