//! Everything that can happen to the app, as nested enums by the part of the app that takes
//! it: `update` matches [`Msg`] with no wildcard, and each group's function matches its own
//! enum with none either, so a new variant does not compile until someone handles it.

use crate::catalog::{Diagnostic, SessionId, Tool};

use super::{Answer, CallFailure, EffectError};

/// Everything that can happen to the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// What the person does, and the clock that ages the status line.
    Input(InputMsg),
    /// A call on its way and its outcome.
    Call(CallMsg),
    /// A result's content: an artifact downloaded, an item decoded, a resource read.
    Content(ContentMsg),
    /// Saving: an artifact written, a test case appended.
    Save(SaveMsg),
    /// What a server says of itself: its name, tools, protocol, events, traffic, questions.
    Server(ServerMsg),
    /// Signing in to a server (OAuth).
    SignIn(SignInMsg),
    /// What slow work brought back: the catalog, checkers, lint findings, the history.
    Load(LoadMsg),
    /// A server's resources, templates and prompts, suggestions and subscriptions.
    Face(FaceMsg),
    /// A fuzz run's progress and report.
    Fuzz(FuzzMsg),
    /// An eval run's progress and report.
    Eval(EvalMsg),
    /// A line for the status bar from the runtime.
    Status(String),
    /// `--watch`: files changed (what changed, in a few words, and the time of day it was
    /// seen, `12:01:03`); every server is started again.
    FilesChanged { summary: String, at: String },
    /// A message from one server session (without it, a server's message is the current
    /// session's).
    Session { id: SessionId, msg: Box<Msg> },
}

/// What the person does: keys, pastes, the mouse, the terminal's size; and the clock.
#[derive(Debug, Clone, PartialEq)]
pub enum InputMsg {
    Key(crossterm::event::KeyEvent),
    Mouse(crossterm::event::MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// The runtime's clock tick, sent while the status line shows a message (`App::wants_clock`):
    /// milliseconds on a clock that only goes forward. The message dims, then clears, as it ages.
    Clock {
        now_ms: u64,
    },
}

/// A call on its way and its outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum CallMsg {
    /// Time passes while a call runs (for the spinner and the elapsed time).
    Tick { elapsed_ms: u64 },
    /// A running call reported progress.
    Progress { id: u64, progress: crate::invoke::Progress },
    /// A scheduled retry is due (waiting for the user to authorize in the browser).
    RetryDue { id: u64 },
    /// A call came back (or could not be made). Results of calls no longer current are dropped.
    Done { id: u64, result: Result<Box<Answer>, CallFailure> },
    /// What went over the wire for call `id`, which got no answer (comes before its `Done`).
    FailedExchange { id: u64, exchange: Box<crate::invoke::Exchange> },
}

/// A result's content, fetched or decoded off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentMsg {
    /// An artifact download advanced.
    ArtifactProgress { received: u64, total: Option<u64> },
    /// An artifact download ended.
    ArtifactFetched(Result<Box<crate::invoke::artifact::Fetched>, EffectError>),
    /// Content item `item` of run `run`, decoded (`WorkEffect::DecodeInline`).
    ItemDecoded { run: u64, item: usize, result: Result<Box<crate::invoke::artifact::Fetched>, EffectError> },
    /// The resource a `resource_link` item names, read from the server (`ServerEffect::ReadResource`).
    ResourceRead { run: u64, item: usize, result: Result<Box<crate::invoke::artifact::Fetched>, EffectError> },
}

/// Writing to files: an artifact, a test case.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveMsg {
    /// A save advanced (bytes written, of how many if known).
    Progress { written: u64, total: Option<u64> },
    /// Saving an artifact ended (the path written, or why not).
    Saved(Result<crate::invoke::save::Saved, EffectError>),
    /// Appending a test case ended (the case file, or why not).
    CaseSaved(Result<String, EffectError>),
}

