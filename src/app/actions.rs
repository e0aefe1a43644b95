//! Where a key goes and what the app does with the answer: the pane that has the keys
//! answers through `Component::handle` (`route`), its reply is applied; what no pane takes,
//! because it spans panes (the focus, the pane over the others, running, signing in, saving a
//! case...), is done here.

use crossterm::event::KeyEvent;

use super::component::Input;
use super::keymap::{Action, Context};
use super::route::{Pane, handle, input_of};
use super::{App, Effect, Focus, Overlay, Popup};

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
        app.prompts.open(Popup::palette());
        return Vec::new();
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
    if let Some(action) = app.keymap.action_for(Context::Typing, key) {
        return everywhere(app, action, run_armed);
    }
    if let Some(pane) = app.overlay_pane() {
        let input = input_of(app, pane, key);
        match handle(app, pane, input) {
            Some(reply) => return app.apply(reply),
            // The auth pane is read, not worked in: the panes under it take the other keys.
            None if pane == Pane::Auth => {}
            None => return overlay_action(app, input),
        }
    }
    focused_key(app, key, run_armed)
}

/// A key for the focused pane.
fn focused_key(app: &mut App, key: KeyEvent, run_armed: bool) -> Vec<Effect> {
    let pane = app.focused_pane();
    let input = input_of(app, pane, key);
    if let (Pane::List | Pane::Form, Input::Action(action)) = (pane, input) {
        // A call is run, and while one runs Back cancels it, from the list and the form alike.
        return match action {
            Action::Run => app.start_run(run_armed),
            Action::Back if app.result.running() => app.result.cancel(),
            action => act(app, action),
        };
    }
    if let Some(reply) = handle(app, pane, input) {
        return app.apply(reply);
    }
    match (pane, app.keymap.action_for(Context::Result, key)) {
        (Pane::Result, Some(action)) => result_app_action(app, action, run_armed),
        (Pane::Result, None) => {
            app.status = dead_key(app, &[Context::Anywhere, Context::Result, Context::Value], key);
            Vec::new()
        }
        (Pane::Form, _) => {
            app.status = dead_key(app, &[Context::Anywhere, Context::Typing, Context::Form], key);
            Vec::new()
        }
        _ => {
            app.status = dead_key(app, &[Context::Anywhere, Context::Typing, Context::Main], key);
            Vec::new()
        }
    }
}

