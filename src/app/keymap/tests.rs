use super::*;
use crossterm::event::{KeyCode, KeyModifiers};

fn event(key: Key) -> KeyEvent {
    let mut modifiers = KeyModifiers::NONE;
    if key.ctrl {
        modifiers |= KeyModifiers::CONTROL;
    }
    if key.alt {
        modifiers |= KeyModifiers::ALT;
    }
    // Terminals report Shift with capitals and Shift-Tab: it must not get in the way.
    if matches!(key.code, KeyCode::Char(c) if c.is_uppercase()) || key.code == KeyCode::BackTab {
        modifiers |= KeyModifiers::SHIFT;
    }
    KeyEvent::new(key.code, modifiers)
}

fn overrides(pairs: &[(&str, &[&str])]) -> Result<Keymap, KeymapError> {
    let owned: Vec<(String, Vec<String>)> =
        pairs.iter().map(|(a, keys)| (a.to_string(), keys.iter().map(|k| k.to_string()).collect())).collect();
    Keymap::with_overrides(owned.iter().map(|(a, keys)| (a.as_str(), keys.as_slice())))
}

#[test]
fn the_defaults_hold_together() {
    let keymap = Keymap::default();
    keymap.check(&[]).expect("no key means two things where both are live");
    assert!(DEFAULTS.iter().all(|d| !d.keys.is_empty()), "every action has a key");
    assert!(DEFAULTS.iter().all(|d| !d.help.is_empty()), "every action says what it does");
}

#[test]
fn every_default_key_dispatches_to_its_action_in_its_context() {
    let keymap = Keymap::default();
    for binding in DEFAULTS {
        for (index, key) in binding.keys.iter().enumerate() {
            let expected = match binding.action {
                Action::ToggleRunOption(_) => Action::ToggleRunOption(index),
                action => action,
            };
            assert_eq!(
                keymap.action_for(binding.context, event(*key)),
                Some(expected),
                "{key} in {:?}",
                binding.context
            );
        }
    }
}

#[test]
fn chords_are_not_their_letters() {
    let keymap = Keymap::default();
    let ctrl_o = KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert_eq!(keymap.action_for(Context::Result, ctrl_o), None, "Ctrl-O is not o (open)");
    assert_eq!(keymap.action_for(Context::Main, ctrl_o), Some(Action::FocusResult));
    let ctrl_k = KeyEvent::new(KeyCode::Char('k'), KeyModifiers::CONTROL);
    assert_eq!(keymap.action_for(Context::Main, ctrl_k), None);
}

#[test]
fn keys_parse_as_a_config_file_writes_them() {
    let cases = [
        ("ctrl-r", Key::ctrl('r')),
        ("Ctrl-R", Key::ctrl('r')),
        ("alt-up", Key::alt(KeyCode::Up)),
        ("F5", Key::plain(KeyCode::F(5))),
        ("K", Key::char('K')),
        ("shift-k", Key::char('K')),
        ("shift-tab", Key::plain(KeyCode::BackTab)),
        ("space", Key::char(' ')),
        ("-", Key::char('-')),
        ("ctrl--", Key { code: KeyCode::Char('-'), ctrl: true, alt: false }),
        ("?", Key::char('?')),
        ("pgdn", Key::plain(KeyCode::PageDown)),
        ("alt-1", Key::alt(KeyCode::Char('1'))),
    ];
    for (text, key) in cases {
        assert_eq!(Key::parse(text), Ok(key), "{text}");
    }
    for bad in ["", "ctrl-foo", "shift-up", "f0", "f99", "hyper-x", "ctrl-"] {
        assert!(Key::parse(bad).is_err(), "{bad} parsed");
    }
    assert_eq!(Key::parse("ctrl-foo"), Err(KeyError::Unknown("ctrl-foo".into())));
    let shifted = Key::parse("shift-up").expect_err("shift goes with a letter");
    assert_eq!(shifted, KeyError::Shift("shift-up".into()));
    assert_eq!(shifted.to_string(), "\"shift-up\": shift goes with a letter or tab (write \"K\", not \"shift-k\")");
}

