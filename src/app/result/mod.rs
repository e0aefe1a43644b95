//! The result pane: the current (or last) call of a tool, and how the user looks at what came
//! back: scrolled, as a foldable value, as the exact exchange, searched; an artifact fetched.
//! Running a call starts here (`send`); results of calls no longer current are dropped.

mod answer;
mod artifact;
pub mod content;
mod keys;
mod read;
pub mod value_view;

use serde_json::Value;

use crate::app::{Action, DesktopEffect, Effect, Popup, Reply, ServerEffect, TaskEffect};
use crate::form::TextInput;
use crate::invoke::CallRequest;
use crate::invoke::replay::Replay;
use crate::invoke::{Exchange, Outcome, Status};
pub use answer::Answer;
use value_view::{ValueLines, ValueView};

/// How often `w` asks again while the user authorizes.
pub const RETRY_EVERY_MS: u64 = 3000;

/// The result pane: the last call and how it is looked at. Its fields are private: the screen
/// reads them through the getters in `read.rs`, and they change only through its methods.
#[derive(Debug, Default)]
pub struct ResultPane {
    /// The last call, shown below the form.
    run: Option<Run>,
    next_run_id: u64,
    /// First visible line of the pane (outside the value viewer).
    scroll: usize,
    /// Cursor, window and folds of the value viewer.
    value_view: ValueView,
    /// The pane shows the exact request and response instead of the outcome.
    show_exchange: bool,
    /// The last text searched for (`n` finds the next).
    search: String,
    /// Retrying every few seconds until the authorization prompt goes away (`w`).
    waiting_for_authorization: bool,
    /// The artifact being fetched or shown (for an MCP result, the preview of one of its items).
    artifact: Option<ArtifactView>,
    /// The content item of an MCP result that `f` and `s` act on.
    item: usize,
    /// Long lines run off the pane's edge (scrolled sideways) instead of wrapping.
    unwrapped: bool,
    /// How far the lines are scrolled sideways while unwrapped.
    column: usize,
}

/// An artifact fetched with `f`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactView {
    url: String,
    declared_size: Option<u64>,
    received: u64,
    total: Option<u64>,
    state: ArtifactState,
    /// The content item previewed (an MCP result's); `None`: the outcome's artifact.
    item: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ArtifactState {
    Fetching,
    Ready {
        lines: Vec<String>,
        bytes: std::sync::Arc<Vec<u8>>,
        /// A picture of an image artifact.
        image: Option<crate::invoke::thumbnail::Thumbnail>,
        /// Only the first 16 MiB came (for the preview): saving downloads it again, whole.
        cut_off: bool,
        /// Content that came inline, whole: what a save writes when the preview was cut off.
        whole: Option<crate::invoke::mcp::content::Inline>,
    },
    Failed(String),
}

/// The current (or last) call of the selected tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    id: u64,
    tool_id: String,
    request: CallRequest,
    elapsed_ms: u64,
    /// The server's last progress report, while it runs.
    progress: Option<crate::invoke::Progress>,
    state: RunState,
    /// What went over the wire when the call got no answer (MCP), for `x`.
    failed_exchange: Option<Box<Exchange>>,
    /// What the person answered to the server's questions during the call.
    answers: Vec<crate::invoke::mcp::asks::AskReply>,
    /// The server the call went to, as its session is labelled: the result keeps naming it
    /// when another server's tool is selected.
    server: String,
}

/// Which entry of the list a run is of, and the server it goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The tool's id in the catalog (a request carries the name the server knows it by).
    pub tool_id: String,
    /// The session's label.
    pub server: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    Running,
    Done {
        outcome: Box<Outcome>,
        exchange: Box<Exchange>,
        /// The value pretty-printed once, line by line: a large value must not be formatted
        /// again on every frame.
        value_lines: ValueLines,
    },
    /// No answer at all: connection refused, timeout...
    Failed {
        error: String,
        kind: crate::app::failure::FailureKind,
    },
    Cancelled,
}

