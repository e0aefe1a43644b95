//! Every key that is a command, in one table: (context, action, default keys, help). Dispatch
//! (`Keymap::action_for`), the status-bar hints and the help overlay all read it, so they can
//! never disagree. A user's `[keys]` overrides are patched over the defaults at startup (as
//! gitui's key_list does); the app is handed the result and never reads a file.
//!
//! Keys that type stay with the text box that has them (characters, Backspace, arrows and Enter
//! and Esc in a box): they are not commands and are not rebindable.

use crossterm::event::KeyEvent;

mod error;
mod key;
mod table;

pub use error::KeymapError;
pub use key::{Key, KeyError};

pub use table::DEFAULTS;

/// Where a binding applies. Contexts are checked in layers: `Anywhere` first, then the one the
/// focus is in (in the result pane, `Value` before `Result` while a value is shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    /// Even while typing in a text box, so only chords and function keys.
    Anywhere,
    /// The tool list (and what the list and the form share, such as the palette's entries).
    Main,
    /// The form, when no field is being edited: no printable key, since a printable key on a
    /// form types into the field under the cursor (or says how that field is edited).
    Form,
    /// The result pane.
    Result,
    /// The value viewer inside the result pane (moving, folding).
    Value,
    /// The list of past calls.
    History,
    /// A list to pick a value from.
    Picker,
    /// The server pane: what the server said of itself, its stderr and log.
    Server,
    /// What an MCP server asks during a call (a form, a URL, a sampling request).
    Ask,
    /// The traffic pane: every message of the session with the server.
    Traffic,
    /// A message a proxy holds at a breakpoint, open in the JSON editor: printable keys type,
    /// so only chords and Esc (`tooldeck attach`).
    Held,
    /// From every pane, even while typing in a field, the JSON view or the filter: chords and
    /// function keys only, so a command never lands in a text box. (Popups and a server's
    /// question take every key but `Anywhere`'s until they close.)
    Typing,
    /// The fuzz pane: a fuzz run's progress and findings.
    Fuzz,
    /// The eval pane: an eval run's progress, its cases, iterations and trajectories.
    Eval,
    /// A yes-or-no box (replace a file, run a destructive tool): its yes key; any other key is
    /// no.
    Confirm,
}

impl Context {
    pub const ALL: [Context; 15] = [
        Context::Anywhere,
        Context::Main,
        Context::Form,
        Context::Typing,
        Context::Result,
        Context::Value,
        Context::History,
        Context::Picker,
        Context::Server,
        Context::Fuzz,
        Context::Eval,
        Context::Traffic,
        Context::Held,
        Context::Ask,
        Context::Confirm,
    ];

