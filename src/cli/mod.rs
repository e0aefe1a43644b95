//! The command line: the app (default) and the headless commands, one file each. Only `main.rs`
//! uses this module; it uses everything else.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::catalog::{Format, LoadOptions, Loaded, load_samples};
use crate::invoke::endpoint::EndpointOptions;

mod failure;
pub use failure::{Failure, exit};

/// Like `eprintln!`, but a closed stderr (the terminal went away) is no reason to panic.
macro_rules! report {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // What is said may quote a server's URL or command: `${VAR}` values masked.
        let _ = writeln!(std::io::stderr(), "{}", crate::redact::expanded(&format!($($arg)*)));
    }};
}

mod app;
mod app_evals;
mod app_host;
mod attach;
mod auth;
mod call;
mod check;
mod completions;
mod diff;
mod eval;
mod fuzz;
mod lint;
mod list;
mod prompts;
mod proxy;
mod resources;
mod serve_mock;
mod servers;
mod session;
mod test;
mod watching;

#[derive(Debug, Parser)]
#[command(
    name = "tooldeck",
    version,
    about = "Exercise LLM tools by hand: load tool definitions in every common format, fill forms, call servers."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub sources: Sources,
    #[command(flatten)]
    pub server: ServerArgs,
    /// Colour theme: default, light, high-contrast, or a path to a theme .toml file.
    /// NO_COLOR=1 turns colours off.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    #[command(flatten)]
    pub watch: watching::WatchArgs,
    /// With --watch: run the last call again after each restart, and say how its result
    /// changed (Alt-W in the app turns it on and off).
    #[arg(long, requires = "targets")]
    pub watch_run: bool,
    #[command(flatten)]
    pub evals: app_evals::AppEvalArgs,
}

