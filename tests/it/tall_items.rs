//! Reading a result's content items whole at 80x24: a tall item (a 3 kB error in one line) is
//! read row by row to its last line with the keyboard alone, and an image item's picture is
//! drawn in the pane, fitted, without zooming. Driven through `update`, drawn on a `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use tooldeck::app::{Answer, App, CallMsg, ContentMsg, Effect, InputMsg, Msg, ServerEffect, WorkEffect, update};
use tooldeck::catalog::{Catalog, LoadOptions, load_text};
use tooldeck::theme::Styles;

/// An app at `size` whose catalog is one MCP tool without parameters, selected.
fn app(size: (u16, u16)) -> App {
    let text = json!({"tools": [{"name": "tall", "inputSchema": {"type": "object"}}]}).to_string();
    let (tools, _) = load_text("server", &text, &LoadOptions { named_by_user: true, ..LoadOptions::default() });
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    App::new(catalog, &[], size)
}

fn press(app: &mut App, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, modifiers))))
}

/// Ctrl-R answered with this `tools/call` result; the effects of the answer, and the run's id.
fn answer(app: &mut App, result: Value) -> (u64, Vec<Effect>) {
    let effects = press(app, KeyCode::Char('r'), KeyModifiers::CONTROL);
    let (id, request) = effects
        .into_iter()
        .find_map(|e| match e {
            Effect::Server(ServerEffect::Invoke { id, request, .. }) => Some((id, request)),
            _ => None,
        })
        .expect("a call");
    let outcome = tooldeck::invoke::envelope::read_mcp_result(&result, &request.call_id);
    let answer = Answer::new(outcome, tooldeck::invoke::Exchange::default(), None);
    (id, update(app, Msg::Call(CallMsg::Done { id, result: Ok(Box::new(answer)) })))
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("test terminal");
    terminal.draw(|frame| tooldeck::ui::render(app, &Styles::default(), frame)).expect("draw");
    terminal.backend().to_string()
}

/// A snapshot of `screen`, its random call id masked.
fn snapshot(name: &str, screen: &str) {
    insta::with_settings!({ filters => vec![(r"call [0-9a-f]{8}…", "call ########…")] }, {
        insta::assert_snapshot!(name, screen);
    });
}

/// The words in the result pane's rows (right of the list), without borders.
fn words(screen: &str) -> Vec<String> {
    screen.lines().flat_map(|l| l.split('│')).flat_map(|s| s.split_whitespace()).map(str::to_string).collect()
}

/// `BEGIN w0 w1 … w659 END`: about 3 kB in one line.
fn long_error() -> String {
    let said: Vec<String> = (0..660).map(|i| format!("w{i}")).collect();
    let error = format!("BEGIN {} END", said.join(" "));
    assert!(error.len() > 2900, "{}", error.len());
    error
}

#[test]
fn a_3kb_error_reads_row_by_row_to_its_last_line_at_80x24() {
    let mut app = app((80, 24));
    let error = long_error();
    answer(
        &mut app,
        json!({"isError": true, "content": [{"type": "text", "text": error}, {"type": "text", "text": "after"}]}),
    );
    let first = screen(&app);
    assert!(first.contains("BEGIN w0 w1"), "{first}");
    assert!(!first.contains("END"), "taller than the pane: {first}");
    // Into the result pane; ↓ moves one row at a time through the item, never past its rows.
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL);
    let rows = tooldeck::app::result::content::document(&app).len();
    let mut seen: Vec<String> = words(&first);
    let mut downs = 0;
    while !screen(&app).contains("END") {
        let before = app.result.scroll();
        press(&mut app, KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(app.result.scroll(), before + 1, "one row per ↓");
        seen.extend(words(&screen(&app)));
        downs += 1;
        assert!(downs < rows, "END never showed after {downs} ↓: {}", screen(&app));
    }
    assert!(downs > 20, "the item is tall: {downs} rows scrolled");
    // Every word was on one screen or another: nothing was jumped over.
    for i in 0..660 {
        assert!(seen.contains(&format!("w{i}")), "w{i} never showed");
    }
    // The item after it follows; End stops at the last full page, ↓ there does nothing more.
    press(&mut app, KeyCode::End, KeyModifiers::NONE);
    let end = app.result.scroll();
    press(&mut app, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(app.result.scroll(), end);
    let last = screen(&app);
    assert!(last.contains("after"), "{last}");
    snapshot("tall_items_01_error_end_80x24", &last);
    // PgUp goes back a page (a row kept for context), Home to the top.
    press(&mut app, KeyCode::PageUp, KeyModifiers::NONE);
    // The rows below the pane's borders and status line, less the one kept.
    let page = usize::from(app.layout().result.expect("a result pane").height) - 3 - 1;
    assert_eq!(app.result.scroll(), end - page);
    press(&mut app, KeyCode::Home, KeyModifiers::NONE);
    assert_eq!(app.result.scroll(), 0);
    // The items stay selectable: `]` selects the second and scrolls to it.
    press(&mut app, KeyCode::Char(']'), KeyModifiers::NONE);
    assert_eq!(app.result.item(), 1);
    assert!(screen(&app).contains("› 2 text"), "{}", screen(&app));
}

/// A 20×20 picture: a red square on blue.
fn tiny_png() -> String {
    use base64::Engine;
    let png = tooldeck::invoke::mock::png::encode_rgb(20, 20, |x, y| {
        if (5..15).contains(&x) && (5..15).contains(&y) { [220, 30, 30] } else { [20, 40, 200] }
    });
    base64::engine::general_purpose::STANDARD.encode(png)
}

/// What `get-tiny-image` of server-everything answers: text, the image, text. The picture shows
/// in the pane at once, whole (fitted to the pane), below its item line, without zooming.
fn image_result_at(size: (u16, u16), name: &str) {
    let mut app = app(size);
    let result = json!({"content": [
        {"type": "text", "text": "Here's the image you requested:"},
        {"type": "image", "data": tiny_png(), "mimeType": "image/png"},
        {"type": "text", "text": "The image above is the MCP tiny image."},
    ]});
    let (run, effects) = answer(&mut app, result);
    let (data, content_type) = effects
        .into_iter()
        .find_map(|e| match e {
            Effect::Work(WorkEffect::DecodeInline { run: r, item: 1, data, content_type }) if r == run => {
                Some((data, content_type))
            }
            _ => None,
        })
        .expect("the image is decoded at once");
    let fetched = tooldeck::invoke::artifact::decode_inline(&data, content_type).expect("a PNG");
    update(&mut app, Msg::Content(ContentMsg::ItemDecoded { run, item: 1, result: Ok(Box::new(fetched)) }));
    let shown = screen(&app);
    let (columns, rows) = tooldeck::app::result::content::picture_fit(&app).expect("a picture");
    let picture_rows: Vec<&str> = shown.lines().filter(|l| l.contains('▀')).collect();
    assert_eq!(picture_rows.len(), rows, "every row of the picture is on screen: {shown}");
    assert!(picture_rows.iter().all(|l| l.matches('▀').count() == columns), "{shown}");
    assert!(rows >= 3, "big enough to make out: {rows} rows");
    assert!(shown.contains("› 2 image · image/png"), "{shown}");
    assert!(!shown.contains("{key:"), "the status names keys: {shown}");
    snapshot(name, &shown);
}

#[test]
fn an_image_result_is_seen_without_zooming_at_120x40() {
    image_result_at((120, 40), "tall_items_02_image_120x40");
}

#[test]
fn an_image_result_is_seen_without_zooming_at_80x24() {
    image_result_at((80, 24), "tall_items_03_image_80x24");
}
