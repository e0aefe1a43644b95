//! Where a key goes and what the app does with the answer: the pane that has the keys
//! answers through `Component::handle` (`route`), its reply is applied; what no pane takes,
//! because it spans panes (the focus, the pane over the others, running, signing in, saving a
//! case...), is done here.
// No wildcard arm on an enum here: a new variant is a compile error until it is handled.
#![deny(clippy::wildcard_enum_match_arm)]

use crossterm::event::KeyEvent;

use super::component::Input;
use super::keymap::{Action, Context};
use super::route::{Pane, handle, input_of};
use super::{App, Effect, Focus, Overlay, Popup, ServerEffect};

/// A key: a server's question has the keys until it is answered, then a popup, then the pane
/// over the others, then the focused pane. Chords bound in every pane are commands before a
/// pane sees them (no text box types them).
pub(super) fn key_pressed(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    if app.asks.is_open() {
        let reply = handle(app, Pane::Question, Input::Key(key)).unwrap_or_default();
        return app.apply(reply);
    }
    // Only a second Run straight after the first sends invalid input.
    let run_armed = app.form_pane.take_run_armed();
    if app.prompts.popup().is_none() && app.keymap.is(Context::Anywhere, key, Action::Palette) {
        return perform(app, Action::Palette, Scope::Main, run_armed);
    }
    if let Some(popup) = app.prompts.popup() {
        // The key that opened the popup closes it, as Esc does.
        let key = match super::prompts::closes(&app.keymap, popup, key) {
            true => KeyEvent::from(crossterm::event::KeyCode::Esc),
            false => key,
        };
        let reply = handle(app, Pane::Popup, Input::Key(key)).unwrap_or_default();
        app.clamp_help();
        app.clamp_text();
        return app.apply(reply);
    }
    // A held message's editor takes every key (its own chords first), as a question does.
    if app.shows(Overlay::Traffic) && app.context_of(Pane::Traffic) == Some(Context::Held) {
        let input = input_of(app, Pane::Traffic, key);
        return match handle(app, Pane::Traffic, input) {
            Some(reply) => app.apply(reply),
            None => perform(app, Action::Help, Scope::Overlay(Overlay::Traffic), run_armed),
        };
    }
    if let Some(action) = app.keymap.action_for(Context::Typing, key) {
        return everywhere(app, action, run_armed);
    }
    if let Some(pane) = app.overlay_pane() {
        let input = input_of(app, pane, key);
        match handle(app, pane, input) {
            Some(reply) => return app.apply(reply),
            // The auth pane is read, not worked in: the panes under it take the other keys.
            None if pane == Pane::Auth => {}
            None => {
                let (Input::Action(action), Some(overlay)) = (input, app.overlay()) else { return Vec::new() };
                return perform(app, action, Scope::Overlay(overlay), run_armed);
            }
        }
    }
    focused_key(app, key, run_armed)
}

/// A key for the focused pane.
fn focused_key(app: &mut App, key: KeyEvent, run_armed: bool) -> Vec<Effect> {
    let pane = app.focused_pane();
    let input = input_of(app, pane, key);
    if let (Pane::List | Pane::Form, Input::Action(action)) = (pane, input) {
        // While a call runs Back cancels it, from the list and the form alike.
        if action == Action::Back && app.result.running() {
            return app.result.cancel();
        }
        return act(app, action, run_armed);
    }
    if let Some(reply) = handle(app, pane, input) {
        return app.apply(reply);
    }
    match (pane, app.keymap.action_for(Context::Result, key)) {
        (Pane::Result, Some(action)) => perform(app, action, Scope::Result, run_armed),
        (Pane::Result, None) => {
            app.set_status(dead_key(app, &[Context::Anywhere, Context::Result, Context::Value], key));
            Vec::new()
        }
        (Pane::Form, _) => {
            app.set_status(dead_key(app, &[Context::Anywhere, Context::Typing, Context::Form], key));
            Vec::new()
        }
        _ => {
            app.set_status(dead_key(app, &[Context::Anywhere, Context::Typing, Context::Main], key));
            Vec::new()
        }
    }
}

