//! The server pane (`i`): what the MCP server said of itself in `initialize`, and what it says
//! besides answers: its stderr and its `notifications/message` log, live, in one ring of the last
//! [`MAX_LINES`] lines (at most [`MAX_BYTES`] of text, however much the server writes), with a
//! level filter; a changed tool list; how it went away. No I/O: the runtime brings the events
//! and carries out what the pane asks (list the tools again, `logging/setLevel`, reconnect).

use std::collections::VecDeque;

use super::keymap::Action;
use super::{Effect, Reply, ServerEffect};
use crate::invoke::mcp::events::ServerEvent;
use crate::invoke::mcp::info::ServerInfo;

/// MCP's log levels, least severe first (RFC 5424's, as MCP names them).
pub const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
/// Lines the log keeps.
pub const MAX_LINES: usize = 100_000;
/// Text the log keeps, in bytes (each line is also cut at 4 KiB where it is read).
pub const MAX_BYTES: usize = 12 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Stderr,
    /// A log entry of this level (an index into [`LEVELS`]).
    Log(u8),
    /// What tooldeck says about the server (it exited, the tools changed, lines skipped).
    Note,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    kind: LineKind,
    logger: Option<Box<str>>,
    /// As the server wrote it: made safe to draw where it is drawn.
    text: Box<str>,
}

impl LogLine {
    pub fn kind(&self) -> LineKind {
        self.kind
    }

    /// The logger a log entry names, if it does.
    pub fn logger(&self) -> Option<&str> {
        self.logger.as_deref()
    }

    /// As the server wrote it: made safe to draw where it is drawn.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn bytes(&self) -> usize {
        self.text.len() + self.logger.as_ref().map_or(0, |l| l.len())
    }
}

/// The last lines, bounded by count and by bytes; the oldest go first.
#[derive(Debug, Default)]
pub struct LogRing {
    lines: VecDeque<LogLine>,
    bytes: usize,
    /// Lines let go to stay within bounds.
    dropped: u64,
}

