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
    /// The result pane's inner width, and the rows its value or items show in (worked out for
    /// the result pane only).
    pub result_width: usize,
    pub value_height: usize,
    /// Rows of the result's items view (0 unless the input is for the result pane showing
    /// items, and scrolls it).
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

/// What a pane over the others says of a key it binds to nothing: that it does nothing, what
/// closes the pane and what lists its keys.
pub fn dead_key_in(cx: &Cx, context: Context, key: KeyEvent) -> Reply {
    let back = cx.keymap.key_name(context, Action::Back);
    let help = cx.keymap.key_name(context, Action::Help);
    let pane = context.title();
    Reply::status(format!(
        "{} does nothing in the {pane} · {back} closes it, {help} lists its keys",
        super::keymap::Key::of(key)
    ))
}

/// The input a key becomes for a pane whose keys are looked up in `context`.
pub fn input_for<'a>(keymap: &Keymap, context: Option<Context>, key: KeyEvent) -> Input<'a> {
    match context.and_then(|context| keymap.action_for(context, key)) {
        Some(action) => Input::Action(action),
        None => Input::Key(key),
    }
}

#[cfg(test)]
mod tests {
    use crate::app::DesktopEffect;
    use crossterm::event::{KeyCode, KeyModifiers};

    use super::*;
    use crate::app::fuzz::FuzzPane;
    use crate::app::server_pane::ServerPane;
    use crate::app::traffic::TrafficLog;
    use crate::app::{Effect, ToolList};
    use crate::catalog::{LoadOptions, load_samples};

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn cx<'a>(keymap: &'a Keymap, catalog: &'a Catalog) -> Cx<'a> {
        Cx {
            keymap,
            catalog,
            tool: catalog.tools().first(),
            focus: Focus::List,
            size: (120, 40),
            endpoint: "demo server",
            protocol: None,
            history_len: 0,
            result_width: 80,
            value_height: 10,
            item_rows: 0,
        }
    }

    #[test]
    fn a_key_is_an_action_where_the_pane_binds_it_else_the_key_itself() {
        let keymap = Keymap::default();
        assert_eq!(input_for(&keymap, Some(Context::Main), key(KeyCode::Esc)), Input::Action(Action::Back));
        assert_eq!(input_for(&keymap, Some(Context::Main), key(KeyCode::F(12))), Input::Key(key(KeyCode::F(12))));
        // A text box takes its keys as they are, even those the table binds elsewhere.
        assert_eq!(input_for(&keymap, None, key(KeyCode::Esc)), Input::Key(key(KeyCode::Esc)));
    }

    #[test]
    fn the_list_takes_its_moves_and_filter_and_leaves_the_rest_to_the_app() {
        let (keymap, catalog) = (Keymap::default(), load_samples(&LoadOptions::default()).catalog);
        let cx = cx(&keymap, &catalog);
        let mut list = ToolList::new(&catalog);
        let moved = list.handle(Input::Action(Action::Down), &cx).expect("the list's own");
        assert!(moved.tool_changed, "the form follows the selection");
        assert_eq!(
            list.handle(Input::Action(Action::ToggleJson), &cx),
            None,
            "the JSON view is the form's, via the app"
        );
        let filter = list.handle(Input::Action(Action::Filter), &cx).expect("the list's own");
        assert_eq!((filter.focus, list.context()), (Some(Focus::List), None), "the filter now takes keys as typed");
        let typed = list.handle(Input::Key(key(KeyCode::Char('w'))), &cx).expect("typed into the filter");
        assert!(typed.tool_changed && !typed.open_form);
        let chosen = list.handle(Input::Key(key(KeyCode::Enter)), &cx).expect("Enter in the filter");
        assert!(chosen.open_form && !list.filtering());
    }

    #[test]
    fn overlays_close_themselves_by_asking_and_leave_what_spans_panes() {
        let (keymap, catalog) = (Keymap::default(), Catalog::default());
        let cx = cx(&keymap, &catalog);
        let mut server = ServerPane::default();
        assert_eq!(server.handle(Input::Action(Action::Back), &cx), Some(Reply::close()));
        assert_eq!(server.handle(Input::Action(Action::Reconnect), &cx), None, "reconnecting is the app's");
        let said = server.handle(Input::Key(key(KeyCode::F(12))), &cx).and_then(|reply| reply.status);
        assert_eq!(
            said.as_deref(),
            Some("F12 does nothing in the server pane · Esc closes it, ? lists its keys"),
            "an unbound key does nothing, and says so"
        );
        assert_eq!(server.handle(Input::Action(Action::Quit), &cx), None, "q quits: the app's");
        let mut fuzz = FuzzPane::default();
        assert_eq!(fuzz.handle(Input::Action(Action::Back), &cx), Some(Reply::close()), "no run going on: it closes");
        assert_eq!(fuzz.handle(Input::Action(Action::Activate), &cx), None, "a finding goes to the form: the app's");
        let said = fuzz.handle(Input::Key(key(KeyCode::Char('x'))), &cx).and_then(|reply| reply.status);
        assert_eq!(said.as_deref(), Some("x does nothing in the fuzz pane · ? lists its keys"));
        let mut traffic = TrafficLog::default();
        assert_eq!(traffic.handle(Input::Action(Action::Traffic), &cx), Some(Reply::close()));
        let _ = traffic.handle(Input::Action(Action::Filter), &cx);
        assert_eq!(traffic.context(), None, "the filter takes keys as typed");
        let _ = traffic.handle(Input::Key(key(KeyCode::Char('q'))), &cx);
        assert_eq!(traffic.filter().text(), "q", "q types into the filter, it does not quit");
        let copied = traffic.handle(Input::Action(Action::Copy), &cx).expect("the pane's own");
        assert!(
            copied.effects.iter().all(|e| !matches!(e, Effect::Desktop(DesktopEffect::Copy(_)))),
            "nothing to copy"
        );
        assert_eq!(copied.status.as_deref(), Some("no message to copy"));
    }
}
