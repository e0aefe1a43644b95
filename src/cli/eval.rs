//! `tooldeck eval FILE`: does a model use the server's tools right? Each case's prompt goes to
//! the file's model with the server's tools; its calls run on the server and are judged by the
//! tools' schemas; scores over iterations. `eval compare OLD NEW` ties a drop in score to the
//! definition change behind it; `eval --from-record RECORD` drafts a file from real traffic.
//!
//! Exit 0 when every case is at or above its `min_pass_rate`, 1 below, 2 for a bad file (or a
//! replay that no longer matches its recording), 5 when the server cannot be reached.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use tokio_util::sync::CancellationToken;
use tooldeck_evals::run::{Inputs, Mode, Progress, Settings};

use super::failure::Failure;
use super::{ServerArgs, exit};
use crate::invoke::endpoint::{list_catalog, parse_headers, to_call};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub command: Option<EvalCommand>,
    /// The eval file (YAML or JSON).
    #[arg(value_name = "FILE", required_unless_present = "from_record")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub server: ServerArgs,
    /// Iterations per case, instead of the file's `iterations`.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: Option<u32>,
    /// How many iterations run at a time.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: u16,
    /// Print one JSON report on stdout instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report to FILE (for `eval compare`).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Also write the results as JUnit XML to FILE (a test case per eval case).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// The folder of cassettes: every model exchange, a file per case.
    #[arg(long, value_name = "DIR")]
    pub cassettes: Option<PathBuf>,
    /// Ask the model and keep its answers as cassettes.
    #[arg(long, requires = "cassettes", conflicts_with_all = ["replay", "auto"])]
    pub record: bool,
    /// Answer from the cassettes only: no model, no key.
    #[arg(long, requires = "cassettes", conflicts_with = "auto")]
    pub replay: bool,
    /// Each case from its cassette when it has one, else asked and recorded.
    #[arg(long, requires = "cassettes")]
    pub auto: bool,
    /// Run the tools marked destructive (and, on a remote server, those that say nothing)
    /// when the model calls them; otherwise they are answered as refused.
    #[arg(long)]
    pub include_destructive: bool,
    /// Draft an eval file from a proxy record (`tooldeck proxy --record`): each tools/call a
    /// client made becomes an expected call, its prompt left to write (TODO). Printed on stdout.
    #[arg(long, value_name = "RECORD", conflicts_with = "file")]
    pub from_record: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Compare two `--report` files: each case's score change, and for each case that dropped,
    /// the changes to its tools' definitions behind it. Exit 0 when none dropped, 1 when one did.
    Compare {
        old: PathBuf,
        new: PathBuf,
        /// Print the comparison as JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: EvalArgs) -> ExitCode {
    if let Some(EvalCommand::Compare { old, new, json }) = &args.command {
        return super::failure::finish(compare(old, new, *json).map(exit::code));
    }
    if let Some(record) = &args.from_record {
        return super::failure::finish(from_record(record).map(exit::code));
    }
    let runtime = match super::tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => return Failure::usage(format!("cannot start: {e}")).report(),
    };
    runtime.block_on(async {
        let cancel = CancellationToken::new();
        let Ok(mut stop) = crate::signals::StopSignals::new() else {
            return super::failure::finish(eval(&args, &cancel).await.map(exit::code));
        };
        // A signal drops the run, and with it the server, which is then ended as on any way out.
        tokio::select! {
            code = eval(&args, &cancel) => super::failure::finish(code.map(exit::code)),
            code = stop.recv() => { cancel.cancel(); exit::code(code) }
        }
    })
}

fn mode(args: &EvalArgs) -> Mode {
    match (args.record, args.replay, args.auto) {
        (true, _, _) => Mode::Record,
        (_, true, _) => Mode::Replay,
        (_, _, true) => Mode::Auto,
        _ => Mode::Live,
    }
}

