//! `tooldeck app TOOL`: hosts a tool's MCP App (SEP-1865) in the browser, wired to tooldeck's
//! session with the server. The tool is called first, as a model's host would; its `ui://` view
//! runs on a loopback sandbox origin; every request the view makes is one line here, until
//! Ctrl-C. (`cli/app.rs` is the TUI; this is the app host.)

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::json;

use super::ServerArgs;
use super::exit;
use super::failure::{Failure, finish};
use crate::apps::AppEvent;
use crate::catalog::Tool;
use crate::form::args::apply_pairs;

#[derive(Debug, Args, Clone)]
pub struct AppArgs {
    /// The tool whose app to host (its name, as the server lists it).
    pub tool: String,
    #[command(flatten)]
    pub server: ServerArgs,
    /// An argument for the first call, `key=value`, coerced by the schema (repeatable).
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub args: Vec<String>,
    /// Seconds a loaded app may take to send ui/initialize before a line says so [default: 10].
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub init_wait: u64,
}

pub fn run(args: AppArgs) -> ExitCode {
    finish(host_app(args).map(exit::code))
}

fn host_app(args: AppArgs) -> Result<u8, Failure> {
    let options = args.server.options().resolve()?;
    if options.mcp.is_none() && options.mcp_url.is_none() && options.server.is_none() {
        return Err(Failure::usage("name an MCP server: --mcp 'COMMAND ARGS', --mcp-url URL or --server NAME"));
    }
    let headers = crate::invoke::endpoint::parse_headers(&options.headers)?;
    let runtime = super::tokio_runtime().map_err(|e| Failure::transport(format!("cannot start: {e}")))?;
    let code = runtime.block_on(async {
        let mut stop = crate::signals::StopSignals::new()
            .map_err(|e| Failure::transport(format!("cannot listen for signals: {e}")))?;
        let endpoint = options.connect(headers, None).await.map_err(|e| Failure::transport(e.to_string()))?;
        let endpoint = Arc::new(endpoint);
        // A signal ends the hosting (the view told, its page told, its servers stopped), and
        // the server with it, as on any way out.
        let code = serve(&args, Arc::clone(&endpoint), &mut stop).await;
        if let Ok(endpoint) = Arc::try_unwrap(endpoint) {
            endpoint.close().await;
        }
        code
    });
    runtime.shutdown_background();
    code
}

/// How long the view has to answer `ui/resource-teardown`, and its page to hear it ended.
const TEARDOWN_WAIT: Duration = Duration::from_millis(1500);

/// Hosts the app and says what it does until a signal; then ends it as the spec says.
async fn serve(
    args: &AppArgs,
    endpoint: Arc<crate::invoke::Endpoint>,
    stop: &mut crate::signals::StopSignals,
) -> Result<u8, Failure> {
    let started = tokio::select! {
        started = prepare(args, endpoint) => started?,
        code = stop.recv() => return Ok(code),
    };
    let (hosted, mut heard, bridge) = (started.hosted, started.events, started.bridge);
    for note in &started.notes {
        say(&AppEvent::Note { text: note.clone() });
    }
    // `--no-browser` is the server options' (sign-in's) flag: print URLs, open none.
    print_url(&hosted.url, args.server.oauth.no_browser);
    let code = loop {
        tokio::select! {
            event = heard.recv() => match event {
                Some(event) => say(&event),
                None => break exit::OK,
            },
            code = stop.recv() => break code,
        }
    };
    bridge.teardown("tooldeck app was stopped", TEARDOWN_WAIT).await;
    hosted.shutdown().await;
    Ok(code)
}

/// Lists the tools, calls the app's tool, reads its view and serves it.
async fn prepare(args: &AppArgs, endpoint: Arc<crate::invoke::Endpoint>) -> Result<crate::apps::Started, Failure> {
    let label = crate::redact::command(&endpoint.label());
    let (tools, _) = crate::invoke::endpoint::list_catalog(&endpoint, &label, &crate::invoke::endpoint::to_call())
        .await
        .map_err(|e| Failure::transport(e.to_string()))?;
    let tool = find(&tools, &args.tool)?;
    let input = apply_pairs(json!({}), &args.args, &tool.input_schema)
        .map_err(|e| Failure::new(exit::INVALID_ARGUMENTS, e.to_string()))?;
    let init_wait = Duration::from_secs(args.init_wait.max(1));
    let options = crate::apps::Options::new(init_wait);
    crate::apps::start(endpoint, tools, &tool, input, &options)
        .await
        .map_err(|e| Failure::new(exit::TOOL_ERROR, e.to_string()))
}

fn print_url(url: &str, no_browser: bool) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "app host: {url}");
    let _ = writeln!(out, "app host: Ctrl-C ends it");
    let _ = out.flush();
    if !no_browser && let Err(e) = crate::invoke::browser::open(url) {
        report!("tooldeck: {e}");
    }
}

fn say(event: &AppEvent) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{event}");
    let _ = out.flush();
}

/// The tool by name (or id); one without an app is a usage error that says so.
fn find(tools: &[Tool], name: &str) -> Result<Tool, Failure> {
    let tool = tools
        .iter()
        .find(|t| t.name == name || t.id == name)
        .ok_or_else(|| Failure::usage(format!("the server lists no tool {}", crate::text::visible(name))))?;
    if tool.written.app.is_none() {
        return Err(Failure::usage(crate::apps::AppError::NoApp { tool: tool.name.clone() }.to_string()));
    }
    Ok(tool.clone())
}
