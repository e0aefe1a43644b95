//! The run: each tool through its phases, each answer judged, the first input of each kind of
//! failure kept and then shrunk, the server started again after a crash or a hang.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::Value;

mod shrinking;
mod siblings;

use super::causes::Causes;
use super::judge::{CallResult, Judge};
use super::pin::Pinned;
use super::valid::Generator;
use super::{Finding, FuzzError, Kind, Phase, Report, Settings, ToolSummary, coverage, invalid, tool_seed};
use crate::catalog::Tool;
use crate::invoke::{Endpoint, InvokeError, Status};

/// Shrinking stops after this many tries that waited out the timeout (each costs that long).
const MAX_SHRINK_HANGS: usize = 6;

/// Where the calls go: a server, or a stand-in in tests.
pub trait Caller: Sync {
    fn call(&self, tool: &str, arguments: &Value) -> impl Future<Output = CallResult> + Send;
    /// Starts the server again (MCP stdio), or opens a new session.
    fn restart(&self) -> impl Future<Output = Result<(), InvokeError>> + Send;
    /// The first line the server wrote to stdout that is not JSON-RPC, if any.
    fn stray_stdout(&self) -> Option<String> {
        None
    }
}

impl Caller for Endpoint {
    fn call(&self, tool: &str, arguments: &Value) -> impl Future<Output = CallResult> + Send {
        let request = crate::invoke::request::CallRequest::new(tool.to_string(), arguments.clone());
        async move { Endpoint::call(self, &request).await.map(|(outcome, _)| outcome) }
    }

    fn restart(&self) -> impl Future<Output = Result<(), InvokeError>> + Send {
        self.reconnect()
    }

    fn stray_stdout(&self) -> Option<String> {
        Endpoint::stray_stdout(self)
    }
}

impl<C: Caller> Caller for &C {
    fn call(&self, tool: &str, arguments: &Value) -> impl Future<Output = CallResult> + Send {
        (**self).call(tool, arguments)
    }

    fn restart(&self) -> impl Future<Output = Result<(), InvokeError>> + Send {
        (**self).restart()
    }

    fn stray_stdout(&self) -> Option<String> {
        (**self).stray_stdout()
    }
}

/// A caller whose call in flight is cut short once `cut` is cancelled (Ctrl-C, Esc in the app),
/// rather than waited for: a call that keeps sending progress can last for ever. The answer
/// of a call cut short is not judged ([`run`] sees its `stop` first).
pub struct Stoppable<C> {
    pub caller: C,
    pub cut: tokio_util::sync::CancellationToken,
}

impl<C: Caller> Caller for Stoppable<C> {
    fn call(&self, tool: &str, arguments: &Value) -> impl Future<Output = CallResult> + Send {
        let call = self.caller.call(tool, arguments);
        async move {
            tokio::select! {
                answer = call => answer,
                () = self.cut.cancelled() => Err(InvokeError::NotSent("stopped".into())),
            }
        }
    }

    fn restart(&self) -> impl Future<Output = Result<(), InvokeError>> + Send {
        self.caller.restart()
    }

    fn stray_stdout(&self) -> Option<String> {
        self.caller.stray_stdout()
    }
}

/// How far a run has come, for a progress line.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub tool: String,
    pub phase: Phase,
    pub calls: usize,
    pub findings: usize,
    pub elapsed: Duration,
}

impl Progress {
    pub fn calls_per_second(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }
}

/// Why a tool is left out of the run, if it is.
pub fn skip_reason(tool: &Tool, settings: &Settings) -> Option<String> {
    let hints = tool.hints();
    if settings.read_only && hints.read_only != Some(true) {
        return Some("not marked read-only (--read-only calls only tools marked readOnlyHint)".into());
    }
    if settings.include_destructive {
        return None;
    }
    if hints.marked_destructive() {
        return Some("marked destructive (--include-destructive calls it)".into());
    }
    if hints.may_be_destructive() && !settings.local_server {
        return Some("says nothing of being destructive, on a remote server (--include-destructive calls it)".into());
    }
    None
}

