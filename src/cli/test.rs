//! `tooldeck test CASES...`: loads every case file (reporting each problem), runs the good cases,
//! ends with `N passed, N failed`. Exit 0 when all pass, 1 when any fails, 2 when a case file
//! has a problem (its good cases still run).

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::json;

use super::failure::Failure;
use super::{ServerArgs, exit};
use crate::cases::file::{self, CaseFile, Problem};
use crate::cases::report::{CaseResult, Collect, Counts, Lines, Report};
use crate::cases::run::{options_for, run_file};
use crate::invoke::endpoint::{EndpointOptions, parse_tokens};
use crate::invoke::mock::MockServer;

#[derive(Debug, Args, Clone)]
pub struct TestArgs {
    /// Case files (YAML or JSON).
    #[arg(required = true, value_name = "CASES")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub server: ServerArgs,
    #[command(flatten)]
    pub answers: super::call::AnswerArgs,
    /// A token for an authorization provider, `PROVIDER=TOKEN` (repeatable); wins over the case
    /// file's `tokens`.
    #[arg(long = "token", value_name = "PROVIDER=TOKEN")]
    pub tokens: Vec<String>,
    /// How many cases run at a time.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: u16,
    /// Also write the results as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print one JSON report on stdout instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Also send each case to a second server, given by its server options in one argument
    /// (`--compare-with "--mcp 'node v2.js'"`), and report the cases whose outcomes differ
    /// (status, value by meaning, error) instead of checking what they expect.
    #[arg(long, value_name = "SERVER-OPTIONS", allow_hyphen_values = true)]
    pub compare_with: Option<String>,
    /// Run only the cases whose name or tool contains TEXT (case-insensitive); the rest are
    /// skipped.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    #[command(flatten)]
    pub watch: super::watching::WatchArgs,
}

/// The server options `--compare-with` takes, named when it is given something else.
const SERVER_OPTIONS: &str = "--endpoint, --server, --call-path, --header, --timeout, --mcp, --mcp-url, --config";

/// Why `--compare-with`'s argument names no one server. None repeats the value (a header or
/// URL in it may hold a secret).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareWithError {
    #[error("it has an unclosed quote")]
    UnclosedQuote,
    #[error("it takes server options ({SERVER_OPTIONS})")]
    NotServerOptions,
    #[error("{0} is not a server option ({SERVER_OPTIONS})")]
    UnknownOption(String),
    #[error("{0} needs a valid value")]
    BadValue(String),
    #[error("it names several servers: give one")]
    SeveralServers,
    #[error("it names no server: give --endpoint, --server, --mcp or --mcp-url")]
    NoServer,
}

/// `--compare-with`'s one argument, split like a shell would and read as server options. It is
/// read here rather than by clap's value parser, whose errors repeat the value: its errors name
/// the option at fault, never a value (a header or URL may hold a secret).
fn parse_compare_with(text: &str) -> Result<EndpointOptions, CompareWithError> {
    #[derive(clap::Parser)]
    #[command(name = "--compare-with", no_binary_name = true, disable_help_flag = true)]
    struct Compared {
        #[command(flatten)]
        server: ServerArgs,
    }
    let words = shlex::split(text).ok_or(CompareWithError::UnclosedQuote)?;
    let compared = <Compared as clap::Parser>::try_parse_from(words).map_err(|e| {
        let option = match e.get(clap::error::ContextKind::InvalidArg) {
            Some(clap::error::ContextValue::String(option)) => {
                option.split_whitespace().next().unwrap_or("").to_string()
            }
            _ => String::new(),
        };
        match (option.is_empty(), e.kind()) {
            (true, _) => CompareWithError::NotServerOptions,
            (false, clap::error::ErrorKind::UnknownArgument) => CompareWithError::UnknownOption(option),
            (false, _) => CompareWithError::BadValue(option),
        }
    })?;
    if compared.server.servers_named() > 1 {
        return Err(CompareWithError::SeveralServers);
    }
    let options = compared.server.options();
    if !options.names_a_server() {
        return Err(CompareWithError::NoServer);
    }
    Ok(options)
}

pub fn run(args: TestArgs) -> ExitCode {
    if !args.watch.targets.is_empty() {
        return watch(args);
    }
    let runtime = match super::tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => return Failure::usage(format!("cannot start: {e}")).report(),
    };
    runtime.block_on(async {
        let Ok(mut stop) = crate::signals::StopSignals::new() else { return test(args).await };
        // A signal drops the run, and with it the servers, which are then ended as on any way out.
        tokio::select! {
            code = test(args) => code,
            code = stop.recv() => exit::code(code),
        }
    })
}

