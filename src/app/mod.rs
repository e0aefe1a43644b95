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
mod attach;
pub mod auth;
pub mod component;
mod confirm;
pub mod connection;
mod effect;
pub mod eval;
mod eval_run;
pub mod eval_view;
pub mod faces;
pub mod failure;
mod flows;
pub mod form;
pub mod fuzz;
pub mod held;
pub mod help;
mod json_view;
pub mod keymap;
pub mod layout;
pub mod lint;
pub mod list;
mod msg;
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

pub use component::{Component, Cx, Input};
pub use connection::ServerState;
pub use effect::{DesktopEffect, Effect, ServerEffect, TaskEffect, WorkEffect};
pub use failure::{CallFailure, EffectError, FailureKind};
pub use form::{FormPane, JsonView};
pub use keymap::{Action, Context, Keymap};
pub use layout::Layout;
pub use list::ToolList;
pub use msg::{
    CallMsg, ContentMsg, EvalMsg, FaceMsg, FuzzMsg, InputMsg, LoadMsg, Msg, ProxyMsg, SaveMsg, ServerMsg, SignInMsg,
};
pub use overlay::Overlay;
pub use prompts::{PickerPurpose, Popup, Prompted, Prompts};
pub use recorder::Recorder;
pub use result::{Answer, ArtifactState, ArtifactView, ResultPane, Run, RunState, Target};
pub use setup::{AppSetup, CaseSecrets};
pub use update::update;

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
    /// The status bar's one-line message and its age (`status()` reads it; `tell` and `hush`
    /// change it).
    status: status_age::StatusLine,
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
    /// The eval pane: the eval file given, the last run (or a report read) and what is open in it.
    pub eval: eval::EvalPane,
    /// Servers' resources, templates and prompts: who completes, what is subscribed.
    pub faces: faces::FaceState,
    /// The MCP App hosted in the browser, and the links it asked to open.
    pub app_host: apps::AppHost,
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
            status: status_age::StatusLine::default(),
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
            eval: eval::EvalPane::default(),
            faces: faces::FaceState::default(),
            app_host: apps::AppHost::default(),
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
            self.tell(self.say(&message));
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
mod eval_tests;
#[cfg(test)]
mod habit_tests;
mod naming;
#[cfg(test)]
mod session_tests;
#[cfg(test)]
mod tests;
