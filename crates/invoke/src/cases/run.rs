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
use crate::invoke::mcp::asks::Headless;
use crate::invoke::request::CallRequest;
use crate::invoke::{Endpoint, InvokeError, NamedError};

/// Why a case file's cases have no server to go to (each of its cases fails with it).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(transparent)]
    Named(#[from] NamedError),
    #[error(transparent)]
    Value(#[from] crate::invoke::endpoint::ValueError),
    #[error(transparent)]
    Invoke(#[from] InvokeError),
    #[error("the compared server: {0}")]
    Compared(Box<ConnectError>),
}

/// Where the calls of one case file go: the command line's server, else the file's, else the
/// built-in demo server.
pub fn options_for(file: &CaseFile, command_line: &EndpointOptions) -> EndpointOptions {
    command_line.or(&file.target)
}

/// Runs one case file's cases (those `filter` keeps) against `options`' server, or `demo_url`
/// when it names none, `jobs` at a time; each result goes to `report` as it comes. With
/// `compare`, each case also goes to that server and passes when both outcomes agree.
pub async fn run_file(
    file: &CaseFile,
    options: &EndpointOptions,
    compare: Option<&EndpointOptions>,
    demo_url: Option<&str>,
    jobs: usize,
    filter: Option<&str>,
    report: &mut dyn Report,
) {
    let setup = set_up(file, options, demo_url, report).await;
    let compared = match compare {
        Some(compare) => Some(connect(file, compare, demo_url).await.map_err(|e| ConnectError::Compared(Box::new(e)))),
        None => None,
    };
    // A server that went away (a stdio server died, an HTTP session expired) is reconnected and
    // the case that found it sent again, once per case (a few times a file); the report says so.
    let reconnect = Reconnect::default();
    // A case with answers of its own runs alone: the server's questions reach the connection,
    // not the call, so two cases answering differently must not overlap.
    let answering = tokio::sync::RwLock::new(());
    let turns = Turns {
        names_a_server: options.names_a_server(),
        reconnect: &reconnect,
        answering: &answering,
        defaults: &options.answers,
    };
    let turns = &turns;
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
            let work = match (&setup, &compared) {
                _ if filter.is_some_and(|f| !matches(&case, f)) => Work::Skip,
                (Err(why), _) | (_, Some(Err(why))) => Work::NoServer(why.to_string()),
                (Ok((endpoint, catalog)), compared) => {
                    let tool =
                        prepared.entry(case.tool.clone()).or_insert_with(|| prepare(catalog, &case, file)).clone();
                    let compared = compared.as_ref().and_then(|c| c.as_ref().ok());
                    Work::Run(Servers { ours: endpoint, theirs: compared }, tool)
                }
            };
            Either::Right(async move {
                let (verdict, call_id, duration_ms) = turns.run(work, &case).await;
                let mut result = CaseResult::new(file, index, &case, verdict);
                result.call_id = call_id;
                result.duration_ms = duration_ms;
                Step::Done(Box::new(result))
            })
        })
        .buffer_unordered(jobs.max(1))
        .boxed();
    while let Some(step) = results.next().await {
        for note in reconnect.take_notes() {
            report.note(note);
        }
        match step {
            Step::Done(result) => report.case(*result),
            Step::Problems(problems) => report.problems(problems),
        }
    }
    drop(results);
    for note in reconnect.take_notes() {
        report.note(note);
    }
    // The server is shut down as its protocol asks (an MCP child has a moment to exit by itself).
    if let Ok((endpoint, _)) = setup {
        endpoint.close().await;
    }
    if let Some(Ok(endpoint)) = compared {
        endpoint.close().await;
    }
}

/// The file's server, connected, and the tools its cases may call; the errors in the file's
/// `defs` are reported.
async fn set_up(
    file: &CaseFile,
    options: &EndpointOptions,
    demo_url: Option<&str>,
    report: &mut dyn Report,
) -> Result<(Endpoint, Catalog), ConnectError> {
    let endpoint = connect(file, options, demo_url).await?;
    let (catalog, errors) = catalog_for(file, options, &endpoint).await;
    if !errors.is_empty() {
        report.definition_errors(errors);
    }
    Ok((endpoint, catalog))
}

/// What every case of `case`'s tool shares.
fn prepare(catalog: &Catalog, case: &Case, file: &CaseFile) -> Prepared {
    let tool = catalog.find(&case.tool);
    Prepared { checker: tool.map(|t| Checker::new(&t.input_schema)), tokens: tokens_for(tool, &file.tokens) }
}

/// What the cases of one file share while they run.
struct Turns<'a> {
    names_a_server: bool,
    reconnect: &'a Reconnect,
    answering: &'a tokio::sync::RwLock<()>,
    /// The answers to the server's questions when a case gives none.
    defaults: &'a Headless,
}