async fn test(args: TestArgs) -> ExitCode {
    super::failure::finish(test_files(&args, None).await.map(exit::code))
}

/// `test --watch`: the cases run again after each change, each run opening with the cases that
/// went from passing to failing and back since the run before.
fn watch(args: TestArgs) -> ExitCode {
    let runtime = match super::tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => return Failure::usage(format!("cannot start: {e}")).report(),
    };
    let mut last: Vec<CaseResult> = Vec::new();
    super::watching::rerun(&args.watch.targets, || {
        runtime.block_on(async {
            let mut stop = crate::signals::StopSignals::new()
                .map_err(|e| Failure::transport(format!("cannot listen for signals: {e}")))?;
            // A signal drops the run, and with it the servers, which are then ended.
            tokio::select! {
                code = test_files(&args, Some(&mut last)) => code,
                code = stop.recv() => Ok(code),
            }
        })
    })
}

/// The cases whose verdict went from passed to failed (`now failing`) or back (`passing
/// again`) between two runs, a line each.
pub fn turned(last: &[CaseResult], now: &[CaseResult]) -> Vec<String> {
    use crate::cases::report::Verdict;
    let mut lines = Vec::new();
    for result in now {
        let before = last.iter().find(|r| r.file == result.file && r.index == result.index && r.name == result.name);
        let word = match (before.map(|r| &r.verdict), &result.verdict) {
            (Some(Verdict::Passed), Verdict::Failed(_)) => "now failing",
            (Some(Verdict::Failed(_)), Verdict::Passed) => "passing again",
            _ => continue,
        };
        let (name, location) = (crate::text::visible(&result.name), crate::text::visible(&result.location));
        lines.push(format!("{word}: {name}  ({location})"));
    }
    lines
}

/// What every case file of a run shares: the command line's server, the server to compare
/// with, and how the cases run.
struct Run<'a> {
    command_line: EndpointOptions,
    compare: Option<EndpointOptions>,
    demo_url: Option<String>,
    jobs: usize,
    filter: Option<&'a str>,
}

impl Run<'_> {
    async fn file(&self, file: &CaseFile, report: &mut dyn Report) {
        let options = options_for(file, &self.command_line);
        let compare = self.compare.as_ref();
        run_file(file, &options, compare, self.demo_url.as_deref(), self.jobs, self.filter, report).await;
    }

    /// Every file, reported as one JSON document on stdout; the counts, results and problems.
    async fn as_json(&self, files: &[CaseFile]) -> (Counts, Vec<CaseResult>, Vec<Problem>) {
        let mut collect = Collect::default();
        for file in files {
            self.file(file, &mut collect).await;
        }
        let mut results = collect.results;
        results.sort_by(|a, b| (&a.file, a.index).cmp(&(&b.file, b.index)));
        let problems = files.iter().flat_map(|f| &f.problems).chain(&collect.problems);
        let report = json!({
            "cases": results,
            "problems": problems.map(ToString::to_string).collect::<Vec<_>>(),
            "definition_errors": collect.definition_errors,
            "notes": collect.notes,
            "passed": collect.counts.passed,
            "failed": collect.counts.failed,
            "skipped": collect.counts.skipped,
        });
        let mut out = io::stdout().lock();
        let _ = crate::json_out::write_pretty(&mut out, &report).map(|()| writeln!(out));
        (collect.counts, results, collect.problems)
    }

    /// Every file, a line per case (a progress bar on a terminal), and the summary.
    async fn as_lines(&self, files: &[CaseFile], keep: bool) -> (Counts, Vec<CaseResult>, Vec<Problem>) {
        let total: usize = files.iter().map(CaseFile::case_count).sum();
        let mut lines = Lines::new(total, io::stderr().is_terminal(), keep);
        for file in files {
            self.file(file, &mut lines as &mut dyn Report).await;
        }
        lines.finish();
        let _ = writeln!(io::stdout(), "{}", lines.counts.summary());
        (lines.counts, lines.kept.unwrap_or_default(), lines.problems)
    }

    /// [`Run::as_lines`] for `--watch`: the run's lines come after the cases that turned since
    /// the `last` run (so they are read first), and `last` becomes this run.
    async fn as_rerun(
        &self,
        files: &[CaseFile],
        last: &mut Vec<CaseResult>,
    ) -> (Counts, Vec<CaseResult>, Vec<Problem>) {
        let mut collect = Collect::default();
        for file in files {
            self.file(file, &mut collect).await;
        }
        let mut results = collect.results;
        results.sort_by(|a, b| (&a.file, a.index).cmp(&(&b.file, b.index)));
        {
            let mut out = io::stdout().lock();
            for line in turned(last, &results) {
                let _ = writeln!(out, "{line}");
            }
        }
        let mut lines = Lines::new(results.len(), false, false);
        lines.definition_errors(collect.definition_errors);
        for note in collect.notes {
            lines.note(note);
        }
        lines.problems(collect.problems);
        for result in &results {
            lines.case(result.clone());
        }
        let _ = writeln!(io::stdout(), "{}", lines.counts.summary());
        *last = results.clone();
        (lines.counts, results, lines.problems)
    }
}

