//! The popups: a box over the screen that takes the keys until it closes. A popup handles its
//! own keys; what the user chose comes back as a [`Prompted`] for the app to carry out.

use crossterm::event::{KeyCode, KeyEvent};

use super::keymap::{Action, Context, Keymap};
use super::typing::edit_input;
use crate::form::TextInput;

/// The popup on screen (`popup()`); it changes only through the methods below (`open`,
/// `close_popup`, and the keys and pastes `handle` takes).
#[derive(Debug, Default)]
pub struct Prompts {
    popup: Option<Popup>,
}

/// A box over the screen that takes the keys until it closes.
#[derive(Debug, Clone, PartialEq)]
pub enum Popup {
    /// Pick one of `options` for the field at `path` (an enum, a variant, a suggestion).
    Picker { path: Vec<usize>, title: String, options: Vec<String>, selected: usize, purpose: PickerPurpose },
    /// The key of a new map entry.
    KeyPrompt { path: Vec<usize>, input: TextInput },
    /// The keys of where it was asked, scrolled by `scroll` lines (it can be taller than the
    /// screen).
    Help { scroll: usize },
    /// Text to find in the result.
    Search { input: TextInput },
    /// Where to save the fetched artifact.
    SavePrompt { input: TextInput },
    /// Something is already at `path`: `y` replaces it.
    ConfirmOverwrite { path: String },
    /// The tool is marked destructive: `y` runs it with these arguments (and it is not asked
    /// about again this session); any other key does not.
    ConfirmRun { tool_id: String, title: String, arguments: serde_json::Value },
    /// The hosted MCP App asks to open this link: `y` opens it, any other key does not.
    ConfirmLink { url: String },
    /// Which file test cases are appended to (asked once per run of the app).
    CaseFile { input: TextInput },
    /// The roots offered to an MCP server, separated by commas.
    Roots { input: TextInput },
    /// Past calls, newest first; Enter re-opens one's arguments.
    History { selected: usize },
    /// Every action, narrowed by what is typed; Enter runs the chosen one.
    Palette { input: TextInput, selected: usize },
    /// A text read whole (a string of the result opened with Enter): wrapped, scrolled by `scroll`
    /// rows.
    Text { title: String, text: String, scroll: usize },
    /// A token for an authorization provider (shown masked).
    TokenPrompt {
        provider: String,
        input: TextInput,
        /// Why a token is asked for, when the prompt opens by itself (a server that answered 401).
        why: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerPurpose {
    Enum,
    Variant,
    Suggestion,
    /// A server found in a config, to connect.
    FoundServer,
}

/// What the user chose in a popup.
#[derive(Debug, PartialEq)]
pub enum Prompted {
    Nothing,
    Picked {
        path: Vec<usize>,
        purpose: PickerPurpose,
        selected: usize,
        option: String,
    },
    /// A map key (the prompt stays open until the app has added the entry).
    MapKey {
        path: Vec<usize>,
        key: String,
    },
    Token {
        provider: String,
        token: String,
    },
    /// Sign in (OAuth) rather than paste a token.
    SignIn,
    Search(String),
    SaveArtifact(String),
    /// `y` to replacing the file at this path.
    Overwrite(String),
    CaseFile(String),
    /// The user would not replace the file at this path.
    KeptFile(String),
    /// `y` to running a destructive tool.
    RunConfirmed {
        tool_id: String,
        arguments: serde_json::Value,
    },
    /// Any other key: the destructive tool (its title) is not run.
    RunDeclined(String),
    /// `y` to opening the link the hosted app asked for, or any other key.
    Link {
        url: String,
        open: bool,
    },
    /// The case-file prompt was closed without a file.
    NoCaseFile,
    /// Past call `n` (newest first) back in the form, or also run again.
    Reopen(usize),
    RunAgain(usize),
    /// Past call `n` saved as a case (the list stays open if it cannot be).
    SaveAsCase(usize),
    /// The roots as typed (comma-separated).
    Roots(String),
    /// An action chosen in the command palette.
    Action(Context, Action),
    /// Text to put on the clipboard (`y` in a text popup).
    Copy(String),
    /// A key that does nothing in this popup, and what does something.
    Hint(String),
}

impl Popup {
    pub fn help() -> Popup {
        Popup::Help { scroll: 0 }
    }

    pub fn palette() -> Popup {
        Popup::Palette { input: TextInput::default(), selected: 0 }
    }

    /// The actions whose keys open this popup, so that the same key closes it (a text box's
    /// printable keys excepted: they type). Enter closes what Enter opens already.
    pub fn opened_by(&self) -> &'static [Action] {
        match self {
            Popup::Search { .. } => &[Action::Find],
            Popup::SavePrompt { .. } => &[Action::SaveArtifact],
            Popup::CaseFile { .. } => &[Action::SaveCase],
            Popup::Roots { .. } => &[Action::EditRoots],
            Popup::History { .. } => &[Action::History],
            Popup::Palette { .. } => &[Action::Palette],
            Popup::Text { .. } => &[Action::RawDefinition, Action::LintNotes],
            Popup::TokenPrompt { .. } => &[Action::GiveToken],
            Popup::KeyPrompt { .. } => &[Action::AddItem],
            Popup::Picker { purpose: PickerPurpose::FoundServer, .. } => &[Action::ConnectServer],
            Popup::Picker { .. }
            | Popup::Help { .. }
            | Popup::ConfirmOverwrite { .. }
            | Popup::ConfirmRun { .. }
            | Popup::ConfirmLink { .. } => &[],
        }
    }

    /// True when the popup is a text box (its printable keys type).
    pub fn takes_text(&self) -> bool {
        matches!(
            self,
            Popup::KeyPrompt { .. }
                | Popup::Search { .. }
                | Popup::SavePrompt { .. }
                | Popup::CaseFile { .. }
                | Popup::TokenPrompt { .. }
                | Popup::Roots { .. }
                | Popup::Palette { .. }
        )
    }
}

/// True when `key` is a key of one of the actions that opened `popup`, in any pane it could
/// have been opened from, and would not type into it: pressed again, it closes the popup as Esc
/// does.
pub fn closes(keymap: &Keymap, popup: &Popup, key: KeyEvent) -> bool {
    let pressed = super::keymap::Key::of(key);
    if popup.takes_text() && super::typing::is_editing_key(key) {
        return false;
    }
    let openers = popup.opened_by();
    keymap.bindings().iter().any(|b| {
        openers.contains(&b.action)
            && b.context != Context::Ask
            && b.context != Context::Fuzz
            && b.context != Context::Eval
            && b.keys.contains(&pressed)
    })
}

/// The keys of a text popup, for its title and for a key it does not take.
pub const TEXT_KEYS: &str = "{key:up}{key:down} scroll · {key:copy} copies · {key:back} closes";

/// A palette entry: where the action belongs, the action, its key, what it does.
pub type PaletteEntry = (Context, Action, String, &'static str);

/// The palette's actions for `query`, best first.
pub fn palette_matches(keymap: &Keymap, query: &str) -> Vec<PaletteEntry> {
    let actions = keymap.actions();
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return actions;
    }
    let mut scored: Vec<(usize, PaletteEntry)> = actions
        .into_iter()
        .filter_map(|entry| {
            let name = entry.1.name().replace('_', " ");
            let haystack = format!("{name} {}", entry.3).to_lowercase();
            let rank = if name.starts_with(&query) {
                0
            } else if haystack.contains(&query) {
                1
            } else if query.split_whitespace().all(|word| haystack.contains(word)) {
                2
            } else {
                return None;
            };
            Some((rank, entry))
        })
        .collect();
    scored.sort_by_key(|(rank, _)| *rank);
    scored.into_iter().map(|(_, entry)| entry).collect()
}

impl Prompts {
    /// The popup on screen, if one is open.
    pub fn popup(&self) -> Option<&Popup> {
        self.popup.as_ref()
    }

