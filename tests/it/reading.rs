//! Screens for reading text whole and finding every key: long text wrapped in the result pane
//! (or scrolled sideways), a pane zoomed, a string opened as text, a description's paragraphs and
//! lists, the command palette, and the help of each pane. Driven through `update` and drawn on a
//! `TestBackend`, as `tests/it/screens.rs` does; each test says what its snapshot is about.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{Answer, App, CallMsg, Focus, InputMsg, Msg, Popup, ServerEffect, update};
use tooldeck::catalog::{Catalog, LoadOptions, load_samples, load_text};
use tooldeck::invoke::Exchange;
use tooldeck::invoke::envelope::read_otc_response;
use tooldeck::theme::Styles;

struct Deck {
    app: App,
    size: (u16, u16),
}

impl Deck {
    fn samples(size: (u16, u16)) -> Deck {
        let loaded = load_samples(&LoadOptions::default());
        Deck { app: App::new(loaded.catalog, &loaded.diagnostics, size), size }
    }

    fn key(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        update(&mut self.app, Msg::Input(InputMsg::Key(KeyEvent::new(code, modifiers))));
    }

    fn press(&mut self, code: KeyCode) {
        self.key(code, KeyModifiers::NONE);
    }

    fn type_text(&mut self, text: &str) {
        text.chars().for_each(|c| self.press(KeyCode::Char(c)));
    }

    fn open_tool(&mut self, filter: &str) {
        // Ctrl-F, since on a form `/` is typed.
        self.key(KeyCode::Char('f'), KeyModifiers::CONTROL);
        self.type_text(filter);
        self.press(KeyCode::Enter);
    }

    /// Runs the form (sending it even if invalid) and answers with an OTC `body`.
    fn run_and_answer(&mut self, body_for: impl FnOnce(&str) -> String) {
        let ctrl_r = || Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)));
        let mut effects = update(&mut self.app, ctrl_r());
        if effects.is_empty() {
            effects = update(&mut self.app, ctrl_r());
        }
        let (id, request) = effects
            .into_iter()
            .find_map(|e| match e {
                tooldeck::app::Effect::Server(ServerEffect::Invoke { id, request, .. }) => Some((id, request)),
                _ => None,
            })
            .expect("a call");
        let body = body_for(&request.call_id);
        let outcome = read_otc_response(200, Some("application/json"), body.as_bytes(), false, &request.call_id);
        let exchange = Exchange { status: Some(200), response_body: body, ..Exchange::default() };
        let answer = Answer::new(outcome, exchange, None);
        update(&mut self.app, Msg::Call(CallMsg::Done { id, result: Ok(Box::new(answer)) }));
    }

    fn text(&self) -> String {
        let mut terminal = Terminal::new(TestBackend::new(self.size.0, self.size.1)).expect("test terminal");
        terminal.draw(|frame| tooldeck::ui::render(&self.app, &Styles::default(), frame)).expect("draw");
        terminal.backend().to_string()
    }

    fn snapshot(&self, name: &str) -> String {
        let text = self.text();
        // Call ids are random: the snapshot shows where one is, not which.
        let filters = vec![
            (r"call [0-9a-f]{8}…", "call ########…"),
            (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f-]*", "########-####-####-####-############"),
            // The rest of an id the pane wrapped onto the next line.
            (r#"││[0-9a-f]{1,12}","#, r#"││############","#),
        ];
        insta::with_settings!({ filters => filters }, {
            insta::assert_snapshot!(name, text);
        });
        text
    }
}

/// The screen's text without the borders and quotes: what a reader reads, joined.
fn words(screen: &str) -> String {
    screen.lines().flat_map(|l| l.split('│')).map(|s| s.trim_matches('"').trim()).collect::<Vec<_>>().join(" ")
}