/// A paste goes to the text box that has the keys: a popup's, the filter, the JSON view or
/// the focused field.
pub(super) fn pasted(app: &mut App, text: &str) -> Vec<Effect> {
    for pane in [Pane::Popup, Pane::Traffic, Pane::List, Pane::Form] {
        if pane == Pane::Traffic && !app.shows(Overlay::Traffic) {
            continue;
        }
        if let Some(reply) = handle(app, pane, Input::Paste(text)) {
            return app.apply(reply);
        }
    }
    Vec::new()
}

/// A key that means nothing where it was pressed: what it does elsewhere, if anything.
fn dead_key(app: &App, here: &[Context], key: KeyEvent) -> Option<String> {
    // On the form a printable key types, so only the chord for help is named there.
    let help_in = if here.contains(&Context::Form) { Context::Typing } else { Context::Main };
    let help = app.key_name(help_in, Action::Help);
    let palette = app.key_name(Context::Anywhere, Action::Palette);
    match app.keymap.elsewhere(here, key) {
        Some(hint) => Some(hint),
        None if matches!(key.code, crossterm::event::KeyCode::Char(_)) => Some(format!(
            "{} does nothing here · {help} lists the keys here, {palette} every action",
            super::keymap::Key::of(key)
        )),
        None => None,
    }
}

/// A command bound in every pane (`Context::Typing`). A text box being typed in stops taking
/// keys first (what was typed stays), so the letters after the command are commands again;
/// only what leaves the person where they were (help, zoom, a run option) keeps the edit.
fn everywhere(app: &mut App, action: Action, run_armed: bool) -> Vec<Effect> {
    app.hush();
    // The key that opened a view closes it, from inside it too.
    let filtering = app.list.filtering();
    if (action == Action::Fuzz && app.shows(Overlay::Fuzz)) || (action == Action::Eval && app.shows(Overlay::Eval)) {
        app.close_overlay();
        return Vec::new();
    }
    if !matches!(action, Action::Help | Action::Zoom | Action::ToggleRunOption(_)) {
        app.stop_typing();
    }
    // What shows in the main panes needs the pane over them out of the way.
    let keeps_overlay = match app.overlay() {
        Some(Overlay::Server | Overlay::Fuzz | Overlay::Eval) => matches!(
            action,
            Action::Help | Action::Zoom | Action::Reconnect | Action::ServerPane | Action::History | Action::Quit
        ),
        Some(Overlay::Traffic) => matches!(action, Action::Help | Action::Zoom | Action::Traffic | Action::Quit),
        Some(Overlay::Auth) | None => true,
    };
    if !keeps_overlay {
        app.close_overlay();
    }
    // `stop_typing` closed the filter, keeping what was typed.
    if action == Action::Filter && filtering {
        if let Some(back) = app.list.take_filter_from() {
            app.focus = back;
        }
        return Vec::new();
    }
    act(app, action, run_armed)
}

impl App {
    /// The text box being typed in (a field, the filter, the JSON view) stops taking keys; what
    /// was typed stays.
    pub(super) fn stop_typing(&mut self) {
        self.form_pane.stop_editing();
        self.list.stop_filter();
        self.server_pane_mut().traffic_mut().stop_filter();
        if self.focus == Focus::Json {
            self.focus = Focus::Form;
        }
        self.sync_json();
    }

    /// The result pane takes the focus; leaving it returns where the person was.
    pub(super) fn focus_result(&mut self) {
        if self.focus != Focus::Result {
            self.before_result = if self.focus == Focus::Json { Focus::Form } else { self.focus };
        }
        self.form_pane.stop_editing();
        self.focus = Focus::Result;
    }
}