impl Turns<'_> {
    /// One case's work: skipped, failed for want of a server, or sent (again, once, when the
    /// server went away); its verdict, call id and duration.
    async fn run(&self, work: Work<'_>, case: &Case) -> (Verdict, Option<String>, u64) {
        let (servers, tool) = match work {
            Work::Skip => return (Verdict::Skipped, None, 0),
            Work::NoServer(why) => return (Verdict::Failed(vec![format!("no answer: {why}")]), None, 0),
            Work::Run(servers, tool) => (servers, tool),
        };
        let answer = |answers: &Headless| {
            for endpoint in std::iter::once(servers.ours).chain(servers.theirs) {
                if let Some(asks) = endpoint.asks() {
                    asks.answer_with(answers.clone());
                }
            }
        };
        let _turn = match &case.answers {
            Some(answers) => {
                let turn = Either::Left(self.answering.write().await);
                answer(answers);
                turn
            }
            None => Either::Right(self.answering.read().await),
        };
        let run = || run_case(case, tool.checker.as_ref(), self.names_a_server, &tool.tokens, servers);
        let generation = self.reconnect.generation().await;
        let (verdict, call_id, duration_ms) = run().await;
        let result = if gone(&verdict) && self.reconnect.again(servers.ours, generation).await {
            run().await
        } else {
            (verdict, call_id, duration_ms)
        };
        if case.answers.is_some() {
            answer(self.defaults);
        }
        result
    }
}

/// Connects to `options`' server (`demo_url` when it names none) and gives it the file's tokens.
async fn connect(file: &CaseFile, options: &EndpointOptions, demo_url: Option<&str>) -> Result<Endpoint, ConnectError> {
    let options = options.resolve()?;
    let headers = parse_headers(&options.headers)?;
    let endpoint = options.connect(headers, demo_url).await?;
    for (provider, token) in &file.tokens {
        match endpoint.authorize(provider, token).await {
            Ok(()) | Err(InvokeError::Unauthorized { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(endpoint)
}

/// Prefix of the failure a call that found the server gone gives (see `send`).
const GONE: &str = "no answer: the server is gone: ";

fn gone(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Failed(failures) if failures.first().is_some_and(|f| f.starts_with(GONE)))
}

/// How often a file's run may reconnect to a server that went away.
const MAX_RECONNECTS: usize = 3;

/// Reconnections to a server that went away during a file's run, and what to say about them.
#[derive(Default)]
struct Reconnect {
    /// (connections made since the first, reconnections tried); cases asking meanwhile wait.
    state: tokio::sync::Mutex<(u64, usize)>,
    /// What the report says, until it has said it.
    notes: std::sync::Mutex<Vec<String>>,
}

impl Reconnect {
    /// The connection a case is about to use (to tell, if it finds the server gone, whether
    /// another case reconnected since).
    async fn generation(&self) -> u64 {
        self.state.lock().await.0
    }

    /// True when the case that used connection `generation` and found it gone may be sent
    /// again: another case reconnected since, or this one reconnects now (a few times a file).
    async fn again(&self, endpoint: &Endpoint, generation: u64) -> bool {
        let mut state = self.state.lock().await;
        if state.0 > generation {
            return true;
        }
        if state.1 >= MAX_RECONNECTS {
            return false;
        }
        state.1 += 1;
        let (back, note) = match endpoint.reconnect().await {
            Ok(()) => {
                (true, format!("the server went away; reconnected to {} and sent the case again", endpoint.label()))
            }
            Err(e) => (false, format!("the server went away; reconnecting failed: {e}")),
        };
        if back {
            state.0 += 1;
        }
        crate::sync::lock(&self.notes).push(note);
        back
    }

    fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *crate::sync::lock(&self.notes))
    }
}

/// What becomes of one case.
enum Work<'a> {
    Skip,
    NoServer(String),
    Run(Servers<'a>, Prepared),
}

/// Where a case goes: its server, and the one it is compared with (`--compare-with`).
#[derive(Clone, Copy)]
struct Servers<'a> {
    ours: &'a Endpoint,
    theirs: Option<&'a Endpoint>,
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
    servers: Servers<'_>,
) -> (Verdict, Option<String>, u64) {
    let Some(checker) = checker else {
        // A server may answer for tools it does not list: those are sent unchecked.
        if !names_a_server {
            let failure = format!("no tool \"{}\" in the catalog (`tooldeck list` shows them)", case.tool);
            return (Verdict::Failed(vec![failure]), None, 0);
        }
        return send(case, tokens, servers).await;
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
    send(case, tokens, servers).await
}

async fn send(case: &Case, tokens: &[(String, String)], servers: Servers<'_>) -> (Verdict, Option<String>, u64) {
    let Some(theirs) = servers.theirs else { return send_to(case, tokens, servers.ours).await };
    let mut request = CallRequest::new(case.tool.clone(), case.args.clone());
    request.tokens = tokens.to_vec();
    let started = Instant::now();
    let (ours, theirs) = tokio::join!(servers.ours.call(&request), theirs.call(&request));
    let duration_ms = started.elapsed().as_micros().div_ceil(1000) as u64;
    let verdict = match (ours, theirs) {
        (Ok((ours, _)), Ok((theirs, _))) => {
            let differences = super::compare::differences(&ours, &theirs);
            if differences.is_empty() { Verdict::Passed } else { Verdict::Failed(differences) }
        }
        (Err(InvokeError::Gone { reason, .. }), _) => Verdict::Failed(vec![format!("{GONE}{reason}")]),
        (Err(e), _) => Verdict::Failed(vec![format!("no answer: {e}")]),
        (_, Err(e)) => Verdict::Failed(vec![format!("no answer from the compared server: {e}")]),
    };
    (verdict, Some(request.call_id), duration_ms)
}

/// One case to one server, its outcome held against what the case expects.
async fn send_to(case: &Case, tokens: &[(String, String)], endpoint: &Endpoint) -> (Verdict, Option<String>, u64) {
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
        Err(InvokeError::Gone { reason, .. }) => (
            Verdict::Failed(vec![format!("{GONE}{reason}")]),
            Some(request.call_id),
            started.elapsed().as_millis() as u64,
        ),
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
