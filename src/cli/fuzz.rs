//! `tooldeck fuzz [TOOL...]`: a server's tools called with arguments made from their own
//! schemas; every kind of failure shrunk, reported with a reproducer, optionally saved as cases.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use clap::Args;

use super::exit;
use super::{ServerArgs, Sources};
use crate::catalog::{Catalog, LoadOptions, Tool, load_samples};
use crate::fuzz::{Progress, Report, Settings};
use crate::invoke::Endpoint;
use crate::invoke::endpoint::{EndpointOptions, merge_server_tools, parse_headers, parse_tokens};

/// Exit code when the run found a bug (or, with `--strict`, a note).
const FOUND: u8 = 1;

#[derive(Debug, Args, Clone)]
pub struct FuzzArgs {
    /// The tools to fuzz (ids or names); with none, every tool the server lists.
    #[arg(value_name = "TOOL")]
    pub tools: Vec<String>,
    /// The tools to fuzz, comma-separated (the same as naming them).
    #[arg(long = "tools", value_name = "TOOL,...", value_delimiter = ',')]
    pub tool_list: Vec<String>,
    /// Definition files for the tools (a server that lists its own needs none).
    #[arg(long = "defs", value_name = "PATH")]
    pub defs: Vec<PathBuf>,
    #[command(flatten)]
    pub server: ServerArgs,
    /// A token for an authorization provider, `PROVIDER=TOKEN` (repeatable).
    #[arg(long = "token", value_name = "PROVIDER=TOKEN")]
    pub tokens: Vec<String>,
    /// The seed for the random phases: the same seed, server and tools give the same calls and
    /// the same shrunk inputs [default: from the clock, printed at the end].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Calls per tool for the examples, coverage, random valid and random invalid phases
    /// (shrinking comes on top).
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub max_calls: usize,
    /// Stop the whole run after this many seconds (findings so far are reported).
    #[arg(long, value_name = "SECS")]
    pub time: Option<u64>,
    /// Calls in flight at once [default: 1 for a stdio server, 4 otherwise].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// An answer slower than this many milliseconds is a `slow` finding.
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub slow: u64,
    /// Also call tools marked destructive (and, on a remote server, tools that do not say).
    #[arg(long)]
    pub include_destructive: bool,
    /// Only tools marked `readOnlyHint: true` (a tool that does not say may write: create
    /// files, add records).
    #[arg(long)]
    pub read_only: bool,
    /// Leave these tools out (ids or names; repeatable or comma-separated).
    #[arg(long, value_name = "TOOL", value_delimiter = ',')]
    pub exclude: Vec<String>,
    /// Set a field to a known value in every input, to get past a state check: FIELD=VALUE
    /// for every tool that declares FIELD, TOOL.FIELD=VALUE for one tool; VALUE is JSON when
    /// it reads as JSON, else text (repeatable).
    #[arg(long, value_name = "FIELD=VALUE")]
    pub pin: Vec<String>,
    /// Print the report as JSON (findings with tool, kind, severity, arguments, message; calls; seed).
    #[arg(long)]
    pub json: bool,
    /// Notes count as bugs: the run fails with a note alone (a rule the schema does not express,
    /// an error answered as a success, a line on stdout that is not JSON-RPC), and
    /// `--save-cases` saves them too.
    #[arg(long)]
    pub strict: bool,
    /// Also write the report as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Append each finding to FILE as a case `tooldeck test` runs; it fails while the bug is
    /// there and passes once it is fixed.
    #[arg(long, value_name = "FILE")]
    pub save_cases: Option<PathBuf>,
    /// Start from the arguments real clients sent: each tools/call of a record (`tooldeck proxy
    /// --record`) or each case of a case file, tried first for its tool.
    #[arg(long, value_name = "FILE")]
    pub seed_from: Option<PathBuf>,
    #[command(flatten)]
    pub watch: super::watching::WatchArgs,
}