/// What a server says of itself.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerMsg {
    /// Where calls go, known before the first frame; a named server is then connected and its
    /// tools listed (`ServerEffect::ListTools`).
    Named { label: String, lists_tools: bool },
    /// The server answered the tool listing with 401: it wants a token first.
    WantsToken { url: String, challenge: Option<String> },
    /// The server's own tools (or why they could not be listed), read from the server's text off
    /// the UI thread: once it is connected, and again after it was given a token.
    Tools { label: String, result: Result<Vec<Tool>, EffectError> },
    /// The MCP protocol revision agreed with the server (after its tools were listed).
    Protocol(String),
    /// What the MCP server said of itself in `initialize` (after each connection).
    Info(Box<crate::invoke::mcp::info::ServerInfo>),
    /// What the MCP server writes besides answers: stderr, log entries, list changes, its end.
    Events(Vec<crate::invoke::mcp::events::ServerEvent>),
    /// Messages of the session's traffic the app has not seen yet (`invoke::mcp::traffic`).
    Traffic(Vec<crate::invoke::mcp::traffic::TrafficEntry>),
    /// `ServerEffect::Reconnect` ended: the server is back (its tools are listed next), or why not.
    Reconnected(Result<(), EffectError>),
    /// The server's answer to `logging/setLevel`, when it refused.
    LogLevelRefused(EffectError),
    /// An MCP server asked something during a call (`TaskEffect::AnswerAsk` replies, by `id`).
    Asked { id: u64, ask: crate::invoke::mcp::asks::Ask },
    /// What the MCP App hosted in the browser did (`ServerEffect::HostApp`): a line, a link, its end.
    App(crate::apps::AppEvent),
    /// `tooldeck attach`: what the watched proxy says of its breakpoints and held messages.
    Proxy(ProxyMsg),
}

/// `tooldeck attach`: the watched proxy's side of breakpoints (held messages come as traffic
/// entries marked held).
#[derive(Debug, Clone, PartialEq)]
pub enum ProxyMsg {
    /// The session watches a running proxy: breakpoints can be set (`ServerEffect::Control`).
    Attached,
    /// A line of the proxy's: a held message released, the breakpoints set, a refusal.
    Notice(crate::proxy::live::Notice),
    /// The proxy ended (or its feed broke): nothing is held any more.
    Ended,
    /// A control line could not be written to the proxy: why.
    NotWritten(String),
}

/// Signing in (`ServerEffect::SignIn`, `ServerEffect::SignOut`).
#[derive(Debug, Clone, PartialEq)]
pub enum SignInMsg {
    /// A sign-in's steps so far.
    Progress(Vec<crate::invoke::auth::AuthStep>),
    /// The sign-in (or sign-out) ended: what to say, or why it failed.
    Done { steps: Vec<crate::invoke::auth::AuthStep>, outcome: Result<String, EffectError> },
}

/// What slow work off the UI thread brought back.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadMsg {
    /// Reading the definition files advanced.
    Progress(crate::catalog::LoadProgress),
    /// The definition files, read after the first frame: their tools and problems.
    Catalog { tools: Vec<Tool>, diagnostics: Vec<Diagnostic> },
    /// A tool's schema, compiled off the UI thread (`WorkEffect::CompileChecker`).
    Checker { tool_id: String, checker: crate::form::validate::Checker },
    /// What the lint rules say of a tool (`WorkEffect::Lint`).
    Linted { tool_id: String, findings: Vec<crate::lint::Finding> },
    /// Past calls, read from the history file after the first frame.
    History(Vec<crate::history::PastCall>),
}

/// A server's resources, templates and prompts.
#[derive(Debug, Clone, PartialEq)]
pub enum FaceMsg {
    /// A server's resources, templates and prompts (`ServerEffect::ListFaces`).
    Listed { label: String, faces: Box<crate::invoke::Faces> },
    /// The server's suggestions for an argument of entry `tool_id` (`ServerEffect::Complete`).
    Completed {
        tool_id: String,
        argument: String,
        typed: String,
        result: Result<crate::invoke::mcp::completion::Suggestions, EffectError>,
    },
    /// The server answered `resources/subscribe` (`on`) or `resources/unsubscribe`.
    Subscribed { uri: String, on: bool, result: Result<(), EffectError> },
}

/// A fuzz run (`ServerEffect::Fuzz`).
#[derive(Debug, Clone, PartialEq)]
pub enum FuzzMsg {
    /// How far fuzz run `id` has come.
    Progress { id: u64, progress: crate::fuzz::Progress },
    /// Fuzz run `id` ended: its report, or why it could not run.
    Done { id: u64, result: Result<Box<crate::fuzz::Report>, EffectError> },
}

/// An eval run (`ServerEffect::Eval`).
#[derive(Debug, Clone, PartialEq)]
pub enum EvalMsg {
    /// Eval run `id` finished an iteration.
    Progress { id: u64, progress: tooldeck_evals::run::Progress },
    /// Eval run `id` ended: its report, or why it could not run.
    Done { id: u64, result: Result<Box<tooldeck_evals::report::EvalReport>, EffectError> },
}
