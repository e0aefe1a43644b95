//! `tooldeck lint`: the lint rules over the catalog, as text, JSON or SARIF; exit 1 when a
//! finding (or a definition that does not load) is an error.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use super::failure::Failure;
use super::{ServerArgs, Sources, exit, load};
use crate::catalog::load::MAX_FILE_BYTES;
use crate::catalog::{Loaded, Severity as LoadSeverity, Tool};
use crate::lint::locate::Locator;
use crate::lint::sarif::{self, Located};
use crate::lint::{Finding, Options, RULES, Report, Severity, Target, lint_catalog, rules};
use crate::text::visible;

#[derive(Debug, Args, Clone)]
pub struct LintArgs {
    #[command(flatten)]
    pub sources: Sources,
    #[command(flatten)]
    pub server: ServerArgs,
    /// Providers to check, comma-separated: openai, openai-strict, anthropic, gemini, mcp.
    /// Named providers' refusals are errors; by default all are checked, as warnings.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = Target::parse)]
    pub target: Vec<Target>,
    /// Switch a rule off (`group/name`, `group/*` or `group`; repeatable).
    #[arg(long = "allow", value_name = "RULE")]
    pub allow: Vec<String>,
    /// Make a rule's findings errors (repeatable).
    #[arg(long = "deny", value_name = "RULE")]
    pub deny: Vec<String>,
    /// Print {"tools", "findings", "load", "summary", "cost"} as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the findings as SARIF 2.1.0 to FILE (- for standard output, instead of text).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Note tools whose definition takes more than N tokens [default: 1500].
    #[arg(long, value_name = "N")]
    pub max_tool_tokens: Option<usize>,
    /// List every finding: without it, findings that matter only to OpenAI's strict mode or to
    /// Gemini's `parameters` field are one note per rule for the whole catalog.
    #[arg(long)]
    pub all: bool,
    /// List the rules, their default severity and where each is documented, and exit.
    #[arg(long)]
    pub rules: bool,
}

/// Why lint's options cannot be read: the config file, or a rule named on the command line.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Rules(#[from] crate::lint::OptionsError),
}

impl From<OptionsError> for Failure {
    fn from(error: OptionsError) -> Failure {
        // One line, whatever the file said.
        Failure::usage(visible(&error.to_string()))
    }
}

pub fn run(args: &LintArgs) -> ExitCode {
    super::failure::finish(lint(args))
}

fn lint(args: &LintArgs) -> Result<ExitCode, Failure> {
    if args.rules {
        return printed(print_rules());
    }
    let options = options(args)?;
    // The tokenizer's table takes a moment to build: build it while the files load.
    let warm = std::thread::spawn(crate::lint::cost::warm_up);
    let loaded = load(&args.sources, &args.server)?;
    let _ = warm.join();
    let mut report = lint_catalog(&loaded.catalog, &options);
    if let Some(served) = served_resources(&args.server, &loaded)? {
        let tools = loaded.catalog.tools();
        report.findings.extend(crate::lint::apps::check_resources(tools, &served, &options));
    }
    let locator = Locator::new(loaded.catalog.tools(), args.sources.format, &read_again);
    let server_named = args.server.options().names_a_server();
    let placed = place(&loaded, &report, &locator, server_named);
    let failed = loaded.has_errors() || report.findings.iter().any(|f| f.severity == Severity::Error);
    let to_stdout = args.sarif.as_deref() == Some(Path::new("-"));
    if let Some(path) = args.sarif.as_deref() {
        let log = sarif_log(&loaded, &placed);
        let written = if to_stdout { write_json(&mut io::stdout().lock(), &log) } else { write_file(path, &log) };
        if let Err(e) = written {
            if e.kind() == io::ErrorKind::BrokenPipe {
                return Ok(ExitCode::SUCCESS);
            }
            return Err(Failure::failed(format!("cannot write {}: {e}", path.display())));
        }
    }
    let outcome = if to_stdout {
        Ok(())
    } else if args.json {
        write_json(&mut io::stdout().lock(), &json_report(&loaded, &report, &placed))
    } else {
        print_text(&loaded, &report, &placed, server_named)
    };
    match printed(outcome) {
        Ok(_) if failed => Ok(exit::code(exit::FAILED)),
        outcome => outcome,
    }
}

