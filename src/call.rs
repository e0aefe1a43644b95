//! `tooldeck call`: one invocation without a screen, through the same catalog, argument, validation
//! and invoke code as the app. Prints the normalised outcome as JSON.

use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use serde_json::{Value, json};

use crate::catalog::{Catalog, LoadOptions, Tool, load_samples, load_text};
use crate::cli::Sources;
use crate::form::args::apply_pairs;
use crate::form::validate::Checker;
use crate::invoke::mcp::McpEndpoint;
use crate::invoke::mcp_http::McpHttpEndpoint;
use crate::invoke::otc::{CallRequest, OtcEndpoint};
use crate::invoke::stdio_server::StdioServer;
use crate::invoke::{Endpoint, Exchange, InvokeError, Outcome, Status};

/// Exit codes of `tooldeck call`.
pub mod exit {
    pub const OK: u8 = 0;
    pub const TOOL_ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const INVALID_ARGUMENTS: u8 = 3;
    pub const AUTHORIZATION_REQUIRED: u8 = 4;
    pub const TRANSPORT: u8 = 5;
}

#[derive(Debug, Args, Clone)]
pub struct EndpointOptions {
    /// An Open Tool Calling server (http or https), or the name of an endpoint in the config
    /// file. Without one, the built-in demo server answers.
    #[arg(long, value_name = "URL|NAME")]
    pub endpoint: Option<String>,
    /// Path of the call endpoint (older servers use /execute).
    #[arg(long, value_name = "PATH", default_value = "/tools/call")]
    pub call_path: String,
    /// An extra HTTP header, `Name: value` (repeatable). `${ENV}` in the value is expanded.
    #[arg(long = "header", value_name = "K:V")]
    pub headers: Vec<String>,
    /// Seconds to wait for an answer.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub timeout: u64,
    /// An MCP server to start and talk to over stdio, e.g. 'node server.js --port 0'.
    #[arg(long, value_name = "COMMAND ARGS", conflicts_with_all = ["endpoint", "mcp_url"])]
    pub mcp: Option<String>,
    /// An MCP server over Streamable HTTP.
    #[arg(long, value_name = "URL", conflicts_with = "endpoint")]
    pub mcp_url: Option<String>,
    /// The config file with named endpoints (default: ~/.config/tooldeck/config.toml);
    /// `--endpoint NAME` picks one.
    #[arg(long, value_name = "PATH")]
    pub config: Option<std::path::PathBuf>,
}

impl EndpointOptions {
    /// `--endpoint NAME` (not a URL) becomes the named endpoint of the config file; flags given
    /// on the command line still win over the file's values.
    pub fn resolve(&self) -> Result<EndpointOptions, String> {
        let Some(name) = self.endpoint.as_deref().filter(|e| !e.contains("://")) else { return Ok(self.clone()) };
        let path = self
            .config
            .clone()
            .or_else(crate::config::default_path)
            .ok_or("no config file to find named endpoints in")?;
        let config = crate::config::load(&path)?;
        let Some(named) = config.endpoints.get(name) else {
            let known: Vec<&str> = config.endpoints.keys().map(String::as_str).collect();
            return Err(format!(
                "\"{name}\" is neither a URL nor an endpoint named in {} (named: {})",
                path.display(),
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ));
        };
        let mut resolved = self.clone();
        resolved.endpoint = named.url.clone();
        resolved.mcp = named.mcp.clone();
        resolved.mcp_url = named.mcp_url.clone();
        if self.call_path == "/tools/call"
            && let Some(call_path) = &named.call_path
        {
            resolved.call_path = call_path.clone();
        }
        if self.timeout == 60
            && let Some(timeout) = named.timeout
        {
            resolved.timeout = timeout;
        }
        let mut headers: Vec<String> = named.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        headers.extend(self.headers.iter().cloned());
        resolved.headers = headers;
        Ok(resolved)
    }

