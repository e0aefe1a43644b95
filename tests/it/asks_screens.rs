//! The screens of a server's questions (elicitation form, URL, sampling), driven through `update`
//! with the messages the runtime and the terminal would send, drawn on a `TestBackend` and kept
//! as insta snapshots; each test says in words what its snapshot is about.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tooldeck::app::{App, DesktopEffect, Effect, InputMsg, Msg, ServerEffect, ServerMsg, TaskEffect, update};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::mcp::asks::{Ask, AskReply};
use tooldeck::theme::Styles;

fn app() -> App {
    App::new(load_samples(&LoadOptions::default()).catalog, &[], (100, 32))
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(100, 32)).expect("test terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

fn form_ask() -> Ask {
    Ask::Form {
        message: "Please tell us who you are.\u{1b}[31m (escapes are shown, not obeyed)".into(),
        schema: json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "title": "Name", "description": "Your full name"},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "subscribe": {"type": "boolean", "default": false},
                "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}]}
            }
        }),
    }
}

#[test]
fn an_elicitation_form_is_filled_checked_and_sent() {
    let mut app = app();
    update(&mut app, Msg::Server(ServerMsg::Asked { id: 7, ask: form_ask() }));
    let first = screen(&app);
    insta::assert_snapshot!("asks_01_elicitation_form", first);
    assert!(first.contains("Please tell us who you are."), "the server's message is above the form");
    assert!(!first.contains('\u{1b}'), "the escape sequence is made visible, not drawn raw");
    assert!(
        first.contains("name*") && first.contains("Your full name"),
        "required marker and the focused field's help"
    );
    // Enter on an empty required name does not send: the problem is said.
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    assert!(screen(&app).contains("problem"), "{}", screen(&app));
    type_text(&mut app, "Ada");
    key(&mut app, KeyCode::Down);
    type_text(&mut app, "ada@example.org");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char(' ')); // subscribe: false (its default) → true
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Right); // hero: unset → Superman
    key(&mut app, KeyCode::Right); // → Batman
    let filled = screen(&app);
    insta::assert_snapshot!("asks_02_elicitation_filled", filled);
    let effects = key(&mut app, KeyCode::Enter);
    let Some(Effect::Task(TaskEffect::AnswerAsk { id, reply: AskReply::Accept(Some(content)) })) = effects.first()
    else {
        panic!("Enter sends the content: {effects:?}");
    };
    assert_eq!(*id, 7);
    assert_eq!(content["name"], "Ada");
    assert_eq!(content["email"], "ada@example.org");
    assert_eq!(content["subscribe"], true);
    assert_eq!(content["hero"], "h2", "the titled choice sends its const");
    assert!(!app.asks.is_open(), "the question closes once answered");
}

#[test]
fn decline_and_cancel_send_those_actions_and_questions_wait_their_turn() {
    let mut app = app();
    update(&mut app, Msg::Server(ServerMsg::Asked { id: 1, ask: form_ask() }));
    update(&mut app, Msg::Server(ServerMsg::Asked { id: 2, ask: form_ask() }));
    assert!(screen(&app).contains("1 more waiting"));
    let effects = update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL))));
    assert_eq!(effects, [Effect::Task(TaskEffect::AnswerAsk { id: 1, reply: AskReply::Decline })]);
    assert_eq!(key(&mut app, KeyCode::Esc), [Effect::Task(TaskEffect::AnswerAsk { id: 2, reply: AskReply::Cancel })]);
}

#[test]
fn a_url_question_shows_the_url_and_o_opens_it() {
    let mut app = app();
    let ask = Ask::Url {
        message: "Authorize the calendar".into(),
        url: "https://auth.example/start?state=1".into(),
        elicitation_id: "e1".into(),
    };
    update(&mut app, Msg::Server(ServerMsg::Asked { id: 3, ask }));
    let shown = screen(&app);
    insta::assert_snapshot!("asks_03_url", shown);
    assert!(shown.contains("https://auth.example/start?state=1") && shown.contains("o open"), "{shown}");
    assert_eq!(
        key(&mut app, KeyCode::Char('o')),
        [Effect::Desktop(DesktopEffect::Open("https://auth.example/start?state=1".into()))]
    );
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        [Effect::Task(TaskEffect::AnswerAsk { id: 3, reply: AskReply::Accept(None) })]
    );
}

#[test]
fn a_sampling_request_is_shown_and_the_reply_written() {
    let mut app = app();
    let request = json!({
        "systemPrompt": "You are terse.",
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of Egypt?"}}],
        "maxTokens": 50,
        "modelPreferences": {"hints": [{"name": "claude"}]},
        "tools": [{"name": "lookup", "inputSchema": {"type": "object"}}]
    });
    update(&mut app, Msg::Server(ServerMsg::Asked { id: 4, ask: Ask::Sample { request, cut: false } }));
    type_text(&mut app, "Cairo");
    let shown = screen(&app);
    insta::assert_snapshot!("asks_04_sampling", shown);
    assert!(shown.contains("capital of Egypt") && shown.contains("tools offered: lookup"), "{shown}");
    assert!(shown.contains("max tokens 50"), "{shown}");
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        [Effect::Task(TaskEffect::AnswerAsk {
            id: 4,
            reply: AskReply::Sampled {
                text: "Cairo".into(),
                model: "tooldeck".into(),
                stop_reason: Some("endTurn".into())
            }
        })]
    );
}