    /// The heading the help overlay gives it.
    pub fn title(self) -> &'static str {
        match self {
            Context::Anywhere => "anywhere",
            Context::Main => "tool list",
            Context::Form => "form (printable keys type)",
            Context::Result => "result",
            Context::Value => "a value in the result",
            Context::History => "past calls",
            Context::Picker => "pickers",
            Context::Server => "server pane",
            Context::Traffic => "traffic pane",
            Context::Held => "a held message (printable keys type)",
            Context::Ask => "a server's question",
            Context::Typing => "every pane, even while typing",
            Context::Fuzz => "fuzz pane",
            Context::Eval => "eval pane",
            Context::Confirm => "a yes-or-no question",
        }
    }

    /// The contexts whose keys are live together, so one key must not mean two actions there.
    fn layers() -> [&'static [Context]; 12] {
        [
            &[Context::Anywhere, Context::Typing, Context::Form],
            &[Context::Anywhere, Context::Confirm],
            &[Context::Anywhere, Context::Ask],
            &[Context::Anywhere, Context::Typing, Context::Main],
            &[Context::Anywhere, Context::Typing, Context::Value, Context::Result],
            &[Context::Anywhere, Context::History],
            &[Context::Anywhere, Context::Picker],
            &[Context::Anywhere, Context::Typing, Context::Server],
            &[Context::Anywhere, Context::Typing, Context::Fuzz],
            &[Context::Anywhere, Context::Typing, Context::Eval],
            &[Context::Anywhere, Context::Typing, Context::Traffic],
            // A held message's editor takes every key but these, as a server's question does.
            &[Context::Anywhere, Context::Held],
        ]
    }

    /// Keys here work while a text box has the keys, so none may type or edit.
    fn beside_text(self) -> bool {
        matches!(self, Context::Anywhere | Context::Typing)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Quit,
    /// Ctrl-C: quits from anywhere, even from a text box.
    ForceQuit,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Select a tool, edit a field, toggle a checkbox, open a picker; in the value viewer, fold
    /// or unfold; in a popup, take the choice.
    Activate,
    /// Leave editing, then go back; in a popup, close it.
    Back,
    NextField,
    PreviousField,
    Filter,
    ToggleJson,
    Unset,
    AddItem,
    DeleteItem,
    MoveItemUp,
    MoveItemDown,
    Collapse,
    Expand,
    Run,
    /// Toggle the n-th run option: the binding's n-th key (Alt-1 is 0).
    ToggleRunOption(usize),
    /// Focus the result pane.
    FocusResult,
    /// Run the last call again.
    Retry,
    /// Give a token for the provider the result asks for.
    GiveToken,
    /// Sign in to the MCP server over HTTP (OAuth, in the browser).
    SignIn,
    /// Forget the tokens kept for the MCP server.
    SignOut,
    /// Past calls.
    History,
    /// Save a call and its outcome as a test case.
    SaveCase,
    Help,
    /// The result pane shows the exact request and response instead of the outcome.
    ToggleExchange,
    CopyCurl,
    FetchArtifact,
    SaveArtifact,
    /// Ask again every few seconds until the user has authorized in the browser.
    WaitForAuthorization,
    /// The result's link, else its value, to the clipboard.
    Copy,
    OpenLink,
    Find,
    FindNext,
    FoldAll,
    UnfoldAll,
    /// The next or previous content item of an MCP result (the one `f` and `s` act on).
    NextItem,
    PreviousItem,
    /// The server pane: the server's info, stderr, log (open or close).
    ServerPane,
    /// The traffic pane: every message of the session (open at the current call, or close).
    Traffic,
    /// The selected tool's definition exactly as the server sent it.
    RawDefinition,
    /// What the lint rules say of the selected tool, each finding whole.
    LintNotes,
    /// Subscribe to the selected resource's updates (`resources/subscribe`), or stop.
    Subscribe,
    /// Scroll the message shown in the traffic pane.
    MessageUp,
    MessageDown,
    /// Start the MCP server again, or open a new session, and list its tools again.
    Reconnect,
    /// Connect another server, from those found in tooldeck's and other clients' configs.
    ConnectServer,
    /// The server pane's log shows fewer levels (the next higher minimum, round to all).
    LogLevel,
    /// Answer a server's question: send the form, accept the URL, send the sampling reply.
    AskAccept,
    /// Decline a server's question (reject a sampling request).
    AskDecline,
    /// Cancel a server's question.
    AskCancel,
    /// Change the roots offered to an MCP server.
    EditRoots,
    /// The focused pane takes the whole screen, and back.
    Zoom,
    /// Every action, found by name, run by Enter.
    Palette,
    /// Fill every field that has a schema default with it (so it is sent).
    FillDefaults,
    /// Long lines wrap, or scroll sideways (the exchange view).
    ToggleWrap,
    ScrollLeft,
    ScrollRight,
    /// Fuzz the selected tool in the background (its schemas make the arguments); in the fuzz
    /// pane, run it again.
    Fuzz,
    /// Run the selected tool's eval cases (`--evals FILE`) in the background, or show the eval
    /// pane (a run going on, its results, a report opened with `--eval-report`).
    Eval,
    /// Host the selected tool's MCP App in the browser, wired to the session (`tooldeck app`).
    HostApp,
    /// Yes, in a yes-or-no box: replace the file, run the destructive tool.
    Confirm,
    /// `--watch`: the last call runs again after each restart a change makes, or no longer.
    WatchRun,
    /// `tooldeck attach`: the proxy holds every later message like the selected one (its
    /// method, its tool for a call, its direction).
    Break,
    /// `tooldeck attach`: the proxy's breakpoints are all cleared.
    ClearBreaks,
    /// The held message goes on, as edited (as it was, if not edited).
    SendHeld,
    /// The held message is dropped (a request is answered to the client with an error).
    DropHeld,
}

