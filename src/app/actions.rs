//! Where a key goes: the open popup, the text being typed, or the keymap's action for the
//! focused pane; and what the list-and-form and result-pane actions do.

use crossterm::event::KeyEvent;

use super::keymap::{Action, Context};
use super::{App, Effect, Focus, Overlay, Popup};

pub(super) fn key_pressed(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    // Only a second Run straight after the first sends invalid input.
    let run_armed = app.form_pane.take_run_armed();
    if app.prompts.popup.is_none() && app.keymap.is(Context::Anywhere, key, Action::Palette) {
        app.prompts.open(Popup::palette());
        return Vec::new();
    }
    if app.prompts.popup.is_some() {
        let prompted = app.prompts.key(&app.keymap, key, app.recorder.history.len());
        app.clamp_help();
        app.clamp_text();
        return app.prompted(prompted);
    }
    // A chord or a function key is a command in every pane, even while typing: no text box
    // types chords, so a command never lands in one.
    if let Some(action) = app.keymap.action_for(Context::Typing, key) {
        return everywhere(app, action, run_armed);
    }
    match app.overlay() {
        Some(Overlay::Server) => return server_key(app, key),
        Some(Overlay::Fuzz) => return app.fuzz_key(key),
        Some(Overlay::Traffic) => return app.traffic_key(key),
        // The auth pane is read, not worked in: the Back key closes it.
        Some(Overlay::Auth) if app.keymap.is(Context::Main, key, Action::Back) => {
            app.close_overlay();
            return Vec::new();
        }
        Some(Overlay::Auth) | None => {}
    }
    if app.list.filtering() {
        app.filter_key(key);
        return Vec::new();
    }
    if app.focus == Focus::Json {
        app.json_key(key);
        return Vec::new();
    }
    if app.focus == Focus::Result {
        return result_key(app, key, run_armed);
    }
    // Printable keys type only into the field the person chose with Enter; until then a
    // letter is a command.
    if app.form_pane.editing {
        app.edit_key(key);
        return Vec::new();
    }
    match app.keymap.action_for(Context::Main, key) {
        Some(Action::Run) => app.start_run(run_armed),
        Some(Action::Back) if app.result.running() => app.result.cancel(),
        Some(action) => act(app, action),
        None => {
            app.status = dead_key(app, &[Context::Anywhere, Context::Typing, Context::Main], key);
            Vec::new()
        }
    }
}

