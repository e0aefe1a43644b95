//! Every screen state of the terminal app, rendered to a `TestBackend` and kept as an insta
//! snapshot of the screen's text. The app is driven only through `update` with the messages a
//! user's terminal would send (keys, pastes, mouse, resizes); each test also asserts, in words a
//! reviewer can read, the specific thing its snapshot is about.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use tooldeck::app::{
    Answer, App, CallMsg, ContentMsg, Effect, InputMsg, LoadMsg, Msg, SaveMsg, ServerEffect, ServerMsg, WorkEffect,
    update,
};
use tooldeck::catalog::{Catalog, LoadOptions, load_samples, load_text};
use tooldeck::invoke::Exchange;
use tooldeck::invoke::envelope::read_otc_response;
use tooldeck::invoke::otc::CallRequest;
use tooldeck::theme::{self, Styles};

/// The app as a user sees it: the state, and the size of the terminal it is drawn in.
struct Deck {
    app: App,
    size: (u16, u16),
}

impl Deck {
    /// `tooldeck` with no paths (the built-in sample tools) in a 120x40 terminal.
    fn samples() -> Deck {
        let loaded = load_samples(&LoadOptions::default());
        Deck::with_catalog(loaded.catalog, &loaded.diagnostics)
    }

    fn with_catalog(catalog: Catalog, diagnostics: &[tooldeck::catalog::Diagnostic]) -> Deck {
        Deck { app: App::new(catalog, diagnostics, (120, 40)), size: (120, 40) }
    }

    fn send(&mut self, msg: Msg) -> Vec<Effect> {
        update(&mut self.app, msg)
    }

    /// Ctrl-R, returning the call the app asked the runtime to make.
    fn run(&mut self) -> Option<(u64, CallRequest)> {
        self.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL))))
            .into_iter()
            .find_map(|e| match e {
                Effect::Server(ServerEffect::Invoke { id, request, .. }) => Some((id, request)),
                _ => None,
            })
    }

    /// The answer to call `id`, as a server's HTTP response would give it.
    fn answer(&mut self, id: u64, request: &CallRequest, status: u16, body: &str) {
        let outcome = read_otc_response(status, Some("application/json"), body.as_bytes(), false, &request.call_id);
        let exchange = Exchange { status: Some(status), response_body: body.into(), ..Exchange::default() };
        self.send(Msg::Call(CallMsg::Done { id, result: Ok(Box::new(Answer::new(outcome, exchange, None))) }));
    }

    fn key(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        self.send(Msg::Input(InputMsg::Key(KeyEvent::new(code, modifiers))));
    }

    fn press(&mut self, code: KeyCode) {
        self.key(code, KeyModifiers::NONE);
    }

    fn ctrl(&mut self, c: char) {
        self.key(KeyCode::Char(c), KeyModifiers::CONTROL);
    }

    fn type_text(&mut self, text: &str) {
        text.chars().for_each(|c| self.press(KeyCode::Char(c)));
    }

    fn resize(&mut self, width: u16, height: u16) {
        self.size = (width, height);
        self.send(Msg::Input(InputMsg::Resize(width, height)));
    }

    fn mouse(&mut self, kind: MouseEventKind, column: u16, row: u16) {
        self.send(Msg::Input(InputMsg::Mouse(MouseEvent { kind, column, row, modifiers: KeyModifiers::NONE })));
    }

    /// Filters the list to `filter`, keeps the best match (Enter) and opens its form (Enter).
    fn open_tool(&mut self, filter: &str) {
        // The filter selects the best match as it is typed; one Enter opens its form.
        // Ctrl-F, since on a form `/` is typed.
        self.key(KeyCode::Char('f'), KeyModifiers::CONTROL);
        self.type_text(filter);
        self.press(KeyCode::Enter);
    }

    /// Moves the form's cursor down (Tab) until the screen shows it on the field `label`.
    fn focus_field(&mut self, label: &str) {
        for _ in 0..60 {
            if cursor_on(&self.text(), label) {
                return;
            }
            self.press(KeyCode::Tab);
        }
        panic!("the form cursor never reached {label:?}:\n{}", self.text());
    }

    /// Edits the focused text field: Enter, type `text`, Enter.
    fn fill(&mut self, text: &str) {
        self.press(KeyCode::Enter);
        self.type_text(text);
        self.press(KeyCode::Enter);
    }

    fn draw(&self, styles: &Styles) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(self.size.0, self.size.1)).expect("test terminal");
        terminal.draw(|frame| tooldeck::ui::render(&self.app, styles, frame)).expect("draw");
        terminal
    }

    /// The screen's text (one quoted line per row) with the default theme.
    fn text(&self) -> String {
        self.draw(&Styles::default()).backend().to_string()
    }

    /// Snapshots the screen as `name` and returns its text for the test's own assertions.
    fn snapshot(&self, name: &str) -> String {
        let terminal = self.draw(&Styles::default());
        // Call ids are random: the snapshot shows where one is, not which.
        insta::with_settings!({ filters => vec![(r"call [0-9a-f]{8}…", "call ########…")] }, {
            insta::assert_snapshot!(name, terminal.backend());
        });
        terminal.backend().to_string()
    }
}

/// The form line of the field `label`, and whether the form's cursor (`›`) is on it. The form
/// pane starts right after the list pane's border, so its lines read `││›  label*  value`.
fn field_line<'a>(screen: &'a str, label: &str) -> Option<(&'a str, bool)> {
    screen.lines().find_map(|line| {
        let (_, rest) = line.split_once("││")?;
        let cursor = rest.starts_with('›');
        let after = rest.trim_start_matches('›').trim_start().strip_prefix(label)?;
        after.starts_with([' ', '*']).then_some((line, cursor))
    })
}

/// The form line of the field `label`; panics when it is not on screen.
fn field<'a>(screen: &'a str, label: &str) -> &'a str {
    field_line(screen, label).unwrap_or_else(|| panic!("no form line for {label:?}:\n{screen}")).0
}

/// The screen row (0-based) of the field `label`'s form line.
fn field_row(screen: &str, label: &str) -> usize {
    let line = field(screen, label);
    screen.lines().position(|l| std::ptr::eq(l, line)).expect("a line of the screen")
}

