//! What a key means when no text field has it. One table, so the help screen and the key
//! handling can never disagree (and user overrides can later patch it).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Select a tool, edit a field, toggle a checkbox, open a picker.
    Activate,
    /// Leave editing, then go back.
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
    /// Toggle the n-th run option (Alt-1 is 0).
    ToggleRunOption(usize),
    /// Focus the result pane.
    FocusResult,
    /// Run the last call again.
    Retry,
    /// Give a token for the provider the result asks for.
    GiveToken,
    /// Past calls.
    History,
    /// Save the last call and its outcome as a test case.
    SaveCase,
    Help,
}

pub struct Binding {
    pub keys: &'static str,
    pub action: Action,
    pub help: &'static str,
}

/// Every binding, in the order the help screen lists them.
pub const BINDINGS: &[Binding] = &[
    Binding { keys: "↑/↓  j/k", action: Action::Up, help: "move in the list or the form" },
    Binding { keys: "Enter", action: Action::Activate, help: "select a tool, edit a field, toggle, open a picker" },
    Binding { keys: "Tab / Shift-Tab", action: Action::NextField, help: "next / previous field" },
    Binding { keys: "Esc", action: Action::Back, help: "stop editing, then go back" },
    Binding { keys: "/", action: Action::Filter, help: "filter tools (fuzzy)" },
    Binding { keys: "Ctrl-J", action: Action::ToggleJson, help: "arguments as editable JSON beside the form" },
    Binding { keys: "Ctrl-U", action: Action::Unset, help: "unset the focused optional field" },
    Binding { keys: "a / d", action: Action::AddItem, help: "add / delete an array item or map entry" },
    Binding {
        keys: "Alt-↑ / Alt-↓", action: Action::MoveItemUp, help: "move an array item up / down (also K / J)"
    },
    Binding { keys: "← / →  h / l", action: Action::Collapse, help: "fold / unfold a group" },
    Binding { keys: "Ctrl-R  F5", action: Action::Run, help: "run (press again to send invalid input anyway)" },
    Binding {
        keys: "Alt-1 … Alt-9",
        action: Action::ToggleRunOption(0),
        help: "toggle the run options shown beside Run",
    },
    Binding { keys: "Ctrl-O", action: Action::FocusResult, help: "into the result (fold, find, exchange, fetch…)" },
    Binding { keys: "S", action: Action::SaveCase, help: "save the last call as a test case (tooldeck test)" },
    Binding { keys: "H", action: Action::History, help: "past calls: Enter puts back, r runs again, S saves" },
    Binding { keys: "PgUp/PgDn  g/G", action: Action::PageUp, help: "page, top, bottom" },
    Binding { keys: "?", action: Action::Help, help: "this help" },
    Binding { keys: "q  Ctrl-C", action: Action::Quit, help: "quit (q only when not editing)" },
];

pub fn action_for(key: KeyEvent) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    Some(match key.code {
        KeyCode::Char('c') if ctrl => Action::Quit,
        KeyCode::Char('j') if ctrl => Action::ToggleJson,
        KeyCode::Char('u') if ctrl => Action::Unset,
        KeyCode::Char('r') if ctrl => Action::Run,
        KeyCode::Char('o') if ctrl => Action::FocusResult,
        KeyCode::F(5) => Action::Run,
        KeyCode::Up if alt => Action::MoveItemUp,
        KeyCode::Down if alt => Action::MoveItemDown,
        KeyCode::Char(c @ '1'..='9') if alt => Action::ToggleRunOption(c as usize - '1' as usize),
        KeyCode::Char('K') => Action::MoveItemUp,
        KeyCode::Char('J') => Action::MoveItemDown,
        _ if ctrl || alt => return None,
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('t') => Action::GiveToken,
        KeyCode::Char('H') => Action::History,
        KeyCode::Char('S') => Action::SaveCase,
        KeyCode::Char('r') => Action::Retry,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Home | KeyCode::Char('g') => Action::Top,
        KeyCode::End | KeyCode::Char('G') => Action::Bottom,
        KeyCode::Enter | KeyCode::Char(' ') => Action::Activate,
        KeyCode::Esc => Action::Back,
        KeyCode::Tab => Action::NextField,
        KeyCode::BackTab => Action::PreviousField,
        KeyCode::Char('/') => Action::Filter,
        KeyCode::Char('a') | KeyCode::Insert => Action::AddItem,
        KeyCode::Char('d') | KeyCode::Delete => Action::DeleteItem,
        KeyCode::Left | KeyCode::Char('h') => Action::Collapse,
        KeyCode::Right | KeyCode::Char('l') => Action::Expand,
        KeyCode::F(1) | KeyCode::Char('?') => Action::Help,
        _ => return None,
    })
}

/// True for Ctrl-C, which quits from anywhere, even while editing.
pub fn is_force_quit(key: KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c')
}
