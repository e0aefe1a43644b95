//! `tooldeck test` throughput: 10,000 cases against the built-in demo server with 32 at a time,
//! through the same runner the command uses. The case files are written to target/bench-cases
//! (1,000 and 10,000 cases) so peak memory can be compared on the real binary:
//! `/usr/bin/time -v target/release/tooldeck test target/bench-cases/10000.yaml --jobs 32 >/dev/null`.

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tooldeck::cases::file;
use tooldeck::cases::report::Quiet;
use tooldeck::cases::run::run_file;
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::endpoint::EndpointOptions;
use tooldeck::invoke::mock::MockServer;

/// A case file of `count` cases over a few sample tools and every kind of expectation.
fn write_cases(count: usize) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-cases");
    std::fs::create_dir_all(&dir).expect("target/bench-cases");
    let mut text = String::from("cases:\n");
    for i in 0..count {
        let _ = match i % 4 {
            0 => writeln!(
                text,
                "  - name: add {i}\n    tool: Math.Add@1.0.0\n    args: {{a: {i}, b: 1}}\n    expect: {{status: value, value: {}}}",
                i + 1
            ),
            1 => writeln!(
                text,
                "  - name: weather {i}\n    tool: get_weather\n    args: {{location: City{i}, unit: celsius}}\n    expect: {{contains: {{unit: celsius}}, schema: {{type: object, required: [temperature]}}}}"
            ),
            2 => writeln!(
                text,
                "  - name: fails {i}\n    tool: Demo.AlwaysFails@1.0.0\n    expect: {{status: error, error_contains: simulated}}"
            ),
            _ => writeln!(
                text,
                "  - name: pointer {i}\n    tool: Math.Add@1.0.0\n    args: {{a: 2, b: {i}}}\n    expect: {{pointer: {{\"\": {}}}, max_ms: 10000}}",
                i + 2
            ),
        };
    }
    let path = dir.join(format!("{count}.yaml"));
    std::fs::write(&path, text).expect("case file written");
    path
}

fn bench_cases(c: &mut Criterion) {
    write_cases(1_000);
    let path = write_cases(10_000);
    let cases = file::load(&path);
    assert!(cases.problems.is_empty(), "{:?}", cases.problems);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let server = runtime.block_on(MockServer::start(load_samples(&LoadOptions::default()).catalog, 0)).expect("server");
    let options = EndpointOptions::default();
    let mut group = c.benchmark_group("tooldeck test");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(cases.case_count() as u64));
    group.bench_function("10,000 cases, --jobs 32, demo server", |b| {
        b.to_async(&runtime).iter(|| async {
            let mut quiet = Quiet::default();
            run_file(&cases, &options, None, Some(server.url()), 32, None, &mut quiet).await;
            assert_eq!((quiet.counts.failed, quiet.problems), (0, 0), "every case passes");
            quiet.counts
        })
    });
    group.finish();
}

criterion_group!(benches, bench_cases);
criterion_main!(benches);