/// An action chosen in the command palette, run where it belongs.
pub(super) fn run_action(app: &mut App, context: Context, action: Action) -> Vec<Effect> {
    match context {
        Context::Result | Context::Value if app.result.run().is_none() => {
            app.no_result_yet();
            Vec::new()
        }
        Context::Result | Context::Value => {
            app.focus_result();
            if context == Context::Value {
                let height = app.value_height();
                let _ = app.result.value_action(action, height);
                return Vec::new();
            }
            result_action(app, action)
        }
        Context::Typing => everywhere(app, action, false),
        Context::Anywhere
        | Context::Main
        | Context::Form
        | Context::History
        | Context::Picker
        | Context::Server
        | Context::Ask
        | Context::Traffic
        | Context::Held
        | Context::Fuzz
        | Context::Eval
        | Context::Confirm => act(app, action, false),
    }
}

/// An action in the list or the form: the form (when it has the focus), then the list, then
/// the app (`perform`).
fn act(app: &mut App, action: Action, run_armed: bool) -> Vec<Effect> {
    app.hush();
    let form = (app.focus == Focus::Form).then(|| handle(app, Pane::Form, Input::Action(action))).flatten();
    let effects = match form.or_else(|| handle(app, Pane::List, Input::Action(action))) {
        Some(reply) => app.apply(reply),
        None => perform(app, action, Scope::Main, run_armed),
    };
    app.sync_json();
    effects
}

/// A result-pane action from elsewhere (the list, the form, the palette): the pane does what is
/// its own, the app the rest.
fn result_action(app: &mut App, action: Action) -> Vec<Effect> {
    match handle(app, Pane::Result, Input::Action(action)) {
        Some(reply) => app.apply(reply),
        None => perform(app, action, Scope::Result, false),
    }
}

/// Where an action reaches the app, no pane having taken it: it decides which actions are live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// The list or the form (an every-pane chord, after its text box stopped taking keys, is
    /// here too).
    Main,
    /// The result pane.
    Result,
    /// The pane over the others.
    Overlay(Overlay),
}

impl Scope {
    /// Whether `action` means something to the app here (the key table decides which actions
    /// reach each scope; this only keeps a pane's leftovers from acting on the others).
    fn live(self, action: Action) -> bool {
        use Action as A;
        match self {
            Scope::Main => true,
            Scope::Result => matches!(
                action,
                A::Back
                    | A::Run
                    | A::Retry
                    | A::GiveToken
                    | A::SignIn
                    | A::Zoom
                    | A::Help
                    | A::FindNext
                    | A::SaveCase
                    | A::ServerPane
                    | A::Traffic
                    | A::Reconnect
                    | A::NextItem
                    | A::PreviousItem
                    | A::Copy
                    | A::WatchRun
                    | A::History
            ),
            Scope::Overlay(Overlay::Fuzz) => matches!(action, A::Quit | A::Help | A::Activate | A::Retry),
            // `r` runs the cases again; the pane takes the rest.
            Scope::Overlay(Overlay::Eval) => matches!(action, A::Quit | A::Help | A::Retry),
            // Enter on a recorded `tools/call` opens it in the form.
            Scope::Overlay(Overlay::Traffic) => {
                matches!(action, A::Quit | A::Help | A::Activate | A::Reconnect | A::ConnectServer)
            }
            Scope::Overlay(Overlay::Server | Overlay::Auth) => {
                matches!(action, A::Quit | A::Help | A::Reconnect | A::ConnectServer)
            }
        }
    }
}