    /// How long to wait for an answer (`--timeout`, at least a second).
    pub fn answer_timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.max(1))
    }

    /// True when the user named a server (so its own tools join the catalog).
    pub fn names_a_server(&self) -> bool {
        self.endpoint.is_some() || self.mcp.is_some() || self.mcp_url.is_some()
    }

    /// Connects to the chosen server; `demo_url` answers when none was chosen.
    pub async fn connect(
        &self,
        headers: Vec<(String, String)>,
        demo_url: Option<&str>,
    ) -> Result<Endpoint, InvokeError> {
        let timeout = self.answer_timeout();
        if let Some(command) = &self.mcp {
            return Ok(Endpoint::Mcp(McpEndpoint::connect_stdio_with_timeout(command, timeout).await?));
        }
        if let Some(url) = &self.mcp_url {
            return Ok(Endpoint::McpHttp(McpHttpEndpoint::connect(url, headers, timeout).await?));
        }
        let base = self.endpoint.as_deref().or(demo_url).unwrap_or_default();
        Ok(Endpoint::Otc(OtcEndpoint::new(base, &self.call_path, headers, timeout)?))
    }
}

#[derive(Debug, Args, Clone)]
pub struct CallArgs {
    /// The tool's id (or its name when only one tool has it).
    pub tool: String,
    #[command(flatten)]
    pub sources: Sources,
    #[command(flatten)]
    pub endpoint: EndpointOptions,
    /// An argument, `key=value`, coerced by the schema; `a.b=1` for nested fields; repeat a key
    /// for array items.
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub args: Vec<String>,
    /// All arguments as a JSON object, or @FILE to read them from a file.
    #[arg(long, value_name = "JSON|@FILE")]
    pub args_json: Option<String>,
    /// A token for an authorization provider, `PROVIDER=TOKEN` (repeatable).
    #[arg(long = "token", value_name = "PROVIDER=TOKEN")]
    pub tokens: Vec<String>,
    /// Print the request that would be sent, and send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Send even when the arguments do not satisfy the schema.
    #[arg(long)]
    pub no_validate: bool,
}

/// Expands `${NAME}` from the environment; an unset variable is an error naming it.
pub fn expand_env(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else { return Err(format!("unclosed ${{ in \"{text}\"")) };
        let name = &rest[start + 2..start + end];
        let value = std::env::var(name).map_err(|_| format!("environment variable {name} is not set"))?;
        out.push_str(&value);
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

pub fn parse_headers(headers: &[String]) -> Result<Vec<(String, String)>, String> {
    headers
        .iter()
        .map(|h| match h.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), expand_env(value.trim())?)),
            _ => Err(format!("--header \"{h}\" is not `Name: value`")),
        })
        .collect()
}

pub fn parse_tokens(tokens: &[String]) -> Result<Vec<(String, String)>, String> {
    tokens
        .iter()
        .map(|t| match t.split_once('=') {
            Some((provider, token)) if !provider.is_empty() => Ok((provider.to_string(), expand_env(token)?)),
            _ => Err(format!("--token \"{t}\" is not PROVIDER=TOKEN")),
        })
        .collect()
}

pub fn run(args: CallArgs) -> ExitCode {
    ExitCode::from(run_for_code(args))
}

/// [`run`] for the `tooldeck` binary, which has nothing left to do afterwards: once the outcome is
/// written it ends the process at once. Freeing the runtime and its memory and running exit
/// handlers is work the kernel makes moot, and it cost a call ~0.2 ms (benches/mcp.rs).
pub fn run_and_exit(args: CallArgs) -> ! {
    let code = run_for_code(args);
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    // SAFETY: _exit(2) only ends the process; files were written and closed by `call`.
    unsafe { libc::_exit(code.into()) }
}

fn run_for_code(mut args: CallArgs) -> u8 {
    args.endpoint = match args.endpoint.resolve() {
        Ok(endpoint) => endpoint,
        Err(e) => return fail(exit::USAGE, &e),
    };
    let headers = match parse_headers(&args.endpoint.headers) {
        Ok(h) => h,
        Err(e) => return fail(exit::USAGE, &e),
    };
    let tokens = match parse_tokens(&args.tokens) {
        Ok(t) => t,
        Err(e) => return fail(exit::USAGE, &e),
    };
    // An MCP server over stdio is started before anything else: it takes milliseconds to boot,
    // and meanwhile the runtime is built, the definition files are read and the validator is set
    // up.
    let started = match args.endpoint.mcp.as_deref().map(StdioServer::spawn) {
        None => None,
        Some(Ok(server)) => Some(server),
        Some(Err(e)) => return fail(exit::TRANSPORT, &e.to_string()),
    };
    // One call needs no worker threads: the current thread drives it (measured faster to start
    // and to finish than a multi-threaded runtime).
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(exit::TRANSPORT, &format!("cannot start: {e}")),
    };
    let code = runtime.block_on(call(args, headers, tokens, started));
    // Everything was awaited; a blocking task that never returns (a stuck DNS lookup) must not
    // hold the exit.
    runtime.shutdown_background();
    code
}

