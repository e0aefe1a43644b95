//! The form habit and views that close the way they opened (docs/keys.md's table), driven
//! through `update` as the runtime drives it.

use super::*;
use crate::app::update;
use crate::catalog::{LoadOptions, load_samples};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn app() -> App {
    let loaded = load_samples(&LoadOptions::default());
    App::new(loaded.catalog, &loaded.diagnostics, (120, 40))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn chord(app: &mut App, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, modifiers))))
}

fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars().flat_map(|c| press(app, KeyCode::Char(c))).collect()
}

fn open(app: &mut App, query: &str) {
    press(app, KeyCode::Char('/'));
    type_text(app, query);
    press(app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Form, "{query}'s form");
}

/// Enter `2` Tab `3` Ctrl-R: Tab goes on editing the next field, as on a web form.
#[test]
fn enter_2_tab_3_run_sends_both_numbers() {
    let mut app = app();
    open(&mut app, "Math.Add");
    press(&mut app, KeyCode::Enter);
    type_text(&mut app, "2");
    press(&mut app, KeyCode::Tab);
    assert!(app.form_pane.editing(), "Tab goes on editing the next field");
    type_text(&mut app, "3");
    let effects = chord(&mut app, KeyCode::Char('r'), KeyModifiers::CONTROL);
    let request = effects.iter().find_map(|e| match e {
        Effect::Server(ServerEffect::Invoke { request, .. }) => Some(request.arguments.clone()),
        _ => None,
    });
    assert_eq!(request, Some(serde_json::json!({"a": 2, "b": 3})), "{:?}", app.status());
}

/// ↑ and ↓ from a one-line field being edited go on editing; Esc ends the edit.
#[test]
fn arrows_go_on_editing_and_esc_ends() {
    let mut app = app();
    open(&mut app, "Math.Add");
    type_text(&mut app, "4");
    press(&mut app, KeyCode::Down);
    type_text(&mut app, "5");
    press(&mut app, KeyCode::Up);
    assert!(app.form_pane.editing());
    type_text(&mut app, "0");
    press(&mut app, KeyCode::Esc);
    assert!(!app.form_pane.editing());
    assert_eq!(app.form().map(|f| f.arguments().clone()), Some(serde_json::json!({"a": 40, "b": 5})));
}

/// On a group row, typing words fires nothing: no fold, no popup, no pane, no effect; the
/// status line says how the row is edited.
#[test]
fn words_typed_on_a_group_row_fire_nothing() {
    let mut app = app();
    open(&mut app, "create_shipment");
    let form = app.form().expect("its form");
    let group = form.rows().iter().position(|r| r.pointer == "/ship_to").expect("ship_to is a row");
    assert!(form.field(&form.rows()[group].path).is_some_and(|f| f.is_group()), "a group row");
    for _ in 0..group {
        press(&mut app, KeyCode::Down);
    }
    let before = app.form().map(|f| (f.arguments().clone(), f.rows().len()));
    let effects = type_text(&mut app, "Bob 2 High St iSRDzCXqrxT?");
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.prompts.popup(), None);
    assert_eq!((app.overlay(), app.focus, app.zoomed), (None, Focus::Form, false));
    assert_eq!(app.form().map(|f| (f.arguments().clone(), f.rows().len())), before, "nothing folded or changed");
    assert!(status(&app).contains("ship_to takes no text"), "{}", status(&app));
    assert!(status(&app).contains("Enter folds or unfolds it"), "{}", status(&app));
}

fn status(app: &App) -> &str {
    app.status().unwrap_or_default()
}

/// Ctrl-J opens the JSON view and Ctrl-J closes it, from inside it or from the form.
#[test]
fn ctrl_j_twice_leaves_no_json_view() {
    let mut app = app();
    open(&mut app, "Math.Add");
    let ctrl_j = |app: &mut App| chord(app, KeyCode::Char('j'), KeyModifiers::CONTROL);
    ctrl_j(&mut app);
    assert_eq!((app.focus, app.form_pane.json().is_some()), (Focus::Json, true));
    ctrl_j(&mut app);
    assert_eq!((app.focus, app.form_pane.json().is_some()), (Focus::Form, false), "closed from inside");
    ctrl_j(&mut app);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Form);
    ctrl_j(&mut app);
    assert!(app.form_pane.json().is_none(), "closed from the form");
}

