//! The one interface every pane that takes keys answers: [`Component::handle`] gets an
//! [`Input`] and a read-only [`Cx`] of the rest of the app, changes the pane's own state, and
//! says what it wants of the app in a [`Reply`]. `App` picks the pane that has
//! the keys (a server's question, a popup, the pane over the others, then the focus), looks
//! the key up in the pane's [`Component::context`], calls `handle` and applies the reply
//! (`actions::key_pressed`); what no pane takes, the app does itself.

use crossterm::event::KeyEvent;

use super::keymap::{Action, Context, Keymap};
use super::{Focus, Reply};
use crate::catalog::{Catalog, Tool};

/// What a pane receives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Input<'a> {
    /// The action the key pressed is bound to in the pane's [`Component::context`].
    Action(Action),
    /// A key as it was pressed: for a pane whose context is `None` (a text box being typed
    /// in, a popup or a question that reads its own tables), or a key its context binds to
    /// nothing.
    Key(KeyEvent),
    /// Text pasted into the terminal (bracketed paste).
    Paste(&'a str),
}

/// What a pane may read of the rest of the app while it answers. Built from fields of `App`
/// no pane owns (and numbers worked out before), so the pane can be borrowed mutably beside
/// it.
pub struct Cx<'a> {
    /// What the keys mean (a popup or a question reads its own tables; hints name keys).
    pub keymap: &'a Keymap,
    pub catalog: &'a Catalog,
    /// The tool selected in the list (the form pane acts on its form).
    pub tool: Option<&'a Tool>,
    pub focus: Focus,
    /// The terminal's size, columns and rows.
    pub size: (u16, u16),
    /// Where calls go, as the person named it (for a command made from the call).
    pub endpoint: &'a str,
    /// The MCP revision agreed with the server, once known.
    pub protocol: Option<String>,
    /// How many past calls the history lists.
    pub history_len: usize,
    /// The result pane's inner width, and the rows its value or items show in.
    pub result_width: usize,
    pub value_height: usize,
    /// Rows of the result's items view (0 unless the result pane shows items).
    pub item_rows: usize,
}

/// A pane that takes keys.
///
/// `handle` answers `Option<Reply>`: `Some` when the input was the pane's (even if it changed
/// nothing), `None` when it is not: the app does it, because it spans panes (moving the focus,
/// opening or closing the pane over the others, running a call, signing in, saving a case...),
/// or hands it to the pane underneath. An `Option` rather than a flag in `Reply`, so that "not
/// mine" cannot come with effects a caller would have to drop, and `?` passes it on.
pub trait Component {
    /// The key table the pane's keys are looked up in; `None` while the pane takes keys as
    /// they are pressed (a text box being typed in, a popup that reads several tables).
    fn context(&self) -> Option<Context>;

    /// The pane answers `input`; see the trait's note for `None`.
    fn handle(&mut self, input: Input, cx: &Cx) -> Option<Reply>;
}

/// The input a key becomes for a pane whose keys are looked up in `context`.
pub fn input_for<'a>(keymap: &Keymap, context: Option<Context>, key: KeyEvent) -> Input<'a> {
    match context.and_then(|context| keymap.action_for(context, key)) {
        Some(action) => Input::Action(action),
        None => Input::Key(key),
    }
}