async fn call(
    args: CallArgs,
    headers: Vec<(String, String)>,
    tokens: Vec<(String, String)>,
    started: Option<StdioServer>,
) -> u8 {
    // Without a server named, the built-in demo server answers, for the sample tools.
    let demo = match args.endpoint.names_a_server() {
        true => None,
        false => match crate::invoke::mock::MockServer::start(load_samples(&LoadOptions::default()).catalog, 0).await {
            Ok(server) => Some(server),
            Err(e) => return fail(exit::TRANSPORT, &format!("cannot start the built-in demo server: {e}")),
        },
    };
    // Connecting goes first: while it waits for the server, this thread reads the definition
    // files and does the validator's first-time setup (on a current-thread runtime the spawned
    // task runs as soon as this one yields).
    let connecting = tokio::spawn({
        let options = args.endpoint.clone();
        let demo_url = demo.as_ref().map(|d| d.url().to_string());
        async move {
            match started {
                Some(server) => McpEndpoint::connect_started(server, options.answer_timeout()).await.map(Endpoint::Mcp),
                None => options.connect(headers, demo_url.as_deref()).await,
            }
        }
    });
    tokio::task::yield_now().await;
    // A named server brings its own tools; the samples are only for the demo server.
    let loaded = if args.endpoint.names_a_server() && args.sources.paths.is_empty() {
        crate::catalog::Loaded::default()
    } else {
        args.sources.load()
    };
    Checker::warm_up();
    let endpoint = match connecting.await {
        Ok(Ok(endpoint)) => endpoint,
        Ok(Err(e)) => return fail(exit::TRANSPORT, &e.to_string()),
        Err(e) => return fail(exit::TRANSPORT, &format!("connecting failed: {e}")),
    };
    let label = endpoint.label();
    let ending = send(&args, &endpoint, loaded.catalog, tokens).await;
    // The server shuts down (an MCP child sees its input close and has a moment to exit) while
    // the outcome is recorded and printed.
    let closing = tokio::spawn(endpoint.close());
    tokio::task::yield_now().await;
    let code = ending.report(&label);
    let _ = closing.await;
    drop(demo);
    code
}

/// What a call came to.
// One per process: the size of `Answered` costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
enum Ending {
    /// Already said on stderr (a usage error, invalid arguments, a dry run...).
    Reported(u8),
    /// The server answered: to be recorded in the history and printed.
    Answered { tool: Tool, request: CallRequest, outcome: Outcome, exchange: Exchange },
}

impl Ending {
    fn report(self, endpoint: &str) -> u8 {
        match self {
            Ending::Reported(code) => code,
            Ending::Answered { tool, request, mut outcome, exchange } => {
                if let Some(schema) = &tool.output_schema {
                    crate::invoke::envelope::check_output(&mut outcome, schema);
                }
                print_json(&serde_json::to_value(&outcome).unwrap_or(Value::Null));
                record(&tool.id, &request, endpoint, &outcome, &exchange);
                exit_code(&outcome, &exchange)
            }
        }
    }
}