/// A 2,000-character reason for no answer, read whole at 80x24: wrapped, then scrolled.
#[test]
fn a_long_error_wraps_and_scrolls_to_its_end() {
    let mut deck = Deck::samples((80, 24));
    deck.open_tool("Math.Add");
    let ctrl_r = || Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)));
    update(&mut deck.app, ctrl_r());
    let effects = update(&mut deck.app, ctrl_r());
    let id = effects
        .iter()
        .find_map(|e| match e {
            tooldeck::app::Effect::Server(ServerEffect::Invoke { id, .. }) => Some(*id),
            _ => None,
        })
        .expect("sent anyway");
    let words_said: Vec<String> = (0..420).map(|i| format!("w{i}")).collect();
    let error = format!("BEGIN {} END", words_said.join(" "));
    assert!(error.len() > 1900, "{}", error.len());
    update(&mut deck.app, Msg::Call(CallMsg::Done { id, result: Err(error.into()) }));
    let screen = deck.snapshot("reading_01_long_error_wrapped");
    assert!(screen.contains("BEGIN w0 w1 w2"), "{screen}");
    assert!(!screen.contains("END"), "more than fits: {screen}");
    // Into the result, and to the bottom: the end is there, nothing was cut at the pane's edge.
    deck.key(KeyCode::Char('o'), KeyModifiers::CONTROL);
    deck.press(KeyCode::Char('G'));
    let screen = deck.text();
    assert!(words(&screen).contains("w419 END"), "{screen}");
    // Every word was on one screen or another: page back up through it.
    let mut seen = words(&screen);
    for _ in 0..120 {
        deck.press(KeyCode::Up);
        seen.push_str(&words(&deck.text()));
    }
    for word in ["w57", "w150", "w233"] {
        assert!(seen.contains(&format!(" {word} ")), "{word} never showed");
    }
}