pub fn run(args: FuzzArgs) -> ExitCode {
    if args.watch.targets.is_empty() {
        return exit::code(run_for_code(&args, None));
    }
    // `--watch`: the fuzz runs again after each change; each report opens with the findings
    // that are new since the run before and those gone.
    let mut seen = Seen::default();
    super::watching::rerun(&args.watch.targets, || Ok(run_for_code(&args, Some(&mut seen))))
}

/// `fuzz --watch`: the causes the run before found (by tool, kind and message made alike), to
/// say which findings are new and which are gone.
#[derive(Default)]
struct Seen {
    /// `None` before the first run ends: the first report has nothing to be held against.
    before: Option<Vec<(String, String)>>,
}

impl Seen {
    /// The lines that open a report: `new:` and `gone:` findings since the run before.
    fn news(&mut self, report: &Report) -> String {
        let now: Vec<(String, String)> = report
            .findings
            .iter()
            .map(|f| (f.tool.clone(), format!("{} · {}", f.kind.name(), crate::fuzz::shape(&f.message, &f.arguments))))
            .collect();
        let Some(before) = self.before.replace(now.clone()) else { return String::new() };
        let line = |word: &str, (tool, what): &(String, String)| {
            format!("{word} {}: {}\n", crate::text::visible(tool), crate::text::visible(what))
        };
        let mut out = String::new();
        for cause in now.iter().filter(|c| !before.contains(c)) {
            out.push_str(&line("new: ", cause));
        }
        for cause in before.iter().filter(|c| !now.contains(c)) {
            out.push_str(&line("gone:", cause));
        }
        if out.is_empty() {
            out.push_str("the same findings as the run before\n");
        }
        out
    }
}

fn fail(code: u8, message: &str) -> u8 {
    let lines: Vec<String> = message.lines().map(|l| crate::text::visible(l).into_owned()).collect();
    report!("tooldeck: {}", lines.join("\n"));
    code
}

fn run_for_code(args: &FuzzArgs, seen: Option<&mut Seen>) -> u8 {
    let mut options = match args.server.options().resolve() {
        Ok(options) => options,
        Err(e) => return fail(exit::USAGE, &e.to_string()),
    };
    crate::fuzz::cap_call_time(&mut options);
    let headers = match parse_headers(&options.headers) {
        Ok(h) => h,
        Err(e) => return fail(exit::USAGE, &e.to_string()),
    };
    let tokens = match parse_tokens(&args.tokens) {
        Ok(t) => t,
        Err(e) => return fail(exit::USAGE, &e.to_string()),
    };
    let runtime = match super::tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => return fail(exit::TRANSPORT, &format!("cannot start: {e}")),
    };
    let code = runtime.block_on(fuzz(args, &options, headers, &tokens, seen));
    runtime.shutdown_background();
    code
}

async fn fuzz(
    args: &FuzzArgs,
    options: &EndpointOptions,
    headers: Vec<(String, String)>,
    tokens: &[(String, String)],
    seen: Option<&mut Seen>,
) -> u8 {
    let named = options.names_a_server();
    let demo = match named {
        true => None,
        false => match crate::invoke::mock::MockServer::start(load_samples(&LoadOptions::default()).catalog, 0).await {
            Ok(server) => Some(server),
            Err(e) => return fail(exit::TRANSPORT, &format!("cannot start the built-in demo server: {e}")),
        },
    };
    let endpoint = match options.connect(headers, demo.as_ref().map(|d| d.url())).await {
        Ok(endpoint) => endpoint,
        Err(e) => return fail(exit::TRANSPORT, &e.to_string()),
    };
    for (provider, token) in tokens {
        if let Err(e) = endpoint.authorize(provider, token).await {
            endpoint.close().await;
            return fail(exit::AUTHORIZATION_REQUIRED, &e.to_string());
        }
    }
    let code = match tools_to_fuzz(args, named, &endpoint).await.and_then(|tools| seeded(args, tools)) {
        Ok((tools, seeds)) => fuzz_tools(args, options, &endpoint, &tools, seeds, seen).await,
        Err(code) => code,
    };
    endpoint.close().await;
    drop(demo);
    code
}