#[test]
fn keys_show_as_the_help_names_them() {
    let shown: Vec<String> =
        [Key::ctrl('r'), Key::alt(KeyCode::Up), Key::plain(KeyCode::PageUp), Key::char(' '), Key::char('K')]
            .iter()
            .map(Key::to_string)
            .collect();
    assert_eq!(shown, ["Ctrl-R", "Alt-↑", "PgUp", "Space", "K"]);
}

#[test]
fn an_override_changes_dispatch_and_help_everywhere_the_action_is() {
    let keymap = overrides(&[("run", &["ctrl-g"]), ("quit", &["q", "ctrl-q"])]).expect("valid overrides");
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    for context in [Context::Main, Context::Result] {
        assert_eq!(keymap.action_for(context, ctrl('g')), Some(Action::Run));
        assert_eq!(keymap.action_for(context, ctrl('r')), None, "the default is gone");
    }
    assert_eq!(keymap.action_for(Context::Main, ctrl('q')), Some(Action::Quit));
    assert_eq!(keymap.name(Context::Main, Action::Run).as_deref(), Some("Ctrl-G"));
    let main = &keymap.help()[1];
    assert_eq!(main.0, Context::Main);
    assert!(main.1.contains(&("Ctrl-G".to_string(), "run (again: send invalid input anyway)")), "{main:?}");
    assert!(main.1.contains(&("q Ctrl-Q".to_string(), "quit")), "{main:?}");
}

#[test]
fn the_run_options_are_the_keys_in_order() {
    let keymap = overrides(&[("toggle_run_option", &["f9", "f11"])]).expect("valid");
    assert_eq!(
        keymap.action_for(Context::Main, KeyEvent::new(KeyCode::F(11), KeyModifiers::NONE)),
        Some(Action::ToggleRunOption(1))
    );
}

#[test]
fn bad_overrides_are_errors_that_name_them() {
    let error = overrides(&[("runn", &["ctrl-r"])]).unwrap_err();
    assert_eq!(error.action(), "runn");
    assert!(error.to_string().contains("\"runn\" is not an action"), "{error}");
    let error = overrides(&[("run", &["ctrl-rr"])]).unwrap_err();
    assert_eq!(error, KeymapError::BadKey { action: "run".into(), why: KeyError::Unknown("ctrl-rr".into()) });
    let error = overrides(&[("retry", &["j"])]).unwrap_err();
    assert_eq!(error.action(), "retry", "the override is blamed, not the default it collides with");
    assert!(error.to_string().contains("j would also mean down"), "{error}");
    let error = overrides(&[("force_quit", &["q"])]).unwrap_err();
    assert!(matches!(error, KeymapError::Typeable { .. }), "{error}");
}

#[test]
fn the_help_lists_every_binding() {
    let keymap = Keymap::default();
    let help = keymap.help();
    for binding in keymap.bindings() {
        let (_, lines) = help.iter().find(|(context, _)| *context == binding.context).expect("a section");
        assert!(lines.iter().any(|(_, text)| *text == binding.help), "{binding:?}");
    }
    let main = &help[1].1;
    assert!(main.contains(&("↑ k / ↓ j".to_string(), "move in the list")), "{main:?}");
    let form = &help[2].1;
    assert_eq!(help[2].0, Context::Form);
    assert!(form.contains(&("↑ / ↓".to_string(), "move in the form")), "{form:?}");
    assert!(main.contains(&("Alt-1 … Alt-9".to_string(), "toggle the run options shown beside Run")), "{main:?}");
}

/// What the config file's `[keys]` makes of `text`: the file's own error, or the keymap's.
fn keys_error(text: &str, origin: &str) -> String {
    match crate::config::parse(text, origin) {
        Err(e) => e.to_string(),
        Ok(config) => Keymap::from_config(&config).expect_err("a bad [keys] is an error").to_string(),
    }
}