#[test]
fn t_changes_the_roots() {
    let mut app = app();
    app.asks.set_roots(vec!["/srv/a".into()]);
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('T'), KeyModifiers::SHIFT))));
    assert!(screen(&app).contains("/srv/a"), "the prompt starts with the current roots");
    // Typing replaces the roots shown; a cursor move first keeps them to be edited.
    key(&mut app, KeyCode::End);
    type_text(&mut app, ", /srv/b");
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(effects, [Effect::Server(ServerEffect::SetRoots(vec!["/srv/a".into(), "/srv/b".into()]))]);
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('T'), KeyModifiers::SHIFT))));
    type_text(&mut app, "/srv/c");
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(effects, [Effect::Server(ServerEffect::SetRoots(vec!["/srv/c".into()]))], "typed at once: replaced");
}

/// A multi-select (an array of allowed values, plain `items.enum` or titled `items.anyOf`):
/// `a` adds an item and focuses it, ←/→ choose its value, `d` removes it; legacy `enumNames`
/// label a single choice.
#[test]
fn a_multi_select_takes_and_drops_items() {
    let mut app = app();
    let ask = Ask::Form {
        message: "Pick what you like.".into(),
        schema: json!({
            "type": "object",
            "properties": {
                "colours": {"type": "array", "items": {"type": "string", "enum": ["red", "green", "blue"]}},
                "pets": {"type": "array", "items": {"anyOf": [
                    {"const": "c", "title": "Cat"}, {"const": "d", "title": "Dog"}
                ]}},
                "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}
            }
        }),
    };
    update(&mut app, Msg::Server(ServerMsg::Asked { id: 3, ask }));
    // colours: a new item, focused, then its value chosen: unset → red → green.
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    // A second item (`a` on an item adds to its list), then dropped with `d`.
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Char('d'));
    // pets: two items, Cat then Dog.
    focus_on(&mut app, "pets");
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    let shown = screen(&app);
    assert!(shown.contains("Cat") && shown.contains("Dog"), "titled values are shown by title:\n{shown}");
    key(&mut app, KeyCode::Down); // size
    key(&mut app, KeyCode::Right);
    let shown = screen(&app);
    assert!(shown.contains("Small"), "enumNames label the choices:\n{shown}");
    let effects = key(&mut app, KeyCode::Enter);
    let Some(Effect::Task(TaskEffect::AnswerAsk { reply: AskReply::Accept(Some(content)), .. })) = effects.first()
    else {
        panic!("Enter sends the content: {effects:?}\n{}", screen(&app));
    };
    assert_eq!(content["colours"], json!(["green"]));
    assert_eq!(content["pets"], json!(["c", "d"]));
    assert_eq!(content["size"], "s");
}

/// Moves the focus down (↓) to the field called `name`.
fn focus_on(app: &mut App, name: &str) {
    let focused = |app: &App| {
        let question = app.asks.current().expect("a question");
        let form = question.form().expect("a form");
        question.focused_path().and_then(|path| form.field(&path).map(|f| f.name.clone())).unwrap_or_default()
    };
    for _ in 0..20 {
        if focused(app) == name {
            return;
        }
        key(app, KeyCode::Down);
    }
    panic!("no field {name} below the focus");
}

/// While a server's question is open the status line gives its keys, not those of the pane
/// behind it (where Enter would edit a field; here it sends the answer).
#[test]
fn the_status_line_gives_the_questions_keys() {
    let mut app = app();
    let before = screen(&app);
    let bottom = |text: &str| text.lines().last().unwrap_or_default().to_string();
    assert!(!bottom(&before).contains("Enter send"), "{before}");
    update(&mut app, Msg::Server(ServerMsg::Asked { id: 1, ask: form_ask() }));
    let shown = screen(&app);
    let said = bottom(&shown);
    for hint in ["Enter send", "Ctrl-D decline", "Esc cancel", "a/d list item"] {
        assert!(said.contains(hint), "{hint} in {said}");
    }
    assert!(!said.contains("Enter edit"), "{said}");
}

/// A popup's title too long for its box ends with `…` before the corner (the `V` title once ran
/// into the border), and the roots prompt's title reads whole at 80 columns with its own keys.
#[test]
fn long_popup_titles_end_with_an_ellipsis() {
    let mut app = App::new(load_samples(&LoadOptions::default()).catalog, &[], (80, 24));
    let draw = |app: &App| {
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
        terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
        terminal.backend().to_string()
    };
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('V'), KeyModifiers::SHIFT))));
    let screen = draw(&app);
    let top = screen.lines().find(|l| l.contains("as tooldeck read it from")).expect("the V title");
    assert!(top.contains("… ─") || top.contains("… ┐"), "{screen}");
    key(&mut app, KeyCode::Esc);
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('T'), KeyModifiers::SHIFT))));
    let screen = draw(&app);
    assert!(screen.contains("roots, comma-separated (Enter: set, Esc: cancel)"), "{screen}");
    let status = screen.lines().last().unwrap_or_default();
    assert!(status.contains("type roots") && !status.contains("quit"), "{status}");
}