/// The tools named (or all), from the definition files and the server's own list.
async fn tools_to_fuzz(args: &FuzzArgs, named: bool, endpoint: &Endpoint) -> Result<Vec<Tool>, u8> {
    let sources = Sources { paths: args.defs.clone(), format: None };
    let mut catalog = if named && args.defs.is_empty() { Catalog::default() } else { sources.load().catalog };
    if named && let Err(e) = merge_server_tools(&mut catalog, endpoint).await {
        return Err(fail(exit::TRANSPORT, &format!("cannot list the server's tools: {e}")));
    }
    let wanted: Vec<&String> = args.tools.iter().chain(&args.tool_list).filter(|t| !t.is_empty()).collect();
    let mut tools = Vec::new();
    for name in &args.exclude {
        if catalog.find(name).is_none() {
            return Err(fail(exit::USAGE, &format!("no tool \"{name}\" to exclude (`tooldeck list` shows them)")));
        }
    }
    let excluded = |tool: &Tool| args.exclude.iter().any(|name| *name == tool.id || *name == tool.name);
    if wanted.is_empty() {
        return Ok(catalog.tools().iter().filter(|t| !excluded(t)).cloned().collect());
    }
    for name in wanted {
        match catalog.find(name) {
            Some(tool) if excluded(tool) => {}
            Some(tool) => tools.push(tool.clone()),
            None => return Err(fail(exit::USAGE, &format!("no tool \"{name}\" (`tooldeck list` shows them)"))),
        }
    }
    Ok(tools)
}

/// The most seeds a tool takes from `--seed-from`: a long session does not make one phase endless.
const MAX_SEEDS: usize = 100;

/// `tools` with the arguments of `--seed-from` first among their examples, the phase that runs
/// first.
/// The seeds are also returned by tool name: they are mutated once tried as they came.
fn seeded(args: &FuzzArgs, mut tools: Vec<Tool>) -> Result<(Vec<Tool>, Seeds), u8> {
    let Some(path) = &args.seed_from else { return Ok((tools, Seeds::new())) };
    let seeds = crate::proxy::replay::seeds(path).map_err(|e| fail(exit::USAGE, &e.to_string()))?;
    let mut by_tool = Seeds::new();
    for (name, arguments) in seeds.iter().filter(|(_, arguments)| arguments.is_object()) {
        let mine = by_tool.entry(name.clone()).or_default();
        if mine.len() < MAX_SEEDS && !mine.contains(arguments) {
            mine.push(arguments.clone());
        }
    }
    for tool in &mut tools {
        let mine: Vec<crate::catalog::Example> = seeds
            .iter()
            .filter(|(name, _)| *name == tool.name || *name == tool.id)
            .filter(|(_, arguments)| arguments.is_object())
            .take(MAX_SEEDS)
            .map(|(_, arguments)| crate::catalog::Example::Arguments(arguments.clone()))
            .collect();
        tool.examples.splice(0..0, mine);
    }
    Ok((tools, by_tool))
}

type Seeds = std::collections::HashMap<String, Vec<serde_json::Value>>;

