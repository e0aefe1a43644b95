//! The app's state and how it changes. No terminal I/O here: `update` takes a [`Msg`] and
//! returns [`Effect`]s for the runtime to carry out; `ui` only reads this state.
//!
//! `App` composes a few components, each owning its state and the updates to it: the tool
//! [`list`], the [`form`] pane, the [`result`] pane, the [`server`] calls go to, the [`prompts`]
//! (popups) and the [`recorder`] (history and test cases). `update` dispatches to them; a key or
//! a paste goes to the pane that has the keys through [`Component::handle`], whose [`Reply`]
//! the app applies. What spans several of them (running a call, a token, a past call put back)
//! is in `flows` and `actions`.

mod actions;
mod apps;
pub mod asks;
pub mod auth;
pub mod component;
mod confirm;
pub mod connection;
pub mod faces;
pub mod failure;
mod flows;
pub mod form;
pub mod fuzz;
pub mod help;
pub mod keymap;
pub mod layout;
pub mod lint;
pub mod list;
pub mod overlay;
pub mod prompts;
mod raw;
pub mod recorder;
pub mod result;
mod route;
pub mod server_pane;
pub mod sessions;
pub mod setup;
pub mod status_age;
mod suggest;
pub mod text_popup;
pub mod traffic;
mod typing;
pub mod update;
pub mod view;
pub mod watching;

use crate::catalog::{Catalog, Diagnostic, Tool};
use crate::form::Form;
use crate::invoke::CallRequest;

pub use component::{Component, Cx, Input};
pub use connection::Server;
pub use failure::{CallFailure, EffectError, FailureKind};
pub use form::{FormPane, JsonView};
pub use keymap::{Action, Context, Keymap};
pub use layout::Layout;
pub use list::ToolList;
pub use overlay::Overlay;
pub use prompts::{PickerPurpose, Popup, Prompted, Prompts};
pub use recorder::Recorder;
pub use result::{Answer, ArtifactState, ArtifactView, ResultPane, Run, RunState, Target};
pub use setup::{AppSetup, CaseSecrets};
pub use update::update;

