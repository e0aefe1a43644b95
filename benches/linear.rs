//! What a server sends, at 100,000 of a kind: a resource template with 100,000 variables (800 KB,
//! `{v00000}{v00001}...` and as one `{?v0,v1,...}` expression), a prompt with 100,000 arguments,
//! and a tool schema with as many properties as a form reads (just under its 1 MiB cap). Each is
//! timed from the server's JSON to what the person gets: parsed, its variables listed, its list
//! entry made, and its form built in the app.
//!
//! Besides criterion's figures it prints how each stage grows: the time at n/2 and at n (the
//! quickest of three runs each) and their ratio (2 is linear, 4 quadratic), which is what the target is stated in: linear, and the stage
//! on 100,000 well under a second.

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use tooldeck::app::faces::face_entries;
use tooldeck::app::{App, FaceMsg, Msg, update};
use tooldeck::catalog::Catalog;
use tooldeck::invoke::mcp::prompts::read_prompts;
use tooldeck::invoke::mcp::resources::read_templates;
use tooldeck::invoke::mcp::uri_template::Template;
use tooldeck::invoke::{Faces, ResourceListing};

const N: usize = 100_000;

/// `test://x/{v00000}{v00001}...`: eight bytes a variable, 800 KB at 100,000.
fn separate(n: usize) -> String {
    let mut text = String::from("test://x/");
    for i in 0..n {
        text.push_str(&format!("{{v{i:05}}}"));
    }
    text
}

/// `test://x{?v0,v1,...}`: one expression of `n` variables.
fn one_expression(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
    format!("test://x{{?{}}}", names.join(","))
}

fn template_entry(n: usize) -> Value {
    json!({"uriTemplate": separate(n), "name": "wide"})
}

fn prompt_entry(n: usize) -> Value {
    let arguments: Vec<Value> =
        (0..n).map(|i| json!({"name": format!("a{i:05}"), "description": "one", "required": i % 2 == 0})).collect();
    json!({"name": "wide", "arguments": arguments})
}

fn template_faces(n: usize) -> Faces {
    let mut warnings = Vec::new();
    let templates = read_templates(&[template_entry(n)], &mut warnings);
    Faces { listing: ResourceListing { templates, ..Default::default() }, completes: true, ..Faces::default() }
}

fn prompt_faces(n: usize) -> Faces {
    let mut warnings = Vec::new();
    let prompts = read_prompts(&[prompt_entry(n)], &mut warnings);
    Faces { prompts, completes: true, ..Faces::default() }
}

/// The app given a server's faces: the entry listed and selected, its form built.
fn app_with(faces: Faces) -> App {
    let mut app = App::new(Catalog::default(), &[], (120, 40));
    update(&mut app, Msg::Face(FaceMsg::Listed { label: "mcp:bench".into(), faces: Box::new(faces) }));
    app
}