// Parsed once per process, so the size of the `call` variant costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the tools in the catalog (files, or a live server's own tools).
    List {
        #[command(flatten)]
        sources: Sources,
        #[command(flatten)]
        server: ServerArgs,
        /// Print a JSON array of the normalised tools (a snapshot that loads back as a
        /// definition file).
        #[arg(long)]
        json: bool,
        /// Print the tools' ids, one a line (for shell completion).
        #[arg(long, hide = true, conflicts_with = "json")]
        ids: bool,
        #[command(flatten)]
        watch: watching::WatchArgs,
    },
    /// Call a tool once and print the normalised outcome as JSON.
    ///
    /// Exit 0 for a value, nothing or an artifact; 1 for a tool error; 2 for a usage error; 3 for
    /// invalid arguments; 4 when authorization is required; 5 for a transport or protocol failure;
    /// with --strict, 6 for a protocol deviation (output-schema violation, content of an unknown
    /// kind).
    Call(call::CallArgs),
    /// Run saved test cases (YAML or JSON case files) and report which pass.
    ///
    /// Exit 0 when all pass, 1 when any fails, 2 when a case file has a problem (its other
    /// cases still run).
    Test(test::TestArgs),
    /// Run the built-in demo server (answers for the sample tools) for other clients, or serve a
    /// proxy's record back (`--record FILE`).
    ServeMock(serve_mock::ServeArgs),
    /// Stand between a real MCP client and its server: every message passes unchanged, and is
    /// kept in a record (`--record`) or as test cases (`--save-cases`).
    ///
    /// In a client's config, `tooldeck proxy --record FILE -- COMMAND ARGS` replaces `COMMAND
    /// ARGS`; `--listen HOST:PORT` serves Streamable HTTP. Exit: the server's own code (stdio);
    /// 2 for a usage error; 5 when the server cannot be started or the address listened on.
    Proxy(proxy::ProxyArgs),
    /// Watch a running proxy live in the app, or open a record it saved: its traffic in the
    /// traffic pane, its server's tools in the list, a call put back in the form (Enter) to run
    /// again on tooldeck's own connection. With no NAME, list the running proxies.
    ///
    /// Exit 0 when listed or the app was left; 2 for no such proxy (or another user's); 5 when
    /// the proxy does not answer.
    Attach(attach::AttachArgs),
    /// Check definition files (or a live server's tools) and report every problem; exit 1 when
    /// there is an error, 5 when the server cannot be reached.
    Check {
        #[command(flatten)]
        sources: Sources,
        #[command(flatten)]
        server: ServerArgs,
        /// Print {"tools": N, "errors": [...], "warnings": [...]}.
        #[arg(long)]
        json: bool,
    },
    /// Check tool definitions against PIE's tool-parameter guidance, themselves, and what OpenAI,
    /// Anthropic, Gemini and MCP accept; estimate their context cost.
    ///
    /// Exit 0 without error findings, 1 with some, 2 for a usage error, 5 when the server
    /// cannot be reached.
    Lint(lint::LintArgs),
    /// Compare two catalogs (files, `list --json` snapshots or servers): tools added and removed,
    /// and each changed tool's changes, breaking for callers or not.
    ///
    /// Exit 0 with no breaking change, 1 with one (any change with `--fail-on any`), 2 for a
    /// usage error, 5 when a server cannot be reached.
    Diff(diff::DiffArgs),
    /// Test a server's tools with arguments made from their own schemas (examples, coverage,
    /// random valid and invalid input); shrink each failure and print a reproducer.
    ///
    /// Exit 0 with no bug (notes alone do not fail it, unless --strict), 1 with some, 2 for a
    /// usage error, 5 when the server cannot be reached or started again.
    Fuzz(fuzz::FuzzArgs),
    /// Does a model use the server's tools right? Each case's prompt goes to a model that sees
    /// the tools; its calls run on the server and are judged by the tools' schemas, scored over
    /// iterations. Cassettes replay a run with no model and no key; `eval compare` ties a drop
    /// in score to the definition change behind it.
    ///
    /// Exit 0 when every case is at or above its min_pass_rate, 1 below, 2 for a bad file or a
    /// replay that no longer matches its recording, 5 when the server cannot be reached.
    Eval(eval::EvalArgs),
    /// Sign in to an MCP server over HTTP (OAuth), show the tokens kept, or forget them.
    ///
    /// Exit 0 when done, 2 for a usage error, 4 when signing in failed.
    #[command(subcommand)]
    Auth(auth::AuthCommand),
    /// List an MCP server's resources and resource templates.
    ///
    /// Exit 0 when listed, 2 for a usage error, 4 when authorization is required, 5 when the
    /// server cannot be reached.
    Resources(resources::ResourcesArgs),
    /// Read one resource of an MCP server: text is printed, binary saved with --output.
    ///
    /// Exit 0 when read; 1 when the server refused (no such resource); 2 for a usage error; 4
    /// when authorization is required; 5 when the server cannot be reached.
    Read(resources::ReadArgs),
    /// List an MCP server's prompts and their arguments (* marks a required one).
    ///
    /// Exit codes as `resources`.
    Prompts(prompts::PromptsArgs),
    /// Get one prompt of an MCP server with its arguments and print its messages.
    ///
    /// Exit 0 when got; 1 when the server refused; 2 for a usage error (no such prompt); 3 for a
    /// missing required argument; 4 when authorization is required; 5 when the server cannot
    /// be reached.
    Prompt(prompts::PromptArgs),
    /// List the MCP servers in tooldeck's config and in the configs of Claude Desktop, Claude
    /// Code, Cursor, VS Code, Windsurf, Gemini CLI and Codex, each with where it was found;
    /// `--server NAME` picks one in every command that connects.
    Servers(servers::ServersArgs),
    /// Host a tool's MCP App in the browser: call the tool, serve its ui:// view on loopback in
    /// a sandbox, and carry out what the view asks through the session, one line each, until
    /// Ctrl-C.
    ///
    /// Exit 0 when ended, 1 when the view cannot be read or is no app, 2 for a usage error (no
    /// such tool, a tool without an app), 5 when the server cannot be reached.
    App(app_host::AppArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    ///
    /// `tooldeck completions bash > ~/.local/share/bash-completion/completions/tooldeck`; bash,
    /// zsh and fish also complete `tooldeck call TOOL` with the catalog's tool ids.
    Completions(completions::CompletionsArgs),
}