/// Everything that can happen to the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(crossterm::event::KeyEvent),
    Mouse(crossterm::event::MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// Time passes while a call runs (for the spinner and the elapsed time).
    Tick {
        elapsed_ms: u64,
    },
    /// The runtime's clock tick, sent while the status line shows a message (`App::wants_clock`):
    /// milliseconds on a clock that only goes forward. The message dims, then clears, as it ages.
    Clock {
        now_ms: u64,
    },
    /// A running call reported progress.
    Progress {
        id: u64,
        progress: crate::invoke::Progress,
    },
    /// A scheduled retry is due (waiting for the user to authorize in the browser).
    RetryDue {
        id: u64,
    },
    /// An artifact download advanced.
    ArtifactProgress {
        received: u64,
        total: Option<u64>,
    },
    /// An artifact download ended.
    ArtifactFetched(Result<Box<crate::invoke::artifact::Fetched>, EffectError>),
    /// Content item `item` of run `run`, decoded (`Effect::DecodeInline`).
    ItemDecoded {
        run: u64,
        item: usize,
        result: Result<Box<crate::invoke::artifact::Fetched>, EffectError>,
    },
    /// The resource a `resource_link` item names, read from the server (`Effect::ReadResource`).
    ResourceRead {
        run: u64,
        item: usize,
        result: Result<Box<crate::invoke::artifact::Fetched>, EffectError>,
    },
    /// Saving an artifact ended (the path written, or why not).
    Saved(Result<crate::invoke::save::Saved, EffectError>),
    /// A save advanced (bytes written, of how many if known).
    SaveProgress {
        written: u64,
        total: Option<u64>,
    },
    /// Appending a test case ended (the case file, or why not).
    CaseSaved(Result<String, EffectError>),
    /// Where calls go, known before the first frame; a named server is then connected and its
    /// tools listed (`Effect::ListServerTools`).
    ServerNamed {
        label: String,
        lists_tools: bool,
    },
    /// The server answered the tool listing with 401: it wants a token first.
    ServerWantsToken {
        url: String,
        challenge: Option<String>,
    },
    /// A sign-in's steps so far (`Effect::SignIn`).
    SignInProgress(Vec<crate::invoke::auth::AuthStep>),
    /// The sign-in (or sign-out) ended: what to say, or why it failed.
    SignInDone {
        steps: Vec<crate::invoke::auth::AuthStep>,
        outcome: Result<String, EffectError>,
    },
    /// Reading the definition files advanced.
    LoadProgress(crate::catalog::LoadProgress),
    /// The definition files, read after the first frame: their tools and problems.
    CatalogLoaded {
        tools: Vec<Tool>,
        diagnostics: Vec<Diagnostic>,
    },
    /// A tool's schema, compiled off the UI thread (`Effect::CompileChecker`).
    CheckerCompiled {
        tool_id: String,
        checker: crate::form::validate::Checker,
    },
    /// What the lint rules say of a tool (`Effect::Lint`).
    Linted {
        tool_id: String,
        findings: Vec<crate::lint::Finding>,
    },
    /// Past calls, read from the history file after the first frame.
    HistoryRead(Vec<crate::history::Entry>),
    /// The server's own tools (or why they could not be listed), read from the server's text off
    /// the UI thread: once it is connected, and again after it was given a token.
    ServerTools {
        label: String,
        result: Result<Vec<crate::catalog::Tool>, EffectError>,
    },
    /// A call came back (or could not be made). Results of calls no longer current are dropped.
    InvocationDone {
        id: u64,
        result: Result<Box<Answer>, failure::CallFailure>,
    },
    /// What went over the wire for call `id`, which got no answer (comes before its
    /// `InvocationDone`).
    FailedExchange {
        id: u64,
        exchange: Box<crate::invoke::Exchange>,
    },
    /// What the MCP server writes besides answers: stderr, log entries, list changes, its end.
    ServerEvents(Vec<crate::invoke::mcp::events::ServerEvent>),
    /// What the MCP server said of itself in `initialize` (after each connection).
    ServerInfo(Box<crate::invoke::mcp::info::ServerInfo>),
    /// `Effect::Reconnect` ended: the server is back (its tools are listed next), or why not.
    Reconnected(Result<(), EffectError>),
    /// The server's answer to `logging/setLevel`, when it refused.
    LogLevelRefused(EffectError),
    /// The MCP protocol revision agreed with the server (after its tools were listed).
    ServerProtocol(String),
    /// A line for the status bar from the runtime.
    Said(String),
    /// `--watch`: files changed (what changed, in a few words, and the time of day it was
    /// seen, `12:01:03`); every server is started again.
    FilesChanged {
        summary: String,
        at: String,
    },
    /// Messages of the session's traffic the app has not seen yet (`invoke::mcp::traffic`).
    Traffic(Vec<crate::invoke::mcp::traffic::Entry>),
    /// A message from one server session (without it, a server's message is the current
    /// session's).
    Session {
        id: crate::catalog::SessionId,
        msg: Box<Msg>,
    },
    /// An MCP server asked something during a call (`Effect::AnswerAsk` replies, by `id`).
    Asked {
        id: u64,
        ask: crate::invoke::mcp::asks::Ask,
    },
    /// How far fuzz run `id` has come (`Effect::Fuzz`).
    FuzzProgress {
        id: u64,
        progress: crate::fuzz::Progress,
    },
    /// Fuzz run `id` ended: its report, or why it could not run.
    FuzzDone {
        id: u64,
        result: Result<Box<crate::fuzz::Report>, EffectError>,
    },
    /// A server's resources, templates and prompts (`Effect::ListFaces`).
    ServerFaces {
        label: String,
        faces: Box<crate::invoke::Faces>,
    },
    /// The server's suggestions for an argument of entry `tool_id` (`Effect::Complete`).
    Completed {
        tool_id: String,
        argument: String,
        typed: String,
        result: Result<crate::invoke::mcp::completion::Suggestions, EffectError>,
    },
    /// The server answered `resources/subscribe` (`on`) or `resources/unsubscribe`.
    Subscribed {
        uri: String,
        on: bool,
        result: Result<(), EffectError>,
    },
}