fn cursor_on(screen: &str, label: &str) -> bool {
    field_line(screen, label).is_some_and(|(_, cursor)| cursor)
}

/// The screen row (0-based) of the first line containing `needle`.
fn row_of(screen: &str, needle: &str) -> u16 {
    let row = screen.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not on screen"));
    u16::try_from(row).expect("row fits")
}

/// Folds `ship_from` and `ship_to` (←), checking the screen shows them folded.
fn fold_addresses(deck: &mut Deck) {
    for address in ["ship_from", "ship_to"] {
        deck.focus_field(address);
        deck.press(KeyCode::Left);
        assert!(field(&deck.text(), address).contains("▸ {6 fields}"), "{address} folded:\n{}", deck.text());
    }
}

#[test]
fn start_screen_shows_grouped_list_first_tool_and_hints() {
    let deck = Deck::samples();
    let screen = deck.snapshot("01_start_screen");
    // The list: its title counts the tools, group headers are the sample files, the first tool is selected.
    assert!(screen.contains("tools (35)"), "{screen}");
    assert!(screen.contains("│genaiscript/sum.json5"), "{screen}");
    assert!(screen.contains("│jsonschema/search_products.json"), "{screen}");
    assert!(screen.contains("│› Customer letter"), "{screen}");
    // The header: title, then id · format · source, then the description.
    assert!(screen.contains("┌ Customer letter ─"), "{screen}");
    assert!(screen.contains("Drafts a letter to a customer"), "{screen}");
    assert!(screen.contains("customer-letter · genaiscript · sample-tools/genaiscript/customer-letter"), "{screen}");
    // The form, with required markers and defaults.
    assert!(screen.contains("customer*"), "{screen}");
    // An optional field's default shows, dimmed; it is not sent.
    assert!(field(&screen, "tone").contains("default friendly"), "{screen}");
    // The status bar: the list's key hints and the validation summary.
    let status = screen.lines().last().expect("status line");
    assert!(status.contains("↑↓ tools  Enter form  ? help  / filter"), "{status}");
    assert!(status.contains(" 2 errors "), "{status}");
}

#[test]
fn fuzzy_filter_narrows_the_list() {
    let mut deck = Deck::samples();
    deck.press(KeyCode::Char('/'));
    deck.type_text("showmap");
    let screen = deck.snapshot("02_filter_showmap");
    assert!(screen.contains("│/showmap "), "{screen}");
    assert!(screen.contains("tools 1/35"), "{screen}");
    assert!(screen.contains("│› Show Map at Address and Zoom"), "{screen}");
    assert!(!screen.contains("search_products"), "other tools are filtered out:\n{screen}");
    assert!(screen.lines().last().is_some_and(|l| l.contains("type filter")), "{screen}");
}

#[test]
fn gloodata_tile_follows_the_arguments() {
    let mut deck = Deck::samples();
    deck.open_tool("showmap");
    deck.focus_field("address");
    deck.fill("Cairo");
    deck.press(KeyCode::Down);
    deck.fill("12");
    let screen = deck.snapshot("03_gloodata_tile");
    assert!(screen.contains("▶ Show Map Of \"Cairo\" At Zoom Level 12"), "{screen}");
    assert!(field(&screen, "address").contains("\"Cairo\""), "{screen}");
    assert!(cursor_on(&screen, "zoom"), "{screen}");
    assert!(screen.lines().last().is_some_and(|l| l.ends_with(" ready \"")), "{screen}");
}

#[test]
fn inline_errors_under_their_fields_and_the_count() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    deck.focus_field("limit");
    deck.fill("12.5");
    let screen = deck.snapshot("04_inline_errors");
    let lines: Vec<&str> = screen.lines().collect();
    let query = field_row(&screen, "query");
    assert!(lines[query + 1].contains("✗ required"), "the required error sits under query:\n{screen}");
    let limit = field_row(&screen, "limit");
    assert!(lines[limit].contains("12.5"), "{screen}");
    assert!(lines[limit + 1].contains("✗ 12.5 is not an integer"), "the parse error sits under limit:\n{screen}");
    assert!(screen.contains("arguments · 2 errors"), "{screen}");
    assert!(lines.last().is_some_and(|l| l.ends_with(" 2 errors \"")), "{screen}");
}

#[test]
fn enum_picker_lists_the_values() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    deck.focus_field("category");
    deck.press(KeyCode::Enter);
    let screen = deck.snapshot("05_enum_picker");
    assert!(screen.contains("category: pick a value"), "{screen}");
    for value in ["› electronics", "  clothing", "  home", "  sports"] {
        assert!(screen.contains(value), "{value} in the picker:\n{screen}");
    }
    assert!(screen.lines().last().is_some_and(|l| l.contains("↑↓ choose  Enter pick  Esc cancel")), "{screen}");
    // Picking a value shows it on the field's line.
    deck.press(KeyCode::Down);
    deck.press(KeyCode::Enter);
    assert!(field(&deck.text(), "category").contains("‹clothing› ▾"));
}

#[test]
fn nested_object_and_array_items() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    // An unset optional object starts folded: → unfolds it.
    deck.focus_field("priceRange");
    assert!(field(&deck.text(), "priceRange").contains("▸ {2 fields} (unset)"));
    deck.press(KeyCode::Right);
    deck.focus_field("min");
    deck.fill("10");
    deck.focus_field("tags");
    // Ins on the array adds an item (a letter there only says so), and on an item the next one.
    deck.press(KeyCode::Char('a'));
    assert!(deck.text().contains("tags takes no text; Ins adds an item"), "{}", deck.text());
    deck.press(KeyCode::Insert);
    deck.fill("red");
    deck.press(KeyCode::Insert);
    deck.fill("blue");
    let screen = deck.snapshot("06_nested_object_and_array");
    let price = field(&screen, "priceRange");
    assert!(price.contains("▾ {2 fields}"), "{price}");
    let min = field(&screen, "min");
    assert!(min.contains("│   min") && min.contains("10"), "min is indented under priceRange: {min}");
    assert!(field(&screen, "tags").contains("▾ [2 items] · Ins: add"), "{screen}");
    let first = field(&screen, "[0]");
    let (second, cursor) = field_line(&screen, "[1]").expect("second item");
    assert!(first.contains("\"red\""), "{first}");
    assert!(second.contains("\"blue\""), "{second}");
    assert!(cursor, "the cursor is on the item just added: {second}");
}

