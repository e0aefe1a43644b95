//! `tooldeck eval`'s own cost, which must vanish beside a model's:
//! - **replay**: 100 cases × 10 iterations answered from cassettes, every tool call run on a
//!   local MCP server (rmcp over Streamable HTTP), judged and scored, 8 at a time (target: < 2 s);
//! - **live turn**: a live run against the scripted model over HTTP, one iteration at a time,
//!   per model turn (target: < 5 ms a turn, the scripted model's own time and the tool call
//!   included).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use tooldeck::invoke::Endpoint;
use tooldeck::invoke::endpoint::{EndpointOptions, list_catalog, to_call};
use tooldeck_evals::file::{EvalCase, EvalFile, ModelSpec, WrittenCall, WrittenExpect};
use tooldeck_evals::provider::openai::OpenAi;
use tooldeck_evals::provider::{Format, Model, ModelError};
use tooldeck_evals::run::{Inputs, Mode, Settings, run};

// Shared with the tests, which use all of them.
#[allow(dead_code)]
#[path = "../tests/it/support/eval_server.rs"]
mod eval_server;
#[allow(dead_code)]
#[path = "../tests/it/support/scripted_model.rs"]
mod scripted_model;

const CASES: usize = 100;
const ITERATIONS: u32 = 10;

fn eval_file(cases: usize, iterations: u32, model_url: &str) -> EvalFile {
    let cases = (0..cases)
        .map(|i| {
            let mut args = Map::new();
            args.insert("celsius".into(), json!(i));
            EvalCase {
                name: format!("case {i}"),
                prompt: format!("What is {i} degrees Celsius in Kelvin?"),
                expect: WrittenExpect {
                    calls: vec![WrittenCall { tool: "to_kelvin".into(), args, exact: false }],
                    ..WrittenExpect::default()
                },
                min_pass_rate: 1.0,
                location: String::new(),
            }
        })
        .collect();
    EvalFile {
        model: ModelSpec { url: model_url.into(), name: "scripted".into(), ..ModelSpec::default() },
        iterations,
        max_turns: 4,
        cases,
        ..EvalFile::default()
    }
}

/// A model that calls `to_kelvin` with the prompt's number, then answers: to record cassettes from.
struct StandIn;

impl Model for StandIn {
    fn answer<'a>(
        &'a self,
        _case: &'a str,
        _iteration: usize,
        turn: usize,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Value, ModelError>> {
        let prompt = request["messages"][0]["content"].as_str().unwrap_or_default();
        let n: String = prompt.chars().filter(char::is_ascii_digit).collect();
        let answer = if turn == 0 {
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "to_kelvin", "arguments": format!("{{\"celsius\": {n}}}")}}]}}]})
        } else {
            json!({"choices": [{"message": {"role": "assistant", "content": "done"}}]})
        };
        Box::pin(std::future::ready(Ok(answer)))
    }
}

async fn connect(url: &str) -> (Endpoint, Vec<tooldeck::catalog::Tool>) {
    let options = EndpointOptions { mcp_url: Some(url.into()), ..EndpointOptions::default() };
    let endpoint = options.connect(Vec::new(), None).await.expect("the local server");
    let (tools, _) = list_catalog(&endpoint, "bench", &to_call()).await.expect("its tools");
    (endpoint, tools)
}

fn bench_replay(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let (endpoint, tools) = runtime.block_on(connect(&server.url));
    let dir = tempfile::tempdir().unwrap();
    let file = eval_file(CASES, ITERATIONS, "http://127.0.0.1:9/v1");
    let format: Arc<dyn Format> = Arc::new(OpenAi { model: "scripted".into(), ..OpenAi::default() });
    let cancel = CancellationToken::new();
    let settings = |mode| Settings {
        jobs: 8,
        mode,
        cassettes: Some(dir.path().to_path_buf()),
        local_server: true,
        ..Settings::default()
    };
    let inputs = |live: Option<&'static dyn Model>| Inputs {
        file: &file,
        tools: &tools,
        runner: &endpoint,
        live,
        format: format.as_ref(),
        cancel: &cancel,
    };
    static STAND_IN: StandIn = StandIn;
    let recorded = runtime.block_on(run(inputs(Some(&STAND_IN)), &settings(Mode::Record), &mut |_| {})).unwrap();
    assert!(recorded.cases.iter().all(|c| c.passed == ITERATIONS as usize));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), CASES);
    let mut group = c.benchmark_group("tooldeck eval");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(CASES as u64 * u64::from(ITERATIONS)));
    group.bench_function("replay 100 cases x 10 iterations from cassettes, local server", |b| {
        b.to_async(&runtime).iter(|| async {
            let report = run(inputs(None), &settings(Mode::Replay), &mut |_| {}).await.unwrap();
            assert!(report.replay_mismatches.is_empty() && report.cases.iter().all(|c| c.ok));
            report.cases.len()
        })
    });
    group.finish();
}

fn bench_live_turn(c: &mut Criterion) {
    use scripted_model::{Script, ScriptedModel, Step};
    const RUN: u32 = 20;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = eval_server::start("Converts Celsius to Kelvin");
    let (endpoint, tools) = runtime.block_on(connect(&server.url));
    let prompt = "What is 0 degrees Celsius in Kelvin?";
    let plan = vec![Step::Call(vec![("to_kelvin", "{\"celsius\": 0}".into())]), Step::Text("273.15 K")];
    let model = ScriptedModel::start(Script::new(vec![(prompt, Script::times(1, plan))]));
    let file = eval_file(1, RUN, &model.url);
    let format: Arc<dyn Format> = Arc::new(OpenAi { model: "scripted".into(), ..OpenAi::default() });
    let live = tooldeck_evals::run::live_model(&file, Arc::clone(&format)).unwrap();
    let cancel = CancellationToken::new();
    let settings = Settings { jobs: 1, local_server: true, ..Settings::default() };
    let mut group = c.benchmark_group("tooldeck eval");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    // Two model turns an iteration: the call, then the answer.
    group.throughput(Throughput::Elements(u64::from(RUN) * 2));
    group.bench_function("live model turns against the scripted model, one at a time", |b| {
        b.to_async(&runtime).iter(|| async {
            let inputs = Inputs {
                file: &file,
                tools: &tools,
                runner: &endpoint,
                live: Some(&live),
                format: format.as_ref(),
                cancel: &cancel,
            };
            let report = run(inputs, &settings, &mut |_| {}).await.unwrap();
            assert_eq!(report.cases[0].passed, RUN as usize);
        })
    });
    group.finish();
}

criterion_group!(benches, bench_replay, bench_live_turn);
criterion_main!(benches);