#[derive(Debug, Args, Clone)]
pub struct Sources {
    /// Definition files or folders (searched recursively), or - for standard input.
    /// With none, the built-in sample tools.
    pub paths: Vec<PathBuf>,
    /// Read every file as this format instead of detecting it:
    /// jsonschema, openai, mcp, genaiscript, gloodata, otc, marketplace.
    #[arg(long, value_name = "NAME", value_parser = parse_format)]
    pub format: Option<Format>,
}

/// A `--format` name that is none of the formats.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format \"{0}\"; expected one of {names}", names = format_names())]
pub struct UnknownFormat(String);

fn format_names() -> String {
    Format::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
}

fn parse_format(name: &str) -> Result<Format, UnknownFormat> {
    Format::from_name(name).ok_or_else(|| UnknownFormat(name.to_string()))
}

impl Sources {
    pub fn load(&self) -> Loaded {
        self.load_reporting(&|_| {})
    }

    /// [`Sources::load`], telling `report` how far it has come (the app's loading screen).
    pub fn load_reporting(&self, report: &(dyn Fn(crate::catalog::LoadProgress) + Sync)) -> Loaded {
        let options = LoadOptions { format: self.format, ..LoadOptions::default() };
        match self.paths.is_empty() {
            true => load_samples(&options),
            false => crate::catalog::load_paths_reporting(&self.paths, &options, report),
        }
    }
}

/// Parses the command line and runs what it asks for.
pub fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli.server.note_order(&matches);
    if let (Some(Command::Attach(args)), Some(("attach", sub))) = (cli.command.as_mut(), matches.subcommand()) {
        args.server.note_order(sub);
    }
    if cli.command.is_some() && cli.has_app_options() {
        // They would be silently ignored: say where they go instead.
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "options and paths go after the subcommand (tooldeck call TOOL --mcp ..., tooldeck list PATHS)",
            )
            .exit();
    }
    if let Some(server) = cli.command.as_ref().and_then(Command::server_args)
        && server.servers_named() > 1
    {
        // Said with the command's own usage, not the app's.
        let mut command = Cli::command();
        let name = matches.subcommand_name().unwrap_or_default().to_string();
        command
            .find_subcommand_mut(&name)
            .cloned()
            .unwrap_or(command)
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "name one server (--mcp, --mcp-url, --endpoint or --server); the app takes several",
            )
            .exit();
    }
    let code = run(cli);
    // Servers being ended (dropped on the way out) are gone before tooldeck is.
    crate::invoke::mcp::process::wait_for_endings();
    code
}

impl Command {
    /// The server options of a command that talks to one server.
    fn server_args(&self) -> Option<&ServerArgs> {
        match self {
            Command::List { server, .. } | Command::Check { server, .. } => Some(server),
            Command::Call(args) => Some(&args.server),
            Command::Test(args) => Some(&args.server),
            Command::Lint(args) => Some(&args.server),
            Command::App(args) => Some(&args.server),
            _ => None,
        }
    }
}

impl Cli {
    /// True when the app's own options or paths were given (before any subcommand).
    fn has_app_options(&self) -> bool {
        !self.sources.paths.is_empty()
            || self.sources.format.is_some()
            || self.theme.is_some()
            || !self.watch.targets.is_empty()
            || self.evals.given()
            || self.server.servers_named() > 0
            || self.server.shared_options() != EndpointOptions::default()
    }
}

pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        None => {
            return app::run(
                &cli.sources,
                &cli.server.options_each(),
                &cli.server.shared_options(),
                cli.theme.as_deref(),
                (&cli.watch.targets, cli.watch_run),
                &cli.evals,
            );
        }
        Some(Command::List { sources, server, json, ids, watch }) if !watch.targets.is_empty() => {
            // Listed again after each change: the server restarted, or connected to again; what
            // changed since the listing before is said first, on stderr.
            let mut before = None;
            return watching::rerun(&watch.targets, || {
                let loaded = load(&sources, &server)?;
                list::say_changes(before.replace(loaded.catalog.clone()).as_ref(), &loaded.catalog);
                let listed = if ids { list::ids(&loaded) } else { list::run(&loaded, json) };
                let listed = listed.map_err(|e| Failure::failed(e.to_string()));
                listed.map(|_| exit::OK)
            });
        }
        Some(Command::List { sources, server, json, ids, .. }) => match load(&sources, &server) {
            Ok(loaded) if ids => left_to_the_os(loaded, list::ids),
            Ok(loaded) => left_to_the_os(loaded, |loaded| list::run(loaded, json)),
            Err(failure) => return failure.report(),
        },
        Some(Command::Check { sources, server, json }) => match load(&sources, &server) {
            Ok(loaded) => left_to_the_os(loaded, |loaded| check::run(loaded, json)),
            Err(failure) => return failure.report(),
        },
        Some(Command::Call(args)) => return call::run(args),
        Some(Command::ServeMock(args)) => return serve_mock::run(&args),
        Some(Command::Proxy(args)) => return proxy::run(args),
        Some(Command::Attach(args)) => return attach::run(&args),
        Some(Command::Test(args)) => return test::run(args),
        Some(Command::Lint(args)) => return lint::run(&args),
        Some(Command::Diff(args)) => return diff::run(&args),
        Some(Command::Fuzz(args)) => return fuzz::run(args),
        Some(Command::Eval(args)) => return eval::run(args),
        Some(Command::Auth(command)) => return auth::run(command),
        Some(Command::Resources(args)) => return resources::run_resources(&args),
        Some(Command::Read(args)) => return resources::run_read(&args),
        Some(Command::Prompts(args)) => return prompts::run_prompts(&args),
        Some(Command::Prompt(args)) => return prompts::run_prompt(&args),
        Some(Command::Servers(args)) => servers::run(&args),
        Some(Command::App(args)) => return app_host::run(args),
        Some(Command::Completions(args)) => {
            use std::io::Write as _;
            std::io::stdout().write_all(completions::script(args.shell).as_bytes()).map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        // A closed pipe (`tooldeck list | head`) is not an error worth a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => Failure::failed(e.to_string()).report(),
    }
}

/// The files named, and a named server's own tools after them; why not as the exit code, said
/// on stderr (2 for usage, 5 for a server that cannot be reached or listed).
/// Runs `report` on a catalog the process has no further use for, then leaves its memory to the
/// operating system, which takes it back at once when the process ends: freeing a catalog of
/// 69,000 tools value by value took most of a second of `list`'s time.
fn left_to_the_os(loaded: Loaded, report: impl FnOnce(&Loaded) -> io::Result<ExitCode>) -> io::Result<ExitCode> {
    let outcome = report(&loaded);
    std::mem::forget(loaded);
    outcome
}