    /// `popup` takes the keys until it closes (it replaces any popup open).
    pub fn open(&mut self, popup: Popup) {
        self.popup = Some(popup);
    }

    /// The popup closes without an answer.
    pub fn close_popup(&mut self) {
        self.popup = None;
    }

    /// A paste while a popup is open goes to its text box, if it has one: true when a popup
    /// was open (a list or a question has nowhere to put it, and the paste is dropped).
    fn paste(&mut self, text: &str) -> bool {
        match self.popup.as_mut() {
            Some(
                Popup::KeyPrompt { input, .. }
                | Popup::Search { input }
                | Popup::SavePrompt { input }
                | Popup::CaseFile { input }
                | Popup::TokenPrompt { input, .. }
                | Popup::Roots { input }
                | Popup::Palette { input, .. },
            ) => input.insert_str(text, false),
            Some(_) => {}
            None => return false,
        }
        true
    }

    /// The help overlay scrolled no further than `last`.
    pub fn clamp_help(&mut self, last: usize) {
        if let Some(Popup::Help { scroll }) = &mut self.popup {
            *scroll = (*scroll).min(last);
        }
    }

    /// A text popup scrolled no further than its last page at a screen of `size`, so End shows
    /// the end of the text (not an empty box) and ↑ moves it at once.
    pub fn clamp_text(&mut self, size: (u16, u16)) {
        if let Some(Popup::Text { text, scroll, .. }) = &mut self.popup {
            *scroll = (*scroll).min(super::text_popup::last_scroll(text, size));
        }
    }

