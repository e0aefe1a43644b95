//! One keystroke in a 200-field form (edit + coerce + validate + render to a 120x40 TestBackend),
//! the first frame of the app on a 1,000-tool catalog (load + state + render), and a 50 MB
//! result in the value viewer (format, first frame, paging, folding).

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Map, Value, json};
use tooldeck::app::{App, CallMsg, InputMsg, Msg, ServerEffect, update};
use tooldeck::catalog::{LoadOptions, load_paths, load_text};
use tooldeck::theme::Styles;

/// A tool with 200 fields of every kind, some nested.
fn big_tool_definition() -> Value {
    let mut properties = Map::new();
    for i in 0..180 {
        let schema = match i % 9 {
            0 => json!({"type": "string", "minLength": 2, "maxLength": 40}),
            1 => json!({"type": "integer", "minimum": 0, "maximum": 100}),
            2 => json!({"type": "number"}),
            3 => json!({"type": "boolean"}),
            4 => json!({"type": "string", "enum": ["a", "b", "c"]}),
            5 => json!({"type": "string", "format": "email"}),
            6 => json!({"type": "array", "items": {"type": "string"}}),
            7 => json!({"type": ["string", "null"]}),
            _ => json!({"type": "string", "pattern": "^[a-z]+$"}),
        };
        properties.insert(format!("field_{i:03}"), schema);
    }
    let nested: Map<String, Value> = (0..18).map(|i| (format!("inner_{i}"), json!({"type": "string"}))).collect();
    properties.insert("group".into(), json!({"type": "object", "properties": nested, "required": ["inner_0"]}));
    json!({"name": "big", "description": "200 fields", "parameters": {"type": "object", "properties": properties, "required": ["field_000", "field_001"]}})
}

fn key(c: char) -> Msg {
    Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)))
}

/// One keystroke through the app and a frame drawn: `x` typed, then deleted the next time.
fn type_or_delete(app: &mut App, terminal: &mut Terminal<TestBackend>, styles: &Styles, n: &mut u64) {
    *n += 1;
    let msg = if n.is_multiple_of(2) {
        Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE)))
    } else {
        key('x')
    };
    update(app, msg);
    terminal.draw(|frame| tooldeck::ui::render(app, styles, frame)).expect("draw");
}

fn bench_keystroke(c: &mut Criterion) {
    let text = big_tool_definition().to_string();
    let (tools, _) = load_text("big.json", &text, &LoadOptions::default());
    let mut catalog = tooldeck::catalog::Catalog::default();
    tools.into_iter().for_each(|t| {
        catalog.add(t);
    });
    let mut app = App::new(catalog, &[], (120, 40));
    // Focus the form and start editing the first (string) field.
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    assert!(app.form_pane.editing());
    let styles = Styles::default();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    let mut n = 0u64;
    c.bench_function("keystroke in a 200-field form (update + validate + render)", |b| {
        // Type and delete so the text stays short and the work stays the same.
        b.iter(|| type_or_delete(&mut app, &mut terminal, &styles, &mut n))
    });
}

fn bench_first_frame(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-catalog");
    if !dir.exists() {
        eprintln!("run `cargo bench --bench catalog` first: it writes target/bench-catalog");
        return;
    }
    let styles = Styles::default();
    let mut group = c.benchmark_group("first frame");
    group.sample_size(20);
    group.bench_function("1000-tool catalog: load + app + render", |b| {
        b.iter(|| {
            let loaded = load_paths(std::slice::from_ref(&dir), &LoadOptions::default());
            let app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40));
            let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
            terminal.draw(|frame| tooldeck::ui::render(&app, &styles, frame)).expect("draw");
        })
    });
    group.finish();
}

/// A value of about 50 MB: 240,000 records of a few nested fields.
fn large_value() -> Value {
    let records: Vec<Value> = (0..240_000)
        .map(|i| {
            json!({
                "id": i,
                "name": format!("record number {i} with a name long enough to be realistic"),
                "tags": ["alpha", "beta", "gamma"],
                "position": {"x": i as f64 * 0.5, "y": -(i as f64), "label": "a point somewhere on the map"},
                "active": i % 3 == 0,
            })
        })
        .collect();
    json!({"records": records})
}

fn ctrl(c: char) -> Msg {
    Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)))
}

