//! The o200k tokenizer's build at first use (what `lint` and `call` wait for before the first
//! count): ours from the compact table against tiktoken-rs's from its base64 lines. Then one
//! count of a typical tool definition, which both do alike.
//!
//! `cargo bench -p tooldeck-core --bench tokenizer`

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tooldeck_core::lint::o200k;

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("o200k build");
    group.sample_size(10).measurement_time(Duration::from_secs(8));
    group.bench_function("compact table (ours)", |b| b.iter(|| black_box(o200k::build())));
    group.bench_function("base64 lines (tiktoken-rs)", |b| b.iter(|| black_box(tiktoken_rs::o200k_base().unwrap())));
    group.finish();
}

fn count(c: &mut Criterion) {
    let text = r#"{"name":"get_weather","description":"Current weather for a city. Returns °C and a short summary (晴れ, rain, ☀️).","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Zürich"},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}}"#;
    let encoder = o200k::encoder();
    c.bench_function("o200k count of one tool definition", |b| {
        b.iter(|| encoder.encode_ordinary(black_box(text)).len())
    });
}

criterion_group!(benches, build, count);
criterion_main!(benches);