#[test]
fn keys_are_patched_over_the_defaults() {
    use crate::app::{Action, Context};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let config = Keymap::from_config(
        &crate::config::parse("[keys]\nrun = \"f9\"\nquit = [\"q\", \"ctrl-q\"]\n", "c.toml").unwrap(),
    )
    .unwrap();
    let f9 = KeyEvent::new(KeyCode::F(9), KeyModifiers::NONE);
    assert_eq!(config.action_for(Context::Main, f9), Some(Action::Run));
    let ctrl_q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert_eq!(config.action_for(Context::Main, ctrl_q), Some(Action::Quit));
    assert_eq!(Keymap::from_config(&crate::config::parse("", "c.toml").unwrap()).unwrap(), Keymap::default());
}

#[test]
fn a_bad_key_names_itself_and_its_line() {
    let error = keys_error("[keys]\nrun = \"f9\"\nhelp = \"ctrl-banana\"\n", "c.toml");
    assert_eq!(error, "c.toml:3: [keys] help: \"ctrl-banana\" is not a key");
    let error = keys_error("[keys]\n\nrunn = \"f9\"\n", "c.toml");
    assert!(error.starts_with("c.toml:3: [keys] \"runn\" is not an action"), "{error}");
    let error = keys_error("[keys]\nretry = \"j\"\n", "c.toml");
    assert!(error.starts_with("c.toml:2: [keys] retry: j would also mean down"), "{error}");
    let error = keys_error("[keys]\nrun = 5\n", "c.toml");
    assert!(error.starts_with("c.toml:2:"), "{error}");
}

/// On the form a printable key types into the field under the cursor: no default binds one
/// there, and an override's letters are left out there (they stay commands in the list).
#[test]
fn form_keys_never_type_and_an_override_keeps_only_its_other_keys_there() {
    let keymap = Keymap::default();
    let form = keymap.bindings().iter().filter(|b| b.context == Context::Form);
    assert!(form.flat_map(|b| &b.keys).all(|k| !k.is_printable()), "a letter would be a command on the form");
    let keymap = overrides(&[("unset", &["x", "ctrl-g"])]).expect("a letter is fine in the list");
    assert_eq!(keymap.keys(Context::Form, Action::Unset), &[Key::ctrl('g')]);
}

#[test]
fn typing_keys_are_chords_and_an_override_keeps_only_its_chords_there() {
    let keymap = Keymap::default();
    let typing = keymap.bindings().iter().filter(|b| b.context == Context::Typing);
    assert!(typing.flat_map(|b| &b.keys).all(Key::is_command_only), "a letter would type");
    let keymap = overrides(&[("help", &["?", "f11"])]).expect("a letter for help is fine outside a text box");
    assert_eq!(keymap.keys(Context::Typing, Action::Help), &[Key::plain(KeyCode::F(11))]);
    assert_eq!(keymap.keys(Context::Main, Action::Help), &[Key::char('?'), Key::plain(KeyCode::F(11))]);
}

#[test]
fn the_palette_lists_every_action_once() {
    let keymap = Keymap::default();
    let listed = keymap.actions();
    for binding in
        DEFAULTS.iter().filter(|d| !matches!(d.action, Action::ForceQuit | Action::Palette | Action::Confirm))
    {
        let times = listed.iter().filter(|(_, a, ..)| a.kind() == binding.action.kind()).count();
        assert_eq!(times, 1, "{}", binding.action.name());
    }
}

#[test]
fn a_key_unbound_here_says_where_it_works() {
    let keymap = Keymap::default();
    let hint = keymap.elsewhere(&[Context::Anywhere, Context::Main], event(Key::char('W')));
    assert_eq!(hint.as_deref(), Some("W does nothing here; in result: wrap long lines, or not"));
    assert_eq!(keymap.elsewhere(&[Context::Main], event(Key::char('Q'))), None);
}