#[test]
fn json_view_beside_the_form_and_its_errors() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    deck.focus_field("query");
    deck.fill("laptop");
    deck.ctrl('j');
    let screen = deck.snapshot("07a_json_view");
    assert!(screen.contains("JSON · editing (Esc: back to form)"), "{screen}");
    assert!(screen.contains("\"query\": \"laptop\""), "{screen}");
    assert!(screen.contains(" query* ") && screen.contains("\"laptop\""), "the form stays beside the JSON:\n{screen}");

    // The cursor is after the closing brace: typing there breaks the JSON.
    deck.type_text("x");
    let screen = deck.snapshot("07b_json_view_invalid");
    assert!(screen.contains("✗ trailing characters at line 3 column 2"), "{screen}");
    assert!(screen.contains("}x"), "{screen}");
    let query = field(&screen, "query");
    assert!(query.contains("\"laptop\""), "the form keeps its value: {query}");
    // The summary speaks for the text being edited: it does not parse.
    assert!(screen.lines().last().is_some_and(|l| l.contains(" JSON invalid ")), "{screen}");

    // Undo that, then a valid edit inside the string flows to the form.
    deck.press(KeyCode::Backspace);
    deck.press(KeyCode::Up);
    deck.press(KeyCode::End);
    deck.press(KeyCode::Left);
    deck.type_text("s");
    deck.press(KeyCode::Esc);
    let screen = deck.snapshot("07c_json_view_edit_applied");
    assert!(!screen.contains('✗'), "{screen}");
    assert!(screen.contains("\"query\": \"laptops\""), "{screen}");
    assert!(field(&screen, "query").contains("\"laptops\""), "{screen}");
    assert!(screen.contains("┌ JSON ─"), "Esc goes back to the form and leaves the JSON view open:\n{screen}");
}

#[test]
fn textarea_holds_several_lines() {
    let mut deck = Deck::samples();
    deck.open_tool("customer-letter");
    deck.focus_field("notes");
    deck.press(KeyCode::Enter);
    deck.type_text("Order 1042 arrived late.");
    deck.press(KeyCode::Enter);
    deck.type_text("Offer 10% off the next one.");
    // A paste keeps its newlines in a text area.
    deck.send(Msg::Input(InputMsg::Paste("\nSign as Ana.".into())));
    let screen = deck.snapshot("08_textarea_editing");
    let lines: Vec<&str> = screen.lines().collect();
    let notes = field_row(&screen, "notes");
    assert!(lines[notes].contains("¶ text below"), "{screen}");
    assert!(lines[notes + 1].contains("│ Order 1042 arrived late."), "{screen}");
    assert!(lines[notes + 2].contains("│ Offer 10% off the next one."), "{screen}");
    assert!(lines[notes + 3].contains("│ Sign as Ana."), "{screen}");
    assert_eq!(field_row(&screen, "model"), notes + 4, "the next field follows the text:\n{screen}");
    let status = lines.last().expect("status line");
    assert!(status.contains("Tab next") && !status.contains("Enter edit"), "still editing after Enter: {status}");
}

#[test]
fn help_popup_lists_the_keys() {
    let mut deck = Deck::samples();
    deck.press(KeyCode::Char('?'));
    let screen = deck.snapshot("09_help");
    assert!(screen.contains("┌ keys ─"), "{screen}");
    for hint in ["filter tools (fuzzy)", "arguments as editable JSON beside the form"] {
        assert!(screen.contains(hint), "{hint}:\n{screen}");
    }
    // Taller than the screen, the help scrolls, and its status line says how it closes.
    assert!(screen.contains("any key closes this") || screen.contains("any other key close"), "{screen}");
    deck.press(KeyCode::Char('x'));
    assert!(!deck.text().contains("┌ keys ─"), "any key closes the help");
}

/// Keys from the config file: the help and the hints name them, and they do what they say.
#[test]
fn help_and_hints_follow_the_users_keys() {
    let config =
        tooldeck::config::parse("[keys]\nrun = \"f9\"\nquit = [\"ctrl-q\"]\nfilter = [\"F\", \"/\"]\n", "c.toml")
            .expect("a valid config");
    let loaded = load_samples(&LoadOptions::default());
    let app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40))
        .with_keymap(tooldeck::app::Keymap::from_config(&config).expect("a good [keys]"));
    let mut deck = Deck { app, size: (120, 40) };
    let screen = deck.text();
    let status = screen.lines().last().expect("status line");
    assert!(status.contains("F filter  F9 run  Ctrl-Q quit"), "{status}");
    deck.press(KeyCode::Char('?'));
    let screen = deck.snapshot("09b_help_with_the_users_keys");
    let run = screen.lines().find(|l| l.contains("run (again: send invalid input anyway)")).unwrap_or_default();
    assert!(run.contains("│F9  "), "{screen}");
    // The every-pane keys are further down the (scrolling) help.
    for _ in 0..3 {
        deck.press(KeyCode::PageDown);
    }
    let scrolled = deck.text();
    assert!(scrolled.contains("run the form; an edit is kept"), "Run from every pane follows too:\n{scrolled}");
    assert!(!scrolled.contains("Ctrl-R"), "{scrolled}");
    assert!(!screen.contains("Ctrl-R"), "{screen}");
    deck.press(KeyCode::Esc);
    deck.press(KeyCode::Char('F'));
    assert!(deck.app.list.filtering(), "F filters");
}

#[test]
fn run_with_valid_arguments_shows_the_request() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    deck.focus_field("query");
    deck.fill("laptop");
    let (id, request) = deck.run().expect("valid arguments are sent");
    assert_eq!(request.arguments, serde_json::json!({"query": "laptop"}));
    let screen = deck.snapshot("10a_run_running");
    assert!(screen.contains("running 0.0 s"), "{screen}");
    deck.send(Msg::Call(CallMsg::Tick { elapsed_ms: 1200 }));
    assert!(deck.text().contains("running 1.2 s"));
    let body = format!(
        r#"{{"result": {{"call_id": "{}", "success": true, "value": {{"items": ["laptop stand"]}}}}}}"#,
        request.call_id
    );
    deck.answer(id, &request, 200, &body);
    let screen = deck.snapshot("10b_run_value");
    assert!(screen.contains("● value"), "{screen}");
    assert!(screen.contains("\"laptop stand\""), "{screen}");
    // A late answer to a call no longer current changes nothing.
    deck.answer(id, &request, 500, "<html>late</html>");
    assert!(deck.text().contains("● value"));
}