/// Finds the tool (the server's own tools join `catalog`), builds and checks its arguments, and
/// sends the call.
async fn send(args: &CallArgs, endpoint: &Endpoint, mut catalog: Catalog, tokens: Vec<(String, String)>) -> Ending {
    let reported = |code, message: &str| Ending::Reported(fail(code, message));
    // A token for the server itself (MCP over HTTP) is needed before its tools can be listed.
    for (provider, token) in &tokens {
        match endpoint.authorize(provider, token).await {
            // Refused: the call says so as an authorization prompt (exit 4).
            Ok(()) | Err(InvokeError::Unauthorized { .. }) => {}
            Err(e) => return reported(exit::TRANSPORT, &e.to_string()),
        }
    }
    if args.endpoint.names_a_server() {
        merge_server_tools(&mut catalog, endpoint).await;
    }
    let tool = match catalog.find(&args.tool).cloned() {
        Some(tool) => tool,
        // A server may answer for tools it does not list (or cannot list): send it unchecked.
        None if args.endpoint.names_a_server() => {
            let _ = writeln!(
                io::stderr(),
                "tooldeck: warning: \"{}\" is not among the server's listed tools; its arguments are sent unchecked",
                args.tool
            );
            match unlisted_tool(&args.tool) {
                Some(tool) => tool,
                None => return reported(exit::USAGE, "the tool id is empty"),
            }
        }
        None => return reported(exit::USAGE, &unknown_tool(&args.tool, &catalog)),
    };
    let arguments = match build_arguments(args, &tool) {
        Ok(a) => a,
        Err(e) => return reported(exit::USAGE, &e),
    };
    if !args.no_validate {
        let validation = Checker::new(&tool.input_schema).check_value(&arguments);
        if !validation.is_empty() {
            let mut err = io::stderr().lock();
            for (pointer, message) in &validation {
                let at = if pointer.is_empty() { "(arguments)" } else { pointer.as_str() };
                let _ = writeln!(err, "{at}: {message}");
            }
            let _ = writeln!(
                err,
                "tooldeck: {}; not sent (--no-validate sends anyway)",
                plural(validation.len(), "argument error")
            );
            return Ending::Reported(exit::INVALID_ARGUMENTS);
        }
    }
    let mut request = CallRequest::new(tool.id.clone(), arguments);
    request.tokens = tokens;
    if args.dry_run {
        print_json(&exchange_json(&endpoint.describe(&request)));
        return Ending::Reported(exit::OK);
    }
    match endpoint.call(&request).await {
        Ok((outcome, exchange)) => Ending::Answered { tool, request, outcome, exchange },
        Err(e) => reported(exit::TRANSPORT, &e.to_string()),
    }
}

/// Appends the call to the history; a history that cannot be written is only a warning.
fn record(tool: &str, request: &CallRequest, endpoint: &str, outcome: &Outcome, exchange: &Exchange) {
    let Some(path) = crate::history::default_path() else { return };
    let entry = crate::history::Entry {
        at: crate::text::rfc3339_now(),
        tool: tool.to_string(),
        arguments: request.arguments.clone(),
        endpoint: endpoint.to_string(),
        outcome: outcome.status.name().to_string(),
        duration_ms: outcome.duration_ms.max(exchange.duration_ms),
        call_id: outcome.call_id.clone(),
        http_status: exchange.status,
    };
    if let Err(e) = crate::history::append(&path, &entry) {
        let _ = writeln!(io::stderr(), "tooldeck: warning: cannot write the history {}: {e}", path.display());
    }
}

/// The server's own tools join the catalog (files given on the command line come first).
pub async fn merge_server_tools(catalog: &mut Catalog, endpoint: &Endpoint) {
    match endpoint.list_tools().await {
        Ok(text) => {
            for tool in server_tools(&endpoint.label(), &text) {
                if catalog.get(&tool.id).is_none() {
                    catalog.add(tool);
                }
            }
        }
        Err(e) => {
            let _ = writeln!(io::stderr(), "tooldeck: warning: could not list the server's tools: {e}");
        }
    }
}

/// A server's tool list (the text `Endpoint::list_tools` gives) as tools. They are read only to
/// be called: their schemas are compiled to check arguments anyway and no diagnostics are shown,
/// so the meta-schema check is skipped.
pub fn server_tools(label: &str, text: &str) -> Vec<Tool> {
    let options = LoadOptions { meta_check: false, ..LoadOptions::default() };
    load_text(label, text, false, false, true, &options).0
}

fn build_arguments(args: &CallArgs, tool: &Tool) -> Result<Value, String> {
    let base = match &args.args_json {
        None => json!({}),
        Some(text) => {
            let text = match text.strip_prefix('@') {
                Some(path) => std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?,
                None => text.clone(),
            };
            serde_json::from_str(&text).map_err(|e| format!("--args-json is not valid JSON: {e}"))?
        }
    };
    apply_pairs(base, &args.args, &tool.input_schema)
}

/// Exit 0 for a value, nothing or an artifact; 1 a tool error; 4 authorization needed; 5 when
/// the server's answer was not the protocol at all.
fn exit_code(outcome: &Outcome, exchange: &Exchange) -> u8 {
    let not_protocol = serde_json::from_str::<Value>(&exchange.response_body).is_err() || exchange.response_truncated;
    match outcome.status {
        Status::Value | Status::Null | Status::Artifact => exit::OK,
        Status::RequiresAuthorization => exit::AUTHORIZATION_REQUIRED,
        Status::Error if not_protocol => exit::TRANSPORT,
        Status::Error => exit::TOOL_ERROR,
    }
}