fn load(sources: &Sources, server: &ServerArgs) -> Result<Loaded, Failure> {
    let options = server.options();
    if !options.names_a_server() {
        return Ok(sources.load());
    }
    // A failure is said line by line, each made visible (`Failure::report`), as `call` says it.
    let options = options.resolve()?;
    let headers = crate::invoke::endpoint::parse_headers(&options.headers)?;
    let runtime = tokio_runtime().map_err(|e| Failure::transport(format!("cannot start: {e}")))?;
    let mut loaded = if sources.paths.is_empty() { Loaded::default() } else { sources.load() };
    let listed = runtime.block_on(async {
        let endpoint = options.connect(headers, None).await?;
        // A label may hold a secret (`--api-key=S` in the command, a URL's password); a server
        // found by name is called by its name.
        let label = match &options.name {
            Some(name) => name.clone(),
            None => crate::redact::command(&endpoint.label()),
        };
        // Every diagnostic is shown: the meta-schema check is on.
        let listed = crate::invoke::endpoint::list_catalog(&endpoint, &label, &LoadOptions::default()).await;
        warn_of_stray_stdout(&endpoint);
        endpoint.close().await;
        listed
    });
    let (tools, diagnostics) = listed?;
    for tool in tools {
        if loaded.catalog.get(&tool.id).is_none() {
            loaded.catalog.add(tool);
        }
    }
    loaded.diagnostics.extend(diagnostics);
    loaded.files += 1;
    Ok(loaded)
}

/// A stdio server that wrote to stdout what is not JSON-RPC (a banner, a log line) is said once,
/// on stderr: it works here, and breaks clients that read stdout strictly.
pub fn warn_of_stray_stdout(endpoint: &crate::invoke::Endpoint) {
    if let Some(line) = endpoint.stray_stdout() {
        report!("tooldeck: warning: {}", crate::invoke::mcp::events::stray_words(&line));
    }
}

/// The async runtime every command that talks to servers runs on: two workers, as the machines
/// we target have few cores and the UI needs only one.
pub fn tokio_runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
}

/// Where calls go, as the command line says it (`tooldeck`, `call` and `test` take the same).
#[derive(Debug, Args, Clone, Default)]
pub struct ServerArgs {
    /// An Open Tool Calling server (http or https), or the name of a server in a config file.
    /// With no server at all, commands that call tools use the built-in demo server. Repeated,
    /// the app opens each side by side; other commands talk to one.
    #[arg(long, value_name = "URL|NAME")]
    pub endpoint: Vec<String>,
    /// A server by the name tooldeck's config or another client's gives it (Claude Desktop,
    /// Claude Code, Cursor, VS Code, Windsurf, Gemini CLI, Codex; `tooldeck servers` lists
    /// them); CLIENT:NAME when several configs use the name. Repeated, the app opens each side
    /// by side; other commands talk to one.
    #[arg(long, value_name = "NAME")]
    pub server: Vec<String>,
    /// Path of the call endpoint [default: /tools/call] (older servers use /execute).
    #[arg(long, value_name = "PATH")]
    pub call_path: Option<String>,
    /// An extra HTTP header, `Name: value` (repeatable). `${ENV}` in the value is expanded.
    #[arg(long = "header", value_name = "K:V")]
    pub headers: Vec<String>,
    /// Seconds to wait for an answer [default: 60].
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// An MCP server to start and talk to over stdio, e.g. 'node server.js --port 0'. Repeated,
    /// the app opens each side by side; other commands talk to one.
    #[arg(long, value_name = "COMMAND ARGS")]
    pub mcp: Vec<String>,
    /// An MCP server over Streamable HTTP. Repeated, the app opens each side by side; other
    /// commands talk to one.
    #[arg(long, value_name = "URL")]
    pub mcp_url: Vec<String>,
    /// The config file with named endpoints (default: ~/.config/tooldeck/config.toml);
    /// `--endpoint NAME` picks one.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// A root offered to an MCP server (`roots/list`), a directory or a file:// URI (repeatable).
    #[arg(long = "root", value_name = "PATH")]
    pub roots: Vec<String>,
    /// Pin the MCP protocol revision (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25,
    /// 2026-07-28) [default: the newest the server speaks].
    #[arg(long, value_name = "VERSION")]
    pub protocol: Option<String>,
    /// Seconds a whole MCP call may take, however much progress it reports (--timeout is the
    /// silence allowed, and each progress report restarts it).
    #[arg(long, value_name = "SECS")]
    pub max_time: Option<u64>,
    #[command(flatten)]
    pub oauth: auth::OAuthArgs,
    /// Where each server flag stood on the command line, in [`ServerArgs::options_each`]'s
    /// order before sorting (`--mcp`s, `--mcp-url`s, `--endpoint`s, `--server`s): filled from
    /// clap's matches by [`ServerArgs::note_order`], so the servers open in the order named.
    #[arg(skip)]
    pub positions: Vec<usize>,
}