/// Every view closes with the key that opened it, from the list or the form.
#[test]
fn every_view_closes_with_the_key_that_opened_it() {
    let alt = KeyModifiers::ALT;
    let none = KeyModifiers::NONE;
    let keys: &[(KeyCode, KeyModifiers)] = &[
        (KeyCode::F(1), none),
        (KeyCode::F(2), none),
        (KeyCode::F(8), none),
        (KeyCode::Char('v'), alt),
        (KeyCode::Char('t'), alt),
        (KeyCode::Char('p'), KeyModifiers::CONTROL),
        (KeyCode::Char('z'), alt),
    ];
    for &(code, modifiers) in keys {
        for in_form in [false, true] {
            let mut app = app();
            if in_form {
                open(&mut app, "Math.Add");
            }
            let before = (app.focus, app.zoomed);
            chord(&mut app, code, modifiers);
            let opened = app.prompts.popup().is_some() || app.overlay().is_some() || app.zoomed;
            assert!(opened, "{code:?} {modifiers:?} opened nothing: {:?}", app.status());
            chord(&mut app, code, modifiers);
            assert_eq!(app.prompts.popup(), None, "{code:?} {modifiers:?}");
            assert_eq!(app.overlay(), None, "{code:?} {modifiers:?}");
            assert_eq!((app.focus, app.zoomed), before, "{code:?} {modifiers:?}");
        }
    }
    // In the list, letters are commands and open views: the same letter closes them (but for a
    // prompt's text box, where a letter types: `T` types into the roots; Alt-t closes them).
    for letter in ['i', 'X', 'V', 'N', 'z', '?', 'C', 'H'] {
        let mut app = app();
        press(&mut app, KeyCode::Char(letter));
        let opened = app.prompts.popup().is_some() || app.overlay().is_some() || app.zoomed;
        if !opened {
            continue; // nothing to show for this list (no lint notes, no config servers)
        }
        press(&mut app, KeyCode::Char(letter));
        let closed = app.prompts.popup().is_none() && app.overlay().is_none() && !app.zoomed;
        assert!(closed, "{letter} did not close what it opened: {:?}", app.prompts.popup());
    }
    // Ctrl-F closes the filter it opened (what was typed stays).
    let mut app = app();
    chord(&mut app, KeyCode::Char('f'), KeyModifiers::CONTROL);
    type_text(&mut app, "add");
    chord(&mut app, KeyCode::Char('f'), KeyModifiers::CONTROL);
    assert!(!app.list.filtering() && app.list.filter().text() == "add");
    // Opened from a form, the filter returns there: Esc (the search dropped) or Ctrl-F again.
    for close in [(KeyCode::Esc, KeyModifiers::NONE), (KeyCode::Char('f'), KeyModifiers::CONTROL)] {
        let mut app = self::app();
        open(&mut app, "Math.Add");
        chord(&mut app, KeyCode::Char('f'), KeyModifiers::CONTROL);
        assert_eq!(app.focus, Focus::List, "the filter is typed in the list");
        type_text(&mut app, "sub");
        chord(&mut app, close.0, close.1);
        assert_eq!(app.focus, Focus::Form, "{close:?} returns to the form it was opened from");
        assert!(!app.form_pane.editing(), "without starting an edit");
    }
}

/// Keys that act on the last call say so when there is none, rather than nothing.
#[test]
fn run_again_with_no_call_says_so() {
    for key in [(KeyCode::F(6), KeyModifiers::NONE), (KeyCode::Char('r'), KeyModifiers::ALT)] {
        let mut app = app();
        assert!(chord(&mut app, key.0, key.1).is_empty());
        assert!(app.status().is_some_and(|s| s.contains("no call to run again yet")), "{:?}", app.status());
    }
}

/// Zoomed, the form's header grows only as far as its description needs (it once took half
/// the screen and left blank rows); `q` in the server pane quits (letters are commands in the
/// panes over the others).
#[test]
fn zoom_leaves_no_blank_header_rows_and_q_quits_from_the_server_pane() {
    let mut app = app();
    open(&mut app, "Math.Add");
    chord(&mut app, KeyCode::Char('z'), KeyModifiers::ALT);
    assert!(app.zoomed);
    let layout = app.layout();
    assert_eq!(layout.detail.height, crate::app::layout::DETAIL_HEIGHT, "a one-line description");
    assert_eq!(layout.form.height, 39 - crate::app::layout::DETAIL_HEIGHT, "the form has the rest");
    press(&mut app, KeyCode::F(2));
    assert_eq!(app.overlay(), Some(Overlay::Server));
    assert_eq!(press(&mut app, KeyCode::Char('q')), vec![Effect::Quit]);
}