/// A tool schema of `n` string properties, every one required.
fn wide_schema(n: usize) -> Value {
    let mut properties = Map::new();
    for i in 0..n {
        properties.insert(format!("p{i:05}"), json!({"type": "string"}));
    }
    let required: Vec<String> = (0..n).map(|i| format!("p{i:05}")).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// Properties of a form schema that stay just under its 1 MiB cap.
const FORM_N: usize = 40_000;

type Stage = (&'static str, usize, fn(usize) -> Duration);

fn timed(work: impl FnOnce()) -> Duration {
    let started = Instant::now();
    work();
    started.elapsed()
}

/// `tools/list` of `n` tools, or of one tool of `n` properties each marked `"required": true`
/// (the pre-standard way, which loading repairs into the object's `required`).
fn tools_list(n: usize, wide: bool) -> String {
    let tools: Vec<Value> = match wide {
        false => (0..n).map(|i| json!({"name": format!("t{i:05}"), "inputSchema": {"type": "object"}})).collect(),
        true => {
            let properties: Map<String, Value> =
                (0..n).map(|i| (format!("p{i:05}"), json!({"type": "string", "required": true}))).collect();
            vec![json!({"name": "wide", "inputSchema": {"type": "object", "properties": properties}})]
        }
    };
    json!({ "tools": tools }).to_string()
}

/// `resources/list` of `n` resources that all name the same URI.
fn same_uri_faces(n: usize) -> Faces {
    let entries: Vec<Value> = (0..n).map(|_| json!({"uri": "test://same", "name": "same"})).collect();
    let resources = tooldeck::invoke::mcp::resources::read_resources(&entries, &mut Vec::new());
    Faces { listing: ResourceListing { resources, ..Default::default() }, ..Faces::default() }
}

/// Tools in a `tools/list` read at once in the growth table and criterion (each is loaded and
/// checked as a definition: 100,000 take long in a debug build even when linear).
const TOOLS_N: usize = 20_000;

const STAGES: [Stage; 12] = [
    ("template: parse, 8 B a variable", N, |n| {
        let text = separate(n);
        timed(|| drop(black_box(Template::parse(&text))))
    }),
    ("template: parse, one expression", N, |n| {
        let text = one_expression(n);
        timed(|| drop(black_box(Template::parse(&text))))
    }),
    ("template: variables", N, |n| {
        let template = Template::parse(&separate(n)).expect("parses");
        timed(|| drop(black_box(template.variables())))
    }),
    ("resources/templates/list: one entry read", N, |n| {
        let entry = [template_entry(n)];
        timed(|| drop(black_box(read_templates(&entry, &mut Vec::new()))))
    }),
    ("template: list entry", N, |n| {
        let faces = template_faces(n);
        timed(|| drop(black_box(face_entries("mcp:bench", &faces))))
    }),
    ("template: in the app (listed, form built)", N, |n| {
        let faces = template_faces(n);
        timed(|| drop(black_box(app_with(faces))))
    }),
    ("prompt: prompts/list entry read and listed", N, |n| {
        let entry = [prompt_entry(n)];
        timed(|| {
            let prompts = read_prompts(&entry, &mut Vec::new());
            black_box(face_entries("mcp:bench", &Faces { prompts, ..Faces::default() }));
        })
    }),
    ("prompt: in the app (listed, form built)", N, |n| {
        let faces = prompt_faces(n);
        timed(|| drop(black_box(app_with(faces))))
    }),
    ("form: schema of many required properties", FORM_N, |n| {
        let schema = wide_schema(n);
        timed(|| drop(black_box(tooldeck::form::build::root_field(&schema, &Default::default()))))
    }),
    ("tools/list: many tools", TOOLS_N, |n| {
        let text = tools_list(n, false);
        timed(|| drop(black_box(tooldeck::invoke::endpoint::server_tools("mcp:bench", &text))))
    }),
    ("tools/list: a tool of many properties required the old way", N, |n| {
        let text = tools_list(n, true);
        timed(|| drop(black_box(tooldeck::invoke::endpoint::server_tools("mcp:bench", &text))))
    }),
    ("resources/list: many resources of one URI, in the app", N, |n| {
        let faces = same_uri_faces(n);
        timed(|| drop(black_box(app_with(faces))))
    }),
];

/// `LINEAR_SCALE=8` runs the growth table on n/8 and n/4 (for a build where n would take minutes).
fn scale() -> usize {
    std::env::var("LINEAR_SCALE").ok().and_then(|s| s.parse().ok()).filter(|s| *s >= 1).unwrap_or(1)
}

/// `LINEAR_STAGE=WORDS` runs only the stages whose name holds them.
fn stages() -> impl Iterator<Item = Stage> {
    let only = std::env::var("LINEAR_STAGE").unwrap_or_default();
    STAGES.into_iter().filter(move |(name, _, _)| name.contains(only.as_str()))
}

/// The quickest of three runs: the machine this runs on is shared.
fn quickest(stage: fn(usize) -> Duration, n: usize) -> Duration {
    (0..3).map(|_| stage(n)).min().unwrap_or_default()
}

fn bench_linear(c: &mut Criterion) {
    let scale = scale();
    for (name, n, stage) in stages() {
        let (small, large) = (n / 2 / scale, n / scale);
        let (t1, t2) = (quickest(stage, small), quickest(stage, large));
        let ratio = t2.as_secs_f64() / t1.as_secs_f64().max(1e-9);
        eprintln!("{name}: {small} in {t1:.2?}, {large} in {t2:.2?}: x{ratio:.1} for x2");
    }
    if scale > 1 {
        return;
    }
    let mut group = c.benchmark_group("linear");
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, n, stage) in stages() {
        group.bench_function(format!("{name} ({n})"), |b| {
            b.iter_custom(|iterations| (0..iterations).map(|_| stage(n)).sum())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_linear);
criterion_main!(benches);
