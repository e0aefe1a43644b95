//! What the headless commands for an MCP server's other faces share (`resources`, `read`,
//! `prompts`, `prompt`): connect as `call` does, run one piece of work, end the server on every
//! way out (a signal included), and say a failure with `call`'s exit codes.

use std::io::Write;
use std::sync::Arc;

use super::ServerArgs;
use super::exit;
use super::failure::Failure;
use crate::invoke::{Endpoint, InvokeError};

/// Connects to the server `server` names and runs `work` with it; the exit code is `work`'s
/// (or 2 for a usage error, 5 when the server cannot be reached).
pub(super) fn with_server<F, Fut>(server: &ServerArgs, work: F) -> Result<u8, Failure>
where
    F: FnOnce(Arc<Endpoint>) -> Fut,
    Fut: Future<Output = Result<u8, Failure>>,
{
    let options = server.options().resolve()?;
    if options.mcp.is_none() && options.mcp_url.is_none() {
        return Err(Failure::usage(
            "name an MCP server: --mcp 'COMMAND ARGS', --mcp-url URL or --server NAME (`tooldeck servers` lists those in your configs)",
        ));
    }
    let headers = crate::invoke::endpoint::parse_headers(&options.headers)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::transport(format!("cannot start: {e}")))?;
    let code = runtime.block_on(async {
        let mut stop = crate::signals::StopSignals::new()
            .map_err(|e| Failure::transport(format!("cannot listen for signals: {e}")))?;
        let run = async {
            let endpoint = match options.connect(headers, None).await {
                Ok(endpoint) => Arc::new(endpoint),
                Err(e) => return Err(Failure::transport(e.to_string())),
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
            code = stop.recv() => Ok(code),
        }
    });
    runtime.shutdown_background();
    code
}

/// A request that failed, with `call`'s exit codes: the server's refusal (a JSON-RPC error) is
/// 1, a wish for authorization 4, no answer at all 5.
pub(super) fn refused(error: InvokeError) -> Failure {
    let code = match error {
        InvokeError::Unauthorized { .. } => exit::AUTHORIZATION_REQUIRED,
        InvokeError::Setup { .. } => exit::USAGE,
        ref answer if answer.is_answer() => exit::TOOL_ERROR,
        _ => exit::TRANSPORT,
    };
    Failure::new(code, error.to_string())
}

pub(super) fn warn(message: &str) {
    let _ =
        writeln!(std::io::stderr(), "tooldeck: warning: {}", crate::text::visible(&crate::redact::expanded(message)));
}

/// Prints `value` as pretty JSON through [`crate::json_out`]: JSON's own escapes cover C0
/// controls only, and a server's U+009B or U+202E would otherwise reach the terminal raw.
pub(super) fn print_json(value: &serde_json::Value) -> u8 {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = crate::json_out::write_pretty(&mut out, value);
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