#[test]
fn a_value_folds_in_the_result_pane() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    deck.focus_field("query");
    deck.fill("laptop");
    let (id, request) = deck.run().expect("valid arguments are sent");
    let body = format!(
        r#"{{"result": {{"call_id": "{}", "success": true, "value": {{"items": ["a", "b", "c"], "total": 3}}}}}}"#,
        request.call_id
    );
    deck.answer(id, &request, 200, &body);
    deck.ctrl('o');
    deck.press(KeyCode::Down);
    deck.press(KeyCode::Left);
    let screen = deck.snapshot("10f_value_folded");
    assert!(screen.contains("\"items\": [ … ],  3 lines folded"), "{screen}");
    assert!(!screen.contains("\"b\""), "the folded items are hidden:\n{screen}");
    assert!(screen.contains("\"total\": 3"), "{screen}");
    assert!(screen.contains("fold all/none"), "the hints say how to fold:\n{screen}");
    deck.press(KeyCode::Enter);
    assert!(deck.text().contains("\"b\""), "Enter unfolds");
}

#[test]
fn run_with_invalid_arguments_refuses_once_then_sends_anyway() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    assert!(deck.run().is_none(), "invalid input is not sent on the first press");
    let screen = deck.snapshot("10c_run_invalid_refused");
    let status = screen.lines().last().expect("status line");
    assert!(status.contains("1 error: not sent. Press Ctrl-R again to send it anyway"), "{status}");

    let (id, request) = deck.run().expect("the second press sends anyway");
    assert_eq!(request.arguments, serde_json::json!({}));
    deck.answer(id, &request, 422, r#"{"message": "invalid input", "parameter_errors": {"query": "required"}}"#);
    let screen = deck.snapshot("10d_run_server_rejects");
    assert!(screen.contains("✗ error"), "{screen}");
    assert!(screen.contains("query: required"), "{screen}");
    // The server's rejection also shows at the field it names.
    assert!(field_line(&screen, "query").is_some() && screen.contains("✗ server: required"), "{screen}");
    assert!(!screen.contains("not sent"), "{screen}");
}

#[test]
fn authorization_prompt_then_token_runs_again() {
    let mut deck = Deck::samples();
    deck.open_tool("Gmail_ListEmails");
    deck.focus_field("query");
    deck.fill("invoices");
    let (id, request) = deck.run().expect("sent");
    let body = format!(
        r#"{{"invocation_id": "{}", "finished_at": "2025-01-01T00:00:00Z", "success": false, "output": {{"requires_authorization": {{"message": "Sign in to Google", "oauth2": {{"url": "http://127.0.0.1:1/oauth/authorize", "scope": "gmail.readonly"}}}}}}}}"#,
        request.call_id
    );
    deck.answer(id, &request, 200, &body);
    let screen = deck.snapshot("10e_run_needs_authorization");
    assert!(screen.contains("requires_authorization"), "{screen}");
    assert!(screen.contains("http://127.0.0.1:1/oauth/authorize"), "{screen}");
    // The cursor is on a text field, where t types: from the list, t gives the token.
    deck.press(KeyCode::Esc);
    deck.press(KeyCode::Char('t'));
    deck.type_text("s3cret");
    let screen = deck.text();
    assert!(screen.contains("token for google"), "{screen}");
    assert!(screen.contains("••••••") && !screen.contains("s3cret"), "the token is masked: {screen}");
    let effects = deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    let retried = effects.iter().find_map(|e| match e {
        Effect::Server(ServerEffect::Invoke { request, .. }) => Some(request.clone()),
        _ => None,
    });
    let retried = retried.expect("the token runs the call again");
    assert_eq!(retried.tokens, vec![("google".to_string(), "s3cret".to_string())]);
}

/// An MCP server over HTTP that wants a token: the app opens asking for it, gives it to the
/// server, and the server's tools join the (empty) catalog.
#[test]
fn a_server_wanting_a_token_asks_for_it_at_start() {
    let mut deck = Deck::with_catalog(Catalog::default(), &[]);
    deck.send(Msg::Server(ServerMsg::WantsToken {
        url: "http://127.0.0.1:9/mcp".into(),
        challenge: Some("Bearer scope=\"tools:call\"".into()),
    }));
    let screen = deck.snapshot("10g_server_wants_a_token");
    assert!(screen.contains("token for mcp"), "{screen}");
    assert!(screen.contains("wants authorization (HTTP 401"), "{screen}");
    deck.type_text("s3cret");
    assert!(!deck.text().contains("s3cret"), "masked");
    let effects = deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    assert!(
        effects.contains(&Effect::Server(ServerEffect::Authorize { provider: "mcp".into(), token: "s3cret".into() })),
        "the token goes to the server: {effects:?}"
    );
    let tools =
        r#"{"tools": [{"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}}}]}"#;
    let tools = tooldeck::invoke::endpoint::server_tools("http://127.0.0.1:9/mcp", tools);
    deck.send(Msg::Server(ServerMsg::Tools { label: "http://127.0.0.1:9/mcp".into(), result: Ok(tools) }));
    let screen = deck.text();
    assert!(screen.contains("› add"), "the server's tool is listed and selected:\n{screen}");
    assert!(screen.contains("1 tool from http://127.0.0.1:9/mcp"), "{screen}");
    // Calls now carry the token, which the endpoint turns into the bearer header.
    deck.press(KeyCode::Enter);
    let (_, request) = deck.run().expect("sent");
    assert_eq!(request.tokens, vec![("mcp".to_string(), "s3cret".to_string())]);
}