    /// A key while a popup is open (`history_len`: how many past calls the list shows).
    fn key(&mut self, keymap: &Keymap, key: KeyEvent, history_len: usize) -> Prompted {
        let Some(popup) = self.popup.as_mut() else { return Prompted::Nothing };
        match popup {
            Popup::Picker { .. } => self.picker_key(keymap, key),
            Popup::KeyPrompt { input, path } => match text_box(input, key) {
                Some(Some(key)) => Prompted::MapKey { path: path.clone(), key },
                Some(None) => self.close(),
                None => Prompted::Nothing,
            },
            Popup::TokenPrompt { .. } => self.token_key(key),
            Popup::Roots { input } => {
                let entered = text_box(input, key);
                self.closing(entered, Prompted::Roots)
            }
            Popup::Search { input } => {
                let entered = text_box(input, key);
                self.closing(entered, Prompted::Search)
            }
            Popup::SavePrompt { input } => {
                let entered = text_box(input, key);
                self.closing(entered, Prompted::SaveArtifact)
            }
            Popup::ConfirmOverwrite { .. } | Popup::ConfirmRun { .. } | Popup::ConfirmLink { .. } => {
                self.confirm_key(keymap, key)
            }
            Popup::CaseFile { input } => match text_box(input, key) {
                Some(Some(path)) => {
                    self.popup = None;
                    Prompted::CaseFile(path)
                }
                Some(None) => {
                    self.popup = None;
                    Prompted::NoCaseFile
                }
                None => Prompted::Nothing,
            },
            Popup::Palette { .. } => self.palette_key(keymap, key),
            Popup::Text { .. } => self.text_key(keymap, key),
            Popup::History { .. } => self.history_key(keymap, key, history_len),
            Popup::Help { scroll } => {
                // Every line the overlay could show: a bound for scrolling down.
                let lines: usize = keymap.help().iter().map(|(_, lines)| lines.len() + 2).sum();
                match keymap.action_for(Context::Result, key) {
                    Some(Action::Up) => *scroll = scroll.saturating_sub(1),
                    Some(Action::Down) => *scroll = (*scroll + 1).min(lines),
                    Some(Action::PageUp) => *scroll = scroll.saturating_sub(10),
                    Some(Action::PageDown) => *scroll = (*scroll + 10).min(lines),
                    Some(Action::Top) => *scroll = 0,
                    Some(Action::Bottom) => *scroll = lines,
                    _ => return self.close(),
                }
                Prompted::Nothing
            }
        }
    }