/// The one table from an action to what the app does for it, wherever it came from (a key in
/// any pane, the palette): one arm per action, no wildcard, so a new action does not compile
/// until it says what it does. `scope` says which are live, and the few that mean something
/// else there (Enter and `r` in the fuzz pane, `r` in the eval pane, a result action from the
/// result pane itself).
pub(super) fn perform(app: &mut App, action: Action, scope: Scope, run_armed: bool) -> Vec<Effect> {
    use Action as A;
    if !scope.live(action) {
        return Vec::new();
    }
    let fuzz_pane = scope == Scope::Overlay(Overlay::Fuzz);
    let traffic_pane = scope == Scope::Overlay(Overlay::Traffic);
    let eval_pane = scope == Scope::Overlay(Overlay::Eval);
    match action {
        A::Quit | A::ForceQuit => return vec![Effect::Quit],
        A::Run => return app.start_run(run_armed),
        A::Retry if fuzz_pane => return app.fuzz_again(),
        A::Retry if eval_pane => return app.eval_again(),
        A::Retry => return app.retry(),
        A::Activate if fuzz_pane => app.finding_to_form(),
        A::Activate if traffic_pane => app.open_traffic_call(),
        A::Activate | A::Expand | A::NextField => app.open_selected_form(),
        // Leaving the result pane: the list and the form take their own Back.
        A::Back if scope == Scope::Result => app.focus = app.before_result,
        A::Help => app.prompts.open(Popup::help()),
        A::Palette => app.prompts.open(Popup::palette()),
        A::Zoom => app.zoomed = !app.zoomed,
        A::ServerPane => app.toggle_overlay(Overlay::Server),
        A::Traffic => app.toggle_traffic(),
        A::RawDefinition => app.show_raw_definition(),
        A::LintNotes => app.show_lint_notes(),
        A::ConnectServer => app.pick_found_server(),
        A::EditRoots => app.edit_roots(),
        A::ToggleJson => app.toggle_json(),
        A::FillDefaults => app.fill_defaults(),
        A::ToggleRunOption(n) => return app.toggle_run_option(n),
        A::GiveToken => app.ask_token(),
        A::SignIn => return app.sign_in(),
        A::SignOut => return app.sign_out(),
        A::Subscribe => return app.toggle_subscription(),
        A::Reconnect => return reconnect(app),
        A::History if app.recorder.history().is_empty() => app.tell("no calls yet"),
        A::History => app.prompts.open(Popup::History { selected: 0 }),
        A::SaveCase => return app.save_case(),
        A::Fuzz => return app.fuzz_selected(),
        A::Eval => return app.eval_selected(),
        A::HostApp => return app.host_app(),
        A::WatchRun => app.toggle_watch_run(),
        // From the palette: the traffic pane's own, with the pane shown.
        A::Break | A::ClearBreaks | A::SendHeld | A::DropHeld => {
            if !app.shows(Overlay::Traffic) {
                app.open_overlay(Overlay::Traffic);
            }
            let reply = handle(app, Pane::Traffic, Input::Action(action)).unwrap_or_default();
            return app.apply(reply);
        }
        // In and out, as a switch: the same chord goes back where the person was.
        A::FocusResult if app.focus == Focus::Result => app.focus = app.before_result,
        A::FocusResult if app.result.run().is_some() => app.focus_result(),
        A::FindNext => app.find_next(),
        A::NextItem => return app.select_item(1),
        A::PreviousItem => return app.select_item(-1),
        A::FocusResult => app.no_result_yet(),
        A::ToggleExchange
        | A::CopyCurl
        | A::FetchArtifact
        | A::SaveArtifact
        | A::Copy
        | A::OpenLink
        | A::WaitForAuthorization => return result_leftover(app, action, scope),
        // The form's, with no form open (the list has the keys).
        A::Unset | A::AddItem | A::DeleteItem | A::MoveItemUp | A::MoveItemDown => {
            app.tell(app.say("select a tool and press {key:activate} to fill in its form"));
        }
        // The panes' own: moving, folding, filtering, finding, a server's question, a yes.
        A::Back
        | A::Up
        | A::Down
        | A::PageUp
        | A::PageDown
        | A::Top
        | A::Bottom
        | A::PreviousField
        | A::Filter
        | A::Collapse
        | A::Find
        | A::ToggleWrap
        | A::ScrollLeft
        | A::ScrollRight
        | A::FoldAll
        | A::UnfoldAll
        | A::LogLevel
        | A::MessageUp
        | A::MessageDown
        | A::AskAccept
        | A::AskDecline
        | A::AskCancel
        | A::Confirm => {}
    }
    Vec::new()
}