/// `S` saves the call on screen as a test case: the file is asked for once, `expect` comes from
/// the outcome; from the history pane, `S` saves a past call and `r` runs it again.
#[test]
fn a_result_is_saved_as_a_test_case() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    deck.focus_field("query");
    deck.fill("laptop");
    let (id, request) = deck.run().expect("sent");
    let body = format!(
        r#"{{"result": {{"call_id": "{}", "success": true, "value": {{"items": ["laptop stand"]}}}}}}"#,
        request.call_id
    );
    deck.answer(id, &request, 200, &body);
    deck.ctrl('o');
    assert!(deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('S'), KeyModifiers::SHIFT)))).is_empty());
    let screen = deck.snapshot("10h_case_file_prompt");
    assert!(screen.contains("append test cases to"), "{screen}");
    assert!(screen.contains("tooldeck-cases.yaml"), "the default file:\n{screen}");
    let effects = deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    let [Effect::Server(ServerEffect::SaveCase { path, case })] = effects.as_slice() else {
        panic!("one case to save: {effects:?}")
    };
    assert_eq!(path, "tooldeck-cases.yaml");
    assert_eq!(case["tool"], "search_products");
    assert_eq!(case["args"], serde_json::json!({"query": "laptop"}));
    assert_eq!(case["expect"], serde_json::json!({"status": "value", "value": {"items": ["laptop stand"]}}));
    assert!(case.get("validate").is_none(), "valid arguments need no validate: false");
    deck.send(Msg::Save(SaveMsg::CaseSaved(Ok(path.clone()))));
    assert!(deck.text().contains("case saved to tooldeck-cases.yaml"));
    // The same call again is not saved twice.
    assert!(deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('S'), KeyModifiers::SHIFT)))).is_empty());
    assert!(deck.text().contains("already saved"), "{}", deck.text());
    // Another call goes straight to the same file.
    deck.press(KeyCode::Esc);
    deck.focus_field("query");
    deck.fill("desk");
    let (id, request) = deck.run().expect("sent");
    let body = format!(r#"{{"result": {{"call_id": "{}", "success": true, "value": []}}}}"#, request.call_id);
    deck.answer(id, &request, 200, &body);
    // On a text field a letter types: back to the list, where S is a command.
    deck.press(KeyCode::Esc);
    let effects = deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('S'), KeyModifiers::SHIFT))));
    assert!(
        matches!(effects.as_slice(), [Effect::Server(ServerEffect::SaveCase { path, .. })] if path == "tooldeck-cases.yaml"),
        "{effects:?}"
    );

    // From the history pane (the runtime records each call; here, by hand).
    deck.app.recorder.record(tooldeck::history::PastCall {
        at: "2026-11-22T10:00:00Z".into(),
        tool: "search_products".into(),
        arguments: serde_json::json!({}),
        endpoint: "demo".into(),
        outcome: "error".into(),
        duration_ms: 3,
        call_id: "c".into(),
        http_status: Some(200),
    });
    deck.press(KeyCode::Esc);
    deck.press(KeyCode::Char('H'));
    let effects = deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('S'), KeyModifiers::SHIFT))));
    let [Effect::Server(ServerEffect::SaveCase { case, .. })] = effects.as_slice() else {
        panic!("one case to save: {effects:?}")
    };
    assert_eq!(case["expect"], serde_json::json!({"status": "error"}));
    assert_eq!(case["validate"], false, "the past call's arguments were invalid (query is required)");
    deck.press(KeyCode::Char('H'));
    let effects = deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE))));
    let rerun = effects.iter().find_map(|e| match e {
        Effect::Server(ServerEffect::Invoke { request, .. }) => Some(request.clone()),
        _ => None,
    });
    assert_eq!(rerun.expect("r runs the past call again").arguments, serde_json::json!({}));
}

#[test]
fn map_entry_added_through_the_key_prompt() {
    let mut deck = Deck::samples();
    // Tall enough for the whole form: no scrolling, no folding (see the ignored tests below).
    deck.resize(120, 60);
    deck.open_tool("create_shipment");
    deck.focus_field("metadata");
    deck.press(KeyCode::Insert);
    deck.type_text("order_id");
    let screen = deck.snapshot("11a_map_key_prompt");
    assert!(screen.contains("key of the new entry (Enter: add, Esc: cancel)"), "{screen}");
    assert!(screen.contains("│order_id "), "{screen}");

    deck.press(KeyCode::Enter);
    deck.fill("A-1042");
    let screen = deck.snapshot("11b_map_entry");
    assert!(field(&screen, "metadata").contains("{1 field}"), "{screen}");
    let (entry, cursor) = field_line(&screen, "order_id").expect("the new entry");
    assert!(entry.contains("\"A-1042\""), "{entry}");
    assert!(cursor, "the cursor is on the new entry: {entry}");
}

#[test]
fn variant_picker_for_one_of() {
    let mut deck = Deck::samples();
    deck.open_tool("schedule_reminder");
    deck.focus_field("when");
    let before = deck.text();
    deck.press(KeyCode::Enter);
    let screen = deck.snapshot("12a_variant_picker");
    assert!(screen.contains("when: pick a variant"), "{screen}");
    assert!(field(&before, "when").contains("◆ string ▾"), "{before}");

    // The second variant is the object with `in_minutes`.
    deck.press(KeyCode::Down);
    deck.press(KeyCode::Enter);
    let screen = deck.snapshot("12b_variant_object_picked");
    assert!(screen.contains("in_minutes*"), "{screen}");
}

#[test]
fn nullable_string_is_a_variant_pair() {
    let mut deck = Deck::samples();
    deck.resize(120, 60);
    deck.open_tool("create_shipment");
    deck.focus_field("reference");
    deck.press(KeyCode::Enter);
    let screen = deck.snapshot("12c_nullable_picker");
    assert!(screen.contains("reference: pick a variant"), "{screen}");
    assert!(screen.contains("│› string ") && screen.contains("│  null "), "{screen}");

    // Picking null sends null.
    deck.press(KeyCode::Down);
    deck.press(KeyCode::Enter);
    deck.ctrl('j');
    let screen = deck.text();
    assert!(field(&screen, "reference").contains("◆ null ▾"), "{screen}");
    assert!(screen.contains("\"reference\": null"), "{screen}");
}

