//! Loading a generated catalog of 1,000 tools in mixed formats, ~20 parameters each, with nested
//! objects and `$ref`s. The files are written to `target/bench-catalog/` and kept, so the whole
//! process can be timed too: `hyperfine 'target/release/tooldeck list --json target/bench-catalog'`.
//!
//! And `tooldeck list` as a person runs it on a minified 29 MB file of 69,000 tools on one line
//! (the whole process, as the person waits for it; the goal is under a second).

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

/// A minified MCP `tools/list` answer of 69,000 small tools: about 29 MB on one line.
fn write_one_line_file(path: &Path) {
    if path.exists() {
        return;
    }
    let tool = |i: usize| {
        serde_json::json!({
            "name": format!("tool_{i}"),
            "description": "Does a thing with the input and returns a result. ".repeat(3),
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "mode": {"type": "string", "enum": ["fast", "slow", "exact"]}
            }, "required": ["query"]}
        })
    };
    let tools: Vec<serde_json::Value> = (0..69_000).map(tool).collect();
    let text = serde_json::json!({ "tools": tools }).to_string();
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("the bench folder");
    std::fs::write(path, text).expect("the file written");
}

fn bench_list_one_line_file(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-oneline/tools-29mb.json");
    write_one_line_file(&path);
    let list = || {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .arg("list")
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("tooldeck runs");
        assert!(output.success());
    };
    let mut group = c.benchmark_group("list");
    group.sample_size(10);
    group.bench_function("29 MB one-line file, 69,000 tools", |b| b.iter(list));
    group.finish();
}

criterion_group!(benches, bench_load, bench_list_one_line_file);
criterion_main!(benches);