impl ServerArgs {
    /// Keeps where each server flag stood in `matches` (the command's own matches).
    pub fn note_order(&mut self, matches: &clap::ArgMatches) {
        let at = |id: &str| -> Vec<usize> {
            match matches.try_get_raw(id) {
                Ok(Some(_)) => matches.indices_of(id).map(Iterator::collect).unwrap_or_default(),
                _ => Vec::new(),
            }
        };
        self.positions = ["mcp", "mcp_url", "endpoint", "server"].into_iter().flat_map(at).collect();
    }

    /// How many servers are named (a headless command talks to one).
    pub fn servers_named(&self) -> usize {
        self.endpoint.len() + self.server.len() + self.mcp.len() + self.mcp_url.len()
    }

    /// The one server a headless command talks to (the first named, once [`Cli`] has checked
    /// there is at most one).
    pub fn options(&self) -> EndpointOptions {
        self.options_each().into_iter().next().unwrap_or_else(|| self.shared_options())
    }

    /// Each server named, in the order of the flags' kinds, with the options they share.
    pub fn options_each(&self) -> Vec<EndpointOptions> {
        let shared = self.shared_options();
        let one = |edit: &dyn Fn(&mut EndpointOptions)| {
            let mut options = shared.clone();
            edit(&mut options);
            options
        };
        let mut each = Vec::new();
        each.extend(self.mcp.iter().map(|c| one(&|o| o.mcp = Some(c.clone()))));
        each.extend(self.mcp_url.iter().map(|u| one(&|o| o.mcp_url = Some(u.clone()))));
        each.extend(self.endpoint.iter().map(|e| one(&|o| o.endpoint = Some(e.clone()))));
        each.extend(self.server.iter().map(|n| one(&|o| o.server = Some(n.clone()))));
        if self.positions.len() == each.len() {
            let mut placed: Vec<(usize, EndpointOptions)> = self.positions.iter().copied().zip(each).collect();
            placed.sort_by_key(|(position, _)| *position);
            return placed.into_iter().map(|(_, options)| options).collect();
        }
        each
    }

    /// The options every server named shares (headers, timeouts, roots, the config file).
    pub fn shared_options(&self) -> EndpointOptions {
        EndpointOptions {
            endpoint: None,
            call_path: self.call_path.clone(),
            headers: self.headers.clone(),
            timeout: self.timeout,
            mcp: None,
            mcp_url: None,
            config: self.config.clone(),
            secret_headers: Vec::new(),
            roots: self.roots.clone(),
            protocol: self.protocol.clone(),
            max_time: self.max_time,
            answers: Default::default(),
            oauth: self.oauth.options(),
            ..EndpointOptions::default()
        }
    }
}

fn count_problems(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!("{}, {}", plural(errors, "error"), plural(warnings, "warning"))
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches};

    use super::*;

    /// Servers open in the order they were named, whatever their kinds.
    #[test]
    fn servers_are_taken_in_the_order_named() {
        let args = ["tooldeck", "--mcp", "a", "--mcp-url", "http://u/mcp", "--server", "s", "--mcp", "b"];
        let matches = Cli::command().try_get_matches_from(args).expect("parses");
        let mut cli = Cli::from_arg_matches(&matches).expect("parses");
        cli.server.note_order(&matches);
        let named: Vec<String> = cli
            .server
            .options_each()
            .into_iter()
            .map(|o| o.mcp.or(o.mcp_url).or(o.server).unwrap_or_default())
            .collect();
        assert_eq!(named, ["a", "http://u/mcp", "s", "b"]);
    }
}