#[test]
fn a_too_small_terminal_takes_no_keys_but_quit() {
    // The person was typing into a field when the terminal shrank.
    let mut deck = Deck::samples();
    deck.open_tool("weather");
    deck.press(KeyCode::Enter);
    deck.type_text("Cai");
    deck.resize(40, 10);
    let screen = deck.text();
    assert!(screen.contains("q quits · the rest waits for it to grow"), "{screen}");

    // Letters, a paste, Esc and a command wait: nothing changes out of sight.
    deck.type_text("ro x");
    deck.send(Msg::Input(InputMsg::Paste("pasted".into())));
    deck.press(KeyCode::Esc);
    assert!(deck.run().is_none(), "Ctrl-R ran a call on a screen too small to show it");
    deck.resize(120, 40);
    let screen = deck.text();
    assert!(field(&screen, "city").contains("Cai") && !screen.contains("Cairo"), "{screen}");
    assert!(!screen.contains("pasted"), "{screen}");

    // q quits, whatever had the keys (here a field being typed in).
    deck.resize(40, 10);
    let effects = deck.send(Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE))));
    assert!(effects.iter().any(|e| matches!(e, Effect::Quit)), "{effects:?}");
}

#[test]
fn too_small_terminal_and_recovery() {
    let mut deck = Deck::samples();
    deck.resize(50, 15);
    let screen = deck.snapshot("13a_too_small");
    assert!(screen.contains("terminal too small") && screen.contains("50x15, needs 60x20"), "{screen}");
    assert!(!screen.contains("tools ("), "{screen}");

    deck.resize(120, 40);
    let screen = deck.snapshot("13b_recovered");
    assert!(!screen.contains("too small"), "{screen}");
    assert!(screen.contains("tools (35)") && screen.contains("│› Customer letter"), "{screen}");
}

#[test]
fn minimum_size_shows_list_and_form() {
    let mut deck = Deck::samples();
    deck.resize(60, 20);
    deck.open_tool("search_products");
    let screen = deck.snapshot("14_minimum_60x20");
    assert_eq!(screen.lines().count(), 20);
    assert!(screen.contains("│› search_products"), "the list shows:\n{screen}");
    assert!(screen.contains("┌ search_products ─"), "the header shows:\n{screen}");
    assert!(screen.contains("query*"), "the form shows:\n{screen}");
    assert!(screen.lines().last().is_some_and(|l| l.ends_with(" 1 error \"")), "{screen}");
}

#[test]
fn no_color_and_light_theme() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    let coloured = deck.text();

    let plain = theme::load(None, true).expect("default theme without colours");
    let terminal = deck.draw(&plain);
    assert_eq!(terminal.backend().to_string(), coloured, "NO_COLOR changes colours, not text");
    for cell in terminal.backend().buffer().content() {
        assert_eq!(cell.fg, Color::Reset, "a foreground colour under NO_COLOR at {cell:?}");
        assert_eq!(cell.bg, Color::Reset, "a background colour under NO_COLOR at {cell:?}");
    }

    let light = theme::load(Some("light"), false).expect("the light theme loads");
    assert_ne!(light, Styles::default());
    assert_eq!(deck.draw(&light).backend().to_string(), coloured);
    let light_plain = theme::load(Some("light"), true).expect("the light theme without colours");
    assert!(light_plain.no_color);
    let terminal = deck.draw(&light_plain);
    assert!(terminal.backend().buffer().content().iter().all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
}

#[test]
fn mouse_click_selects_and_wheel_moves() {
    let mut deck = Deck::samples();
    let screen = deck.text();
    let row = row_of(&screen, "│  search_products");
    deck.mouse(MouseEventKind::Down(MouseButton::Left), 5, row);
    let screen = deck.snapshot("16a_mouse_click_selects");
    assert!(screen.contains("│› search_products"), "{screen}");
    assert!(screen.contains("search_products · "), "the header follows the click:\n{screen}");

    deck.mouse(MouseEventKind::ScrollDown, 5, 10);
    let screen = deck.snapshot("16b_mouse_wheel_moves");
    assert!(screen.contains("│› extract_invoice"), "{screen}");
    assert!(screen.contains("│  search_products"), "{screen}");

    // A click on a field of the form focuses it.
    let row = u16::try_from(field_row(&screen, "currency")).expect("row fits");
    deck.mouse(MouseEventKind::Down(MouseButton::Left), 60, row);
    let screen = deck.text();
    assert!(cursor_on(&screen, "currency"), "{screen}");
    assert!(screen.lines().last().is_some_and(|l| l.contains("Enter edit")), "the form has the focus:\n{screen}");
}

#[test]
fn control_characters_from_a_definition_are_made_visible() {
    let (tools, diagnostics) = load_text(
        "evil.json",
        r#"{"name":"evil","description":"\u001b[2Jboom\u0007","parameters":{"type":"object","properties":{}}}"#,
        &LoadOptions::default(),
    );
    let mut catalog = Catalog::default();
    for tool in tools {
        assert_eq!(catalog.add(tool), None);
    }
    let deck = Deck::with_catalog(catalog, &diagnostics);
    let screen = deck.snapshot("17_control_characters");
    assert!(screen.contains("␛[2Jboom␇"), "{screen}");
    assert!(!screen.contains('\u{1b}') && !screen.contains('\u{7}'), "{screen:?}");
}

// App bugs found while reviewing the snapshots. Each test asserts the correct behaviour and is
// ignored until the app is fixed; the report that came with these tests describes them.

#[test]
fn focused_row_stays_visible_in_a_long_form() {
    let mut deck = Deck::samples();
    deck.open_tool("create_shipment");
    deck.press(KeyCode::End);
    let screen = deck.text();
    assert!(cursor_on(&screen, "dry_run"), "End goes to the last field, which must show:\n{screen}");
    deck.press(KeyCode::Up);
    let screen = deck.text();
    assert!(cursor_on(&screen, "saturday_delivery"), "{screen}");
}

#[test]
fn variant_inner_field_is_not_labelled_arguments() {
    let mut deck = Deck::samples();
    deck.open_tool("schedule_reminder");
    let screen = deck.text();
    assert!(field_line(&screen, "arguments").is_none(), "{screen}");
}

#[test]
fn each_error_shows_once() {
    let mut deck = Deck::samples();
    deck.open_tool("schedule_reminder");
    let screen = deck.text();
    assert!(screen.contains("arguments · 2 errors"), "{screen}");
    assert_eq!(screen.matches('✗').count(), 2, "{screen}");
}