    fn picker_key(&mut self, keymap: &Keymap, key: KeyEvent) -> Prompted {
        let Some(Popup::Picker { options, selected, .. }) = self.popup.as_mut() else { return Prompted::Nothing };
        match keymap.action_for(Context::Picker, key) {
            Some(Action::Up) => move_selection(selected, -1, options.len()),
            Some(Action::Down) => move_selection(selected, 1, options.len()),
            Some(Action::Back) => self.close(),
            Some(Action::Activate) => match self.popup.take() {
                Some(Popup::Picker { path, selected, purpose, options, .. }) => Prompted::Picked {
                    option: options.get(selected).cloned().unwrap_or_default(),
                    path,
                    purpose,
                    selected,
                },
                _ => Prompted::Nothing,
            },
            _ => Prompted::Hint(keymap.say(
                "in this list: {key:up}{key:down} choose · {key:activate} picks · {key:back} cancels",
                &[Context::Picker],
            )),
        }
    }

    fn token_key(&mut self, key: KeyEvent) -> Prompted {
        let Some(Popup::TokenPrompt { provider, input, .. }) = self.popup.as_mut() else { return Prompted::Nothing };
        match text_box(input, key) {
            // Nothing typed: the server's own sign-in (OAuth) instead of a pasted token.
            Some(Some(token)) if token.trim().is_empty() && provider == crate::invoke::mcp::http::MCP_PROVIDER => {
                self.popup = None;
                Prompted::SignIn
            }
            Some(Some(token)) => {
                let provider = provider.clone();
                self.popup = None;
                Prompted::Token { provider, token }
            }
            Some(None) => self.close(),
            None => Prompted::Nothing,
        }
    }

    /// A yes-or-no box: the table's yes key (`y`) says yes, any other key no; it closes either way.
    fn confirm_key(&mut self, keymap: &Keymap, key: KeyEvent) -> Prompted {
        let yes = keymap.is(Context::Confirm, key, Action::Confirm);
        match self.popup.take() {
            Some(Popup::ConfirmOverwrite { path }) if yes => Prompted::Overwrite(path),
            Some(Popup::ConfirmOverwrite { path }) => Prompted::KeptFile(path),
            Some(Popup::ConfirmRun { tool_id, arguments, .. }) if yes => Prompted::RunConfirmed { tool_id, arguments },
            Some(Popup::ConfirmRun { title, .. }) => Prompted::RunDeclined(title),
            Some(Popup::ConfirmLink { url }) => Prompted::Link { url, open: yes },
            other => {
                self.popup = other;
                Prompted::Nothing
            }
        }
    }

    fn palette_key(&mut self, keymap: &Keymap, key: KeyEvent) -> Prompted {
        let Some(Popup::Palette { input, selected }) = self.popup.as_mut() else { return Prompted::Nothing };
        match key.code {
            KeyCode::Esc => self.close(),
            KeyCode::Up => move_selection(selected, -1, palette_matches(keymap, input.text()).len()),
            KeyCode::Down => move_selection(selected, 1, palette_matches(keymap, input.text()).len()),
            KeyCode::Enter => {
                let chosen = palette_matches(keymap, input.text()).into_iter().nth(*selected);
                self.popup = None;
                chosen.map_or(Prompted::Nothing, |(context, action, ..)| Prompted::Action(context, action))
            }
            _ => {
                if edit_input(input, key, false) {
                    *selected = 0;
                }
                Prompted::Nothing
            }
        }
    }