/// The result pane's own actions, left to the app: from the pane itself only its copy is the
/// app's (the link, else the value); from elsewhere they go to the pane while there is a result.
fn result_leftover(app: &mut App, action: Action, scope: Scope) -> Vec<Effect> {
    match scope {
        Scope::Result if action == Action::Copy => {
            let reply = app.copy_result();
            app.apply(reply)
        }
        Scope::Result => Vec::new(),
        Scope::Main | Scope::Overlay(_) if app.result.run().is_some() => result_action(app, action),
        Scope::Main | Scope::Overlay(_) => {
            app.no_result_yet();
            Vec::new()
        }
    }
}

impl App {
    /// `D`: every default the schema gives filled in.
    fn fill_defaults(&mut self) {
        let filled = self.form_mut().map_or(0, |form| form.fill_defaults());
        self.tell(match filled {
            0 => "no default left to fill in".to_string(),
            n => format!("{n} default{} filled in: they are sent now", if n == 1 { "" } else { "s" }),
        });
    }

    /// Alt-N: run option `n` of the selected tool on or off.
    fn toggle_run_option(&mut self, n: usize) -> Vec<Effect> {
        let reply = self.form_op(|pane, id| pane.toggle_run_option(id, n));
        // The option's form is built if it was not (its Alt-key works from the list too).
        self.form_mut();
        self.apply(reply)
    }

    /// `U`: the server's kept tokens forgotten.
    fn sign_out(&mut self) -> Vec<Effect> {
        let reply = self.auth.sign_out();
        self.apply(reply)
    }

    /// `T`: the roots offered to the server, to edit.
    fn edit_roots(&mut self) {
        let input = crate::form::TextInput::prefilled(self.asks.roots().join(", "));
        self.prompts.open(Popup::Roots { input });
    }

    /// The one answer to a result action with no result on screen.
    pub(super) fn no_result_yet(&mut self) {
        self.tell(self.say("no result yet: {key:run} runs the tool"));
    }

    /// The selected tool's form takes the focus.
    pub(super) fn open_selected_form(&mut self) {
        let Some(form) = self.form_mut() else { return };
        if form.rows().is_empty() {
            self.tell(self.nothing_to_fill_in());
        }
        self.focus = Focus::Form;
    }

    /// What a form with no field says: what the run key does with the entry selected (a tool
    /// runs, a resource is read, a server that is not connected is tried again).
    pub fn nothing_to_fill_in(&self) -> String {
        use crate::catalog::Face;
        self.say(match self.selected_tool().map(|t| &t.written.face) {
            Some(Face::Offline { .. }) => "not connected: {key:reconnect} tries again, {key:server_pane} says why",
            Some(Face::Tool) | None => "no parameters: {key:run} runs the tool",
            Some(_) => "nothing to fill in: {key:run} reads it",
        })
    }
}

/// `R`: start the MCP server again (or open a new session) and list its tools again.
fn reconnect(app: &mut App) -> Vec<Effect> {
    if app.server().keeps_no_session() {
        let session = app.sessions.current_id();
        let recorded = app.catalog.tools().iter().any(|t| t.source.session == Some(session));
        // Listing it again would add the files' tools a second time, as the server's.
        let shown = crate::text::visible(app.server().endpoint()).into_owned();
        app.tell(match recorded {
            true => app.names_no_server(session),
            false => format!("{shown} keeps no session: nothing to restart, calls go to it as they are"),
        });
        return Vec::new();
    }
    app.server_mut().start_listing();
    app.server_pane_mut().note("reconnecting…");
    app.tell(format!("reconnecting to {}…", crate::text::visible(app.server().endpoint())));
    vec![Effect::Server(ServerEffect::Reconnect)]
}
