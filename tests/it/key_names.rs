//! Every hint and help line is built from the key table: with every action bound to other keys,
//! no screen names a default key any more. The text boxes' own keys (Enter, Esc, Tab, the arrows,
//! Home, End, Backspace, Delete and the editing chords) are not rebindable and may be named.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tooldeck::app::keymap::{DEFAULTS, Key};
use tooldeck::app::{
    Action, Answer, App, CallMsg, Context, Effect, InputMsg, Keymap, Msg, SaveMsg, ServerEffect, ServerMsg, update,
};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::Exchange;
use tooldeck::invoke::envelope::read_otc_response;
use tooldeck::invoke::mcp::asks::Ask;
use tooldeck::invoke::save::Saved;
use tooldeck::theme::Styles;

/// Keys no default uses: Ctrl-Alt chords, Alt with a capital, and F13 … F24, bare and with Ctrl.
fn fresh_keys() -> Vec<String> {
    let mut pool: Vec<String> = ('a'..='z').chain('0'..='9').map(|c| format!("ctrl-alt-{c}")).collect();
    pool.extend(('A'..='Z').filter(|c| !matches!(c, 'R' | 'C' | 'W')).map(|c| format!("alt-{c}")));
    pool.extend((13..=24).map(|n| format!("f{n}")));
    pool.extend((13..=24).map(|n| format!("ctrl-f{n}")));
    pool
}

fn remapped() -> Keymap {
    let mut pool = fresh_keys().into_iter();
    let mut overrides: Vec<(String, Vec<String>)> = Vec::new();
    for binding in DEFAULTS {
        let name = binding.action.name();
        if overrides.iter().any(|(n, _)| n == name) {
            continue;
        }
        let count = if matches!(binding.action, Action::ToggleRunOption(_)) { 9 } else { 1 };
        let keys: Vec<String> = pool.by_ref().take(count).collect();
        assert_eq!(keys.len(), count, "the pool of fresh keys ran out");
        overrides.push((name.to_string(), keys));
    }
    Keymap::with_overrides(overrides.iter().map(|(a, k)| (a.as_str(), k.as_slice())))
        .expect("fresh keys conflict nowhere")
}

/// The text boxes' own keys, which a hint may name whatever the key table says.
fn text_box_key(name: &str) -> bool {
    matches!(
        name,
        "Enter" | "Esc" | "Tab" | "Shift-Tab" | "↑" | "↓" | "←" | "→" | "Home" | "End" | "Del" | "Backspace" | "Space"
    ) || matches!(name, "Ctrl-A" | "Ctrl-E" | "Ctrl-K" | "Ctrl-U" | "Ctrl-W")
}

/// Words that follow a key in a hint or a message ("r again", "s saves it").
const VERBS: &[&str] = &[
    "edit",
    "next",
    "run",
    "runs",
    "unset",
    "defaults",
    "result",
    "help",
    "actions",
    "back",
    "tools",
    "form",
    "filter",
    "quit",
    "scroll",
    "find",
    "exchange",
    "copy",
    "copies",
    "save",
    "saves",
    "again",
    "token",
    "item",
    "preview/read",
    "open",
    "opens",
    "reconnect",
    "close",
    "closes",
    "choose",
    "pick",
    "picks",
    "cancel",
    "cancels",
    "fold",
    "move",
    "tries",
    "retries",
    "restarts",
    "fetches",
    "gives",
    "reads",
    "shows",
    "lists",
    "waits",
    "asks",
    "previews",
    "puts",
    "log",
    "oldest/newest",
    "fetch/save",
    "to",
    "replace",
    "replaces",
];