/// The exchange's one-line 10 kB body wraps whole; `W` cuts lines instead, `>` scrolls them.
#[test]
fn a_one_line_exchange_body_reads_whole_or_sideways() {
    let mut deck = Deck::samples((140, 42));
    deck.open_tool("Math.Add");
    let filler = "x".repeat(10_000);
    deck.run_and_answer(|call| {
        format!(r#"{{"result":{{"call_id":"{call}","success":true,"value":{{"blob":"START{filler}STOP"}}}}}}"#)
    });
    deck.key(KeyCode::Char('o'), KeyModifiers::CONTROL);
    deck.press(KeyCode::Char('x'));
    assert!(deck.app.result.show_exchange());
    let screen = deck.snapshot("reading_02_exchange_wrapped");
    assert!(screen.contains("\"value\":{\"blob\":\"STAR"), "{screen}");
    deck.press(KeyCode::Char('G'));
    let screen = deck.text();
    assert!(screen.contains("STOP\"}}}"), "the body's end, wrapped onto the last lines: {screen}");
    // Not wrapped: one line, cut at the edge, scrolled sideways.
    deck.press(KeyCode::Char('W'));
    deck.press(KeyCode::Char('g'));
    assert!(!deck.text().contains("STOP"), "cut at the pane's edge");
    deck.press(KeyCode::Char('>'));
    let screen = deck.snapshot("reading_03_exchange_sideways");
    assert!(!screen.contains("{\"result\":{\"call_id\""), "scrolled past the start: {screen}");
    assert!(screen.contains("\"value\":{\"blob\":\"STARTxxx"), "half a pane on: {screen}");
    // The exchange view is this call's: the next call shows its outcome.
    deck.run_and_answer(|call| format!(r#"{{"result":{{"call_id":"{call}","success":true,"value":1}}}}"#));
    assert!(!deck.app.result.show_exchange(), "x does not stay on for later calls");
}

/// `z` gives the focused pane the whole screen, and takes it back.
#[test]
fn zoom_gives_the_focused_pane_the_screen() {
    let mut deck = Deck::samples((80, 24));
    deck.open_tool("Math.Add");
    deck.run_and_answer(|call| {
        format!(r#"{{"result":{{"call_id":"{call}","success":true,"value":{{"sum":3,"note":"fine"}}}}}}"#)
    });
    deck.key(KeyCode::Char('o'), KeyModifiers::CONTROL);
    deck.press(KeyCode::Char('z'));
    let screen = deck.snapshot("reading_04_result_zoomed");
    assert!(screen.lines().next().is_some_and(|l| l.contains("result · Math.Add")), "{screen}");
    assert!(!screen.contains("┌ tools"), "the list is not drawn: {screen}");
    deck.press(KeyCode::Char('z'));
    assert!(deck.text().contains("┌ tools"), "z again: back");
}

/// Enter on a string of the value opens it as text, its line breaks kept.
#[test]
fn a_multi_line_string_opens_as_text() {
    let mut deck = Deck::samples((100, 30));
    deck.open_tool("Math.Add");
    deck.run_and_answer(|call| {
        format!(
            r#"{{"result":{{"call_id":"{call}","success":true,"value":{{"diff":"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new"}}}}}}"#
        )
    });
    deck.key(KeyCode::Char('o'), KeyModifiers::CONTROL);
    deck.press(KeyCode::Down);
    deck.press(KeyCode::Enter);
    assert!(matches!(deck.app.prompts.popup(), Some(Popup::Text { .. })));
    let screen = deck.snapshot("reading_05_string_as_text");
    for line in ["--- a/f", "+++ b/f", "-old", "+new"] {
        assert!(screen.lines().any(|l| l.contains(&format!("│{line}"))), "{line} on its own line: {screen}");
    }
    deck.press(KeyCode::Esc);
    assert!(deck.app.prompts.popup().is_none());
}

/// A result of another tool folds to its status line when a new tool is selected.
#[test]
fn an_old_result_folds_to_one_line() {
    let mut deck = Deck::samples((100, 30));
    deck.open_tool("Math.Add");
    deck.run_and_answer(|call| format!(r#"{{"result":{{"call_id":"{call}","success":true,"value":3}}}}"#));
    deck.open_tool("search_products");
    let screen = deck.snapshot("reading_06_old_result_folded");
    let result = deck.app.layout().result.expect("still on screen");
    assert_eq!(result.height, 3, "one line in its borders: {screen}");
    assert!(screen.contains("● value"), "{screen}");
}

/// A description's paragraphs, list items and code spans, as the author wrote them.
#[test]
fn descriptions_keep_paragraphs_and_lists() {
    let tools = serde_json::json!({"tools": [{
        "name": "edit_file",
        "description": "Edits a text file.\n\nModes:\n- `replace`: swap the text\n- `append`: add at the end\n\nReturns a diff.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
    }]});
    let (tools, diagnostics) = load_text("mcp:test", &tools.to_string(), &LoadOptions::default());
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    let mut deck = Deck { app: App::new(catalog, &diagnostics, (100, 30)), size: (100, 30) };
    deck.press(KeyCode::Enter);
    // Zoomed, the header has room for the whole description. On a text field a letter types,
    // so the chord: Alt-z.
    deck.key(KeyCode::Char('z'), KeyModifiers::ALT);
    assert!(deck.app.zoomed);
    let screen = deck.snapshot("reading_07_description");
    assert!(screen.contains("│• replace: swap the text"), "{screen}");
    assert!(screen.contains("│Returns a diff."), "{screen}");
    assert!(!screen.contains('↵'), "{screen}");
}

/// Ctrl-P lists every action with its key; typing narrows it; Enter runs the chosen one.
#[test]
fn the_palette_finds_and_runs_an_action() {
    let mut deck = Deck::samples((100, 30));
    deck.key(KeyCode::Char('p'), KeyModifiers::CONTROL);
    assert!(matches!(deck.app.prompts.popup(), Some(Popup::Palette { .. })));
    deck.type_text("zoom");
    let screen = deck.snapshot("reading_08_palette");
    assert!(screen.contains("z  zoom"), "{screen}");
    deck.press(KeyCode::Enter);
    assert!(deck.app.zoomed, "Enter ran it");
    deck.key(KeyCode::Char('p'), KeyModifiers::CONTROL);
    deck.type_text("filter");
    deck.press(KeyCode::Enter);
    assert!(deck.app.list.filtering());
}

/// `?` (F1 while typing) lists the keys of the pane it is pressed in.
#[test]
fn help_lists_the_keys_of_each_pane() {
    let mut deck = Deck::samples((120, 40));
    deck.open_tool("Math.Add");
    deck.run_and_answer(|call| format!(r#"{{"result":{{"call_id":"{call}","success":true,"value":{{"a":1}}}}}}"#));
    deck.key(KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert_eq!(deck.app.focus, Focus::Result);
    deck.press(KeyCode::Char('?'));
    let screen = deck.snapshot("reading_09_help_in_the_result");
    for line in ["the exact request and response", "wrap long lines, or not", "a value in the result"] {
        assert!(screen.contains(line), "{line}: {screen}");
    }
    // The every-pane chords are listed too (Ctrl-F filters from anywhere); the list's own section is not.
    assert!(!screen.contains("list and form"), "the list's keys are not the result's: {screen}");
    deck.press(KeyCode::Esc);
    deck.press(KeyCode::Esc);
    // In the form, typing into a field (Enter chooses it): the keys that work while typing.
    deck.press(KeyCode::Enter);
    deck.type_text("1");
    assert!(deck.app.form_pane.editing());
    deck.press(KeyCode::F(1));
    let screen = deck.snapshot("reading_10_help_while_typing");
    assert!(screen.contains("an edit is kept"), "{screen}");
    deck.press(KeyCode::Esc);
    assert!(deck.app.form_pane.editing(), "the edit goes on after the help");
}

/// A field's long error wraps under it and reads to its end.
#[test]
fn a_long_field_error_wraps_under_its_field() {
    let choices: Vec<String> = (0..40).map(|i| format!("choice{i}")).collect();
    let pattern = format!("^({})$", choices.join("|"));
    let tools = serde_json::json!({"tools": [{
        "name": "pick",
        "inputSchema": {"type": "object", "properties": {"code": {"type": "string", "pattern": pattern}}}
    }]});
    let (tools, diagnostics) = load_text("mcp:test", &tools.to_string(), &LoadOptions::default());
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    let mut deck = Deck { app: App::new(catalog, &diagnostics, (80, 24)), size: (80, 24) };
    deck.press(KeyCode::Enter);
    // Enter chooses the field; then letters type.
    deck.press(KeyCode::Enter);
    deck.type_text("nope");
    deck.press(KeyCode::Enter);
    let screen = deck.snapshot("reading_11_long_field_error");
    // Broken inside the long pattern where it must be, and nothing cut off.
    assert!(screen.contains("39)$\""), "the message's end: {screen}");
    assert!(!screen.contains("choice…"), "{screen}");
}

/// A value's long line scrolls sideways with `>` and back with `<` (the value viewer folds, it
/// does not wrap).
#[test]
fn a_values_long_line_scrolls_sideways() {
    let mut deck = Deck::samples((80, 24));
    deck.open_tool("Math.Add");
    let long = format!("HEAD{}TAIL", "-".repeat(120));
    deck.run_and_answer(|call| {
        format!(r#"{{"result":{{"call_id":"{call}","success":true,"value":{{"k":"{long}"}}}}}}"#)
    });
    deck.key(KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert!(deck.text().contains("HEAD") && !deck.text().contains("TAIL"));
    for _ in 0..4 {
        deck.press(KeyCode::Char('>'));
    }
    assert!(deck.text().contains("TAIL"), "{}", deck.text());
    for _ in 0..4 {
        deck.press(KeyCode::Char('<'));
    }
    assert!(deck.text().contains("HEAD"));
}