impl ResultPane {
    pub fn running(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.state == RunState::Running)
    }

    /// Sends `request` as a new run, cancelling the one still in flight.
    pub fn send(&mut self, request: CallRequest, output_schema: Option<Value>, to: Target) -> Vec<Effect> {
        let (id, mut effects) = self.start(&request, to);
        effects.push(Effect::Server(ServerEffect::Invoke { id, request, output_schema }));
        effects
    }

    /// A run of a resource, template or prompt (`request` is what the form held): a read or a
    /// get goes out instead of a call.
    pub fn send_face(&mut self, request: CallRequest, face: crate::app::faces::FaceRequest, to: Target) -> Vec<Effect> {
        let (id, mut effects) = self.start(&request, to);
        effects.push(Effect::Server(ServerEffect::Face { id, call_id: request.call_id, request: face }));
        effects
    }

    /// A new run of `request` on screen; its id, and the cancel of the run it replaces.
    fn start(&mut self, request: &CallRequest, to: Target) -> (u64, Vec<Effect>) {
        let mut effects = Vec::new();
        if let Some(Run { id, state: RunState::Running, .. }) = &self.run {
            effects.push(Effect::Task(TaskEffect::Cancel { id: *id }));
        }
        self.next_run_id += 1;
        let id = self.next_run_id;
        self.scroll = 0;
        self.value_view = ValueView::default();
        self.artifact = None;
        self.item = 0;
        // The exchange view is this call's: a new call shows its outcome first.
        self.show_exchange = false;
        self.column = 0;
        self.run = Some(Run {
            id,
            tool_id: to.tool_id,
            server: to.server,
            request: request.clone(),
            elapsed_ms: 0,
            progress: None,
            state: RunState::Running,
            failed_exchange: None,
            answers: Vec::new(),
        });
        (id, effects)
    }

    /// The tool and arguments of the last call, to send again.
    pub fn last_call(&self) -> Option<(String, Value)> {
        self.run.as_ref().map(|run| (run.tool_id.clone(), run.request.arguments.clone()))
    }

    pub fn cancel(&mut self) -> Vec<Effect> {
        match &mut self.run {
            Some(run) if run.state == RunState::Running => {
                run.state = RunState::Cancelled;
                vec![Effect::Task(TaskEffect::Cancel { id: run.id })]
            }
            _ => Vec::new(),
        }
    }

    pub fn progress(&mut self, id: u64, progress: crate::invoke::Progress) {
        if let Some(run) = self.run.as_mut().filter(|r| r.id == id && r.state == RunState::Running) {
            run.progress = Some(progress);
        }
    }

    pub fn tick(&mut self, elapsed_ms: u64) {
        if let Some(run) = self.run.as_mut().filter(|r| r.state == RunState::Running) {
            run.elapsed_ms = elapsed_ms;
        }
    }

    /// What went over the wire for call `id`, which got no answer.
    pub fn failed_exchange(&mut self, id: u64, exchange: Box<Exchange>) {
        if let Some(run) = self.run.as_mut().filter(|r| r.id == id) {
            run.failed_exchange = Some(exchange);
        }
    }

    /// Call `id` came back: it is shown, and returned as a history entry (made against the
    /// run's server) with what to do next (ask again while waiting for authorization). A stale
    /// answer is dropped: `None`.
    pub fn done(
        &mut self,
        id: u64,
        result: Result<Box<Answer>, crate::app::failure::CallFailure>,
    ) -> Option<(crate::history::PastCall, Vec<Effect>)> {
        let run = self.run.as_mut().filter(|r| r.id == id && r.state == RunState::Running)?;
        let mut at = String::new();
        run.state = match result {
            Ok(answer) => {
                let Answer { outcome, exchange, value_lines, at: came } = *answer;
                at = came;
                run.elapsed_ms = outcome.duration_ms.max(exchange.duration_ms);
                RunState::Done { outcome: Box::new(outcome), exchange: Box::new(exchange), value_lines }
            }
            Err(failure) => RunState::Failed { error: failure.message, kind: failure.kind },
        };
        let (outcome, call_id, http_status) = match &run.state {
            RunState::Done { outcome, exchange, .. } => {
                (outcome.status.name().to_string(), outcome.call_id.clone(), exchange.status)
            }
            _ => ("no_answer".to_string(), run.request.call_id.clone(), None),
        };
        let entry = crate::history::PastCall {
            at,
            tool: run.tool_id.clone(),
            arguments: run.request.arguments.clone(),
            endpoint: run.server.clone(),
            outcome,
            duration_ms: run.elapsed_ms,
            call_id,
            http_status,
        };
        let mut effects = self.answer_items();
        // Waiting for the user to finish authorizing in the browser: ask again in a moment.
        if self.waiting_for_authorization {
            if self.asks_authorization() {
                effects.push(Effect::Task(TaskEffect::RetryAfter { id, ms: RETRY_EVERY_MS }));
            } else {
                self.waiting_for_authorization = false;
            }
        }
        Some((entry, effects))
    }

    fn outcome(&self) -> Option<&Outcome> {
        match self.run.as_ref().map(|r| &r.state) {
            Some(RunState::Done { outcome, .. }) => Some(outcome),
            _ => None,
        }
    }

    /// The result is an authorization prompt.
    pub fn asks_authorization(&self) -> bool {
        self.outcome().is_some_and(|o| o.status == Status::RequiresAuthorization)
    }

    /// `w` on an authorization prompt: retry every few seconds until it is granted (or `w`
    /// again).
    pub fn toggle_waiting(&mut self) -> Reply {
        let asking = self.asks_authorization();
        if self.waiting_for_authorization || !asking {
            self.waiting_for_authorization = false;
            return Reply::status(if asking {
                "stopped waiting"
            } else {
                "{key:wait_for_authorization} waits on an authorization prompt"
            });
        }
        self.waiting_for_authorization = true;
        let id = self.run.as_ref().map_or(0, |r| r.id);
        Reply::effect(Effect::Task(TaskEffect::RetryAfter { id, ms: RETRY_EVERY_MS }))
            .with_status(format!("asking again every {} s until authorized (w stops)", RETRY_EVERY_MS / 1000))
    }

    /// A scheduled retry is due: only if still waiting and nothing newer was run meanwhile.
    pub fn retry_due(&self, id: u64) -> bool {
        let current = self.run.as_ref().is_some_and(|r| r.id == id && r.state != RunState::Running);
        self.waiting_for_authorization && current
    }

    /// The provider the authorization prompt wants a token for (`fallback` when it names
    /// none); `None` when the result is no such prompt.
    pub fn token_provider(&self, fallback: impl FnOnce() -> Option<String>) -> Option<String> {
        let outcome = self.outcome().filter(|o| o.status == Status::RequiresAuthorization)?;
        Some(
            outcome
                .authorization
                .as_ref()
                .and_then(|a| a.provider.clone())
                .or_else(fallback)
                .unwrap_or_else(|| "default".to_string()),
        )
    }

    /// The pane shows a value (in the foldable viewer); an MCP result lists its items instead.
    pub fn shows_value(&self) -> bool {
        !self.show_exchange && self.outcome().is_some_and(|o| o.status == Status::Value && o.content.is_empty())
    }

    fn value_lines(&self) -> Option<&ValueLines> {
        match self.run.as_ref().map(|r| &r.state) {
            Some(RunState::Done { value_lines, .. }) => Some(value_lines),
            _ => None,
        }
    }

    /// Enter on a string in the value: the string as text, its lines as they are.
    pub fn string_as_text(&self) -> Option<Popup> {
        let (key, text) = self.value_lines()?.string_at(self.value_view.cursor)?;
        let title = key.map_or_else(|| "the string".to_string(), |k| format!("\"{k}\""));
        Some(Popup::Text { title, text, scroll: 0 })
    }

    /// A value-viewer action (moving, folding) over `height` lines; false when it is none.
    pub fn value_action(&mut self, action: Action, height: usize) -> bool {
        if !self.shows_value() {
            return false;
        }
        let Some(RunState::Done { value_lines: lines, .. }) = self.run.as_ref().map(|r| &r.state) else {
            return false;
        };
        let view = &mut self.value_view;
        match action {
            Action::Up => view.move_by(lines, -1, height),
            Action::Down => view.move_by(lines, 1, height),
            Action::PageUp => view.move_by(lines, -(height as isize), height),
            Action::PageDown => view.move_by(lines, height as isize, height),
            Action::Top => view.to_top(),
            Action::Bottom => view.to_bottom(lines, height),
            Action::Collapse => view.fold(lines, height),
            Action::Expand => view.unfold(view.cursor),
            Action::Activate => view.toggle(lines, height),
            Action::FoldAll => view.fold_all(lines),
            Action::UnfoldAll => view.unfold_all(),
            _ => return false,
        }
        true
    }

    /// Scrolling the pane outside the value viewer (`width` columns wide); false when `action`
    /// is no scroll. The pane draws at most to its last line, so scrolling stops near there.
    pub fn scroll_action(&mut self, action: Action, width: usize) -> bool {
        let limit = self.line_estimate(width.max(1));
        match action {
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Down => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(10),
            Action::PageDown => self.scroll += 10,
            Action::Top => self.scroll = 0,
            Action::Bottom => self.scroll = limit,
            Action::ScrollLeft => self.column = self.column.saturating_sub(width.max(2) / 2),
            // The value viewer never wraps (its lines fold instead): it always scrolls sideways.
            Action::ScrollRight if self.unwrapped || self.shows_value() => self.column += width.max(2) / 2,
            Action::ScrollRight => {}
            _ => return false,
        }
        self.scroll = self.scroll.min(limit);
        true
    }

    /// At least as many lines as the pane has to show at `width` (wrapped): the bound of its
    /// scrolling. Counted from the texts it draws, not the drawn lines, so it errs high.
    fn line_estimate(&self, width: usize) -> usize {
        let wrapped = |text: &str| -> usize {
            text.lines().map(|l| if self.unwrapped { 1 } else { crate::text::width(l) / width + 1 }).sum()
        };
        let Some(run) = &self.run else { return 0 };
        let exchange_lines = |exchange: &Exchange| {
            let request = crate::form::value::pretty(&exchange.request_json()["body"]);
            wrapped(&request)
                + wrapped(&exchange.response_body)
                + exchange.request_headers.len()
                + exchange.response_headers.len()
                + exchange.during.len() * 2
                + 8
        };
        match &run.state {
            RunState::Done { exchange, outcome, .. } => {
                if self.show_exchange {
                    exchange_lines(exchange)
                } else {
                    let error = outcome.error.as_ref().map_or(0, |e| {
                        wrapped(&e.message)
                            + e.developer_message.as_deref().map_or(0, wrapped)
                            + e.additional_prompt_content.as_deref().map_or(0, wrapped)
                            + e.parameter_errors.len()
                    });
                    let warnings: usize = outcome.warnings.iter().map(|w| wrapped(w)).sum();
                    let artifact = self.artifact.as_ref().map_or(0, |a| match &a.state {
                        ArtifactState::Ready { lines, image, .. } => {
                            lines.iter().map(|l| wrapped(l)).sum::<usize>() + image.as_ref().map_or(0, |i| i.height / 2)
                        }
                        _ => 3,
                    });
                    error + warnings + artifact + outcome.artifacts.len() * 4 + 12
                }
            }
            // A failed call keeps what went over the wire (MCP): `x` shows it.
            RunState::Failed { .. } if self.show_exchange && run.failed_exchange.is_some() => {
                run.failed_exchange.as_deref().map_or(3, exchange_lines)
            }
            RunState::Failed { error, .. } => wrapped(error) + 3,
            _ => 3,
        }
    }

    pub fn toggle_exchange(&mut self) {
        self.show_exchange = !self.show_exchange;
        self.scroll = 0;
        self.column = 0;
    }

    /// An action on what the pane shows, done by the pane alone (`endpoint` and the `protocol`
    /// agreed go into the command `c` copies); `None` when `action` needs more than the pane.
    pub fn act(&mut self, action: Action, endpoint: &str, protocol: Option<&str>) -> Option<Reply> {
        Some(match action {
            Action::ToggleExchange => {
                self.toggle_exchange();
                Reply::default()
            }
            Action::ToggleWrap => {
                self.toggle_wrap();
                Reply::default()
            }
            Action::Find => Reply::popup(self.ask_search()),
            Action::CopyCurl => self.copy_curl(endpoint, protocol),
            Action::FetchArtifact => self.fetch_artifact(),
            Action::WaitForAuthorization => self.toggle_waiting(),
            Action::SaveArtifact => self.ask_where_to_save(),
            Action::OpenLink => self.open_link(),
            _ => return None,
        })
    }

    /// Long lines run off the pane's edge (scrolled sideways) instead of wrapping.
    pub fn unwrapped(&self) -> bool {
        self.unwrapped
    }

    /// How far the lines are scrolled sideways while unwrapped.
    pub fn column(&self) -> usize {
        self.column
    }

    /// Long lines wrap, or run off the edge to be scrolled sideways; either way from column 0.
    pub fn toggle_wrap(&mut self) {
        self.unwrapped = !self.unwrapped;
        self.column = 0;
    }

    /// What `n` finds from now on.
    pub fn search_for(&mut self, text: String) {
        self.search = text;
    }

    /// The answers the person gave the server's questions during run `id`, kept with it so a
    /// case saved from it replays them.
    pub fn keep_answers(&mut self, id: u64, answers: Vec<crate::invoke::mcp::asks::AskReply>) {
        if let Some(run) = self.run.as_mut().filter(|run| run.id == id) {
            run.answers = answers;
        }
    }

    /// `/`: what to find, starting from the last search.
    pub fn ask_search(&self) -> Popup {
        Popup::Search { input: TextInput::prefilled(self.search.clone()) }
    }

    /// Moves the value viewer (`height` lines) to the next line after the cursor holding the
    /// search text; what happened, for the status bar.
    pub fn find_next(&mut self, height: usize) -> Option<String> {
        let needle = self.search.to_lowercase();
        if needle.is_empty() {
            return None;
        }
        let value_lines = self.value_lines()?;
        let from = self.value_view.cursor + 1;
        let found = value_lines
            .lines()
            .iter()
            .enumerate()
            .skip(from)
            .chain(value_lines.lines().iter().enumerate().take(from))
            .find(|(_, line)| line.to_lowercase().contains(&needle))
            .map(|(i, _)| i);
        let Some(i) = found else { return Some(format!("\"{}\" is not in the value", self.search)) };
        let Some(RunState::Done { value_lines, .. }) = self.run.as_ref().map(|r| &r.state) else { return None };
        self.value_view.reveal(value_lines, i, height);
        Some(format!("\"{}\" on line {} · n finds the next", self.search, i + 1))
    }

    /// `y`: the text on screen: the exchange's response body, an error's message (and its
    /// developer message), the value as JSON, else the link.
    pub fn copy_link_or_value(&self) -> Reply {
        let copied = |text: String, what: &str| {
            let size = crate::text::human_bytes(text.len() as u64);
            Reply::effect(Effect::Desktop(DesktopEffect::Copy(text)))
                .with_status(format!("{what} is on the clipboard ({size})"))
        };
        match self.run.as_ref().map(|r| &r.state) {
            Some(RunState::Failed { error, .. }) => return copied(error.clone(), "why there was no answer"),
            Some(RunState::Done { exchange, .. }) if self.show_exchange => {
                return copied(exchange.response_body.clone(), "the response body");
            }
            _ => {}
        }
        if let Some(error) = self.outcome().and_then(|o| o.error.as_ref()) {
            let mut text = error.message.clone();
            if let Some(developer) = &error.developer_message {
                text.push_str("\n\n");
                text.push_str(developer);
            }
            return copied(text, "the error message");
        }
        let value = self
            .outcome()
            .filter(|o| o.authorization.is_none() && o.artifacts.is_empty())
            .and_then(|o| o.value.as_ref().map(crate::form::value::pretty));
        if let Some(value) = value {
            return copied(value, "the value");
        }
        self.link_then(|link| Effect::Desktop(DesktopEffect::Copy(link)))
    }

    /// `o`: the link opened.
    pub fn open_link(&self) -> Reply {
        self.link_then(|link| Effect::Desktop(DesktopEffect::Open(link)))
    }

    /// `effect` on the URL the result points at (the authorization page, else the first
    /// artifact, else the selected item's resource), only for a web link: a server must not make us launch something else.
    fn link_then(&self, effect: fn(String) -> Effect) -> Reply {
        let url = self.outcome().and_then(|outcome| {
            outcome
                .authorization
                .as_ref()
                .and_then(|a| a.url.clone())
                .or_else(|| outcome.artifacts.first().map(|a| a.url.clone()))
                .or_else(|| outcome.content.get(self.item).and_then(|i| i.uri()).map(str::to_string))
        });
        match url {
            Some(u) if crate::invoke::http::is_web_link(&u) => {
                let shown = crate::text::visible(&crate::redact::url(&u)).into_owned();
                Reply::effect(effect(u)).with_status(shown)
            }
            Some(u) => Reply::status(format!(
                "not an http(s) link, left alone: {}",
                crate::text::visible(&crate::redact::url(&u))
            )),
            None => Reply::status("this result has no link"),
        }
    }

    /// `c`: the request as a curl command, token masked.
    /// `protocol`: the revision the server agreed to, which a stdio pipeline asks for again.
    pub fn copy_curl(&self, endpoint: &str, protocol: Option<&str>) -> Reply {
        let Some(run) = &self.run else { return Reply::default() };
        // An MCP call: curl for the same live session, or a pipeline into the stdio server.
        let (exchange, agreed) = match &run.state {
            RunState::Done { exchange, outcome, .. } => (Some(&**exchange), outcome.protocol.as_deref()),
            _ => (run.failed_exchange.as_deref(), None),
        };
        // Where an OTC call goes before anything went out: the server's call path is in the
        // exchange once the call was sent, answered or not.
        let base = endpoint.rsplit(' ').next().unwrap_or_default();
        let fallback = format!("{base}{}", crate::invoke::endpoint::DEFAULT_CALL_PATH);
        let (command, status) =
            match crate::invoke::replay::replay(exchange, &run.request, &fallback, agreed.or(protocol)) {
                Replay::McpCurl(c) => (c, "the MCP call is on the clipboard as a curl command (token masked)"),
                Replay::McpPipeline(c) => (c, "the MCP call is on the clipboard as a shell pipeline (token masked)"),
                Replay::OtcCurl(c) => (c, "the request is on the clipboard as a curl command (token masked)"),
            };
        Reply::effect(Effect::Desktop(DesktopEffect::Copy(command))).with_status(status)
    }
}