    /// Scrolled by wrapped rows; the app stops it at the last page (`clamp_text`), which depends
    /// on the screen's width.
    fn text_key(&mut self, keymap: &Keymap, key: KeyEvent) -> Prompted {
        let Some(Popup::Text { text, scroll, .. }) = self.popup.as_mut() else { return Prompted::Nothing };
        match (key.code, keymap.action_for(Context::Result, key)) {
            (_, Some(Action::Up)) => *scroll = scroll.saturating_sub(1),
            (_, Some(Action::Down)) => *scroll = scroll.saturating_add(1),
            (_, Some(Action::PageUp)) => *scroll = scroll.saturating_sub(10),
            (_, Some(Action::PageDown)) => *scroll = scroll.saturating_add(10),
            (_, Some(Action::Top)) => *scroll = 0,
            (_, Some(Action::Bottom)) => *scroll = usize::MAX,
            (_, Some(Action::Copy)) => return Prompted::Copy(text.clone()),
            (KeyCode::Esc | KeyCode::Enter, _) | (_, Some(Action::Back)) => return self.close(),
            _ if keymap.is(Context::Main, key, Action::Quit) => return self.close(),
            _ => return Prompted::Hint(keymap.say(TEXT_KEYS, &[Context::Result])),
        }
        Prompted::Nothing
    }

    fn history_key(&mut self, keymap: &Keymap, key: KeyEvent, history_len: usize) -> Prompted {
        let Some(Popup::History { selected }) = self.popup.as_mut() else { return Prompted::Nothing };
        match keymap.action_for(Context::History, key) {
            Some(Action::Up) => move_selection(selected, -1, history_len),
            Some(Action::Down) => move_selection(selected, 1, history_len),
            Some(Action::Top) => move_selection(selected, isize::MIN / 2, history_len),
            Some(Action::Bottom) => move_selection(selected, isize::MAX / 2, history_len),
            Some(Action::Activate) => {
                let index = *selected;
                self.popup = None;
                Prompted::Reopen(index)
            }
            Some(Action::Retry) => {
                let index = *selected;
                self.popup = None;
                Prompted::RunAgain(index)
            }
            Some(Action::SaveCase) => Prompted::SaveAsCase(*selected),
            Some(Action::Back) => self.close(),
            _ => Prompted::Hint(keymap.say(
                "in past calls: {key:up}{key:down} choose · {key:activate} puts back · {key:retry} runs · \
                 {key:save_case} saves · {key:back} closes",
                &[Context::History],
            )),
        }
    }

    fn close(&mut self) -> Prompted {
        self.popup = None;
        Prompted::Nothing
    }

    /// A text prompt that closes on Enter and Esc alike; Enter gives its text.
    fn closing(&mut self, entered: Option<Option<String>>, then: fn(String) -> Prompted) -> Prompted {
        match entered {
            Some(Some(text)) => {
                self.popup = None;
                then(text)
            }
            Some(None) => self.close(),
            None => Prompted::Nothing,
        }
    }
}

fn move_selection(selected: &mut usize, delta: isize, count: usize) -> Prompted {
    *selected = selected.saturating_add_signed(delta).min(count.saturating_sub(1));
    Prompted::Nothing
}

/// A key in a one-line text box: `Some(Some(text))` on Enter, `Some(None)` on Esc, `None` while
/// typing.
fn text_box(input: &mut TextInput, key: KeyEvent) -> Option<Option<String>> {
    match key.code {
        KeyCode::Esc => Some(None),
        KeyCode::Enter => Some(Some(input.text().to_string())),
        _ => {
            edit_input(input, key, false);
            None
        }
    }
}

/// A popup takes every key until it closes (only the every-pane chords are looked up before),
/// and a paste goes to its text box; what was chosen comes back for the app to carry out.
impl super::Component for Prompts {
    fn context(&self) -> Option<Context> {
        None
    }

    fn handle(&mut self, input: super::Input, cx: &super::Cx) -> Option<super::Reply> {
        self.popup.as_ref()?;
        let prompted = match input {
            super::Input::Key(key) => self.key(cx.keymap, key, cx.history_len),
            super::Input::Paste(text) => {
                self.paste(text);
                Prompted::Nothing
            }
            super::Input::Action(_) => return None,
        };
        Some(super::Reply { prompted: Some(prompted), ..super::Reply::default() })
    }
}