async fn eval(args: &EvalArgs, cancel: &CancellationToken) -> Result<u8, Failure> {
    let path = args.file.as_deref().ok_or_else(|| Failure::usage("give an eval file"))?;
    let file = tooldeck_evals::file::load(path);
    if !file.problems.is_empty() {
        let lines: Vec<String> =
            file.problems.iter().map(|p| crate::text::visible(&p.to_string()).into_owned()).collect();
        return Err(Failure::usage(format!("{}\nthe eval file has problems (above); nothing ran", lines.join("\n"))));
    }
    let options = args.server.options().or(&file.target);
    if !options.names_a_server() {
        return Err(Failure::usage(format!("{} names no server: give `mcp` or `mcp_url` (or --mcp)", path.display())));
    }
    let settings = Settings {
        jobs: usize::from(args.jobs),
        mode: mode(args),
        cassettes: args.cassettes.clone(),
        include_destructive: args.include_destructive,
        local_server: options.mcp.is_some(),
        iterations: args.iterations,
    };
    let format = tooldeck_evals::run::format_for(&file);
    let live = live_model(&file, &settings, Arc::clone(&format))?;
    let options = options.resolve()?;
    let endpoint = options.connect(parse_headers(&options.headers)?, None).await.map_err(Failure::from)?;
    for (provider, token) in &file.tokens {
        let _ = endpoint.authorize(provider, token).await;
    }
    let label = endpoint.label();
    let listed = list_catalog(&endpoint, &label, &to_call()).await;
    let tools = match listed {
        Ok((tools, _)) => tools,
        Err(e) => {
            endpoint.close().await;
            return Err(Failure::transport(format!("could not list the server's tools: {e}")));
        }
    };
    let inputs = Inputs {
        file: &file,
        tools: &tools,
        runner: &endpoint,
        live: live.as_ref().map(|m| m as &dyn tooldeck_evals::provider::Model),
        format: format.as_ref(),
        cancel,
    };
    let mut progress = progress_line(io::stderr().is_terminal());
    let report = tooldeck_evals::run::run(inputs, &settings, &mut progress).await;
    endpoint.close().await;
    let report = report.map_err(|e| Failure::usage(e.to_string()))?;
    say(args, &report)?;
    Ok(report.exit_code())
}

/// The live model, unless every answer comes from cassettes; its key read from the environment.
fn live_model(
    file: &tooldeck_evals::file::EvalFile,
    settings: &Settings,
    format: Arc<dyn tooldeck_evals::provider::Format>,
) -> Result<Option<tooldeck_evals::provider::http::HttpModel>, Failure> {
    let all_recorded =
        |dir: &Path| file.cases.iter().all(|c| tooldeck_evals::cassette::path_for(dir, &c.name).exists());
    let needed = match (settings.mode, &settings.cassettes) {
        (Mode::Replay, _) => false,
        (Mode::Auto, Some(dir)) => !all_recorded(dir),
        _ => true,
    };
    if !needed {
        return Ok(None);
    }
    tooldeck_evals::run::live_model(file, format).map(Some).map_err(|e| Failure::usage(e.to_string()))
}

/// What a person sees while the run goes: on a terminal, one line rewritten per iteration.
fn progress_line(terminal: bool) -> impl FnMut(Progress) + Send {
    move |p: Progress| {
        if !terminal {
            return;
        }
        let word = if p.passed { "passed" } else { "failed" };
        let mut stderr = io::stderr().lock();
        let _ = write!(
            stderr,
            "\r\x1b[2Keval {}/{} · {} iteration {} {word}",
            p.done,
            p.total,
            crate::text::visible(&p.case),
            p.iteration
        );
        if p.done == p.total {
            let _ = writeln!(stderr);
        }
    }
}

/// The report on stdout (lines or JSON), and in the files asked for.
fn say(args: &EvalArgs, report: &tooldeck_evals::report::EvalReport) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    if args.json {
        let _ = crate::json_out::write_pretty(&mut out, report).map(|()| writeln!(out));
    } else {
        for line in report.lines() {
            let _ = writeln!(out, "{}", crate::text::visible(&line));
        }
    }
    let written = |path: &Path, text: String| {
        crate::files::replace_private(path, text.as_bytes())
            .map_err(|e| Failure::usage(format!("cannot write {}: {e}", path.display())))
    };
    if let Some(path) = &args.report {
        let mut text = Vec::new();
        let _ = crate::json_out::write_pretty(&mut text, report);
        written(path, String::from_utf8_lossy(&text).into_owned())?;
    }
    if let Some(path) = &args.junit {
        let xml = report.junit().map_err(|e| Failure::usage(format!("cannot write {}: {e}", path.display())))?;
        written(path, xml)?;
    }
    Ok(())
}

fn compare(old: &Path, new: &Path, json: bool) -> Result<u8, Failure> {
    let read = |path: &Path| -> Result<serde_json::Value, Failure> {
        let text = crate::files::read_text(path)
            .map_err(|e| Failure::usage(format!("cannot read {}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| {
            Failure::usage(format!("{} is not an eval report (`eval --report FILE` writes one): {e}", path.display()))
        })
    };
    let comparison =
        tooldeck_evals::compare::compare(&read(old)?, &read(new)?).map_err(|e| Failure::usage(e.to_string()))?;
    let mut out = io::stdout().lock();
    if json {
        let _ = crate::json_out::write_pretty(&mut out, &comparison).map(|()| writeln!(out));
    } else {
        for line in comparison.lines() {
            let _ = writeln!(out, "{}", crate::text::visible(&line));
        }
    }
    Ok(if comparison.dropped() { exit::FAILED } else { exit::OK })
}

fn from_record(record: &Path) -> Result<u8, Failure> {
    let draft = tooldeck_evals::from_record::draft(record).map_err(|e| Failure::usage(e.to_string()))?;
    let _ = io::stdout().lock().write_all(draft.as_bytes());
    Ok(exit::OK)
}