/// Runs every case file once; with `watching`, as [`Run::as_rerun`] against the last run.
async fn test_files(args: &TestArgs, watching: Option<&mut Vec<CaseResult>>) -> Result<u8, Failure> {
    let tokens = parse_tokens(&args.tokens)?;
    let compare = args.compare_with.as_deref().map(parse_compare_with).transpose();
    let compare = compare.map_err(|e| Failure::usage(format!("--compare-with: {e}")))?;
    let mut command_line = args.server.options();
    command_line.answers = args.answers.answers()?;
    let files = load_files(&args.files, &tokens);
    // The built-in demo server answers for files (and a command line) that name no server.
    let needs_demo = files.iter().any(|f| !options_for(f, &command_line).names_a_server() && f.case_count() > 0);
    let demo = match needs_demo {
        false => None,
        true => Some(
            MockServer::start(crate::catalog::load_samples(&Default::default()).catalog, 0)
                .await
                .map_err(|e| Failure::usage(format!("cannot start the built-in demo server: {e}")))?,
        ),
    };
    let run = Run {
        command_line,
        compare,
        demo_url: demo.as_ref().map(|d| d.url().to_string()),
        jobs: usize::from(args.jobs),
        filter: args.filter.as_deref(),
    };
    let (counts, results, case_problems) = match (args.json, watching) {
        (true, _) => run.as_json(&files).await,
        (false, Some(last)) => run.as_rerun(&files, last).await,
        (false, None) => run.as_lines(&files, args.junit.is_some()).await,
    };
    let bad_files = files.iter().any(|f| !f.problems.is_empty()) || !case_problems.is_empty();
    drop(demo);
    if let Some(path) = &args.junit {
        write_junit(path, &files, &case_problems, &results)?;
    }
    if bad_files {
        Err(Failure::usage("some case files have problems (above); their other cases ran"))
    } else if counts.failed > 0 {
        Ok(exit::FAILED)
    } else {
        Ok(exit::OK)
    }
}

/// The case files, each with the command line's tokens (which win over a file's own for the
/// same provider); their problems said on stderr.
fn load_files(paths: &[PathBuf], tokens: &[(String, String)]) -> Vec<CaseFile> {
    let mut files: Vec<CaseFile> = paths.iter().map(|path| file::load(path)).collect();
    for file in &mut files {
        file.tokens.retain(|(provider, _)| !tokens.iter().any(|(p, _)| p == provider));
        file.tokens.extend(tokens.iter().cloned());
    }
    let mut stderr = io::stderr().lock();
    for problem in files.iter().flat_map(|f| &f.problems) {
        let _ = writeln!(stderr, "{}", crate::text::visible(&problem.to_string()));
    }
    files
}

/// The JUnit report: a suite per file, with the file's problems and its cases' results.
fn write_junit(
    path: &Path,
    files: &[CaseFile],
    case_problems: &[Problem],
    results: &[CaseResult],
) -> Result<(), Failure> {
    let suites: Vec<(String, Vec<Problem>)> = files
        .iter()
        .map(|f| {
            let path = f.path.display().to_string();
            let of_cases = case_problems.iter().filter(|p| p.path == path).cloned();
            let problems = f.problems.iter().cloned().chain(of_cases).collect();
            (path, problems)
        })
        .collect();
    let xml = crate::cases::junit::write(&suites, results).map_err(io::Error::other);
    xml.and_then(|xml| std::fs::write(path, xml))
        .map_err(|e| Failure::usage(format!("cannot write {}: {e}", path.display())))
}