/// What `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// Send `request`; the answer is checked against `output_schema` off the UI thread.
    Invoke {
        id: u64,
        request: CallRequest,
        output_schema: Option<serde_json::Value>,
    },
    Cancel {
        id: u64,
    },
    /// Append to the history file (the runtime writes it).
    Record(Box<crate::history::Entry>),
    /// Put text on the clipboard (OSC 52, so it works over SSH too).
    Copy(String),
    /// Open a URL with the system's opener (no shell involved).
    Open(String),
    /// Send `Msg::RetryDue { id }` after `ms` milliseconds.
    RetryAfter {
        id: u64,
        ms: u64,
    },
    /// Connect to the named server and list its tools.
    ListServerTools,
    /// An effect for one server session (without it, a server's effect is for the first).
    Session {
        id: crate::catalog::SessionId,
        effect: Box<Effect>,
    },
    /// Connect a server found in a config (`--server NAME` in the app) and list its tools.
    ConnectFound(String),
    /// Compile a tool's input schema into a checker, off the UI thread.
    CompileChecker {
        tool_id: String,
        schema: serde_json::Value,
    },
    /// Run the lint rules over a tool, off the UI thread (`Msg::Linted`).
    Lint {
        tool: Box<Tool>,
        options: crate::lint::Options,
    },
    /// Sign in to the MCP server over HTTP (OAuth) starting from its last challenge, then list
    /// its tools again.
    SignIn {
        challenge: Option<String>,
    },
    /// Forget the tokens kept for the server.
    SignOut,
    /// Give the server a token for `provider` and list its tools again (an MCP server over
    /// HTTP that answered 401).
    Authorize {
        provider: String,
        token: String,
    },
    /// Decode content item `item` of run `run` (it came inline: base64 or text) and draw its
    /// picture, off the UI thread; it comes back as `Msg::ItemDecoded`.
    DecodeInline {
        run: u64,
        item: usize,
        data: crate::invoke::mcp::content::Inline,
        content_type: Option<String>,
    },
    /// Read the resource at `uri` with MCP `resources/read` (a `resource_link` item) and preview
    /// it, off the UI thread; it comes back as `Msg::ResourceRead`.
    ReadResource {
        run: u64,
        item: usize,
        uri: String,
    },
    /// Start the MCP server again (or open a new HTTP session) and list its tools again.
    Reconnect,
    /// `logging/setLevel` to the MCP server.
    SetLogLevel(String),
    /// Download an artifact (http(s) only), reporting progress.
    Fetch(String),
    /// Append a test case to a case file.
    SaveCase {
        path: String,
        case: serde_json::Value,
    },
    /// Offer these roots to the MCP server, telling it they changed.
    SetRoots(Vec<String>),
    /// The person's answer to what a server asked (`Msg::Asked`).
    AnswerAsk {
        id: u64,
        reply: crate::invoke::mcp::asks::Reply,
    },
    /// Write an artifact to a file (`overwrite`: replace what is there, the user said so).
    Save {
        path: String,
        source: crate::invoke::save::SaveSource,
        overwrite: bool,
    },
    /// Fuzz `tool` in the background over a connection of its own (`Msg::FuzzProgress`,
    /// `Msg::FuzzDone`); a run going on is stopped first.
    Fuzz {
        id: u64,
        tool: Box<Tool>,
    },
    /// Host `tool`'s MCP App in the browser, first calling it with `arguments`; the app's
    /// requests come back as status lines (`Msg::Said`). A new one ends the last.
    HostApp {
        tool: Box<Tool>,
        arguments: serde_json::Value,
    },
    /// Stop fuzz run `id`: the call in flight is cut short, the findings so far reported.
    StopFuzz {
        id: u64,
    },
    /// List the server's resources, templates and prompts (`Msg::ServerFaces`).
    ListFaces,
    /// Run `id` of a resource, template or prompt: `resources/read` or `prompts/get`, answered
    /// as a call is (`Msg::InvocationDone`).
    Face {
        id: u64,
        call_id: String,
        request: faces::FaceRequest,
    },
    /// Suggestions for `argument` of entry `tool_id` (`completion/complete`, `Msg::Completed`).
    Complete {
        tool_id: String,
        reference: crate::invoke::mcp::completion::Reference,
        argument: String,
        typed: String,
        context: serde_json::Map<String, serde_json::Value>,
    },
    /// `resources/subscribe` (`on`) or `resources/unsubscribe` of `uri` (`Msg::Subscribed`).
    Subscribe {
        uri: String,
        on: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Form,
    /// The result pane (scrolling it).
    Result,
    /// The editable JSON view of the arguments (Ctrl-J).
    Json,
}

