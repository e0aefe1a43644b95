//! Which pane has the keys, and handing it an input: a server's question, then a popup, then
//! the pane over the others, then the focused pane. Each answers through [`Component`] with
//! what it may read of the rest of the app ([`Cx`]); `actions` applies the reply, or does
//! what no pane took.
// No wildcard arm on an enum here: a new variant is a compile error until it is handled.
#![deny(clippy::wildcard_enum_match_arm)]

use super::component::{Component, Cx, Input};
use super::keymap::{Action, Context};
use super::{App, Focus, Overlay, Reply};

/// The panes that take keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pane {
    /// A server's question (`asks`).
    Question,
    /// A popup (`prompts`).
    Popup,
    Server,
    Traffic,
    Fuzz,
    Eval,
    Auth,
    List,
    Form,
    /// The form pane's JSON view, a text box that has the keys (`Focus::Json`).
    Json,
    Result,
}

impl App {
    fn component(&self, pane: Pane) -> &dyn Component {
        match pane {
            Pane::Question => &self.asks,
            Pane::Popup => &self.prompts,
            Pane::Server => self.server_pane(),
            Pane::Traffic => self.server_pane().traffic(),
            Pane::Fuzz => &self.fuzz,
            Pane::Eval => &self.eval,
            Pane::Auth => &self.auth,
            Pane::List => &self.list,
            Pane::Form | Pane::Json => &self.form_pane,
            Pane::Result => &self.result,
        }
    }

    /// Where `pane`'s keys are looked up (`None`: it takes them as they are pressed).
    pub(super) fn context_of(&self, pane: Pane) -> Option<Context> {
        match pane {
            Pane::Json => None,
            // A form without a field takes no text: its letters are the list's commands.
            Pane::Form if !self.form_pane.editing() && self.form().is_none_or(|f| f.rows().is_empty()) => {
                Some(Context::Main)
            }
            pane @ (Pane::Question
            | Pane::Popup
            | Pane::Server
            | Pane::Traffic
            | Pane::Fuzz
            | Pane::Eval
            | Pane::Auth
            | Pane::List
            | Pane::Form
            | Pane::Result) => self.component(pane).context(),
        }
    }

    /// The pane over the others, which has the keys while it shows.
    pub(super) fn overlay_pane(&self) -> Option<Pane> {
        Some(match self.overlay()? {
            Overlay::Server => Pane::Server,
            Overlay::Traffic => Pane::Traffic,
            Overlay::Fuzz => Pane::Fuzz,
            Overlay::Eval => Pane::Eval,
            Overlay::Auth => Pane::Auth,
        })
    }

    /// The pane the focus gives the keys to (the filter being typed first).
    pub(super) fn focused_pane(&self) -> Pane {
        match self.focus {
            _ if self.list.filtering() => Pane::List,
            Focus::Json => Pane::Json,
            Focus::Result => Pane::Result,
            Focus::Form => Pane::Form,
            Focus::List => Pane::List,
        }
    }
}

/// `key` as `pane` receives it: the action its context binds the key to, or the key itself.
pub(super) fn input_of(app: &App, pane: Pane, key: crossterm::event::KeyEvent) -> Input<'static> {
    super::component::input_for(&app.keymap, app.context_of(pane), key)
}

/// `pane` answers `input`, reading the rest of the app through a [`Cx`] built from fields no
/// pane owns, so the pane is borrowed mutably beside it.
pub(super) fn handle(app: &mut App, pane: Pane, input: Input) -> Option<Reply> {
    // Only the result pane reads its size: no other pane's key pays for working out the layout.
    let (result_width, value_height) = match pane {
        Pane::Result => {
            let layout = app.layout();
            let width = layout.result.map_or(80, |r| usize::from(r.width.saturating_sub(2)));
            (width, super::flows::value_height(&layout))
        }
        Pane::Question
        | Pane::Popup
        | Pane::Server
        | Pane::Traffic
        | Pane::Fuzz
        | Pane::Eval
        | Pane::Auth
        | Pane::List
        | Pane::Form
        | Pane::Json => (80, 1),
    };
    // The items document is built from the whole app, as large as the result: its length is
    // worked out only for an input that scrolls the items view.
    let scrolls = |action: Action| {
        matches!(action, Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::Top | Action::Bottom)
    };
    let scrolls_items = pane == Pane::Result
        && app.result.shows_items()
        && match input {
            Input::Action(action) => scrolls(action),
            Input::Key(key) => app.keymap.action_for(Context::Result, key).is_some_and(scrolls),
            Input::Paste(_) => false,
        };
    let item_rows = if scrolls_items { super::result::content::document(app).len() } else { 0 };
    let tool = app.list.selected_tool().and_then(|i| app.catalog.tools().get(i));
    // Owned: the session's pane is borrowed mutably beside it.
    let endpoint = app.server().endpoint().to_string();
    let protocol = app.server_pane().info().map(|info| info.protocol_version.clone());
    let session = app.sessions.current_id();
    let cx = Cx {
        keymap: &app.keymap,
        catalog: &app.catalog,
        tool,
        focus: app.focus,
        size: app.size,
        endpoint: &endpoint,
        protocol,
        history_len: app.recorder.history().len(),
        result_width,
        value_height,
        item_rows,
    };
    match pane {
        Pane::Question => app.asks.handle(input, &cx),
        Pane::Popup => app.prompts.handle(input, &cx),
        Pane::Server => app.sessions.pane_mut(session).handle(input, &cx),
        Pane::Traffic => app.sessions.pane_mut(session).traffic_mut().handle(input, &cx),
        Pane::Fuzz => app.fuzz.handle(input, &cx),
        Pane::Eval => app.eval.handle(input, &cx),
        Pane::Auth => app.auth.handle(input, &cx),
        Pane::List => app.list.handle(input, &cx),
        Pane::Form | Pane::Json => app.form_pane.handle(input, &cx),
        Pane::Result => app.result.handle(input, &cx),
    }
}