#[test]
fn error_count_does_not_depend_on_folding() {
    let mut deck = Deck::samples();
    deck.open_tool("create_shipment");
    assert!(deck.text().contains("arguments · 11 errors"), "{}", deck.text());
    fold_addresses(&mut deck);
    deck.focus_field("dry_run");
    deck.press(KeyCode::Enter);
    let screen = deck.text();
    assert!(field(&screen, "dry_run").contains("[x] true"), "{screen}");
    assert!(screen.contains("arguments · 11 errors"), "{screen}");
}

#[test]
fn status_hints_fit_the_popup() {
    let mut deck = Deck::samples();
    deck.press(KeyCode::Char('?'));
    let screen = deck.text();
    let status = screen.lines().last().expect("status line");
    assert!(!status.contains("↑↓ choose"), "the help popup has nothing to choose: {status}");
    deck.press(KeyCode::Esc);
    deck.open_tool("search_products");
    deck.press(KeyCode::Char('t'));
    let screen = deck.text();
    let status = screen.lines().last().expect("status line");
    assert!(!status.contains("↑↓ choose"), "no popup, nothing to choose: {status}");
}

#[test]
fn editing_hints_fit_the_field() {
    let mut deck = Deck::samples();
    deck.open_tool("search_products");
    deck.press(KeyCode::Enter);
    let screen = deck.text();
    let status = screen.lines().last().expect("status line");
    assert!(status.contains("Esc/Enter done"), "{status}");
    assert!(!status.contains("suggestions"), "query has no suggestions: {status}");

    let mut deck = Deck::samples();
    deck.open_tool("customer-letter");
    deck.focus_field("notes");
    deck.press(KeyCode::Enter);
    let screen = deck.text();
    let status = screen.lines().last().expect("status line");
    assert!(!status.contains("Esc/Enter done"), "Enter inserts a newline in a text area: {status}");
}

/// The first frame comes before the files are read: the list says it is reading them.
#[test]
fn the_first_frame_while_the_files_load() {
    let mut deck = Deck::with_catalog(tooldeck::catalog::Catalog::default(), &[]);
    deck.app = App::new(tooldeck::catalog::Catalog::default(), &[], (120, 40)).loading();
    let screen = deck.snapshot("31_loading");
    assert!(screen.contains("tools (0) · loading…") && screen.contains("reading the definition files…"), "{screen}");
}

/// A deck whose catalog is these MCP tools (a server's `tools/list` result).
fn mcp_deck(tools: serde_json::Value) -> Deck {
    let text = serde_json::json!({ "tools": tools }).to_string();
    let (tools, diagnostics) = load_text("mcp:test", &text, &LoadOptions::default());
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    Deck::with_catalog(catalog, &diagnostics)
}

/// A 4×4 PNG: red above, blue below.
fn tiny_png() -> String {
    use base64::Engine as _;
    let png = tooldeck::invoke::mock::png::encode_rgb(4, 4, |_, y| if y < 2 { [255, 0, 0] } else { [0, 0, 255] });
    base64::engine::general_purpose::STANDARD.encode(png)
}

/// An MCP result of every content kind: listed in order with their annotations, the image
/// drawn, the link to be read, the embedded text shown, the block tooldeck cannot read said so,
/// the structured content checked against the output schema.
#[test]
fn mcp_content_items_in_the_result_pane() {
    let mut deck = mcp_deck(serde_json::json!([{
        "name": "everything", "title": "Every kind", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "required": ["n"]},
    }]));
    deck.resize(120, 68);
    let (id, request) = deck.run().expect("sent");
    let png = tiny_png();
    let result = serde_json::json!({"content": [
        {"type": "text", "text": "Here is what you asked for:\nfive kinds of content", "annotations": {"audience": ["user"], "priority": 0.9}},
        {"type": "image", "data": png, "mimeType": "image/png", "annotations": {"audience": ["assistant"]}},
        {"type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///project/notes.md", "name": "notes.md", "description": "The meeting notes",
            "mimeType": "text/markdown", "size": 2048},
        {"type": "resource", "resource": {"uri": "file:///project/todo.txt", "mimeType": "text/plain", "text": "buy milk\ncall Ada"}},
        {"type": "video", "url": "https://example.com/v.mp4"},
    ], "structuredContent": {"n": 5}});
    let outcome = tooldeck::invoke::envelope::read_mcp_result(&result, &request.call_id);
    let answer =
        Answer::new(outcome, Exchange::default(), deck.app.catalog.get("everything").unwrap().output_schema.as_ref());
    let effects = deck.send(Msg::Call(CallMsg::Done { id, result: Ok(Box::new(answer)) }));
    // The image is selected and decoded off the UI thread; the decoded picture comes back.
    let Some(Effect::Work(WorkEffect::DecodeInline { run, item, data, content_type })) =
        effects.into_iter().find(|e| matches!(e, Effect::Work(WorkEffect::DecodeInline { .. })))
    else {
        panic!("the image is decoded")
    };
    let decoded = tooldeck::invoke::artifact::decode_inline(&data, content_type).expect("a PNG");
    deck.send(Msg::Content(ContentMsg::ItemDecoded { run, item, result: Ok(Box::new(decoded)) }));
    deck.ctrl('o');
    let screen = deck.snapshot("32a_mcp_content_items");
    for expected in [
        "content · 6 items · ] [ choose",
        "1 text · 2 lines · for user · priority 0.9",
        "    five kinds of content",
        "› 2 image · image/png · 120 B · for assistant",
        "▀▀▀▀",
        "PNG image, 4×4 pixels",
        "3 audio · audio/wav · 12 B",
        "4 resource_link · notes.md · text/markdown · 2.0 KiB",
        "f reads it from the server (resources/read)",
        "5 resource · file:///project/todo.txt · text/plain · 17 B",
        "    call Ada",
        "6 unreadable · type \"video\"",
        "✗ cannot be read: \"video\" is not an MCP content type",
        "✓ matches the tool's output schema",
    ] {
        assert!(screen.contains(expected), "{expected:?} missing:\n{screen}");
    }
}

