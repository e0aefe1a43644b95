//! `tooldeck fuzz`'s two speeds: the generator alone (random valid arguments for a 20-field
//! schema, with and without the validator's check), and whole fuzz runs against the built-in
//! demo server on loopback (calls per second, one call in flight and four), and memory over a
//! long run: the resident set after 5,000 calls and after 100,000 more, printed (flat memory is
//! the floor: a run keeps causes and a few samples per tool, never the inputs it sent).

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Map, Value, json};
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::fuzz::{Generator, Settings};
use tooldeck::invoke::endpoint::EndpointOptions;
use tooldeck::invoke::mock::MockServer;

/// Twenty fields of every kind a tool takes: bounded numbers, strings with lengths, formats and
/// patterns, enums, arrays and a nested object.
fn twenty_fields() -> Value {
    let mut properties = Map::new();
    for i in 0..4 {
        properties.insert(format!("count{i}"), json!({"type": "integer", "minimum": 0, "maximum": 1000}));
        properties.insert(format!("name{i}"), json!({"type": "string", "minLength": 1, "maxLength": 40}));
    }
    properties.insert("ratio".into(), json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1}));
    properties.insert("email".into(), json!({"type": "string", "format": "email"}));
    properties.insert("when".into(), json!({"type": "string", "format": "date-time"}));
    properties.insert("id".into(), json!({"type": "string", "format": "uuid"}));
    properties.insert("code".into(), json!({"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"}));
    properties.insert("mode".into(), json!({"enum": ["fast", "slow", "auto"]}));
    properties.insert("flag".into(), json!({"type": "boolean"}));
    properties.insert("tags".into(), json!({"type": "array", "items": {"type": "string"}, "maxItems": 5}));
    properties
        .insert("scores".into(), json!({"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 4}));
    properties.insert("site".into(), json!({"type": "string", "format": "uri"}));
    properties.insert(
        "point".into(),
        json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}),
    );
    properties.insert("note".into(), json!({"type": ["string", "null"]}));
    json!({"type": "object", "properties": properties, "required": ["count0", "name0", "code", "mode"], "additionalProperties": false})
}

fn bench_generator(c: &mut Criterion) {
    let schema = twenty_fields();
    let generator = Generator::new(&schema);
    let validator = jsonschema::options().should_validate_formats(true).build(&schema).expect("schema");
    let mut group = c.benchmark_group("fuzz generator, 20 fields");
    group.throughput(Throughput::Elements(1));
    let mut rng = StdRng::seed_from_u64(1);
    group.bench_function("random valid arguments", |b| b.iter(|| generator.arguments(&mut rng)));
    group.bench_function("random valid arguments, checked", |b| {
        b.iter(|| {
            let arguments = generator.arguments(&mut rng);
            assert!(validator.is_valid(&arguments), "{arguments}");
            arguments
        })
    });
    group.finish();
}

fn bench_calls(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let catalog = load_samples(&LoadOptions::default()).catalog;
    let tool = catalog.find("Math.Add@1.0.0").expect("the sample tool").clone();
    let server = runtime.block_on(MockServer::start(catalog, 0)).expect("server");
    let endpoint =
        runtime.block_on(EndpointOptions::default().connect(Vec::new(), Some(server.url()))).expect("the demo server");
    const CALLS: usize = 1000;
    let mut group = c.benchmark_group("fuzz run against the demo server");
    group.throughput(Throughput::Elements(CALLS as u64));
    group.sample_size(10);
    for jobs in [1, 4] {
        let settings =
            Settings { max_calls: CALLS, jobs, seed: 5, slow: Duration::from_secs(60), ..Settings::default() };
        group.bench_function(format!("{CALLS} calls, {jobs} in flight"), |b| {
            b.to_async(&runtime).iter(|| async {
                let stop = AtomicBool::new(false);
                let report = tooldeck::fuzz::run(&endpoint, std::slice::from_ref(&tool), &settings, &|_| {}, &stop)
                    .await
                    .expect("the run");
                assert!(report.calls >= CALLS, "{}", report.calls);
                report
            })
        });
    }
    group.finish();
}

/// The resident set in KiB (Linux's /proc; elsewhere none, and the figure is not printed).
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Memory over a long run: one tool, 4 calls in flight, 5,000 calls to settle, then 100,000.
/// Not a criterion measurement (criterion times, it does not weigh): the two figures are printed.
fn bench_memory(_: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let catalog = load_samples(&LoadOptions::default()).catalog;
    let tool = catalog.find("Math.Add@1.0.0").expect("the sample tool").clone();
    let server = runtime.block_on(MockServer::start(catalog, 0)).expect("server");
    let endpoint =
        runtime.block_on(EndpointOptions::default().connect(Vec::new(), Some(server.url()))).expect("the demo server");
    let run = |calls: usize| {
        let settings =
            Settings { max_calls: calls, jobs: 4, seed: 9, slow: Duration::from_secs(60), ..Settings::default() };
        let stop = AtomicBool::new(false);
        let started = std::time::Instant::now();
        let report = runtime
            .block_on(tooldeck::fuzz::run(&endpoint, std::slice::from_ref(&tool), &settings, &|_| {}, &stop))
            .expect("the run");
        (report.calls, started.elapsed())
    };
    run(5_000);
    let Some(before) = resident_kib() else { return };
    let (calls, took) = run(100_000);
    let after = resident_kib().unwrap_or(before);
    println!(
        "fuzz memory: {before} KiB resident after 5,000 calls, {after} KiB after {calls} more ({:.0} calls/s, 4 in flight)",
        calls as f64 / took.as_secs_f64()
    );
}

criterion_group!(benches, bench_generator, bench_calls, bench_memory);
criterion_main!(benches);