/// A key that means nothing where it was pressed: what it does elsewhere, if anything.
fn dead_key(app: &App, here: &[Context], key: KeyEvent) -> Option<String> {
    let help = app.key_name(Context::Main, Action::Help);
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
        Action::FocusResult if app.result.run.is_some() => {
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
            if app.result.run.is_some() =>
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
        self.server_pane.traffic.stop_filter();
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
        Context::Result | Context::Value if app.result.run.is_none() => {
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

/// An action in the list or the form.
fn act(app: &mut App, action: Action) -> Vec<Effect> {
    app.status = None;
    let handled = (app.focus == Focus::Form && form_action(app, action)) || list_action(app, action);
    if !handled && let Some(effects) = command(app, action) {
        return effects;
    }
    app.sync_json();
    Vec::new()
}

/// An action on the form that has the focus; false when the form does not take it.
fn form_action(app: &mut App, action: Action) -> bool {
    if action == Action::Back {
        app.focus = Focus::List;
        return true;
    }
    let id = app.selected_id();
    match app.form_pane.act(id.as_deref(), action) {
        Some(reply) => {
            let _ = app.apply(reply);
            true
        }
        None => false,
    }
}

/// Moving in the tool list, searching it, and what changes only the view; false for any other
/// action.
fn list_action(app: &mut App, action: Action) -> bool {
    match action {
        Action::Up => app.select_tool(-1),
        Action::Down => app.select_tool(1),
        Action::PageUp => app.select_tool(-10),
        Action::PageDown => app.select_tool(10),
        Action::Top => app.select_tool(isize::MIN / 2),
        Action::Bottom => app.select_tool(isize::MAX / 2),
        Action::Back => {
            let _ = app.list.clear_filter(&app.catalog);
        }
        Action::PreviousField | Action::Collapse => {}
        Action::Filter => {
            // A new search each time: `/` never appends to the last one.
            app.focus = Focus::List;
            app.list.start_filter();
        }
        Action::ToggleJson => app.toggle_json(),
        Action::Activate | Action::Expand | Action::NextField => open_form(app),
        Action::Help => app.prompts.open(Popup::help()),
        Action::Zoom => app.zoomed = !app.zoomed,
        Action::Palette => app.prompts.open(Popup::palette()),
        Action::ServerPane => app.toggle_overlay(Overlay::Server),
        Action::Traffic => app.toggle_traffic(),
        Action::RawDefinition => app.show_raw_definition(),
        Action::LintNotes => app.show_lint_notes(),
        Action::ConnectServer => app.pick_found_server(),
        Action::EditRoots => {
            app.prompts.open(Popup::Roots { input: crate::form::TextInput::new(app.asks.roots().join(", ")) })
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
            if app.result.run.is_some() =>
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
        Action::FocusResult if app.result.run.is_some() => app.focus_result(),
        Action::Subscribe => return Some(app.toggle_subscription()),
        Action::Reconnect => return Some(reconnect(app)),
        Action::History if app.recorder.history.is_empty() => app.status = Some("no calls yet".into()),
        Action::History => app.prompts.open(Popup::History { selected: 0 }),
        Action::SaveCase => return Some(app.save_case()),
        Action::Fuzz => return Some(app.fuzz_selected()),
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

fn open_form(app: &mut App) {
    app.open_selected_form();
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

/// Keys while the result pane has the focus: the value viewer's first while it shows a value.
fn result_key(app: &mut App, key: KeyEvent, run_armed: bool) -> Vec<Effect> {
    if app.result.shows_value()
        && let Some(action) = app.keymap.action_for(Context::Value, key)
    {
        if action == Action::Activate
            && let Some(popup) = app.result.string_as_text()
        {
            app.prompts.open(popup);
            return Vec::new();
        }
        let height = app.value_height();
        if app.result.value_action(action, height) {
            return Vec::new();
        }
    }
    let Some(action) = app.keymap.action_for(Context::Result, key) else {
        app.status = dead_key(app, &[Context::Anywhere, Context::Result, Context::Value], key);
        return Vec::new();
    };
    result_action(app, action, run_armed)
}

/// A result-pane action, from the pane or from the form while the result is on screen: the
/// pane does what is its own, the app what involves the other panes.
fn result_action(app: &mut App, action: Action, run_armed: bool) -> Vec<Effect> {
    let width = app.layout().result.map_or(80, |r| usize::from(r.width.saturating_sub(2)));
    if (app.result.shows_items() && app.scroll_items(action)) || app.result.scroll_action(action, width) {
        return Vec::new();
    }
    let agreed = app.server_pane.info().map(|i| i.protocol_version.as_str());
    if let Some(reply) = app.result.act(action, &app.server.endpoint, agreed) {
        return app.apply(reply);
    }
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

/// Keys while the server pane is open.
fn server_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    // The log's rows: the screen less the pane's header, borders and status line.
    app.server_pane.fit(app.size.1);
    match app.keymap.action_for(Context::Server, key) {
        Some(Action::Back) => {
            app.close_overlay();
            Vec::new()
        }
        Some(Action::Reconnect) => reconnect(app),
        Some(Action::ConnectServer) => {
            app.pick_found_server();
            Vec::new()
        }
        Some(Action::Help) => {
            app.prompts.open(Popup::help());
            Vec::new()
        }
        Some(Action::Activate) => {
            let reply = app.server_pane.instructions();
            app.apply(reply)
        }
        Some(action) => {
            let reply = app.server_pane.act(action);
            app.apply(reply)
        }
        None => Vec::new(),
    }
}

/// `R`: start the MCP server again (or open a new session) and list its tools again.
fn reconnect(app: &mut App) -> Vec<Effect> {
    app.server.start_listing();
    app.server_pane.note("reconnecting…");
    app.status = Some(format!("reconnecting to {}…", crate::text::visible(&app.server.endpoint)));
    vec![Effect::Reconnect]
}
