//! The command line: the app (default) and the headless commands.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::json;

use crate::catalog::{Format, LoadOptions, Loaded, Tool, load_paths, load_samples};
use crate::invoke::mock::MockServer;
use crate::text::{truncate, visible, width};

/// Like `eprintln!`, but a closed stderr (the terminal went away) is no reason to panic.
macro_rules! report {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

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
    pub endpoint: crate::call::EndpointOptions,
    /// Colour theme: default, light, high-contrast, or a path to a theme .toml file.
    /// NO_COLOR=1 turns colours off.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
}

// Parsed once per process, so the size of the `call` variant costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the tools in the catalog.
    List {
        #[command(flatten)]
        sources: Sources,
        /// Print a JSON array of the normalised tools.
        #[arg(long)]
        json: bool,
    },
    #[command(about = CALL_ABOUT, long_about = CALL_LONG_ABOUT)]
    Call(crate::call::CallArgs),
    /// Run saved test cases (YAML or JSON case files) and report which pass.
    ///
    /// Exit 0 when all pass, 1 when any fails, 2 when a case file has a problem (its other
    /// cases still run).
    Test(crate::cases::TestArgs),
    /// Run the built-in demo server (answers for the sample tools) for other clients.
    ServeMock(ServeArgs),
    /// Check definition files and report every problem; exit 1 when there is an error.
    Check {
        #[command(flatten)]
        sources: Sources,
        /// Print {"tools": N, "errors": [...], "warnings": [...]}.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
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

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format \"{name}\"; expected one of {}", names.join(", "))
    })
}

impl Sources {
    pub fn load(&self) -> Loaded {
        let options = LoadOptions { format: self.format, ..LoadOptions::default() };
        if self.paths.is_empty() { load_samples(&options) } else { load_paths(&self.paths, &options) }
    }
}

const CALL_ABOUT: &str = "Call a tool once and print the normalised outcome as JSON";
const CALL_LONG_ABOUT: &str = "Call a tool once and print the normalised outcome as JSON.

Exit 0 for a value, nothing or an artifact; 1 for a tool error; 2 for a usage error; 3 for invalid
arguments; 4 when authorization is required; 5 for a transport or protocol failure.";

/// The command line of `tooldeck call …` alone. Calls are scripted, often in loops, and clap
/// builds every argument of every command it is given before parsing; building only the call's
/// takes a fifth off the first parse (measured: 90 → 72 page faults, ~300 → ~240 µs).
#[derive(Debug, Parser)]
#[command(name = "tooldeck", version)]
struct CallCommandLine {
    #[command(subcommand)]
    command: CallCommand,
}

#[derive(Debug, Subcommand)]
enum CallCommand {
    #[command(about = CALL_ABOUT, long_about = CALL_LONG_ABOUT)]
    Call(crate::call::CallArgs),
}

/// Parses the command line and runs what it asks for (`call` ends the process itself).
pub fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|first| first == "call") {
        let CallCommandLine { command: CallCommand::Call(args) } = CallCommandLine::parse();
        crate::call::run_and_exit(args);
    }
    run(Cli::parse())
}

pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        None => return app(&cli.sources, &cli.endpoint, cli.theme.as_deref()),
        Some(Command::List { sources, json }) => list(&sources, json),
        Some(Command::Check { sources, json }) => check(&sources, json),
        Some(Command::Call(args)) => return crate::call::run(args),
        Some(Command::ServeMock(args)) => return serve_mock(&args),
        Some(Command::Test(args)) => return crate::cases::command::run(args),
    };
    match result {
        Ok(code) => code,
        // A closed pipe (`tooldeck list | head`) is not an error worth a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report!("tooldeck: {e}");
            ExitCode::from(1)
        }
    }
}

/// `tooldeck serve-mock`: the demo server in the foreground until Ctrl-C.
fn serve_mock(args: &ServeArgs) -> ExitCode {
    let runtime = match tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            report!("tooldeck: cannot start: {e}");
            return ExitCode::from(1);
        }
    };
    let catalog = load_samples(&LoadOptions::default()).catalog;
    let served = runtime.block_on(crate::invoke::mock::serve_forever(catalog, args.port, |server| {
        println!("tooldeck demo server on {} (Ctrl-C stops it)", server.url());
        println!("  GET  {}/tools", server.url());
        println!("  POST {}/tools/call", server.url());
    }));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report!("tooldeck: cannot serve on 127.0.0.1:{}: {e}", args.port);
            ExitCode::from(1)
        }
    }
}

/// The async runtime every command that talks to servers runs on: two workers, as the machines
/// we target have few cores and the UI needs only one.
pub fn tokio_runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
}

