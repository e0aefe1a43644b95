//! `tooldeck test`: each case file's cases against its server, N at a time, through the same
//! catalog, validation and invoke code as `tooldeck call`. Results stream to a [`Report`] as they
//! come, so memory stays flat however many cases there are.

use std::collections::HashMap;
use std::time::Instant;

use futures_util::StreamExt;
use futures_util::future::Either;

use super::file::{Case, CaseFile};
use super::report::{CaseResult, Report, Verdict};
use crate::catalog::{Catalog, LoadOptions, Severity, load_paths, load_samples};
use crate::form::validate::Checker;
use crate::invoke::endpoint::{EndpointOptions, merge_server_tools, parse_headers, tokens_for};
use crate::invoke::otc::CallRequest;
use crate::invoke::{Endpoint, InvokeError};

/// Where the calls of one case file go: the command line's server, else the file's, else the
/// built-in demo server.
pub fn options_for(file: &CaseFile, command_line: &EndpointOptions) -> EndpointOptions {
    command_line.or(&file.target)
}

/// Runs one case file's cases (those `filter` keeps) against `options`' server, or `demo_url`
/// when it names none, `jobs` at a time; each result goes to `report` as it comes.
pub async fn run_file(
    file: &CaseFile,
    options: &EndpointOptions,
    demo_url: Option<&str>,
    jobs: usize,
    filter: Option<&str>,
    report: &mut dyn Report,
) {
    let setup = async {
        let options = options.resolve()?;
        let headers = parse_headers(&options.headers)?;
        let endpoint = options.connect(headers, demo_url).await.map_err(|e| e.to_string())?;
        for (provider, token) in &file.tokens {
            match endpoint.authorize(provider, token).await {
                Ok(()) | Err(InvokeError::Unauthorized { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        let (catalog, errors) = catalog_for(file, &options, &endpoint).await;
        Ok::<_, String>((endpoint, catalog, errors))
    };
    let setup = match setup.await {
        Ok((endpoint, catalog, errors)) => {
            if !errors.is_empty() {
                report.definition_errors(errors);
            }
            Ok((endpoint, catalog))
        }
        Err(e) => Err(e),
    };
    let names_a_server = options.names_a_server();
    // A case with answers of its own runs alone: the server's questions reach the connection,
    // not the call, so two cases answering differently must not overlap.
    let answering = tokio::sync::RwLock::new(());
    let answering = &answering;
    let defaults = &options.answers;
    // Each tool's schema is compiled once, however many cases call it.
    let mut prepared: HashMap<String, Prepared> = HashMap::new();
    // Cases are read as they are needed (a large file is never held whole), so a bad one is
    // found, and reported, in its turn.
    let mut results = futures_util::stream::iter(file.each_case().enumerate())
        .map(|(index, item)| {
            let case = match item {
                Err(problems) => return Either::Left(std::future::ready(Step::Problems(problems))),
                Ok(case) => case,
            };
            let work = match &setup {
                _ if filter.is_some_and(|f| !matches(&case, f)) => Work::Skip,
                Err(why) => Work::NoServer(why.clone()),
                Ok((endpoint, catalog)) => {
                    let tool = prepared
                        .entry(case.tool.clone())
                        .or_insert_with(|| {
                            let tool = catalog.find(&case.tool);
                            Prepared {
                                checker: tool.map(|t| Checker::new(&t.input_schema)),
                                tokens: tokens_for(tool, &file.tokens),
                            }
                        })
                        .clone();
                    Work::Run(endpoint, tool)
                }
            };
            Either::Right(async move {
                let (verdict, call_id, duration_ms) = match work {
                    Work::Skip => (Verdict::Skipped, None, 0),
                    Work::NoServer(why) => (Verdict::Failed(vec![format!("no answer: {why}")]), None, 0),
                    Work::Run(endpoint, tool) => {
                        let _turn = match &case.answers {
                            Some(answers) => {
                                let turn = Either::Left(answering.write().await);
                                if let Some(asks) = endpoint.asks() {
                                    asks.answer_with(answers.clone());
                                }
                                turn
                            }
                            None => Either::Right(answering.read().await),
                        };
                        let verdict =
                            run_case(&case, tool.checker.as_ref(), names_a_server, &tool.tokens, endpoint).await;
                        if case.answers.is_some()
                            && let Some(asks) = endpoint.asks()
                        {
                            asks.answer_with(defaults.clone());
                        }
                        verdict
                    }
                };
                let mut result = CaseResult::new(file, index, &case, verdict);
                result.call_id = call_id;
                result.duration_ms = duration_ms;
                Step::Done(Box::new(result))
            })
        })
        .buffer_unordered(jobs.max(1))
        .boxed();
    while let Some(step) = results.next().await {
        match step {
            Step::Done(result) => report.case(*result),
            Step::Problems(problems) => report.problems(problems),
        }
    }
    drop(results);
    // The server is shut down as its protocol asks (an MCP child has a moment to exit by itself).
    if let Ok((endpoint, _)) = setup {
        endpoint.close().await;
    }
}

/// What becomes of one case.
enum Work<'a> {
    Skip,
    NoServer(String),
    Run(&'a Endpoint, Prepared),
}

/// What every case of one tool shares: its compiled schema (none for a tool the catalog does not
/// have) and the tokens its calls carry.
#[derive(Clone)]
struct Prepared {
    checker: Option<Checker>,
    tokens: Vec<(String, String)>,
}

/// What comes out of the stream of cases: a result, or the problems of a case that is not one.
enum Step {
    Done(Box<CaseResult>),
    Problems(Vec<super::file::Problem>),
}

/// One case: checked, sent, and its outcome held against what it expects.
async fn run_case(
    case: &Case,
    checker: Option<&Checker>,
    names_a_server: bool,
    tokens: &[(String, String)],
    endpoint: &Endpoint,
) -> (Verdict, Option<String>, u64) {
    let Some(checker) = checker else {
        // A server may answer for tools it does not list: those are sent unchecked.
        if !names_a_server {
            let failure = format!("no tool \"{}\" in the catalog (`tooldeck list` shows them)", case.tool);
            return (Verdict::Failed(vec![failure]), None, 0);
        }
        return send(case, tokens, endpoint).await;
    };
    if case.validate {
        let problems = checker.check_value(&case.args);
        if !problems.is_empty() {
            let mut failures = vec![
                "not sent: the arguments do not satisfy the tool's schema (validate: false sends them):".to_string(),
            ];
            failures.extend(
                problems.iter().map(|(at, message)| format!("  {}: {message}", if at.is_empty() { "/" } else { at })),
            );
            return (Verdict::Failed(failures), None, 0);
        }
    }
    send(case, tokens, endpoint).await
}

async fn send(case: &Case, tokens: &[(String, String)], endpoint: &Endpoint) -> (Verdict, Option<String>, u64) {
    let mut request = CallRequest::new(case.tool.clone(), case.args.clone());
    request.tokens = tokens.to_vec();
    let started = Instant::now();
    match endpoint.call(&request).await {
        Ok((outcome, _)) => {
            // Rounded up: a call that took any time at all took at least a millisecond.
            let duration_ms = started.elapsed().as_micros().div_ceil(1000) as u64;
            let failures = case.expect.check(&outcome, duration_ms);
            let verdict = if failures.is_empty() { Verdict::Passed } else { Verdict::Failed(failures) };
            (verdict, Some(outcome.call_id), duration_ms)
        }
        Err(e) => (
            Verdict::Failed(vec![format!("no answer: {e}")]),
            Some(request.call_id),
            started.elapsed().as_millis() as u64,
        ),
    }
}

/// The tools a file's cases may call: its `defs`, and a named server's own tools; the sample
/// tools when neither (the demo server answers for them). Also the errors in the `defs`.
async fn catalog_for(file: &CaseFile, options: &EndpointOptions, endpoint: &Endpoint) -> (Catalog, Vec<String>) {
    let (mut catalog, mut errors) = match (file.defs.is_empty(), options.names_a_server()) {
        (false, _) => {
            let loaded = load_paths(&file.defs, &LoadOptions::default());
            let errors = loaded.diagnostics.iter().filter(|d| d.severity == Severity::Error);
            let errors = errors.map(|d| format!("{d} (in the defs of {})", file.path.display())).collect();
            (loaded.catalog, errors)
        }
        (true, true) => (Catalog::default(), Vec::new()),
        (true, false) => (load_samples(&LoadOptions::default()).catalog, Vec::new()),
    };
    if options.names_a_server()
        && let Err(e) = merge_server_tools(&mut catalog, endpoint).await
    {
        errors.push(format!("could not list the server's tools: {e}"));
    }
    (catalog, errors)
}

fn matches(case: &Case, filter: &str) -> bool {
    let filter = filter.to_lowercase();
    case.name.to_lowercase().contains(&filter) || case.tool.to_lowercase().contains(&filter)
}