/// Fuzzes each of `tools` through `caller`. `on_progress` hears of every call; `stop` ends the
/// run early (the findings so far are kept).
pub async fn run<C: Caller>(
    caller: &C,
    tools: &[Tool],
    settings: &Settings,
    on_progress: &(dyn Fn(&Progress) + Sync),
    stop: &AtomicBool,
) -> Result<Report, FuzzError> {
    let mut state = State {
        caller,
        settings,
        on_progress,
        stop,
        started: Instant::now(),
        report: Report { seed: settings.seed, ..Report::default() },
        tool: String::new(),
        phase: Phase::Examples,
        pending: 0,
        pins: Pinned::default(),
    };
    for tool in tools {
        let mut summary = ToolSummary { tool: tool.id.clone(), ..ToolSummary::default() };
        if let Some(why) = skip_reason(tool, settings) {
            summary.skipped = Some(why);
            state.report.tools.push(summary);
            continue;
        }
        if let Some(why) = state.out_of_time() {
            state.report.stopped = Some(why);
            break;
        }
        let fuzzed = state.fuzz_tool(tool, tools, &mut summary).await;
        summary.calls = summary.phases.iter().map(|(_, n)| n).sum();
        state.report.tools.push(summary);
        match fuzzed {
            Ok(()) => {}
            // The server is gone for good: what was found so far is the report.
            Err(e @ FuzzError::Restart { .. }) => {
                state.report.stopped = Some(e.to_string());
                state.report.server_lost = true;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    if state.report.stopped.is_none() {
        state.report.stopped = state.out_of_time();
    }
    if let Some(line) = caller.stray_stdout() {
        state.report.findings.push(stray_finding(&line));
    }
    // Bugs first, notes after (each in the order found).
    state.report.findings.sort_by_key(|f| f.severity);
    state.report.elapsed_ms = state.started.elapsed().as_millis() as u64;
    Ok(state.report)
}

struct State<'a, C: Caller> {
    caller: &'a C,
    settings: &'a Settings,
    on_progress: &'a (dyn Fn(&Progress) + Sync),
    stop: &'a AtomicBool,
    started: Instant,
    report: Report,
    tool: String,
    phase: Phase,
    /// Causes found for the tool being fuzzed and not yet shrunk: the progress line counts
    /// them as findings at once, not only once shrinking is done.
    pending: usize,
    /// The tool's pinned fields (`--pin`).
    pins: Pinned,
}

/// What the phases of one tool came to.
struct ToolRun {
    causes: Causes,
    success: Option<Status>,
    /// Calls in a row that ran out of time (hung, or still working); at the limit the tool is
    /// set aside: each such call costs the whole `--timeout`.
    timeouts_in_a_row: usize,
    set_aside: Option<String>,
    /// The read-only siblings to call after the tool first accepts invalid input.
    state: Option<siblings::StateCheck>,
}

impl<C: Caller> State<'_, C> {
    fn out_of_time(&self) -> Option<String> {
        if self.stop.load(Ordering::Relaxed) {
            return Some("stopped".into());
        }
        let limit = self.settings.time?;
        (self.started.elapsed() >= limit).then(|| format!("the time limit ({} s) was reached", limit.as_secs()))
    }

    fn progress(&self) {
        (self.on_progress)(&Progress {
            tool: self.tool.clone(),
            phase: self.phase,
            calls: self.report.calls,
            findings: self.report.findings.len() + self.pending,
            elapsed: self.started.elapsed(),
        });
    }

    async fn fuzz_tool(&mut self, tool: &Tool, tools: &[Tool], summary: &mut ToolSummary) -> Result<(), FuzzError> {
        let Some(judge) = Judge::new(&tool.input_schema, tool.output_schema.as_ref(), self.settings.slow) else {
            summary.skipped = Some("its input schema cannot be compiled".into());
            return Ok(());
        };
        self.tool = tool.id.clone();
        self.pins = Pinned::for_tool(&self.settings.pins, tool);
        let generator = Generator::new(&tool.input_schema);
        let state = self.baseline(&siblings::siblings_of(tool, tools, self.settings)).await?;
        let mut run =
            ToolRun { causes: Causes::default(), success: None, timeouts_in_a_row: 0, set_aside: None, state };
        let phases = self.phases(tool, &judge, &generator, &mut run, summary).await;
        let ToolRun { causes, success, set_aside, .. } = run;
        let unkept = causes.unkept;
        let (found, note) = causes.settle();
        let mut notes: Vec<String> = set_aside.into_iter().chain(note).collect();
        if unkept > 0 {
            notes.push(format!("{unkept} more failures of causes past the first 32 were counted, not kept"));
        }
        summary.note = (!notes.is_empty()).then(|| notes.join("; "));
        self.pending = found.len();
        self.shrink_all(tool, &judge, found, success, phases.is_err()).await?;
        phases
    }

    /// The four phases, each input judged and its failure counted under its cause.
    async fn phases(
        &mut self,
        tool: &Tool,
        judge: &Judge,
        generator: &Generator,
        run: &mut ToolRun,
        summary: &mut ToolSummary,
    ) -> Result<(), FuzzError> {
        let mut rng = StdRng::seed_from_u64(tool_seed(self.settings.seed, &tool.id));
        let budget = self.settings.max_calls;
        let examples = coverage::examples(tool);
        let covered = coverage::coverage(generator);
        let mut used = 0;
        for (phase, inputs) in [(Phase::Examples, examples), (Phase::Coverage, covered)] {
            let take = inputs.len().min(budget.saturating_sub(used));
            let mut inputs: Vec<Value> = inputs.into_iter().take(take).map(|v| self.pins.apply(v)).collect();
            if !self.pins.is_empty() {
                dedup(&mut inputs);
            }
            let calls = self.phase(tool, judge, phase, inputs.into_iter(), run).await?;
            summary.phases.push((phase, calls));
            used += calls;
            if run.set_aside.is_some() {
                return Ok(());
            }
            if phase == Phase::Examples {
                used += self.mutated_seeds(tool, judge, generator, &mut rng, budget - used, run, summary).await?;
                if run.set_aside.is_some() {
                    return Ok(());
                }
            }
        }
        let left = budget.saturating_sub(used);
        let valid_share = left.div_ceil(2);
        // Made as they are sent, not all first: memory stays flat however many calls a run makes.
        let pins = self.pins.clone();
        let pin = move |v: Value| pins.apply(v);
        let valid_inputs = (0..valid_share).map(|_| pin(generator.arguments(&mut rng)));
        let calls = self.phase(tool, judge, Phase::Valid, valid_inputs, run).await?;
        summary.phases.push((Phase::Valid, calls));
        if run.set_aside.is_some() {
            return Ok(());
        }
        let invalid_share = left - valid_share;
        let rng = &mut rng;
        let broken = (0..invalid_share).filter_map(move |_| {
            let valid = pin(generator.arguments(rng));
            invalid::break_one(generator, &valid, rng)
        });
        let calls = self.phase(tool, judge, Phase::Invalid, broken, run).await?;
        summary.phases.push((Phase::Invalid, calls));
        Ok(())
    }

    /// The tool's seeds (`--seed-from`), mutated field by field, made as they are sent; at most
    /// half of what is `left` of the budget, so the schema's own phases still run. The calls made.
    #[allow(clippy::too_many_arguments)]
    async fn mutated_seeds(
        &mut self,
        tool: &Tool,
        judge: &Judge,
        generator: &Generator,
        rng: &mut StdRng,
        left: usize,
        run: &mut ToolRun,
        summary: &mut ToolSummary,
    ) -> Result<usize, FuzzError> {
        let seeds = match self.settings.seeds.get(&tool.name).or_else(|| self.settings.seeds.get(&tool.id)) {
            Some(seeds) if !seeds.is_empty() => seeds.clone(),
            _ => return Ok(0),
        };
        let share = left.div_ceil(2);
        let mut seen = std::collections::HashSet::new();
        let pins = self.pins.clone();
        let inputs = seeds
            .iter()
            .flat_map(|seed| super::mutate::mutations(generator, seed, rng))
            .map(move |v| pins.apply(v))
            .filter(move |v| seen.insert(v.to_string()))
            .take(share)
            .collect::<Vec<_>>();
        let calls = self.phase(tool, judge, Phase::Seeds, inputs.into_iter(), run).await?;
        summary.phases.push((Phase::Seeds, calls));
        Ok(calls)
    }

    /// Calls the tool with each input (up to `jobs` at once), counting each failure under its
    /// cause. Returns the calls made.
    async fn phase(
        &mut self,
        tool: &Tool,
        judge: &Judge,
        phase: Phase,
        inputs: impl Iterator<Item = Value>,
        run: &mut ToolRun,
    ) -> Result<usize, FuzzError> {
        self.phase = phase;
        let caller = self.caller;
        let id = tool.id.as_str();
        let mut answers = futures_util::stream::iter(inputs)
            .map(|arguments| async move {
                let answer = caller.call(id, &arguments).await;
                (arguments, answer)
            })
            .buffered(self.settings.jobs.max(1));
        let mut calls = 0;
        while let Some((arguments, answer)) = answers.next().await {
            calls += 1;
            self.report.calls += 1;
            // A stop may cut the call in flight short (the app does): its answer is not judged.
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let status = answer.as_ref().ok().map(|o| o.status);
            if let Some(status) = status.filter(|s| *s != Status::Error) {
                run.success.get_or_insert(status);
            }
            let valid = judge.is_valid(&arguments);
            let verdict = judge.judge(&arguments, valid, &answer);
            let kind = verdict.as_ref().map(|v| v.kind);
            self.after(&answer, kind).await?;
            // An error answered as a success is no success to stand beside a refusal.
            let succeeded = status.is_some_and(|s| s != Status::Error) && kind != Some(Kind::ErrorAsSuccess);
            let still_working = matches!(&answer, Err(InvokeError::Timeout { still_working: true, .. }));
            if still_working {
                run.causes.record_still_working(arguments.clone());
            }
            if let Some(accepted) = verdict.as_ref().filter(|v| v.kind == Kind::AcceptsInvalid).map(|v| &v.cause)
                && run.state.as_ref().is_some_and(|s| s.wants(accepted))
            {
                let accepted = accepted.clone();
                self.check_state(tool, &arguments, &accepted, run, phase).await?;
            }
            run.causes.record(arguments, valid, succeeded, verdict, phase);
            self.pending = run.causes.likely_findings();
            self.progress();
            run.timeouts_in_a_row =
                if kind == Some(Kind::Hang) || still_working { run.timeouts_in_a_row + 1 } else { 0 };
            if run.timeouts_in_a_row >= self.settings.hang_limit.max(1) {
                let how = if still_working { "ran out of --timeout still working" } else { "hung" };
                run.set_aside = Some(format!(
                    "set aside after it {how} {} times in a row (the rest of its calls were not made)",
                    run.timeouts_in_a_row
                ));
                break;
            }
            if self.out_of_time().is_some() {
                break;
            }
        }
        Ok(calls)
    }

    /// After a crash or a hang the server is started again; a token wanted ends the run.
    async fn after(&mut self, answer: &CallResult, kind: Option<Kind>) -> Result<(), FuzzError> {
        if let Err(InvokeError::Unauthorized { .. }) = answer {
            return Err(FuzzError::Unauthorized(answer.as_ref().err().map(ToString::to_string).unwrap_or_default()));
        }
        let after = match kind {
            Some(Kind::Crash) => "crashed",
            Some(Kind::Hang) => "hung",
            _ => return Ok(()),
        };
        self.report.restarts += 1;
        // A server slow to start (a loaded machine) gets a second chance.
        if self.caller.restart().await.is_ok() {
            return Ok(());
        }
        self.caller.restart().await.map_err(|e| FuzzError::Restart { after, reason: e.to_string() })
    }
}

/// The server's own note: a line on its stdout that is not JSON-RPC (said once, for no tool).
fn stray_finding(line: &str) -> Finding {
    Finding {
        tool: SERVER.to_string(),
        kind: Kind::StdoutNotJsonRpc,
        severity: Kind::StdoutNotJsonRpc.severity(),
        arguments: Value::Null,
        message: crate::invoke::mcp::events::stray_words(line),
        valid: true,
        phase: Phase::Examples,
        original: Value::Null,
        shrink_calls: 0,
        count: 1,
        success_status: None,
        then: None,
    }
}

/// The name a finding of the server's own (not of one tool) is listed under.
pub const SERVER: &str = "(server)";

/// Drops repeats, keeping the first of each.
fn dedup(values: &mut Vec<Value>) {
    let mut seen = std::collections::HashSet::new();
    values.retain(|v| seen.insert(v.to_string()));
}
