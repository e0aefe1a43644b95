//! `tooldeck call`: one invocation without a screen, through the same catalog, argument, validation
//! and invoke code as the app. Prints the normalised outcome as JSON.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use super::failure::{Failure, finish};
use super::{ServerArgs, Sources, exit};
use crate::catalog::{Catalog, LoadOptions, Tool, load_samples, load_text};
use crate::form::args::{ArgsError, apply_pairs};
use crate::form::validate::Checker;
use crate::invoke::endpoint::{EndpointOptions, merge_server_tools, parse_headers, parse_tokens};
use crate::invoke::mcp::McpEndpoint;
use crate::invoke::mcp::process::StdioServer;
use crate::invoke::request::CallRequest;
use crate::invoke::{Endpoint, Exchange, InvokeError, Outcome, Status};

#[derive(Debug, Args, Clone)]
pub struct CallArgs {
    /// The tool's id (or its name when only one tool has it).
    pub tool: String,
    #[command(flatten)]
    pub sources: Sources,
    #[command(flatten)]
    pub server: ServerArgs,
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
    #[command(flatten)]
    pub answers: AnswerArgs,
    /// Run the tool as an MCP task (a tool whose taskSupport is `required` always is).
    #[arg(long)]
    pub task: bool,
    /// Send every schema default for the arguments not given (by default they are left out,
    /// and the server applies them), as the app's fill-defaults key does.
    #[arg(long)]
    pub fill_defaults: bool,
    /// Exit 6 when the answer deviates from the protocol (a value the output schema does not
    /// allow, a content item of a kind MCP does not define, a result without content), as the
    /// MCP Inspector's CLI does.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub watch: super::watching::WatchArgs,
}

/// How `call` and `test` answer what an MCP server asks during a call. Nothing given declines
/// (and the outcome's warnings say what was asked).
#[derive(Debug, Args, Clone, Default)]
pub struct AnswerArgs {
    /// Accept an elicitation with this content (a JSON object, or @FILE); checked against the
    /// form the server asks for: content it refuses is not sent (the ask is cancelled) and the
    /// command exits 3 naming each field.
    #[arg(long, value_name = "JSON|@FILE", conflicts_with = "elicit")]
    pub elicit_json: Option<String>,
    /// Answer an elicitation with `decline` or `cancel` (or `accept` with no content).
    #[arg(long, value_name = "decline|cancel|accept")]
    pub elicit: Option<String>,
    /// Answer a sampling request with this text.
    #[arg(long, value_name = "TEXT")]
    pub sample_text: Option<String>,
}