/// The terminal app.
fn app(sources: &Sources, endpoint: &crate::call::EndpointOptions, theme: Option<&str>) -> ExitCode {
    use std::io::IsTerminal;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let styles = match crate::theme::load(theme, no_color) {
        Ok(styles) => styles,
        Err(e) => {
            report!("tooldeck: {e}");
            return ExitCode::from(2);
        }
    };
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        report!("tooldeck: the app needs a terminal; `tooldeck list` and `tooldeck check` work without one");
        return ExitCode::from(2);
    }
    let endpoint = match endpoint.resolve() {
        Ok(endpoint) => endpoint,
        Err(e) => {
            report!("tooldeck: {e}");
            return ExitCode::from(2);
        }
    };
    let headers = match crate::call::parse_headers(&endpoint.headers) {
        Ok(headers) => headers,
        Err(e) => {
            report!("tooldeck: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            report!("tooldeck: cannot start: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async {
        // Without a server named, the built-in demo server answers (it lives as long as the app).
        let demo = match endpoint.names_a_server() {
            true => None,
            false => Some(MockServer::start(load_samples(&LoadOptions::default()).catalog, 0).await?),
        };
        let connected = endpoint
            .connect(headers, demo.as_ref().map(|d| d.url()))
            .await
            .map_err(|e| io::Error::other(e.to_string()))?;
        // A named server brings its own tools; the samples are only for the demo server.
        let loaded =
            if endpoint.names_a_server() && sources.paths.is_empty() { Loaded::default() } else { sources.load() };
        let size = crossterm::terminal::size().unwrap_or((80, 24));
        let mut app = crate::app::App::new(loaded.catalog, &loaded.diagnostics, size);
        if endpoint.names_a_server() {
            server_tools_into(&mut app, &connected).await;
        }
        app.endpoint = match &demo {
            Some(server) => format!("demo server {}", server.url()),
            None => connected.label(),
        };
        crate::runtime::run(app, styles, connected).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report!("tooldeck: {e}");
            ExitCode::from(1)
        }
    }
}

/// The server's own tools join the app's catalog. A server that wants a token first gets a
/// prompt for one as soon as the app opens; other failures are said in the status bar, where
/// the user sees them (stderr is hidden behind the app's screen).
async fn server_tools_into(app: &mut crate::app::App, endpoint: &crate::invoke::Endpoint) {
    use crate::invoke::InvokeError;
    let listed = endpoint.list_tools().await;
    match listed {
        Err(InvokeError::Unauthorized { url, challenge }) => {
            crate::app::run::server_wants_token(app, &url, challenge.as_deref())
        }
        listed => {
            let label = endpoint.label();
            let tools = listed.map(|text| crate::call::server_tools(&label, &text)).map_err(|e| e.to_string());
            crate::app::run::server_tools(app, &label, tools)
        }
    }
}

fn list(sources: &Sources, as_json: bool) -> io::Result<ExitCode> {
    let loaded = sources.load();
    let mut out = io::BufWriter::new(io::stdout().lock());
    if as_json {
        serde_json::to_writer_pretty(&mut out, loaded.catalog.tools())?;
        writeln!(out)?;
    } else {
        write_table(&mut out, loaded.catalog.tools())?;
    }
    out.flush()?;
    let (errors, warnings) = (loaded.errors().count(), loaded.warnings().count());
    if errors + warnings > 0 {
        report!("{} (run `tooldeck check` to see them)", count_problems(errors, warnings));
    }
    Ok(ExitCode::SUCCESS)
}

fn write_table(out: &mut impl Write, tools: &[Tool]) -> io::Result<()> {
    if tools.is_empty() {
        return writeln!(out, "no tools");
    }
    let rows: Vec<[String; 5]> = tools
        .iter()
        .map(|t| {
            [
                visible(&t.id).into_owned(),
                truncate(&visible(t.display_title()), 40).into_owned(),
                t.format.to_string(),
                t.parameter_count().to_string(),
                visible(&t.source.to_string()).into_owned(),
            ]
        })
        .collect();
    let headers = ["ID", "TITLE", "FORMAT", "PARAMS", "SOURCE"];
    let mut widths = headers.map(width);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let line = |cells: [&str; 5]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(width(cell));
            if i == 3 {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                if i < 4 {
                    text.push_str(&" ".repeat(pad));
                }
            }
            if i < 4 {
                text.push_str("  ");
            }
        }
        text
    };
    writeln!(out, "{}", line(headers))?;
    for row in &rows {
        writeln!(out, "{}", line([&row[0], &row[1], &row[2], &row[3], &row[4]]))?;
    }
    Ok(())
}

fn check(sources: &Sources, as_json: bool) -> io::Result<ExitCode> {
    let loaded = sources.load();
    let mut out = io::BufWriter::new(io::stdout().lock());
    if as_json {
        let report = json!({
            "tools": loaded.catalog.len(),
            "errors": loaded.errors().collect::<Vec<_>>(),
            "warnings": loaded.warnings().collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for diagnostic in &loaded.diagnostics {
            writeln!(out, "{}", visible(&diagnostic.to_string()))?;
        }
        let (errors, warnings) = (loaded.errors().count(), loaded.warnings().count());
        writeln!(
            out,
            "checked {} {}: {} {}, {}",
            loaded.files,
            if loaded.files == 1 { "file" } else { "files" },
            loaded.catalog.len(),
            if loaded.catalog.len() == 1 { "tool" } else { "tools" },
            count_problems(errors, warnings)
        )?;
    }
    out.flush()?;
    Ok(if loaded.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn count_problems(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!("{}, {}", plural(errors, "error"), plural(warnings, "warning"))
}