/// What a component's update hands back: effects for the runtime, and what it asks of the
/// app, which owns the status line, the popups, the focus and the pane over the others (so a
/// component only asks for them, never touches them).
#[derive(Debug, Default, PartialEq)]
#[must_use]
pub struct Reply {
    pub effects: Vec<Effect>,
    /// A line for the status bar (`{key:action}` marks name the keys in force).
    pub status: Option<String>,
    pub popup: Option<Popup>,
    /// The focus moves there.
    pub focus: Option<Focus>,
    /// The pane over the others (the one that answered) closes.
    pub close: bool,
    /// What the person chose in a popup, for the app to carry out.
    pub prompted: Option<Prompted>,
    /// The list selected another tool: the form pane follows it.
    pub tool_changed: bool,
    /// The selected tool's form takes the focus (Enter in the list's filter).
    pub open_form: bool,
}

impl Reply {
    pub fn status(message: impl Into<String>) -> Reply {
        Reply { status: Some(message.into()), ..Reply::default() }
    }

    pub fn popup(popup: Popup) -> Reply {
        Reply { popup: Some(popup), ..Reply::default() }
    }

    pub fn effects(effects: Vec<Effect>) -> Reply {
        Reply { effects, ..Reply::default() }
    }

    pub fn effect(effect: Effect) -> Reply {
        Reply::effects(vec![effect])
    }

    pub fn with_status(mut self, message: impl Into<String>) -> Reply {
        self.status = Some(message.into());
        self
    }

    /// The focus moves to `focus`.
    pub fn focus(focus: Focus) -> Reply {
        Reply { focus: Some(focus), ..Reply::default() }
    }

    /// The pane over the others closes.
    pub fn close() -> Reply {
        Reply { close: true, ..Reply::default() }
    }
}

impl From<Vec<Effect>> for Reply {
    fn from(effects: Vec<Effect>) -> Reply {
        Reply::effects(effects)
    }
}

pub struct App {
    pub catalog: Catalog,
    /// Problems found loading the catalog, summarised in the status bar.
    pub load_errors: usize,
    pub load_warnings: usize,
    /// The definition files are still being read (the app draws before they are).
    pub loading: bool,
    /// How far that reading has come.
    pub load_progress: Option<crate::catalog::LoadProgress>,
    pub focus: Focus,
    /// A one-line message for the status bar.
    pub status: Option<String>,
    /// How long `status` has been shown (it dims, then clears).
    pub status_age: status_age::StatusAge,
    pub size: (u16, u16),
    /// What the keys mean: the defaults, or the user's, given at startup.
    pub keymap: Keymap,
    pub list: ToolList,
    pub form_pane: FormPane,
    pub result: ResultPane,
    pub prompts: Prompts,
    pub recorder: Recorder,
    /// Which destructive tools the user has said `y` to running.
    pub confirmations: confirm::Confirmations,
    /// What the lint rules say of the tools opened so far.
    pub lint: lint::LintNotes,
    /// What MCP servers ask during calls, waiting for the person.
    pub asks: asks::Asks,
    /// Every server session (the current one's server and pane are `server()`,
    /// `server_pane()`), and the servers found in configs.
    pub sessions: sessions::Sessions,
    /// The focused pane takes the whole screen (`z`).
    pub zoomed: bool,
    /// Signing in to the server (OAuth), step by step.
    pub auth: auth::AuthPane,
    /// The fuzz pane: the last fuzz run and its findings.
    pub fuzz: fuzz::FuzzPane,
    /// Servers' resources, templates and prompts: who completes, what is subscribed.
    pub faces: faces::FaceState,
    /// Where the focus goes back to when the result pane is left.
    before_result: Focus,
    /// The pane shown over the others (`overlay()` reads it; App's methods open and close it).
    overlay: Option<Overlay>,
    /// `--watch`: the servers being restarted after a change, and `--watch-run`.
    pub watching: watching::Watching,
}