/// The server's resources, when a server is named and one of its tools ships an MCP App: the
/// apps rules check that each app's resource is listed, as an app. A server that cannot list
/// them is said as `load` says it.
fn served_resources(server: &ServerArgs, loaded: &Loaded) -> Result<Option<Vec<crate::lint::apps::Served>>, Failure> {
    let options = server.options();
    if !options.names_a_server() || loaded.catalog.tools().iter().all(|t| t.written.app.is_none()) {
        return Ok(None);
    }
    let options = options.resolve()?;
    let headers = crate::invoke::endpoint::parse_headers(&options.headers)?;
    let runtime = super::tokio_runtime().map_err(|e| Failure::transport(format!("cannot start: {e}")))?;
    let listing = runtime.block_on(async {
        let endpoint = options.connect(headers, None).await?;
        let listing = endpoint.list_resources().await;
        endpoint.close().await;
        listing
    });
    let listing = listing.map_err(|e| Failure::transport(visible(&e.to_string()).into_owned()))?;
    let served = listing
        .resources
        .into_iter()
        .map(|r| crate::lint::apps::Served { uri: r.uri, mime_type: r.mime_type })
        .collect();
    Ok(Some(served))
}

/// Printing done; a reader that went away (`| head`) is no failure.
fn printed(result: io::Result<()>) -> Result<ExitCode, Failure> {
    match result {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure::failed(e.to_string())),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The config file's `[lint]`, then the command line on top of it.
fn options(args: &LintArgs) -> Result<Options, OptionsError> {
    let path = args.server.config.clone().or_else(crate::config::default_path);
    let config = match &path {
        Some(path) => crate::config::load(path)?.lint,
        None => Default::default(),
    };
    for pattern in args.allow.iter().chain(&args.deny) {
        rules::check_pattern(pattern)?;
    }
    let mut options = Options::from_config(&config)?;
    if !args.target.is_empty() {
        options.targets = args.target.clone();
        options.targets_chosen = true;
    }
    // The command line wins over the file: a rule it allows is off even if the file raises it,
    // and one it denies is an error even if the file switched it off.
    options.off.retain(|p| !args.deny.contains(p));
    options.off.extend(args.allow.iter().cloned());
    options.error.retain(|p| !args.allow.contains(p));
    options.error.extend(args.deny.iter().cloned());
    options.max_tool_tokens = args.max_tool_tokens.unwrap_or(options.max_tool_tokens);
    options.summarise = !args.all;
    Ok(options)
}

/// A definition file's text, read again to place findings; bounded like the loader's reads.
fn read_again(path: &str) -> Option<String> {
    let bytes = crate::files::read_bounded(std::path::Path::new(path), MAX_FILE_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

/// A finding with the place it is shown at.
struct Placed<'a> {
    finding: &'a Finding,
    tool: &'a Tool,
    /// `path:line:column`, or the tool's name for a tool a server listed.
    at: String,
    path: String,
    line: usize,
    column: usize,
    from_file: bool,
}

/// `server_named`: a server's tools are in the catalog; those whose source is no file that can be
/// read again are its tools, shown by name.
fn place<'a>(loaded: &'a Loaded, report: &'a Report, locator: &Locator, server_named: bool) -> Vec<Placed<'a>> {
    // Files in the order they were loaded; findings by file, then line and column.
    let mut order: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for tool in loaded.catalog.tools() {
        let next = order.len();
        order.entry(tool.source.path.as_str()).or_insert(next);
    }
    let mut placed: Vec<(usize, Placed)> = report
        .findings
        .iter()
        .filter_map(|finding| {
            let tool = loaded.catalog.get(&finding.tool)?;
            let from_file = !server_named || locator.has_file(tool);
            let (line, column) = locator.locate(tool, finding.part, &finding.pointer);
            let at = if from_file { format!("{}:{line}:{column}", tool.source.path) } else { tool.name.clone() };
            let rank = order.get(tool.source.path.as_str()).copied().unwrap_or(usize::MAX);
            Some((rank, Placed { finding, tool, at, path: tool.source.path.clone(), line, column, from_file }))
        })
        .collect();
    placed.sort_by(|(ra, a), (rb, b)| {
        (ra, a.line, a.column, a.finding.rule).cmp(&(rb, b.line, b.column, b.finding.rule))
    });
    placed.into_iter().map(|(_, p)| p).collect()
}

fn print_text(loaded: &Loaded, report: &Report, placed: &[Placed], server_named: bool) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for diagnostic in &loaded.diagnostics {
        writeln!(out, "{}", visible(&diagnostic.to_string()))?;
    }
    for p in placed {
        let f = p.finding;
        writeln!(out, "{}: {}[{}]: {}", visible(&p.at), f.severity, f.rule, visible(&f.message))?;
        writeln!(out, "    fix: {}", visible(&f.fix))?;
        if rules::is_provider_rule(f.rule)
            && let Some(rule) = rules::find(f.rule)
        {
            writeln!(out, "    see: {}", rule.url)?;
        }
    }
    let cost = &report.cost;
    if !cost.tools.is_empty() {
        writeln!(
            out,
            "context: about {} tokens for {} {} ({}); the largest:",
            thousands(cost.total),
            cost.tools.len(),
            if cost.tools.len() == 1 { "tool" } else { "tools" },
            cost.tokenizer
        )?;
        for c in cost.tools.iter().take(5) {
            writeln!(out, "{:>10}  {}", thousands(c.tokens), visible(&c.tool))?;
        }
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut summary = format!(
        "linted {} from {}: {}, {}, {}",
        plural(loaded.catalog.len(), "tool"),
        // A live server's tool list is read like a file; it is named as what it is.
        match (server_named, loaded.files.saturating_sub(1)) {
            (true, 0) => "the server".to_string(),
            (true, files) => format!("{} and the server", plural(files, "file")),
            (false, _) => plural(loaded.files, "file"),
        },
        plural(report.count(Severity::Error), "error"),
        plural(report.count(Severity::Warning), "warning"),
        plural(report.count(Severity::Note), "note"),
    );
    let (load_errors, load_warnings) = (loaded.errors().count(), loaded.warnings().count());
    if load_errors + load_warnings > 0 {
        summary.push_str(&format!("; loading: {}", super::count_problems(load_errors, load_warnings)));
        if load_errors > 0 {
            summary.push_str(" (definitions that did not load were not linted)");
        }
    }
    writeln!(out, "{summary}")?;
    out.flush()
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn json_report(loaded: &Loaded, report: &Report, placed: &[Placed]) -> Value {
    let findings: Vec<Value> = placed
        .iter()
        .map(|p| {
            let f = p.finding;
            json!({
                "rule": f.rule,
                "severity": f.severity,
                "tool": f.tool,
                "name": p.tool.name,
                "path": p.path,
                "line": p.line,
                "column": p.column,
                "part": f.part,
                "pointer": f.pointer,
                "message": f.message,
                "fix": f.fix,
                "url": rules::find(f.rule).map(|r| r.url),
            })
        })
        .collect();
    json!({
        "tools": loaded.catalog.len(),
        "files": loaded.files,
        "load": {
            "errors": loaded.errors().collect::<Vec<_>>(),
            "warnings": loaded.warnings().collect::<Vec<_>>(),
        },
        "findings": findings,
        "summary": {
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "notes": report.count(Severity::Note),
        },
        "cost": report.cost,
    })
}

fn sarif_log(loaded: &Loaded, placed: &[Placed]) -> Value {
    let mut results: Vec<Located> = loaded
        .diagnostics
        .iter()
        .map(|d| Located {
            rule: if d.severity == LoadSeverity::Error { "load/error" } else { "load/warning" },
            severity: if d.severity == LoadSeverity::Error { Severity::Error } else { Severity::Warning },
            message: d.message.clone(),
            uri: d.path.clone(),
            line: d.line,
            column: d.column,
            tool: None,
        })
        .collect();
    results.extend(placed.iter().map(|p| Located {
        rule: p.finding.rule,
        severity: p.finding.severity,
        message: format!("{} Fix: {}", p.finding.message, p.finding.fix),
        uri: p.path.clone(),
        line: p.line,
        column: p.column,
        tool: (!p.from_file).then_some(p.tool.name.as_str()),
    }));
    sarif::log(&results)
}

fn write_json(out: &mut impl Write, value: &Value) -> io::Result<()> {
    crate::json_out::write_pretty(&mut *out, value)?;
    writeln!(out)?;
    out.flush()
}

fn write_file(path: &Path, value: &Value) -> io::Result<()> {
    let mut file = io::BufWriter::new(std::fs::File::create(path)?);
    write_json(&mut file, value)
}

fn print_rules() -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    let width = RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
    for rule in RULES {
        writeln!(out, "{:<width$}  {:<7}  {}", rule.id, rule.severity.name(), rule.summary)?;
        writeln!(out, "{:<width$}           {}", "", rule.url)?;
    }
    writeln!(
        out,
        "Provider rules (openai, openai-strict, anthropic, gemini, mcp) are errors for the providers --target names."
    )?;
    out.flush()
}