/// Why the answers or arguments given on the command line cannot be used (a usage error).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: io::Error },
    #[error("{flag} is not valid JSON: {source}")]
    NotJson { flag: &'static str, source: serde_json::Error },
    #[error("--elicit-json must be a JSON object (the form's fields)")]
    ElicitNotAnObject,
    #[error(transparent)]
    Answer(#[from] crate::invoke::mcp::asks::UnknownAnswer),
    #[error(transparent)]
    Pairs(#[from] ArgsError),
}

impl From<InputError> for Failure {
    fn from(error: InputError) -> Failure {
        Failure::usage(error.to_string())
    }
}

/// `text`, or the file it names with a leading `@`.
fn text_or_file(text: &str) -> Result<String, InputError> {
    match text.strip_prefix('@') {
        Some(path) => crate::files::read_text(std::path::Path::new(path))
            .map_err(|source| InputError::Read { path: path.to_string(), source }),
        None => Ok(text.to_string()),
    }
}

impl AnswerArgs {
    pub fn answers(&self) -> Result<crate::invoke::mcp::asks::Headless, InputError> {
        use crate::invoke::mcp::asks::{ElicitAnswer, Headless};
        let elicit = match (&self.elicit_json, &self.elicit) {
            (Some(text), _) => {
                let content: Value = serde_json::from_str(&text_or_file(text)?)
                    .map_err(|source| InputError::NotJson { flag: "--elicit-json", source })?;
                if !content.is_object() {
                    return Err(InputError::ElicitNotAnObject);
                }
                Some(ElicitAnswer::Accept(content))
            }
            (None, Some(word)) => Some(ElicitAnswer::parse(word)?),
            (None, None) => None,
        };
        Ok(Headless { elicit, sample_text: self.sample_text.clone(), roots: None })
    }
}

pub fn run(args: CallArgs) -> ExitCode {
    if !args.watch.targets.is_empty() {
        // Each call starts the server anew (or connects again) and ends it, as without --watch.
        return super::watching::rerun(&args.watch.targets, || run_call(args.clone()));
    }
    finish(run_call(args).map(exit::code))
}

fn run_call(args: CallArgs) -> Result<u8, Failure> {
    let mut options = args.server.options().resolve()?;
    options.answers = args.answers.answers()?;
    let headers = parse_headers(&options.headers)?;
    let tokens = parse_tokens(&args.tokens)?;
    // An MCP server over stdio is started before anything else: it takes milliseconds to boot,
    // and meanwhile the runtime is built, the definition files are read and the validator is set
    // up.
    let started = match options.mcp.as_deref() {
        Some(command) => Some(
            StdioServer::spawn_in(command, &options.env, options.cwd.as_deref())
                .map_err(|e| Failure::transport(e.to_string()))?,
        ),
        None => None,
    };
    // One call needs no worker threads: the current thread drives it (measured faster to start
    // and to finish than a multi-threaded runtime).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::transport(format!("cannot start: {e}")))?;
    let code = runtime.block_on(async {
        let mut stop = crate::signals::StopSignals::new()
            .map_err(|e| Failure::transport(format!("cannot listen for signals: {e}")))?;
        // A signal drops the call, and with it the server, which is then ended as on any way out.
        tokio::select! {
            code = call(args, options, headers, tokens, started) => code,
            code = stop.recv() => Ok(code),
        }
    });
    // Everything was awaited; a blocking task that never returns (a stuck DNS lookup) must not
    // hold the exit.
    runtime.shutdown_background();
    code
}

async fn call(
    args: CallArgs,
    options: EndpointOptions,
    headers: Vec<(String, String)>,
    tokens: Vec<(String, String)>,
    started: Option<StdioServer>,
) -> Result<u8, Failure> {
    // Without a server named, the built-in demo server answers, for the sample tools.
    let demo = match options.names_a_server() {
        true => None,
        false => Some(
            crate::invoke::mock::MockServer::start(load_samples(&LoadOptions::default()).catalog, 0)
                .await
                .map_err(|e| Failure::transport(format!("cannot start the built-in demo server: {e}")))?,
        ),
    };
    // Connecting goes first: while it waits for the server, this thread reads the definition
    // files and does the validator's first-time setup (on a current-thread runtime the spawned
    // task runs as soon as this one yields).
    let connecting = tokio::spawn({
        let options = options.clone();
        let demo_url = demo.as_ref().map(|d| d.url().to_string());
        async move {
            match started {
                Some(server) => {
                    let timeout = options.answer_timeout();
                    let command = options.mcp.clone().unwrap_or_default();
                    let setup = options.client_setup();
                    McpEndpoint::connect_command(server, &command, timeout, setup.clone(), Default::default())
                        .await
                        .map(|e| {
                            Endpoint::Mcp(
                                crate::invoke::mcp::stdio::McpStdio::from_endpoint(e, &command, timeout, setup).into(),
                            )
                        })
                }
                None => options.connect(headers, demo_url.as_deref()).await,
            }
        }
    });
    tokio::task::yield_now().await;
    // A named server brings its own tools; the samples are only for the demo server.
    let loaded = if options.names_a_server() && args.sources.paths.is_empty() {
        crate::catalog::Loaded::default()
    } else {
        args.sources.load()
    };
    Checker::warm_up();
    let endpoint = connecting.await.map_err(|e| Failure::transport(format!("connecting failed: {e}")))??;
    let label = endpoint.label();
    let ending = send(&args, options.names_a_server(), &endpoint, loaded.catalog, tokens).await;
    super::warn_of_stray_stdout(&endpoint);
    // The server shuts down (an MCP child sees its input close and has a moment to exit) while
    // the outcome is recorded and printed.
    let closing = tokio::spawn(endpoint.close());
    tokio::task::yield_now().await;
    let code = ending.and_then(|ending| ending.report(&label, args.strict));
    let _ = closing.await;
    drop(demo);
    code
}

/// What a call came to.
// One per process: the size of `Answered` costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
enum Ending {
    /// Nothing sent: the dry run printed the request.
    DryRun,
    /// The server answered: to be recorded in the history and printed.
    Answered { tool: Tool, request: CallRequest, outcome: Outcome, exchange: Exchange },
}

impl Ending {
    fn report(self, endpoint: &str, strict: bool) -> Result<u8, Failure> {
        match self {
            Ending::DryRun => Ok(exit::OK),
            Ending::Answered { tool, request, mut outcome, exchange } => {
                if let Some(schema) = &tool.output_schema {
                    crate::invoke::envelope::check_output(&mut outcome, schema);
                }
                print_json(&serde_json::to_value(&outcome).unwrap_or(Value::Null));
                record(&tool.id, &request, endpoint, &outcome, &exchange);
                let code = exit_code(&outcome, &exchange);
                // An answer given for the server's form that the form refuses: the person's input
                // was wrong, as with arguments.
                if let Some(why) = outcome.asked.iter().find_map(|a| a["mismatch"].as_str()) {
                    return Err(Failure::new(exit::INVALID_ARGUMENTS, why));
                }
                match deviation(&outcome) {
                    Some(why) if strict && matches!(code, exit::OK | exit::TOOL_ERROR) => {
                        Err(Failure::new(exit::PROTOCOL_DEVIATION, format!("--strict: {why}")))
                    }
                    _ => Ok(code),
                }
            }
        }
    }
}

/// Finds the tool (the server's own tools join `catalog`), builds and checks its arguments, and
/// sends the call.
async fn send(
    args: &CallArgs,
    names_a_server: bool,
    endpoint: &Endpoint,
    mut catalog: Catalog,
    tokens: Vec<(String, String)>,
) -> Result<Ending, Failure> {
    // A token for the server itself (MCP over HTTP) is needed before its tools can be listed.
    for (provider, token) in &tokens {
        match endpoint.authorize(provider, token).await {
            // Refused: the call says so as an authorization prompt (exit 4).
            Ok(()) | Err(InvokeError::Unauthorized { .. }) => {}
            Err(e) => return Err(Failure::transport(e.to_string())),
        }
    }
    if names_a_server && let Err(e) = merge_server_tools(&mut catalog, endpoint).await {
        warn(&format!("could not list the server's tools: {e}"));
    }
    let tool = match catalog.find(&args.tool).cloned() {
        Some(tool) => tool,
        // A server may answer for tools it does not list (or cannot list): send it unchecked.
        None if names_a_server => {
            warn(&format!(
                "\"{}\" is not among the server's listed tools; its arguments are sent unchecked",
                args.tool
            ));
            unlisted_tool(&args.tool).ok_or_else(|| Failure::usage("the tool id is empty"))?
        }
        None => return Err(Failure::usage(unknown_tool(&args.tool, &catalog))),
    };
    let arguments = build_arguments(args, &tool)?;
    if !args.no_validate {
        let validation = Checker::new(&tool.input_schema).check_value(&arguments);
        if !validation.is_empty() {
            let mut err = io::stderr().lock();
            for (pointer, message) in &validation {
                let at = if pointer.is_empty() { "(arguments)" } else { pointer.as_str() };
                let _ = writeln!(err, "{at}: {message}");
            }
            let said = format!(
                "{}; not sent (--no-validate sends anyway)",
                crate::text::plural(validation.len(), "argument error")
            );
            return Err(Failure::new(exit::INVALID_ARGUMENTS, said));
        }
    }
    let mut request = CallRequest::new(tool.id.clone(), arguments);
    request.tokens = crate::invoke::endpoint::tokens_for(Some(&tool), &tokens);
    request.as_task = args.task || tool.task_support.as_deref() == Some("required");
    for (provider, _) in tokens.iter().filter(|token| !request.tokens.contains(token)) {
        warn(&format!("the token for {provider} is not sent: {} declares no requirement for it", tool.id));
    }
    if args.dry_run {
        print_json(&endpoint.describe(&request).request_json());
        return Ok(Ending::DryRun);
    }
    let (outcome, exchange) = endpoint.call(&request).await?;
    Ok(Ending::Answered { tool, request, outcome, exchange })
}

/// Appends the call to the history; a history that cannot be written is only a warning.
fn record(tool: &str, request: &CallRequest, endpoint: &str, outcome: &Outcome, exchange: &Exchange) {
    let Some(path) = crate::history::default_path() else { return };
    let entry = crate::history::PastCall {
        at: crate::text::rfc3339_now(),
        tool: tool.to_string(),
        arguments: request.arguments.clone(),
        endpoint: crate::redact::command(endpoint),
        outcome: outcome.status.name().to_string(),
        duration_ms: outcome.duration_ms.max(exchange.duration_ms),
        call_id: outcome.call_id.clone(),
        http_status: exchange.status,
    };
    if let Err(e) = crate::history::append(&path, &entry) {
        let _ = writeln!(io::stderr(), "tooldeck: warning: cannot write the history {}: {e}", path.display());
    }
}

fn build_arguments(args: &CallArgs, tool: &Tool) -> Result<Value, InputError> {
    let base = match &args.args_json {
        None => json!({}),
        Some(text) => serde_json::from_str(&text_or_file(text)?)
            .map_err(|source| InputError::NotJson { flag: "--args-json", source })?,
    };
    let arguments = apply_pairs(base, &args.args, &tool.input_schema)?;
    if !args.fill_defaults {
        return Ok(arguments);
    }
    // The form's one rule for defaults, so `call` and the app send the same.
    let mut form = crate::form::Form::new(tool);
    form.set_arguments(&arguments);
    form.fill_defaults();
    Ok(form.arguments().clone())
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

/// How the answer deviates from the protocol, if it does: an output-schema violation, a
/// content item of a kind MCP does not define, or a required field missing (`content`).
fn deviation(outcome: &Outcome) -> Option<String> {
    let unknown = outcome.content.iter().find_map(|item| match item {
        crate::invoke::ContentItem::Unreadable(u) => Some(format!("a content item {}", u.why)),
        _ => None,
    });
    unknown.or_else(|| {
        outcome
            .warnings
            .iter()
            .find(|w| w.starts_with("output schema:") || w.starts_with("protocol deviation:"))
            .cloned()
    })
}

/// A tool known only by its id: any object of arguments goes.
fn unlisted_tool(id: &str) -> Option<Tool> {
    let text = json!({"name": id, "parameters": {"type": "object"}}).to_string();
    let (mut tools, _) = load_text("(command line)", &text, &LoadOptions::default());
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
    let _ = crate::json_out::write_pretty(&mut out, value);
    let _ = writeln!(out).and_then(|()| out.flush());
}

fn warn(message: &str) {
    let _ = writeln!(io::stderr(), "tooldeck: warning: {}", crate::text::visible(message));
}

/// The exit code for a call that got no answer: 4 when the server wants a sign-in (or it
/// failed), 5 for everything else on the way.
pub fn failure_code(error: &InvokeError) -> u8 {
    match error {
        InvokeError::Unauthorized { .. } | InvokeError::SignIn { .. } => exit::AUTHORIZATION_REQUIRED,
        _ => exit::TRANSPORT,
    }
}

/// A call that got no answer, with [`failure_code`]'s exit code.
impl From<InvokeError> for Failure {
    fn from(error: InvokeError) -> Failure {
        Failure::new(failure_code(&error), error.to_string())
    }
}