/// The request as JSON, secrets masked.
pub fn exchange_json(exchange: &Exchange) -> Value {
    let headers: serde_json::Map<String, Value> = exchange
        .request_headers
        .iter()
        .map(|(k, v)| {
            (k.clone(), Value::String(if k.eq_ignore_ascii_case("authorization") { mask(v) } else { v.clone() }))
        })
        .collect();
    let mut body: Value =
        serde_json::from_str(&exchange.request_body).unwrap_or(Value::String(exchange.request_body.clone()));
    if let Some(list) = body.pointer_mut("/request/context/authorization").and_then(Value::as_array_mut) {
        for entry in list {
            if let Some(token) = entry.get_mut("token") {
                *token = Value::String(mask(token.as_str().unwrap_or_default()));
            }
        }
    }
    json!({"method": exchange.method, "url": exchange.url, "headers": headers, "body": body})
}

/// A secret shown by its length only.
pub fn mask(secret: &str) -> String {
    format!("•••• ({} chars)", secret.chars().count())
}

/// A tool known only by its id: any object of arguments goes.
fn unlisted_tool(id: &str) -> Option<Tool> {
    let text = json!({"name": id, "parameters": {"type": "object"}}).to_string();
    let (mut tools, _) = load_text("(command line)", &text, false, false, true, &LoadOptions::default());
    let mut tool = tools.pop()?;
    tool.id = id.to_string();
    Some(tool)
}

fn unknown_tool(name: &str, catalog: &Catalog) -> String {
    let lower = name.to_lowercase();
    let close: Vec<&str> = catalog
        .tools()
        .iter()
        .filter(|t| t.id.to_lowercase().contains(&lower) || t.name.to_lowercase().contains(&lower))
        .map(|t| t.id.as_str())
        .take(5)
        .collect();
    if close.is_empty() {
        format!("no tool \"{name}\" in the catalog (`tooldeck list` shows them)")
    } else {
        format!("no tool \"{name}\" in the catalog; did you mean {}?", close.join(", "))
    }
}

fn print_json(value: &Value) {
    // One write, not one per line (stdout is line-buffered).
    let mut out = io::BufWriter::new(io::stdout().lock());
    let _ = serde_json::to_writer_pretty(&mut out, value);
    let _ = writeln!(out).and_then(|()| out.flush());
}

fn fail(code: u8, message: &str) -> u8 {
    let _ = writeln!(io::stderr(), "tooldeck: {}", crate::text::visible(message));
    code
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_expansion() {
        // SAFETY: tests in this module do not read this variable concurrently.
        unsafe { std::env::set_var("TOOLDECK_TEST_SECRET", "s3cret") };
        assert_eq!(expand_env("Bearer ${TOOLDECK_TEST_SECRET}").unwrap(), "Bearer s3cret");
        assert!(expand_env("${TOOLDECK_SURELY_UNSET_VARIABLE}").unwrap_err().contains("not set"));
        assert_eq!(expand_env("plain").unwrap(), "plain");
    }

    #[test]
    fn headers_and_tokens_parse() {
        assert_eq!(parse_headers(&["X-Api: 1".into()]).unwrap(), vec![("X-Api".to_string(), "1".to_string())]);
        assert!(parse_headers(&["nocolon".into()]).is_err());
        assert_eq!(parse_tokens(&["google=abc".into()]).unwrap(), vec![("google".to_string(), "abc".to_string())]);
        assert!(parse_tokens(&["=abc".into()]).is_err());
    }

    #[test]
    fn secrets_are_masked() {
        let exchange = Exchange {
            method: "POST".into(),
            url: "http://x/tools/call".into(),
            request_headers: vec![("Authorization".into(), "Bearer abc".into())],
            request_body: r#"{"request":{"context":{"authorization":[{"id":"g","token":"tok"}]}}}"#.into(),
            ..Exchange::default()
        };
        let shown = exchange_json(&exchange).to_string();
        assert!(!shown.contains("abc") && !shown.contains("\"tok\""), "{shown}");
    }
}