impl LogRing {
    pub fn push(&mut self, line: LogLine) {
        self.bytes += line.bytes();
        self.lines.push_back(line);
        while self.lines.len() > MAX_LINES || (self.bytes > MAX_BYTES && self.lines.len() > 1) {
            if let Some(old) = self.lines.pop_front() {
                self.bytes -= old.bytes();
                self.dropped += 1;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Bytes of text held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Lines let go to stay within bounds.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &LogLine> {
        self.lines.iter()
    }
}

/// The server pane: what the server said of itself, its log, the session's traffic. Its fields
/// are private: read through the getters below, changed only through its methods.
#[derive(Debug, Default)]
pub struct ServerPane {
    /// What the server said of itself (`info()`).
    info: Option<ServerInfo>,
    log: LogRing,
    /// Log entries below this level (an index into [`LEVELS`]) are hidden; stderr always shows.
    min_level: usize,
    /// Shown lines scrolled back from the newest; 0 follows the log as it grows.
    scroll: usize,
    /// Why the server is gone, until it is reconnected.
    gone: Option<String>,
    /// The last height the log was drawn at, for paging (the view sets it; a guess before).
    page: usize,
    /// The level last asked of the server with `logging/setLevel`: asked again of a new session
    /// or a restarted server, which start from their own default.
    asked_level: Option<String>,
    /// Every message of the session, for the traffic pane.
    traffic: super::traffic::TrafficLog,
}

impl ServerPane {
    /// The server's stderr, log and tooldeck's notes about it.
    pub fn log(&self) -> &LogRing {
        &self.log
    }

    /// Log entries below this level (an index into [`LEVELS`]) are hidden; stderr always shows.
    pub fn min_level(&self) -> usize {
        self.min_level
    }

    /// Shown lines scrolled back from the newest; 0 follows the log as it grows.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Why the server is gone, until it is reconnected.
    pub fn gone(&self) -> Option<&str> {
        self.gone.as_deref()
    }

    /// The level last asked of the server with `logging/setLevel`.
    pub fn asked_level(&self) -> Option<&str> {
        self.asked_level.as_deref()
    }

    /// Every message of the session, for the traffic pane.
    pub fn traffic(&self) -> &super::traffic::TrafficLog {
        &self.traffic
    }

    /// The traffic pane, to act on: a component of its own (its fields private, changed only
    /// by its methods), held here because each server has its own session.
    pub fn traffic_mut(&mut self) -> &mut super::traffic::TrafficLog {
        &mut self.traffic
    }

    /// True when `line` passes the level filter.
    pub fn shows(&self, line: &LogLine) -> bool {
        match line.kind {
            LineKind::Log(level) => usize::from(level) >= self.min_level,
            LineKind::Stderr | LineKind::Note => true,
        }
    }

    /// The `height` shown lines that end `scroll` lines back from the newest, oldest first.
    pub fn window(&self, height: usize) -> Vec<&LogLine> {
        let take = |skip: usize| -> Vec<&LogLine> {
            let mut window: Vec<&LogLine> =
                self.log.iter().rev().filter(|l| self.shows(l)).skip(skip).take(height).collect();
            window.reverse();
            window
        };
        let window = take(self.scroll);
        if window.len() < height && self.scroll > 0 {
            // Scrolled back to the oldest: the window is still full, the oldest at its top.
            return take(self.shown_count().saturating_sub(height));
        }
        window
    }

    fn shown_count(&self) -> usize {
        if self.min_level == 0 {
            return self.log.len();
        }
        self.log.iter().filter(|l| self.shows(l)).count()
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.push(LogLine { kind: LineKind::Note, logger: None, text: text.into().into_boxed_str() });
    }

    fn push(&mut self, line: LogLine) {
        // Scrolled back, the view stays where it is while lines arrive below it.
        if self.scroll > 0 && self.shows(&line) {
            self.scroll += 1;
        }
        self.log.push(line);
    }

    /// The events the server sent (as the runtime collected them). `reconnect_key` names the
    /// key that reconnects, for the status line.
    pub fn events(&mut self, events: Vec<ServerEvent>, reconnect_key: &str) -> Reply {
        let mut reply = Reply::default();
        for event in events {
            match event {
                ServerEvent::Stderr(text) => {
                    self.push(LogLine { kind: LineKind::Stderr, logger: None, text: text.into_boxed_str() })
                }
                ServerEvent::Log { level, logger, text } => {
                    let level = LEVELS.iter().position(|l| *l == level).unwrap_or(1) as u8;
                    let logger = logger.map(String::into_boxed_str);
                    self.push(LogLine { kind: LineKind::Log(level), logger, text: text.into_boxed_str() });
                }
                ServerEvent::ToolsChanged => {
                    self.note("the server's tool list changed: listing its tools again");
                    if !reply.effects.contains(&Effect::Server(ServerEffect::ListTools)) {
                        reply.effects.push(Effect::Server(ServerEffect::ListTools));
                    }
                    reply.status = Some("the server's tools changed: listing them again".into());
                }
                ServerEvent::Exited { how, last_lines } => {
                    let mut said = format!("the server {how}");
                    if let Some(lines) = crate::invoke::mcp::events::describe_lines(&last_lines) {
                        said.push_str(&format!("; {lines}"));
                    }
                    self.note(said.clone());
                    reply.status = Some(format!("the server {how}: {reconnect_key} starts it again"));
                    self.gone = Some(said);
                }
                ServerEvent::Lost(why) => {
                    self.note(why.clone());
                    reply.status = Some(format!("{why}: {reconnect_key} reconnects"));
                    self.gone = Some(why);
                }
                ServerEvent::Note(text) => self.note(text),
                ServerEvent::ResourceUpdated { uri, .. } => self.note(format!("resource updated: {uri}")),
                ServerEvent::ResourcesChanged | ServerEvent::PromptsChanged => {
                    self.note("the server's resource or prompt list changed: listing them again");
                    if !reply.effects.contains(&Effect::Server(ServerEffect::ListFaces)) {
                        reply.effects.push(Effect::Server(ServerEffect::ListFaces));
                    }
                }
                ServerEvent::Skipped(n) => self.note(format!(
                    "… {} skipped: they came faster than they could be shown",
                    crate::text::plural(n as usize, "line")
                )),
            }
        }
        reply
    }

    /// A key in the pane (scrolling, the level filter). `logging`: the server offers it, so a
    /// new level is also asked of it.
    pub fn act(&mut self, action: Action) -> Reply {
        let page = self.page.max(1);
        // Back no further than where the oldest line tops the window (about a page).
        let last = self.shown_count().saturating_sub(page);
        match action {
            Action::Up => self.scroll = (self.scroll + 1).min(last),
            Action::Down => self.scroll = self.scroll.saturating_sub(1),
            Action::PageUp => self.scroll = (self.scroll + page).min(last),
            Action::PageDown => self.scroll = self.scroll.saturating_sub(page),
            Action::Top => self.scroll = last,
            Action::Bottom => self.scroll = 0,
            Action::LogLevel => return self.next_level(),
            _ => {}
        }
        Reply::default()
    }

    /// Enter: the server's instructions, whole, to read at any size (the pane shows their start).
    pub fn instructions(&self) -> Reply {
        match self.info.as_ref().and_then(|i| i.instructions.clone()) {
            Some(text) => {
                Reply::popup(super::Popup::Text { title: "the server's instructions".into(), text, scroll: 0 })
            }
            None => Reply::status("the server gave no instructions"),
        }
    }

    fn next_level(&mut self) -> Reply {
        self.min_level = (self.min_level + 1) % LEVELS.len();
        self.scroll = 0;
        let level = LEVELS[self.min_level];
        let shown = if self.min_level == 0 { "every level".to_string() } else { format!("{level} and above") };
        if self.info.as_ref().is_some_and(|i| i.logging) {
            self.asked_level = Some(level.to_string());
            Reply::effect(Effect::Server(ServerEffect::SetLogLevel(level.to_string())))
                .with_status(format!("log: {shown} (asked the server with logging/setLevel)"))
        } else {
            Reply::status(format!("log: {shown} (the server does not offer logging/setLevel)"))
        }
    }

    /// The server was started again, or a new session opened.
    /// The server is back; returns the log level to ask of it again, if one was asked before.
    /// What the server said of itself, once it has.
    pub fn info(&self) -> Option<&ServerInfo> {
        self.info.as_ref()
    }

    /// The server introduced itself (its name, version, instructions, capabilities).
    pub fn introduced(&mut self, info: ServerInfo) {
        self.info = Some(info);
    }

    /// The pane is drawn on a screen `height` rows tall: its log pages by what fits (the screen
    /// less the pane's header, borders and status line).
    pub fn fit(&mut self, height: u16) {
        self.page = usize::from(height).saturating_sub(16).max(1);
    }

    pub fn reconnected(&mut self, info: Option<ServerInfo>) -> Option<Effect> {
        self.gone = None;
        if info.is_some() {
            self.info = info;
        }
        self.note("reconnected");
        self.asked_level.clone().map(|level| Effect::Server(ServerEffect::SetLogLevel(level)))
    }
}

/// The server pane: its keys scroll the log and step the level filter; Enter shows the
/// server's instructions, Back closes the pane. Reconnecting, connecting another server and
/// help are the app's.
impl super::Component for ServerPane {
    fn context(&self) -> Option<super::Context> {
        Some(super::Context::Server)
    }

    fn handle(&mut self, input: super::Input, cx: &super::Cx) -> Option<Reply> {
        // The log's rows: the screen less the pane's header, borders and status line.
        self.fit(cx.size.1);
        let action = match input {
            super::Input::Action(action) => action,
            // A key the pane does not bind does nothing here, and says so.
            super::Input::Key(key) => return Some(super::component::dead_key_in(cx, super::Context::Server, key)),
            super::Input::Paste(_) => return None,
        };
        match action {
            Action::Back => Some(Reply::close()),
            Action::Reconnect | Action::ConnectServer | Action::Help | Action::Quit => None,
            Action::Activate => Some(self.instructions()),
            action => Some(self.act(action)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(level: &str, text: &str) -> ServerEvent {
        ServerEvent::Log { level: level.into(), logger: Some("db".into()), text: text.into() }
    }

    #[test]
    fn the_ring_is_bounded_by_lines_and_bytes() {
        let mut pane = ServerPane::default();
        let events: Vec<ServerEvent> = (0..MAX_LINES + 10).map(|i| ServerEvent::Stderr(i.to_string())).collect();
        let _ = pane.events(events, "R");
        assert_eq!(pane.log.len(), MAX_LINES);
        assert_eq!(pane.log.dropped, 10);
        assert_eq!(&*pane.window(1)[0].text, (MAX_LINES + 9).to_string());
        let big = "x".repeat(4096);
        let _ = pane.events((0..MAX_LINES).map(|_| ServerEvent::Stderr(big.clone())).collect(), "R");
        assert!(pane.log.bytes() <= MAX_BYTES, "{}", pane.log.bytes());
    }

    #[test]
    fn the_level_filter_hides_lower_levels_and_asks_the_server() {
        let mut pane = ServerPane::default();
        let _ = pane.events(vec![log("debug", "d"), log("error", "e"), ServerEvent::Stderr("s".into())], "R");
        assert_eq!(pane.window(10).len(), 3);
        pane.info = Some(ServerInfo { logging: true, ..ServerInfo::default() });
        for _ in 0..3 {
            let _ = pane.act(Action::LogLevel);
        }
        let reply = pane.act(Action::LogLevel);
        assert_eq!(reply.effects, [Effect::Server(ServerEffect::SetLogLevel("error".into()))]);
        let texts: Vec<&str> = pane.window(10).iter().map(|l| &*l.text).collect();
        assert_eq!(texts, ["e", "s"], "stderr has no level: it always shows");
        // A restarted server (or a new session) starts from its own level: it is asked again.
        assert_eq!(pane.reconnected(None), Some(Effect::Server(ServerEffect::SetLogLevel("error".into()))));
        assert_eq!(ServerPane::default().reconnected(None), None, "nothing asked, nothing sent");
    }

    #[test]
    fn scrolled_back_the_view_stays_while_lines_arrive() {
        let mut pane = ServerPane::default();
        let _ = pane.events((0..10).map(|i| ServerEvent::Stderr(i.to_string())).collect(), "R");
        let _ = pane.act(Action::Up);
        let _ = pane.act(Action::Up);
        assert_eq!(&*pane.window(1)[0].text, "7");
        let _ = pane.events(vec![ServerEvent::Stderr("10".into())], "R");
        assert_eq!(&*pane.window(1)[0].text, "7");
        let _ = pane.act(Action::Bottom);
        assert_eq!(&*pane.window(1)[0].text, "10");
        // At the oldest the window is full, the oldest line at its top.
        let _ = pane.act(Action::Top);
        let texts: Vec<&str> = pane.window(3).iter().map(|l| &*l.text).collect();
        assert_eq!(texts, ["0", "1", "2"]);
    }

    #[test]
    fn a_death_and_a_list_change_are_said() {
        let mut pane = ServerPane::default();
        let reply = pane.events(vec![ServerEvent::ToolsChanged], "R");
        assert_eq!(reply.effects, [Effect::Server(ServerEffect::ListTools)]);
        let died = ServerEvent::Exited { how: "exited with code 1".into(), last_lines: vec!["Error: boom".into()] };
        let reply = pane.events(vec![died], "R");
        assert_eq!(reply.status.as_deref(), Some("the server exited with code 1: R starts it again"));
        assert!(pane.gone.as_deref().unwrap().contains("\n  Error: boom"));
        pane.reconnected(None);
        assert!(pane.gone.is_none());
    }
}