fn bench_large_value(c: &mut Criterion) {
    use tooldeck::app::{Answer, Effect};
    use tooldeck::invoke::{Exchange, Outcome, Status};
    let value = large_value();
    let bytes = serde_json::to_string(&value).expect("JSON").len();
    eprintln!("large value: {:.1} MB", bytes as f64 / 1e6);
    let mut outcome = Outcome::new(Status::Value, "bench");
    outcome.value = Some(value);
    let styles = Styles::default();
    let mut group = c.benchmark_group("50 MB value");
    group.sample_size(10);
    group.bench_function("format and index (in the call's task, off the UI thread)", |b| {
        b.iter(|| Answer::new(outcome.clone(), Exchange::default(), None))
    });
    let answer = Answer::new(outcome.clone(), Exchange::default(), None);
    let loaded = tooldeck::catalog::load_samples(&LoadOptions::default());
    let mut app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40));
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    let run = |app: &mut App| {
        update(app, ctrl('r'));
        let effects = update(app, ctrl('r'));
        effects
            .into_iter()
            .find_map(|e| match e {
                Effect::Server(ServerEffect::Invoke { id, .. }) => Some(id),
                _ => None,
            })
            .expect("the call is sent")
    };
    group.bench_function("the answer arrives: update + first frame", |b| {
        b.iter_custom(|iterations| {
            let mut spent = std::time::Duration::ZERO;
            for _ in 0..iterations {
                let id = run(&mut app);
                let answer = Box::new(answer.clone());
                let start = std::time::Instant::now();
                update(&mut app, Msg::Call(CallMsg::Done { id, result: Ok(answer) }));
                terminal.draw(|frame| tooldeck::ui::render(&app, &styles, frame)).expect("draw");
                spent += start.elapsed();
            }
            spent
        })
    });
    update(&mut app, ctrl('o'));
    let mut n = 0u64;
    group.bench_function("page down + render", |b| {
        b.iter(|| {
            n += 1;
            let code = if n.is_multiple_of(1000) { KeyCode::Home } else { KeyCode::PageDown };
            update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
            terminal.draw(|frame| tooldeck::ui::render(&app, &styles, frame)).expect("draw");
        })
    });
    group.bench_function("fold all, unfold all + render", |b| {
        b.iter(|| {
            update(&mut app, key('-'));
            terminal.draw(|frame| tooldeck::ui::render(&app, &styles, frame)).expect("draw");
            update(&mut app, key('+'));
            terminal.draw(|frame| tooldeck::ui::render(&app, &styles, frame)).expect("draw");
        })
    });
    group.finish();
}

/// Typing into a field already holding 10 kB, through the app's key handling and a render of
/// each frame at 120x40: the figure is characters a second (the goal: at least 1,000).
fn bench_long_value(c: &mut Criterion) {
    let text = json!({"name": "long", "description": "one long value", "parameters": {"type": "object",
        "properties": {"body": {"type": "string", "maxLength": 20000}, "title": {"type": "string"}},
        "required": ["body"]}})
    .to_string();
    let (tools, _) = load_text("long.json", &text, &LoadOptions { named_by_user: true, ..LoadOptions::default() });
    let mut catalog = tooldeck::catalog::Catalog::default();
    tools.into_iter().for_each(|t| {
        catalog.add(t);
    });
    let mut app = App::new(catalog, &[], (120, 40));
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    update(&mut app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    assert!(app.form_pane.editing());
    // 10 kB typed in (words, so it wraps as prose would), pasted to set it up quickly.
    let words: String = (0..10_240 / 8).map(|i| format!("word{:03} ", i % 1000)).collect();
    update(&mut app, Msg::Input(InputMsg::Paste(words)));
    let typed = app.form().and_then(|f| f.arguments()["body"].as_str().map(str::len)).unwrap_or_default();
    assert!(typed >= 10_000, "the field holds {typed} bytes");
    let styles = Styles::default();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    let mut group = c.benchmark_group("typing into a 10 kB field");
    group.throughput(Throughput::Elements(1));
    let mut n = 0u64;
    group.bench_function("one character: update + validate + render", |b| {
        // Type and delete so the value stays at 10 kB.
        b.iter(|| type_or_delete(&mut app, &mut terminal, &styles, &mut n))
    });
    group.finish();
}

criterion_group!(benches, bench_keystroke, bench_first_frame, bench_large_value, bench_long_value);
criterion_main!(benches);