impl Action {
    /// The name a config file uses for it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::ForceQuit => "force_quit",
            Action::Up => "up",
            Action::Down => "down",
            Action::PageUp => "page_up",
            Action::PageDown => "page_down",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::Activate => "activate",
            Action::Back => "back",
            Action::NextField => "next_field",
            Action::PreviousField => "previous_field",
            Action::Filter => "filter",
            Action::ToggleJson => "toggle_json",
            Action::Unset => "unset",
            Action::AddItem => "add_item",
            Action::DeleteItem => "delete_item",
            Action::MoveItemUp => "move_item_up",
            Action::MoveItemDown => "move_item_down",
            Action::Collapse => "collapse",
            Action::Expand => "expand",
            Action::Run => "run",
            Action::ToggleRunOption(_) => "toggle_run_option",
            Action::FocusResult => "focus_result",
            Action::Retry => "retry",
            Action::GiveToken => "give_token",
            Action::SignIn => "sign_in",
            Action::SignOut => "sign_out",
            Action::History => "history",
            Action::SaveCase => "save_case",
            Action::Help => "help",
            Action::ToggleExchange => "toggle_exchange",
            Action::CopyCurl => "copy_curl",
            Action::FetchArtifact => "fetch_artifact",
            Action::SaveArtifact => "save_artifact",
            Action::WaitForAuthorization => "wait_for_authorization",
            Action::Copy => "copy",
            Action::OpenLink => "open_link",
            Action::Find => "find",
            Action::FindNext => "find_next",
            Action::FoldAll => "fold_all",
            Action::UnfoldAll => "unfold_all",
            Action::NextItem => "next_item",
            Action::PreviousItem => "previous_item",
            Action::ServerPane => "server_pane",
            Action::Traffic => "traffic",
            Action::RawDefinition => "raw_definition",
            Action::LintNotes => "lint_notes",
            Action::Subscribe => "subscribe",
            Action::MessageUp => "message_up",
            Action::MessageDown => "message_down",
            Action::Reconnect => "reconnect",
            Action::ConnectServer => "connect_server",
            Action::LogLevel => "log_level",
            Action::AskAccept => "ask_accept",
            Action::AskDecline => "ask_decline",
            Action::AskCancel => "ask_cancel",
            Action::EditRoots => "edit_roots",
            Action::Zoom => "zoom",
            Action::Palette => "palette",
            Action::FillDefaults => "fill_defaults",
            Action::ToggleWrap => "toggle_wrap",
            Action::ScrollLeft => "scroll_left",
            Action::ScrollRight => "scroll_right",
            Action::Fuzz => "fuzz",
            Action::Eval => "eval",
            Action::HostApp => "host_app",
            Action::Confirm => "confirm",
            Action::WatchRun => "watch_run",
            Action::Break => "break",
            Action::ClearBreaks => "clear_breaks",
            Action::SendHeld => "send_held",
            Action::DropHeld => "drop_held",
        }
    }

    /// The action a config file or a hint names.
    pub fn from_name(name: &str) -> Option<Action> {
        DEFAULTS.iter().map(|d| d.action).find(|a| a.name() == name)
    }

    /// The same action whatever its payload (a run option's number).
    fn kind(self) -> Action {
        match self {
            Action::ToggleRunOption(_) => Action::ToggleRunOption(0),
            other => other,
        }
    }
}

/// A row of the default table.
pub struct DefaultBinding {
    pub context: Context,
    pub action: Action,
    pub keys: &'static [Key],
    /// What the help overlay says. Neighbours in a context with the same text share one line.
    pub help: &'static str,
}

/// A binding in force: the default's keys, or the user's.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub context: Context,
    pub action: Action,
    pub keys: Vec<Key>,
    pub help: &'static str,
}

/// The bindings in force.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Keymap {
        Keymap {
            bindings: DEFAULTS
                .iter()
                .map(|d| Binding { context: d.context, action: d.action, keys: d.keys.to_vec(), help: d.help })
                .collect(),
        }
    }
}