async fn fuzz_tools(
    args: &FuzzArgs,
    options: &EndpointOptions,
    endpoint: &Endpoint,
    tools: &[Tool],
    seeds: Seeds,
    seen: Option<&mut Seen>,
) -> u8 {
    let stdio = options.mcp.is_some();
    let mut pins = Vec::new();
    for text in &args.pin {
        match crate::fuzz::Pin::parse(text) {
            Ok(pin) => pins.push(pin),
            Err(e) => return fail(exit::USAGE, &e.to_string()),
        }
    }
    let settings = Settings {
        seed: args.seed.unwrap_or_else(clock_seed),
        max_calls: args.max_calls,
        time: args.time.map(Duration::from_secs),
        jobs: usize::from(args.jobs.unwrap_or(if stdio { 1 } else { 4 })),
        slow: Duration::from_millis(args.slow),
        include_destructive: args.include_destructive,
        read_only: args.read_only,
        pins,
        local_server: stdio || !options.names_a_server(),
        seeds,
        ..Settings::default()
    };
    warn_of_writes(tools, &settings);
    warn_of_idle_pins(tools, &settings.pins);
    let line = ProgressLine::new(io::stderr().is_terminal());
    let stop = AtomicBool::new(false);
    let mut signals = crate::signals::StopSignals::new().ok();
    let show = |p: &Progress| line.show(p);
    let caller = crate::fuzz::Stoppable { caller: endpoint, cut: tokio_util::sync::CancellationToken::new() };
    let running = crate::fuzz::run(&caller, tools, &settings, &show, &stop);
    tokio::pin!(running);
    let result = tokio::select! {
        result = &mut running => result,
        _ = async { match signals.as_mut() { Some(s) => { s.recv().await; } None => std::future::pending().await } } => {
            // The call in flight is cut short, not judged; the findings so far are reported.
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            caller.cut.cancel();
            running.await
        }
    };
    line.clear();
    let report = match result {
        Ok(report) => report,
        Err(e) => return fail(exit::TRANSPORT, &e.to_string()),
    };
    let news = seen.map(|seen| seen.news(&report)).unwrap_or_default();
    if let Some(code) = write_outputs(args, options, &report, tools, settings.slow, &news) {
        return code;
    }
    match (report.failing(args.strict) == 0, report.server_lost) {
        (false, _) => FOUND,
        (true, true) => exit::TRANSPORT,
        (true, false) => exit::OK,
    }
}

/// Prints the report and writes `--junit` and `--save-cases`; an exit code when one failed.
fn write_outputs(
    args: &FuzzArgs,
    options: &EndpointOptions,
    report: &Report,
    tools: &[Tool],
    slow: Duration,
    news: &str,
) -> Option<u8> {
    let mut out = io::stdout().lock();
    // `--watch`: what is new and what is gone first (not in a JSON report: it stays JSON).
    let news = if args.json { Ok(()) } else { out.write_all(news.as_bytes()) };
    let printed = news.and(if args.json {
        let value = crate::fuzz::report::json(report, options);
        crate::json_out::write_pretty(&mut out, &value).map_err(io::Error::from).and_then(|()| writeln!(out))
    } else {
        out.write_all(crate::fuzz::report::text(report, options).as_bytes())
    });
    if let Err(e) = printed.and_then(|()| out.flush())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        return Some(fail(exit::TRANSPORT, &format!("cannot print the report: {e}")));
    }
    if let Some(path) = &args.junit {
        let written = crate::fuzz::report::junit(report, options)
            .map_err(|e| e.to_string())
            .and_then(|xml| std::fs::write(path, xml).map_err(|e| e.to_string()));
        if let Err(e) = written {
            return Some(fail(exit::USAGE, &format!("cannot write {}: {e}", path.display())));
        }
    }
    if let Some(path) = &args.save_cases {
        let env: Vec<(String, String)> = std::env::vars().collect();
        let server = crate::cases::server_keys::case_server(options, &env);
        let mut to_set: Vec<String> = Vec::new();
        let saved = report
            .findings
            .iter()
            .filter(|f| args.strict || f.severity == crate::fuzz::Severity::Bug)
            .filter(|f| f.kind != crate::fuzz::Kind::StdoutNotJsonRpc);
        for finding in saved {
            let tool = tools.iter().find(|t| t.id == finding.tool);
            let case = crate::fuzz::report::case(finding, tool, slow);
            match crate::cases::record::append_case_for(path, &case, &server.keys) {
                Ok(variables) => to_set.extend(variables),
                Err(e) => return Some(fail(exit::USAGE, &format!("cannot save the cases to {}: {e}", path.display()))),
            }
        }
        to_set.sort();
        to_set.dedup();
        if !to_set.is_empty() {
            report!(
                "tooldeck: the cases name their secrets as {}: set them before `tooldeck test {}`",
                to_set.iter().map(|v| format!("${{{v}}}")).collect::<Vec<_>>().join(", "),
                path.display()
            );
        }
        for name in &server.left_out {
            report!(
                "tooldeck: warning: the header {name} holds a secret and is not saved in the cases; add it as ${{ENV}}"
            );
        }
    }
    None
}