/// Where `name` (a default key's name) stands on `screen` as a key: a chord or named key as a
/// whole word; a single character only before a hint's or message's verb.
fn named_at(screen: &str, name: &str) -> Option<String> {
    for line in screen.lines() {
        let chars: Vec<char> = line.chars().collect();
        let needle: Vec<char> = name.chars().collect();
        for start in 0..chars.len().saturating_sub(needle.len() - 1) {
            if chars[start..start + needle.len()] != needle[..] {
                continue;
            }
            let before = start.checked_sub(1).map(|i| chars[i]);
            let after = chars.get(start + needle.len()).copied();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
            if word(before) || word(after) {
                continue;
            }
            if needle.len() > 1 {
                return Some(line.to_string());
            }
            let rest: String = chars[start + 1..].iter().collect();
            // A pair of keys ("a/d add/del", "f/s fetch/save").
            let mut pair = rest.chars();
            if pair.next() == Some('/') && pair.next().is_some() && pair.next() == Some(' ') {
                return Some(line.to_string());
            }
            // A key in a box's title: "(y: replace, any other key: keep it)".
            if before == Some('(') && rest.starts_with(": ") {
                return Some(line.to_string());
            }
            // "a" before a verb is the article more often than the add key: its pair is checked.
            if name == "a" {
                continue;
            }
            let follows = rest.strip_prefix(' ').map(|r| r.split([' ', '"', ',']).next().unwrap_or(""));
            let spaced = before.is_none_or(|c| c == ' ' || c == '(' || c == '·');
            if spaced && follows.is_some_and(|w| VERBS.contains(&w)) {
                return Some(line.to_string());
            }
        }
    }
    None
}

fn default_names() -> Vec<String> {
    let mut names: Vec<String> =
        DEFAULTS.iter().flat_map(|d| d.keys.iter().map(Key::to_string)).filter(|n| !text_box_key(n)).collect();
    names.sort();
    names.dedup();
    names
}

struct Deck {
    app: App,
    screens: Vec<(String, String)>,
}

