//! The baseline of benches/mcp.rs: the least an MCP client can do. It starts the server named by
//! its argument, initializes, calls `add` once and prints the result. It is a program of its own,
//! with rmcp's defaults and the system allocator, so that nothing of the benchmark's code weighs
//! on its start. Run by `cargo bench` itself (with `--bench`), it does nothing.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

fn main() {
    let Some(server) = std::env::args().nth(1).filter(|arg| !arg.starts_with('-')) else { return };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(server);
        command.env("TOOLDECK_BENCH_MCP_SERVER", "1");
        let transport = TokioChildProcess::new(command).expect("the server starts");
        let client = ().serve(transport).await.expect("initialize");
        let mut params = CallToolRequestParams::new("add");
        if let Some(arguments) = json!({"a": 1, "b": 2}).as_object().cloned() {
            params = params.with_arguments(arguments);
        }
        let result = client.call_tool(params).await.expect("tools/call");
        println!("{}", serde_json::to_string(&result).unwrap_or_default());
        let _ = client.cancel().await;
    });
}