/// What the pane over the others leaves to the app.
fn overlay_action(app: &mut App, input: Input) -> Vec<Effect> {
    let Input::Action(action) = input else { return Vec::new() };
    match (app.overlay(), action) {
        (_, Action::Quit) => vec![Effect::Quit],
        (Some(Overlay::Fuzz), action) => app.fuzz_action(action),
        (_, Action::Reconnect) => reconnect(app),
        (_, Action::ConnectServer) => {
            app.pick_found_server();
            Vec::new()
        }
        (_, Action::Help) => {
            app.prompts.open(Popup::help());
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// A paste goes to the text box that has the keys: a popup's, the filter, the JSON view or
/// the focused field.
pub(super) fn pasted(app: &mut App, text: &str) -> Vec<Effect> {
    for pane in [Pane::Popup, Pane::List, Pane::Form] {
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
    app.status = None;
    // The key that opened a view closes it, from inside it too.
    let filtering = app.list.filtering();
    if action == Action::Fuzz && app.shows(Overlay::Fuzz) {
        app.close_overlay();
        return Vec::new();
    }
    if !matches!(action, Action::Help | Action::Zoom | Action::ToggleRunOption(_)) {
        app.stop_typing();
    }
    // What shows in the main panes needs the pane over them out of the way.
    let keeps_overlay = match app.overlay() {
        Some(Overlay::Server | Overlay::Fuzz) => matches!(
            action,
            Action::Help | Action::Zoom | Action::Reconnect | Action::ServerPane | Action::History | Action::Quit
        ),
        Some(Overlay::Traffic) => matches!(action, Action::Help | Action::Zoom | Action::Traffic | Action::Quit),
        Some(Overlay::Auth) | None => true,
    };
    if !keeps_overlay {
        app.close_overlay();
    }
    match action {
        Action::Run => app.start_run(run_armed),
        // `stop_typing` closed the filter, keeping what was typed.
        Action::Filter if filtering => Vec::new(),
        Action::ServerPane => {
            app.toggle_overlay(Overlay::Server);
            Vec::new()
        }
        Action::Traffic => {
            app.toggle_traffic();
            Vec::new()
        }
        Action::RawDefinition => {
            app.show_raw_definition();
            Vec::new()
        }
        Action::Help => {
            app.prompts.open(Popup::help());
            Vec::new()
        }
        // In and out, as a switch: the same chord goes back where the person was.
        Action::FocusResult if app.focus == Focus::Result => {
            app.focus = app.before_result;
            Vec::new()
        }
        Action::FocusResult if app.result.run().is_some() => {
            app.focus_result();
            Vec::new()
        }
        Action::ToggleExchange
        | Action::CopyCurl
        | Action::FetchArtifact
        | Action::SaveArtifact
        | Action::Copy
        | Action::OpenLink
        | Action::WaitForAuthorization
            if app.result.run().is_some() =>
        {
            result_action(app, action, false)
        }
        Action::WaitForAuthorization => {
            let run_key = app.key_name(Context::Typing, Action::Run);
            app.status = Some(format!("no result yet: {run_key} runs the tool"));
            Vec::new()
        }
        action => act(app, action),
    }
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
            self.before_result = match self.focus {
                Focus::Json => Focus::Form,
                other => other,
            };
        }
        self.form_pane.stop_editing();
        self.focus = Focus::Result;
    }
}

/// An action chosen in the command palette, run where it belongs.
pub(super) fn run_action(app: &mut App, context: Context, action: Action) -> Vec<Effect> {
    match context {
        Context::Result | Context::Value if app.result.run().is_none() => {
            let run_key = app.key_name(Context::Main, Action::Run);
            app.status = Some(format!("no result yet: {run_key} runs the tool"));
            Vec::new()
        }
        Context::Result | Context::Value => {
            app.focus_result();
            if context == Context::Value {
                let height = app.value_height();
                let _ = app.result.value_action(action, height);
                return Vec::new();
            }
            result_action(app, action, false)
        }
        Context::Typing => everywhere(app, action, false),
        _ => match action {
            Action::Run => app.start_run(false),
            action => act(app, action),
        },
    }
}

/// An action in the list or the form: the form (when it has the focus), then the list, then
/// the app.
fn act(app: &mut App, action: Action) -> Vec<Effect> {
    app.status = None;
    let form = (app.focus == Focus::Form).then(|| handle(app, Pane::Form, Input::Action(action))).flatten();
    let effects = match form.or_else(|| handle(app, Pane::List, Input::Action(action))) {
        Some(reply) => app.apply(reply),
        None if app_action(app, action) => Vec::new(),
        None => match command(app, action) {
            Some(effects) => return effects,
            None => Vec::new(),
        },
    };
    app.sync_json();
    effects
}

/// What the list and the form leave to the app that only changes state here: the form and
/// the JSON view opened, the popups and the panes over the others; false for any other action.
fn app_action(app: &mut App, action: Action) -> bool {
    match action {
        Action::ToggleJson => app.toggle_json(),
        Action::Activate | Action::Expand | Action::NextField => app.open_selected_form(),
        Action::Help => app.prompts.open(Popup::help()),
        Action::Zoom => app.zoomed = !app.zoomed,
        Action::Palette => app.prompts.open(Popup::palette()),
        Action::ServerPane => app.toggle_overlay(Overlay::Server),
        Action::Traffic => app.toggle_traffic(),
        Action::RawDefinition => app.show_raw_definition(),
        Action::LintNotes => app.show_lint_notes(),
        Action::ConnectServer => app.pick_found_server(),
        Action::EditRoots => {
            app.prompts.open(Popup::Roots { input: crate::form::TextInput::prefilled(app.asks.roots().join(", ")) })
        }
        _ => return false,
    }
    true
}

/// Every other action: `Some` with the effects it asks for, `None` when it only changed state.
fn command(app: &mut App, action: Action) -> Option<Vec<Effect>> {
    let no_result = |app: &mut App| {
        let run_key = app.key_name(Context::Main, Action::Run);
        app.status = Some(format!("no result yet: {run_key} runs the tool"));
    };
    match action {
        Action::Quit | Action::ForceQuit => return Some(vec![Effect::Quit]),
        Action::FillDefaults => {
            let filled = app.form_mut().map_or(0, |form| form.fill_defaults());
            app.status = Some(match filled {
                0 => "no default left to fill in".to_string(),
                n => format!("{n} default{} filled in: they are sent now", if n == 1 { "" } else { "s" }),
            });
        }
        Action::ToggleExchange
        | Action::CopyCurl
        | Action::FetchArtifact
        | Action::SaveArtifact
        | Action::Copy
        | Action::OpenLink
            if app.result.run().is_some() =>
        {
            return Some(result_action(app, action, false));
        }
        Action::ToggleRunOption(n) => {
            let reply = app.form_op(|pane, id| pane.toggle_run_option(id, n));
            // The option's form is built if it was not (its Alt-key works from the list too).
            app.form_mut();
            app.apply(reply);
        }
        Action::Run => return Some(app.start_run(false)),
        Action::Retry => return Some(app.retry()),
        Action::GiveToken => app.ask_token(),
        Action::SignIn => return Some(app.sign_in()),
        Action::SignOut => {
            let reply = app.auth.sign_out();
            return Some(app.apply(reply));
        }
        Action::FocusResult if app.result.run().is_some() => app.focus_result(),
        Action::Subscribe => return Some(app.toggle_subscription()),
        Action::Reconnect => return Some(reconnect(app)),
        Action::History if app.recorder.history().is_empty() => app.status = Some("no calls yet".into()),
        Action::History => app.prompts.open(Popup::History { selected: 0 }),
        Action::SaveCase => return Some(app.save_case()),
        Action::Fuzz => return Some(app.fuzz_selected()),
        Action::HostApp => return Some(app.host_app()),
        Action::WatchRun => app.toggle_watch_run(),
        Action::Unset | Action::AddItem | Action::DeleteItem | Action::MoveItemUp | Action::MoveItemDown => {
            app.status = Some(app.say("select a tool and press {key:activate} to fill in its form"));
        }
        Action::FocusResult
        | Action::ToggleExchange
        | Action::CopyCurl
        | Action::FetchArtifact
        | Action::SaveArtifact
        | Action::Copy
        | Action::OpenLink => no_result(app),
        // A server's question has its own keys (`asks`); the result pane's own actions are not
        // bound here.
        _ => {}
    }
    None
}

impl App {
    /// The selected tool's form takes the focus.
    pub(super) fn open_selected_form(&mut self) {
        let Some(form) = self.form_mut() else { return };
        if form.rows().is_empty() {
            let run_key = self.key_name(Context::Main, Action::Run);
            let reads = self.selected_tool().is_some_and(|t| !t.written.face.is_tool());
            self.status = Some(match reads {
                true => format!("nothing to fill in: {run_key} reads it"),
                false => format!("this tool takes no parameters: {run_key} runs it"),
            });
        }
        self.focus = Focus::Form;
    }
}

/// A result-pane action, from the pane or from the form while the result is on screen: the
/// pane does what is its own, the app what involves the other panes.
fn result_action(app: &mut App, action: Action, run_armed: bool) -> Vec<Effect> {
    match handle(app, Pane::Result, Input::Action(action)) {
        Some(reply) => app.apply(reply),
        None => result_app_action(app, action, run_armed),
    }
}

/// What the result pane leaves to the app.
fn result_app_action(app: &mut App, action: Action, run_armed: bool) -> Vec<Effect> {
    match action {
        Action::Back => app.focus = app.before_result,
        Action::Run => return app.start_run(run_armed),
        Action::Retry => return app.retry(),
        Action::GiveToken => app.ask_token(),
        Action::SignIn => return app.sign_in(),
        Action::Zoom => app.zoomed = !app.zoomed,
        Action::Help => app.prompts.open(Popup::help()),
        Action::FindNext => app.find_next(),
        Action::SaveCase => return app.save_case(),
        Action::ServerPane => app.open_overlay(Overlay::Server),
        Action::Traffic => app.toggle_traffic(),
        Action::Reconnect => return reconnect(app),
        Action::NextItem => return app.select_item(1),
        Action::PreviousItem => return app.select_item(-1),
        Action::Copy => {
            let reply = app.copy_result();
            return app.apply(reply);
        }
        _ => {}
    }
    Vec::new()
}

/// `R`: start the MCP server again (or open a new session) and list its tools again.
fn reconnect(app: &mut App) -> Vec<Effect> {
    app.server_mut().start_listing();
    app.server_pane_mut().note("reconnecting…");
    app.status = Some(format!("reconnecting to {}…", crate::text::visible(app.server().endpoint())));
    vec![Effect::Reconnect]
}