impl Deck {
    fn new() -> Deck {
        let loaded = load_samples(&LoadOptions::default());
        let app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40)).with_keymap(remapped());
        Deck { app, screens: Vec::new() }
    }

    fn send(&mut self, msg: Msg) -> Vec<Effect> {
        update(&mut self.app, msg)
    }

    /// Presses the key now bound to `action` in `context`.
    fn act(&mut self, context: Context, action: Action) -> Vec<Effect> {
        let key = *self.app.keymap.keys(context, action).first().expect("every action is bound");
        let mut modifiers = KeyModifiers::NONE;
        if key.ctrl {
            modifiers |= KeyModifiers::CONTROL;
        }
        if key.alt {
            modifiers |= KeyModifiers::ALT;
        }
        self.send(Msg::Input(InputMsg::Key(KeyEvent::new(key.code, modifiers))))
    }

    fn press(&mut self, code: KeyCode) {
        self.send(Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    }

    fn look(&mut self, what: &str) {
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
        terminal.draw(|frame| tooldeck::ui::render(&self.app, &Styles::default(), frame)).expect("draw");
        let text = terminal.backend().to_string();
        self.screens.push((what.to_string(), text));
        // A status message asked for by the step is seen, then cleared by the next look.
        if let Some(status) = self.app.status().map(str::to_string) {
            self.screens.push((format!("{what} (status)"), status));
        }
    }

    /// Opens `filter`'s best match, as typed in the filter box.
    fn open(&mut self, filter: &str) {
        self.act(Context::Main, Action::Filter);
        filter.chars().for_each(|c| self.press(KeyCode::Char(c)));
        self.press(KeyCode::Enter);
    }

    fn run_and_answer(&mut self, body: impl Fn(&str) -> String) {
        let effects = self.act(Context::Typing, Action::Run);
        let effects = if effects.iter().any(|e| matches!(e, Effect::Server(ServerEffect::Invoke { .. }))) {
            effects
        } else {
            self.act(Context::Typing, Action::Run)
        };
        let (id, request) = effects
            .into_iter()
            .find_map(|e| match e {
                Effect::Server(ServerEffect::Invoke { id, request, .. }) => Some((id, request)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("the call is sent: {:?}", self.app.status()));
        let text = body(&request.call_id);
        let outcome = read_otc_response(200, Some("application/json"), text.as_bytes(), false, &request.call_id);
        let exchange = Exchange { status: Some(200), response_body: text, ..Exchange::default() };
        self.send(Msg::Call(CallMsg::Done { id, result: Ok(Box::new(Answer::new(outcome, exchange, None))) }));
    }
}

/// Every screen a person meets on the way through a call, with messages of keys that did
/// nothing yet.
fn walk() -> Vec<(String, String)> {
    let mut deck = Deck::new();
    deck.look("start");
    for action in [Action::Retry, Action::SaveCase, Action::GiveToken, Action::FetchArtifact, Action::FocusResult] {
        deck.act(Context::Typing, action);
        deck.look(&format!("{} before any call", action.name()));
    }
    deck.open("search_products");
    deck.look("form");
    deck.act(Context::Form, Action::AddItem);
    deck.look("add item on a text field");
    deck.act(Context::Form, Action::Activate);
    deck.look("editing");
    deck.act(Context::Typing, Action::Help);
    deck.look("help while typing");
    deck.press(KeyCode::Esc);
    deck.press(KeyCode::Esc);
    deck.act(Context::Typing, Action::Help);
    deck.look("help in the form");
    deck.act(Context::Result, Action::Bottom);
    deck.look("help at its end");
    deck.press(KeyCode::Esc);
    deck.act(Context::Typing, Action::ToggleJson);
    deck.look("JSON view");
    deck.press(KeyCode::Esc);
    deck.run_and_answer(|id| {
        format!(r#"{{"result":{{"call_id":"{id}","success":true,"value":{{"items":[1,2,3],"n":3}}}}}}"#)
    });
    deck.look("a value");
    deck.act(Context::Typing, Action::FocusResult);
    deck.look("the result pane");
    deck.act(Context::Result, Action::Help);
    deck.look("help in the result");
    deck.press(KeyCode::Esc);
    deck.act(Context::Result, Action::ToggleExchange);
    deck.look("the exchange");
    deck.act(Context::Result, Action::FetchArtifact);
    deck.look("fetch without an artifact");
    deck.act(Context::Result, Action::Back);
    deck.act(Context::Typing, Action::History);
    deck.look("past calls");
    deck.press(KeyCode::Char('%'));
    deck.look("a stray key in past calls");
    deck.act(Context::History, Action::Back);
    deck.open("Gmail_ListEmails");
    deck.run_and_answer(|id| {
        format!(
            r#"{{"invocation_id": "{id}", "finished_at": "2025-01-01T00:00:00Z", "success": false, "output": {{"requires_authorization": {{"message": "Sign in", "oauth2": {{"url": "http://127.0.0.1:1/oauth/authorize", "scope": "gmail.readonly"}}}}}}}}"#
        )
    });
    deck.look("authorization wanted");
    deck.act(Context::Typing, Action::ServerPane);
    deck.look("the server pane");
    deck.act(Context::Server, Action::Help);
    deck.look("help in the server pane");
    deck.press(KeyCode::Esc);
    deck.act(Context::Server, Action::Back);
    deck.open("get_weather");
    deck.look("another tool");
    deck.screens
}

/// The popups, the panes beside the form, and a server's questions.
fn walk_popups_and_panes() -> Vec<(String, String)> {
    let mut deck = Deck::new();
    deck.act(Context::Anywhere, Action::Palette);
    deck.look("the palette");
    deck.press(KeyCode::Esc);
    deck.act(Context::Main, Action::EditRoots);
    deck.look("the roots prompt");
    deck.press(KeyCode::Esc);
    deck.open("search_products");
    deck.act(Context::Form, Action::Down);
    deck.act(Context::Form, Action::Activate);
    deck.look("the enum picker");
    deck.press(KeyCode::Char('%'));
    deck.look("a stray key in the picker");
    deck.act(Context::Picker, Action::Back);
    deck.send(Msg::Save(SaveMsg::Saved(Ok(Saved::Exists { path: "out.bin".into() }))));
    deck.look("replace a file?");
    deck.press(KeyCode::Char('%'));
    deck.look("the file kept");
    deck.run_and_answer(|id| format!(r#"{{"result":{{"call_id":"{id}","success":true,"value":"one\ntwo"}}}}"#));
    deck.act(Context::Typing, Action::FocusResult);
    deck.act(Context::Value, Action::Activate);
    deck.look("a string read whole");
    deck.press(KeyCode::Char('%'));
    deck.look("a stray key in the text");
    deck.press(KeyCode::Esc);
    deck.act(Context::Result, Action::Find);
    deck.look("find in the result");
    deck.press(KeyCode::Esc);
    deck.act(Context::Result, Action::Back);
    deck.act(Context::Typing, Action::Traffic);
    deck.look("the traffic pane");
    deck.act(Context::Traffic, Action::Help);
    deck.look("help in the traffic pane");
    deck.press(KeyCode::Esc);
    deck.act(Context::Traffic, Action::Back);
    deck.act(Context::Typing, Action::Fuzz);
    deck.look("the fuzz pane");
    deck.act(Context::Fuzz, Action::Back);
    let form = Ask::Form {
        message: "Who are you?".into(),
        schema: json!({"type": "object", "properties": {"name": {"type": "string"}, "ok": {"type": "boolean"}}}),
    };
    deck.send(Msg::Server(ServerMsg::Asked { id: 1, ask: form }));
    deck.look("a server's form");
    deck.act(Context::Ask, Action::AskCancel);
    let url = Ask::Url { message: "Sign in".into(), url: "https://auth.example/".into(), elicitation_id: "e".into() };
    deck.send(Msg::Server(ServerMsg::Asked { id: 2, ask: url }));
    deck.look("a server's URL");
    deck.act(Context::Ask, Action::AskCancel);
    let sample = Ask::Sample { request: json!({"messages": [], "maxTokens": 10}), cut: false };
    deck.send(Msg::Server(ServerMsg::Asked { id: 3, ask: sample }));
    deck.look("a sampling request");
    deck.screens
}

#[test]
fn with_every_key_remapped_no_screen_names_a_default_key() {
    let names = default_names();
    assert!(names.iter().any(|n| n == "Ctrl-R") && names.iter().any(|n| n == "r"), "{names:?}");
    let mut found = Vec::new();
    let screens = [walk(), walk_popups_and_panes()].concat();
    for what in ["the palette", "replace a file?", "a string read whole", "the traffic pane", "a server's form"] {
        assert!(screens.iter().any(|(w, _)| w == what), "{what} was looked at");
    }
    for (what, screen) in screens {
        for name in &names {
            if let Some(line) = named_at(&screen, name) {
                found.push(format!("{what}: {name:?} in {line}"));
            }
        }
    }
    assert!(found.is_empty(), "default key names left on screen:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_default_key_name() {
    assert!(named_at(" r again  S save case", "r").is_some());
    assert!(named_at("t gives a token", "t").is_some());
    assert!(named_at("Ctrl-R run", "Ctrl-R").is_some());
    assert!(named_at("Ctrl-Alt-1 run", "Alt-1").is_none(), "part of a longer chord");
    assert!(named_at("F13 run", "F1").is_none());
    assert!(named_at("a tool for r and d", "r").is_none(), "a letter in a sentence");
    assert!(named_at(" a/d add/del", "a").is_some(), "a pair of keys");
    assert!(named_at("toggle a run option", "a").is_none(), "the article");
    assert!(named_at("replace the file? (y: replace, any other key: keep it)", "y").is_some(), "a popup's title");
    assert!(named_at("out.bin exists: y replaces it, any other key keeps it", "y").is_some());
}