/// A fuzz run calls tools with made-up input: one not marked read-only may create files or
/// records with it. Said at the start, with the way to call only the read-only ones.
fn warn_of_writes(tools: &[Tool], settings: &Settings) {
    let writers: Vec<&str> = tools
        .iter()
        .filter(|t| crate::fuzz::skip_reason(t, settings).is_none() && t.hints().read_only != Some(true))
        .map(|t| t.name.as_str())
        .collect();
    if writers.is_empty() {
        return;
    }
    let shown: Vec<String> = writers.iter().take(8).map(|n| crate::text::visible(n).into_owned()).collect();
    let more = if writers.len() > 8 { format!(" and {} more", writers.len() - 8) } else { String::new() };
    report!(
        "tooldeck: warning: {} not marked read-only may write with made-up input ({}{more}); \
         --read-only calls only tools marked readOnlyHint, --exclude leaves tools out",
        crate::text::plural(writers.len(), "tool"),
        shown.join(", ")
    );
}

/// A pin no tool of the run declares sets nothing: a typo, or a field of a tool left out.
fn warn_of_idle_pins(tools: &[Tool], pins: &[crate::fuzz::Pin]) {
    for pin in pins.iter().filter(|pin| !tools.iter().any(|tool| pin.path_for(tool).is_some())) {
        report!(
            "tooldeck: warning: --pin {} sets nothing: no tool fuzzed declares that field (TOOL.FIELD for one tool, a.b for a nested field)",
            crate::text::visible(pin.key())
        );
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

/// How often a progress line is written when stderr is not a terminal (a log, CI).
const LOG_EVERY: Duration = Duration::from_secs(10);

/// The live line on stderr, redrawn at most ten times a second on a terminal; elsewhere a
/// plain line every ten seconds, so a long run in CI is never silent.
struct ProgressLine {
    live: bool,
    last: Mutex<Option<Instant>>,
}

impl ProgressLine {
    fn new(live: bool) -> ProgressLine {
        ProgressLine { live, last: Mutex::new(None) }
    }

    fn show(&self, progress: &Progress) {
        let Ok(mut last) = self.last.lock() else { return };
        let every = if self.live { Duration::from_millis(100) } else { LOG_EVERY };
        match *last {
            Some(at) if at.elapsed() < every => return,
            // Not a terminal: the first line only after the first ten seconds.
            None if !self.live => {
                *last = Some(Instant::now());
                return;
            }
            _ => {}
        }
        *last = Some(Instant::now());
        let tool = crate::text::truncate(&crate::text::visible(&progress.tool), 40).into_owned();
        let words = format!(
            "fuzz {tool}: {}, {} calls, {} findings, {:.0} calls/s",
            progress.phase.name(),
            progress.calls,
            progress.findings,
            progress.calls_per_second()
        );
        let _ = match self.live {
            true => write!(io::stderr(), "\r\x1b[2K{words}"),
            false => writeln!(io::stderr(), "{words}"),
        };
    }

    fn clear(&self) {
        if self.live {
            let _ = write!(io::stderr(), "\r\x1b[2K");
        }
    }
}
