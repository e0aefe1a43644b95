//! Loading a generated catalog of 1,000 tools in mixed formats, ~20 parameters each, with nested
//! objects and `$ref`s. The files are written to `target/bench-catalog/` and kept, so the whole
//! process can be timed too: `hyperfine 'target/release/tooldeck list --json target/bench-catalog'`.

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "support/generated_catalog.rs"]
mod generated_catalog;

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use generated_catalog::write_catalog;
use tooldeck::catalog::{LoadOptions, load_paths};

fn bench_load(c: &mut Criterion) {
    let dir = write_catalog(&Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-catalog"));
    let loaded = load_paths(std::slice::from_ref(&dir), &LoadOptions::default());
    assert_eq!(loaded.catalog.len(), 1000, "{:?}", loaded.diagnostics.first());
    assert!(!loaded.has_errors());
    let mut group = c.benchmark_group("catalog");
    group.sample_size(20);
    group.bench_function("load 1000 tools", |b| {
        b.iter(|| load_paths(std::slice::from_ref(&dir), &LoadOptions::default()));
    });
    group.finish();
}

criterion_group!(benches, bench_load);
criterion_main!(benches);
