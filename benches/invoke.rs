//! tooldeck's own cost per call on loopback: `OtcEndpoint::call` (request building, envelope
//! parsing and checking) against a bare reqwest POST of the same body to the same demo server.

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tooldeck::catalog::{LoadOptions, load_samples};
use tooldeck::invoke::mock::MockServer;
use tooldeck::invoke::otc::{CallRequest, OtcEndpoint};

fn bench_call(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let server = runtime.block_on(MockServer::start(load_samples(&LoadOptions::default()).catalog, 0)).expect("server");
    let endpoint =
        OtcEndpoint::new(server.url(), "/tools/call", Vec::new(), Duration::from_secs(10)).expect("endpoint");
    let client = tooldeck::invoke::http::client_builder().build().unwrap();
    let url = format!("{}/tools/call", server.url());
    for (tool, arguments) in
        [("Math.Add@1.0.0", json!({"a": 1, "b": 2})), ("get_weather", json!({"location": "Paris"}))]
    {
        let request = CallRequest::new(tool, arguments);
        let body = request.body();
        let mut group = c.benchmark_group(format!("call {tool}"));
        group.bench_function("bare reqwest POST + JSON parse", |b| {
            b.to_async(&runtime).iter(|| async {
                let response = client.post(&url).json(&body).send().await.expect("answer");
                let bytes = response.bytes().await.expect("body");
                serde_json::from_slice::<serde_json::Value>(&bytes).expect("JSON")
            })
        });
        group.bench_function("tooldeck OtcEndpoint::call", |b| {
            b.to_async(&runtime).iter(|| async { endpoint.call(&request).await.expect("answer") })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_call);
criterion_main!(benches);