/// The detail pane says what a tool says of itself, quietly where only the spec's default
/// speaks; a tool marked destructive asks before its first run.
#[test]
fn detail_pane_hints_and_the_destructive_prompt() {
    let mut deck = mcp_deck(serde_json::json!([
        {"name": "wipe", "title": "Wipe the disk", "description": "Deletes everything.", "inputSchema": {"type": "object"},
            "annotations": {"destructiveHint": true, "idempotentHint": true, "openWorldHint": false}},
        {"name": "look", "description": "Reads.", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "idempotentHint": true},
            "execution": {"taskSupport": "optional"}},
        {"name": "unsaid", "description": "Says nothing of itself.", "inputSchema": {"type": "object"}},
    ]));
    assert!(deck.run().is_none(), "not sent before y");
    let screen = deck.snapshot("33a_destructive_prompt");
    assert!(screen.contains("traits destructive · idempotent · closed world"), "{screen}");
    assert!(screen.contains("run a destructive tool?") && screen.contains("Wipe the disk (wipe)"), "{screen}");
    deck.press(KeyCode::Esc);
    deck.press(KeyCode::Down);
    let screen = deck.snapshot("33b_read_only_hints");
    assert!(screen.contains("traits read-only · output schema · tasks: optional"), "{screen}");
    deck.press(KeyCode::Down);
    assert!(deck.text().contains("traits may be destructive"), "the spec's default, said quietly");
}

/// The detail pane says what `tooldeck lint` says of the tool: the rules run off the UI thread
/// when its form opens (an effect), and their findings come back as a message.
#[test]
fn lint_findings_in_the_detail_pane() {
    let file = r#"{"name": "search_docs", "description": "Searches.", "parameters": {"type": "object",
        "properties": {"limit": {"type": "integer", "description": "Maximum results (default: 20)", "default": 50},
                       "query": {"type": "string", "description": "Words to look for"}},
        "required": ["query"]}}"#;
    let (tools, _) = load_text("search.json", file, &LoadOptions::default());
    let options = tooldeck::lint::Options::default();
    let app = App::new(Catalog::default(), &[], (120, 40)).with_background_checks().with_lint(options).loading();
    let mut deck = Deck { app, size: (120, 40) };
    let effects = deck.send(Msg::Load(LoadMsg::Catalog { tools, diagnostics: Vec::new() }));
    let (tool, options) = effects
        .into_iter()
        .find_map(|e| match e {
            Effect::Work(WorkEffect::Lint { tool, options }) => Some((tool, options)),
            _ => None,
        })
        .expect("opening the form asks for the tool to be linted");
    assert!(!deck.text().contains("lint "), "nothing is shown before the findings arrive");
    let findings = tooldeck::lint::lint_tool(&tool, &options);
    let rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
    assert!(rules.contains(&"schema/description-default"), "{rules:?}");
    let count = findings.len();
    assert!(count >= 3, "several warnings: {rules:?}");
    deck.send(Msg::Load(LoadMsg::Linted { tool_id: tool.id.clone(), findings: findings.clone() }));
    for (width, height) in [(120, 40), (80, 24)] {
        deck.resize(width, height);
        let screen = deck.snapshot(&format!("lint_findings_in_the_detail_pane_{width}x{height}"));
        // One short line, never the findings themselves: the header stays for the tool.
        let said = format!("lint {count} warnings · N reads them");
        assert_eq!(screen.matches("lint ").count(), 1, "{screen}");
        assert!(screen.contains(&said), "{said} in {screen}");
        assert!(!screen.contains("tips/short-description"), "{screen}");
        assert!(screen.contains("Searches."), "the description keeps its room: {screen}");
        // N reads every finding whole, with its fix; Esc comes back to the form.
        deck.press(KeyCode::Char('N'));
        let popup = deck.snapshot(&format!("lint_notes_whole_{width}x{height}"));
        assert!(popup.contains(&format!("lint: search_docs · {count} warnings")), "{popup}");
        let mut seen = popup.clone();
        for _ in 0..40 {
            deck.press(KeyCode::Down);
            seen.push_str(&deck.text());
        }
        for finding in &findings {
            assert!(seen.contains(finding.rule), "{} in {seen}", finding.rule);
        }
        assert!(seen.contains("fix: "), "{seen}");
        deck.press(KeyCode::Esc);
        assert!(deck.app.prompts.popup().is_none());
        assert!(!deck.app.form_pane.editing(), "leaving the popup starts no edit");
    }
    // While typing in a field, Alt-n reads them too (the edit ends, what was typed stays).
    deck.focus_field("query");
    deck.press(KeyCode::Enter);
    deck.type_text("abc");
    deck.key(KeyCode::Char('n'), KeyModifiers::ALT);
    assert!(
        matches!(deck.app.prompts.popup(), Some(tooldeck::app::Popup::Text { .. })),
        "{:?}",
        deck.app.prompts.popup()
    );
    deck.press(KeyCode::Esc);
    assert!(deck.text().contains("\"abc\""), "{}", deck.text());
}

/// Without findings there is nothing to read: N says why instead of opening an empty box.
#[test]
fn lint_notes_key_says_why_there_is_nothing() {
    let file = r#"{"name": "fine", "description": "Looks a word up in the dictionary and returns its meanings.",
        "parameters": {"type": "object", "properties": {}}}"#;
    let (tools, _) = load_text("fine.json", file, &LoadOptions::default());
    let app = App::new(Catalog::default(), &[], (120, 40)).with_lint(tooldeck::lint::Options::default()).loading();
    let mut deck = Deck { app, size: (120, 40) };
    deck.send(Msg::Load(LoadMsg::Catalog { tools, diagnostics: Vec::new() }));
    deck.press(KeyCode::Char('N'));
    assert!(deck.app.prompts.popup().is_none());
    let status = deck.app.status().map(str::to_string).unwrap_or_default();
    assert!(status.contains("not read fine yet"), "{status}");
    let id = deck.app.selected_tool().map(|t| t.id.clone()).unwrap_or_default();
    deck.send(Msg::Load(LoadMsg::Linted { tool_id: id, findings: Vec::new() }));
    assert!(!deck.text().contains("reads them"), "nothing to count: {}", deck.text());
    deck.press(KeyCode::Char('N'));
    let status = deck.app.status().map(str::to_string).unwrap_or_default();
    assert!(status.contains("find nothing to say of fine"), "{status}");
}
