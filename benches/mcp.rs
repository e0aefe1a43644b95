//! `tooldeck call --mcp` against a minimal MCP client doing only initialize + tools/call
//! (benches/mcp_minimal_client.rs, a program of its own), both as whole processes against the same
//! stdio server: this bench binary, re-run as an rmcp server. Needs the release binary and the
//! client: `cargo build --release && cargo bench --bench mcp_minimal_client --bench mcp`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use criterion::Criterion;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Value, json};

const SERVER_ENV: &str = "TOOLDECK_BENCH_MCP_SERVER";

#[derive(Clone)]
struct AddServer;

impl ServerHandler for AddServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]});
        let schema = Arc::new(schema.as_object().cloned().unwrap_or_default());
        Ok(ListToolsResult::with_all_items(vec![Tool::new("add", "Adds two numbers", schema)]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let number = |key: &str| arguments.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        Ok(CallToolResult::structured(json!({"sum": number("a") + number("b")})).into())
    }
}

/// Serves `add` on stdin/stdout until the client goes away.
async fn serve() {
    if let Ok(server) = AddServer.serve(rmcp::transport::stdio()).await {
        let _ = server.waiting().await;
    }
}

/// Criterion measures one command after the other, so a machine whose speed drifts (a shared
/// VM) skews their ratio; this runs them in alternating pairs and compares the medians.
fn interleaved_ratio(minimal: &mut Command, tooldeck: &mut Command, pairs: usize) {
    let time = |command: &mut Command| {
        let started = std::time::Instant::now();
        run_to_end(command);
        started.elapsed().as_secs_f64() * 1000.0
    };
    let (mut a, mut b) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
    for pair in 0..pairs {
        if pair % 2 == 0 {
            a.push(time(minimal));
            b.push(time(tooldeck));
        } else {
            b.push(time(tooldeck));
            a.push(time(minimal));
        }
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (a, b) = (median(&mut a), median(&mut b));
    println!("interleaved, {pairs} pairs: minimal client {a:.2} ms, tooldeck call {b:.2} ms (medians): {:.3}×", b / a);
}

fn run_to_end(command: &mut Command) {
    let status = command.stdout(Stdio::null()).stderr(Stdio::null()).status().expect("the process runs");
    assert!(status.success(), "{command:?} failed: {status}");
}

fn bench_mcp_call(c: &mut Criterion) {
    let exe = std::env::current_exe().expect("this binary");
    let tooldeck = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/tooldeck");
    if !tooldeck.exists() {
        eprintln!("build the release binary first: cargo build --release");
        return;
    }
    let Some(client) = exe.parent().and_then(minimal_client) else {
        eprintln!("build the minimal client first: cargo bench --bench mcp_minimal_client");
        return;
    };
    let history = std::env::temp_dir().join("tooldeck-bench-history.jsonl");
    let server = format!("'{}'", exe.display());
    let mut minimal = Command::new(&client);
    minimal.arg(&exe);
    let mut call = Command::new(&tooldeck);
    call.args(["call", "add", "--mcp", &server, "--arg", "a=1", "--arg", "b=2"])
        .env(SERVER_ENV, "1")
        .env("TOOLDECK_HISTORY", &history);
    let mut group = c.benchmark_group("MCP stdio call, whole process");
    group.sample_size(30).measurement_time(Duration::from_secs(15));
    group.bench_function("minimal rmcp client: initialize + tools/call", |b| b.iter(|| run_to_end(&mut minimal)));
    group.bench_function("tooldeck call --mcp", |b| b.iter(|| run_to_end(&mut call)));
    group.finish();
    interleaved_ratio(&mut minimal, &mut call, 400);
}

/// The newest build of benches/mcp_minimal_client.rs, beside this bench binary.
fn minimal_client(deps: &Path) -> Option<PathBuf> {
    std::fs::read_dir(deps)
        .ok()?
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with("mcp_minimal_client-") && !name.contains('.')
        })
        .max_by_key(|entry| entry.metadata().and_then(|m| m.modified()).ok())
        .map(|entry| entry.path())
}

fn main() {
    if std::env::var_os(SERVER_ENV).is_some() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(serve());
        return;
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench_mcp_call(&mut criterion);
    criterion.final_summary();
}