impl App {
    pub fn new(catalog: Catalog, diagnostics: &[Diagnostic], size: (u16, u16)) -> App {
        let load_errors = diagnostics.iter().filter(|d| d.severity == crate::catalog::Severity::Error).count();
        let list = ToolList::new(&catalog);
        let mut app = App {
            load_errors,
            load_warnings: diagnostics.len() - load_errors,
            loading: false,
            load_progress: None,
            list,
            catalog,
            focus: Focus::List,
            status: None,
            status_age: status_age::StatusAge::default(),
            size,
            keymap: Keymap::default(),
            form_pane: FormPane::default(),
            result: ResultPane::default(),
            prompts: Prompts::default(),
            recorder: Recorder::default(),
            confirmations: confirm::Confirmations::default(),
            lint: lint::LintNotes::default(),
            asks: asks::Asks::default(),
            zoomed: false,
            auth: auth::AuthPane::default(),
            fuzz: fuzz::FuzzPane::default(),
            faces: faces::FaceState::default(),
            sessions: sessions::Sessions::default(),
            before_result: Focus::Form,
            overlay: None,
            watching: watching::Watching::default(),
        };
        app.form_mut();
        app
    }

    pub fn selected_tool(&self) -> Option<&Tool> {
        self.list.selected_tool().and_then(|i| self.catalog.tools().get(i))
    }

    pub(crate) fn selected_id(&self) -> Option<String> {
        self.selected_tool().map(|t| t.id.clone())
    }

    /// The selected tool's form, if it has been opened.
    pub fn form(&self) -> Option<&Form> {
        self.selected_tool().and_then(|t| self.form_pane.get(&t.id))
    }

    /// The selected tool's form, opened (built) on first use.
    pub fn form_mut(&mut self) -> Option<&mut Form> {
        let tool = self.list.selected_tool().and_then(|i| self.catalog.tools().get(i))?;
        Some(self.form_pane.open(tool))
    }

    pub fn layout(&self) -> Layout {
        // A result of another tool than the one selected folds to its one status line.
        let result = self.result.run().map(|run| {
            let current = self.selected_tool().is_none_or(|t| t.id == run.tool_id());
            if current { layout::ResultSize::Open } else { layout::ResultSize::Folded }
        });
        let no_fields = self.form().is_some_and(|form| form.root.children().is_empty() && form.rows().is_empty());
        let layout = Layout::fitted(self.size, self.form_pane.json().is_some(), result, no_fields);
        if self.zoomed { layout.zoomed(self.focus, self.header_rows()) } else { layout }
    }

    /// Keys go to a text box: a field being edited, the JSON view, the filter.
    pub fn typing(&self) -> bool {
        self.list.filtering()
            || (self.shows(Overlay::Traffic) && self.server_pane().traffic().filtering())
            || self.focus == Focus::Json
            || (self.focus == Focus::Form && self.form_pane.editing())
    }

    /// The row path under the cursor.
    pub fn focused_path(&self) -> Option<Vec<usize>> {
        self.form().and_then(|f| self.form_pane.focused_path(f))
    }

    /// Takes what a component asked for; returns its effects (and those of carrying out what
    /// was chosen in a popup).
    fn apply(&mut self, reply: Reply) -> Vec<Effect> {
        let Reply { mut effects, status, popup, focus, close, prompted, tool_changed, open_form } = reply;
        if tool_changed {
            self.tool_changed();
        }
        if let Some(message) = status {
            self.status = Some(self.say(&message));
        }
        if let Some(popup) = popup {
            self.prompts.open(popup);
        }
        if let Some(focus) = focus {
            self.focus = focus;
            // The JSON view follows the form again once it no longer has the keys.
            self.sync_json();
        }
        if close {
            self.close_overlay();
        }
        if open_form {
            self.open_selected_form();
        }
        if let Some(prompted) = prompted {
            effects.extend(self.prompted(prompted));
        }
        effects
    }
}

#[cfg(test)]
mod habit_tests;
mod naming;
#[cfg(test)]
mod tests;