impl Keymap {
    /// The defaults with the config file's `[keys]` patched over them; a bad entry is an error
    /// naming its file and line.
    pub fn from_config(config: &crate::config::Config) -> Result<Keymap, KeymapError> {
        let overrides = config.keys.iter().map(|(action, keys)| (action.as_str(), keys.get_ref().keys()));
        Keymap::with_overrides(overrides).map_err(|error| KeymapError::InConfig {
            origin: config.origin.clone(),
            line: config.key_line(error.action()),
            error: Box::new(error),
        })
    }

    /// The defaults with `overrides` (action name → its keys) patched over them. An override
    /// gives the action these keys in every context it has; an empty list unbinds it.
    pub fn with_overrides<'a>(
        overrides: impl IntoIterator<Item = (&'a str, &'a [String])>,
    ) -> Result<Keymap, KeymapError> {
        let mut keymap = Keymap::default();
        let mut changed = Vec::new();
        for (name, keys) in overrides {
            let Some(action) = Action::from_name(name) else {
                return Err(KeymapError::UnknownAction(name.to_string()));
            };
            let keys = keys
                .iter()
                .map(|k| Key::parse(k))
                .collect::<Result<Vec<Key>, KeyError>>()
                .map_err(|why| KeymapError::BadKey { action: name.to_string(), why })?;
            for binding in keymap.bindings.iter_mut().filter(|b| b.action == action) {
                binding.keys = keys.clone();
                // While typing only chords act: a letter given for the action types there.
                if binding.context == Context::Typing {
                    binding.keys.retain(|k| k.is_command_only() && !k.is_editing_chord());
                }
                // On the form a printable key types into the field under the cursor.
                if binding.context == Context::Form {
                    binding.keys.retain(|k| !k.is_printable());
                }
            }
            changed.push(action);
        }
        keymap.check(&changed)?;
        Ok(keymap)
    }

    /// No key means two actions where both are live; keys live while typing cannot type.
    /// Errors name an overridden action (the defaults are checked by a test).
    fn check(&self, changed: &[Action]) -> Result<(), KeymapError> {
        for binding in self.bindings.iter().filter(|b| b.context.beside_text()) {
            let action = binding.action.name().to_string();
            if let Some(key) = binding.keys.iter().find(|k| !k.is_command_only()) {
                return Err(KeymapError::Typeable { action, key: key.to_string() });
            }
            if let Some(key) = binding.keys.iter().find(|k| k.is_editing_chord()) {
                return Err(KeymapError::EditingKey { action, key: key.to_string() });
            }
        }
        for binding in self.bindings.iter().filter(|b| b.context == Context::Form) {
            if let Some(key) = binding.keys.iter().find(|k| k.is_printable()) {
                return Err(KeymapError::Printable { action: binding.action.name().to_string(), key: key.to_string() });
            }
        }
        for layer in Context::layers() {
            let live: Vec<&Binding> = self.bindings.iter().filter(|b| layer.contains(&b.context)).collect();
            for (i, first) in live.iter().enumerate() {
                for second in &live[i + 1..] {
                    if first.action == second.action {
                        continue;
                    }
                    let Some(key) = first.keys.iter().find(|k| second.keys.contains(k)) else { continue };
                    // Blame the one the user changed.
                    let (blamed, other) =
                        if changed.contains(&second.action) { (second, first) } else { (first, second) };
                    return Err(KeymapError::Conflict {
                        action: blamed.action.name().into(),
                        key: key.to_string(),
                        other: other.action.name().into(),
                        context: other.context.title(),
                    });
                }
            }
        }
        Ok(())
    }

    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The action `event` means in `context`, if any.
    pub fn action_for(&self, context: Context, event: KeyEvent) -> Option<Action> {
        let key = Key::of(event);
        self.bindings.iter().filter(|b| b.context == context).find_map(|b| {
            let index = b.keys.iter().position(|k| *k == key)?;
            Some(match b.action {
                Action::ToggleRunOption(_) => Action::ToggleRunOption(index),
                action => action,
            })
        })
    }

    /// True when `event` is `action` in `context`.
    pub fn is(&self, context: Context, event: KeyEvent, action: Action) -> bool {
        self.action_for(context, event).is_some_and(|a| a.kind() == action.kind())
    }

    /// The keys of `action` in `context` (none when unbound).
    pub fn keys(&self, context: Context, action: Action) -> &[Key] {
        self.bindings
            .iter()
            .find(|b| b.context == context && b.action.kind() == action.kind())
            .map_or(&[], |b| b.keys.as_slice())
    }

    /// The first key of `action` in `context`, as hints and messages name it.
    pub fn name(&self, context: Context, action: Action) -> Option<String> {
        self.keys(context, action).first().map(Key::to_string)
    }

    /// The first key bound to `action` in `context`, or the action's own name when no key is
    /// bound there (a hint then names what to bind).
    pub fn key_name(&self, context: Context, action: Action) -> String {
        self.name(context, action).unwrap_or_else(|| action.name().to_string())
    }

    /// `template` with each `{action}` replaced by the first key bound to it in the first of
    /// `contexts` that binds it; `None` when one is unbound there (the hint is left out then).
    pub fn fill(&self, template: &str, contexts: &[Context]) -> Option<String> {
        let mut out = String::new();
        let mut rest = template;
        while let Some(start) = rest.find('{') {
            out.push_str(&rest[..start]);
            let end = start + rest[start..].find('}')?;
            let action = Action::from_name(&rest[start + 1..end])?;
            out.push_str(&contexts.iter().find_map(|&context| self.name(context, action))?);
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Some(out)
    }

    /// A message naming keys: each `{key:action}` in `text` becomes the key bound to the action
    /// in the first of `contexts` that binds it (its palette name when none does). Anything else,
    /// text from a server included, is left as it is.
    pub fn say(&self, text: &str, contexts: &[Context]) -> String {
        const MARK: &str = "{key:";
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find(MARK) {
            out.push_str(&rest[..start]);
            let after = &rest[start + MARK.len()..];
            let named = after.find('}').and_then(|end| Some((Action::from_name(&after[..end])?, end)));
            let Some((action, end)) = named else {
                out.push_str(MARK);
                rest = after;
                continue;
            };
            let key = contexts.iter().find_map(|&context| self.name(context, action));
            out.push_str(&key.unwrap_or_else(|| format!("the palette's {}", action.name())));
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// What `event` does in some context other than `here`, for a hint when it does nothing
    /// here ("x: the result's exact request and response (result)").
    pub fn elsewhere(&self, here: &[Context], event: KeyEvent) -> Option<String> {
        let key = Key::of(event);
        let binding = self.bindings.iter().filter(|b| !here.contains(&b.context)).find(|b| b.keys.contains(&key))?;
        Some(format!("{key} does nothing here; in {}: {}", binding.context.title(), binding.help))
    }

    /// Every action once, with its context, first key and help: the command palette's list.
    pub fn actions(&self) -> Vec<(Context, Action, String, &'static str)> {
        let mut seen = std::collections::HashSet::new();
        self.bindings
            .iter()
            // A yes means something only in the box that asks.
            .filter(|b| !matches!(b.action, Action::ForceQuit | Action::Palette | Action::Confirm))
            .filter(|b| seen.insert(b.action.kind()))
            .map(|b| (b.context, b.action, b.keys.first().map(Key::to_string).unwrap_or_default(), b.help))
            .collect()
    }

    /// The help overlay's lines, context by context: (keys, what they do). Neighbouring
    /// bindings with the same help share a line ("↑ k / ↓ j").
    pub fn help(&self) -> Vec<(Context, Vec<(String, &'static str)>)> {
        Context::ALL
            .iter()
            .map(|&context| {
                let mut lines: Vec<(String, &'static str)> = Vec::new();
                let mut previous_help = None;
                for binding in self.bindings.iter().filter(|b| b.context == context) {
                    let keys = keys_label(&binding.keys);
                    match lines.last_mut() {
                        Some((label, _)) if previous_help == Some(binding.help) => {
                            label.push_str(" / ");
                            label.push_str(&keys);
                        }
                        _ => lines.push((keys, binding.help)),
                    }
                    previous_help = Some(binding.help);
                }
                (context, lines)
            })
            .collect()
    }
}

/// "Ctrl-R F5"; a long run of keys as its ends ("Alt-1 … Alt-9"); "(none)" when unbound.
fn keys_label(keys: &[Key]) -> String {
    match keys {
        [] => "(none)".to_string(),
        [first, .., last] if keys.len() > 3 => format!("{first} … {last}"),
        keys => keys.iter().map(Key::to_string).collect::<Vec<_>>().join(" "),
    }
}

#[cfg(test)]
mod tests;
