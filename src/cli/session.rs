//! What the headless commands for an MCP server's other faces share (`resources`, `read`,
//! `prompts`, `prompt`): connect as `call` does, run one piece of work, end the server on every
//! way out (a signal included), and say a failure with `call`'s exit codes.

use std::io::Write;
use std::sync::Arc;

use super::ServerArgs;
use super::exit;
use crate::invoke::{Endpoint, InvokeError};

/// Connects to the server `server` names and runs `work` with it; the exit code is `work`'s
/// (or 2 for a usage error, 5 when the server cannot be reached).
pub(super) fn with_server<F, Fut>(server: &ServerArgs, work: F) -> u8
where
    F: FnOnce(Arc<Endpoint>) -> Fut,
    Fut: Future<Output = u8>,
{
    let options = match server.options().resolve() {
        Ok(options) => options,
        Err(e) => return fail(exit::USAGE, &e.to_string()),
    };
    if options.mcp.is_none() && options.mcp_url.is_none() {
        return fail(exit::USAGE, "name an MCP server: --mcp 'COMMAND ARGS' or --mcp-url URL");
    }
    let headers = match crate::invoke::endpoint::parse_headers(&options.headers) {
        Ok(headers) => headers,
        Err(e) => return fail(exit::USAGE, &e.to_string()),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(exit::TRANSPORT, &format!("cannot start: {e}")),
    };
    let code = runtime.block_on(async {
        let mut stop = match crate::signals::StopSignals::new() {
            Ok(stop) => stop,
            Err(e) => return fail(exit::TRANSPORT, &format!("cannot listen for signals: {e}")),
        };
        let run = async {
            let endpoint = match options.connect(headers, None).await {
                Ok(endpoint) => Arc::new(endpoint),
                Err(e) => return fail(exit::TRANSPORT, &e.to_string()),
            };
            let code = work(Arc::clone(&endpoint)).await;
            if let Ok(endpoint) = Arc::try_unwrap(endpoint) {
                endpoint.close().await;
            }
            code
        };
        // A signal drops the work, and with it the server, which is then ended.
        tokio::select! {
            code = run => code,
            code = stop.recv() => code,
        }
    });
    runtime.shutdown_background();
    code
}

/// The exit code for a request that failed, `call`'s way: the server's refusal (a JSON-RPC
/// error) is 1, a wish for authorization 4, no answer at all 5. Said on stderr.
pub(super) fn failed(error: &InvokeError) -> u8 {
    let code = match error {
        InvokeError::Protocol(_) => exit::TOOL_ERROR,
        InvokeError::Unauthorized { .. } => exit::AUTHORIZATION_REQUIRED,
        InvokeError::Setup(_) => exit::USAGE,
        _ => exit::TRANSPORT,
    };
    fail(code, &error.to_string())
}

pub(super) fn fail(code: u8, message: &str) -> u8 {
    let lines: Vec<String> = message.lines().map(|l| crate::text::visible(l).into_owned()).collect();
    let _ = writeln!(std::io::stderr(), "tooldeck: {}", lines.join("\n"));
    code
}

pub(super) fn warn(message: &str) {
    let _ = writeln!(std::io::stderr(), "tooldeck: warning: {}", crate::text::visible(message));
}

/// Prints `value` as pretty JSON (escapes keep a server's control characters harmless).
pub(super) fn print_json(value: &serde_json::Value) -> u8 {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = serde_json::to_writer_pretty(&mut out, value);
    let _ = writeln!(out).and_then(|()| out.flush());
    exit::OK
}

/// Text from a server for a terminal: each line with its control characters made visible; to
/// a pipe or a file, as it came.
pub(super) fn shown(text: &str) -> String {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return text.to_string();
    }
    text.lines().map(|line| crate::text::visible(line).into_owned()).collect::<Vec<_>>().join("\n")
}
