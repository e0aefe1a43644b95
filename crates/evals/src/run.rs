//! A whole eval run: the server's tools shown to the model (destructive ones refused unless
//! asked), each case's iterations run `jobs` at a time, judged, scored, and the cassettes
//! recorded or replayed.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tooldeck_core::call_match::{self, CallExpect, CallVerdict, ExpectedCall, MadeCall};

use crate::agent::{Agent, Runner, Toolbox, Trajectory};
use crate::catalog::Tool;
use crate::file::{Api, EvalCase, EvalFile};
use crate::form::validate::Checker;
use crate::provider::anthropic::Anthropic;
use crate::provider::http::HttpModel;
use crate::provider::openai::OpenAi;
use crate::provider::{Format, Model, ModelError, ToolDef};
use crate::report::{CaseReport, EvalReport, IterationReport, ModelShown};
use crate::score::{ToolScore, pass_k_table, round, wilson};

/// Where the model's answers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The model, live; nothing kept.
    #[default]
    Live,
    /// The model, live; every exchange kept as cassettes.
    Record,
    /// The cassettes only: no model, no key.
    Replay,
    /// Each case from its cassette when it has one, else recorded live.
    Auto,
}

#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub jobs: usize,
    pub mode: Mode,
    pub cassettes: Option<PathBuf>,
    pub include_destructive: bool,
    /// A server started on this machine (stdio): a tool that says nothing of being destructive
    /// may run there, not on a remote one.
    pub local_server: bool,
    /// Iterations per case, instead of the file's.
    pub iterations: Option<u32>,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Cassette(#[from] crate::cassette::CassetteError),
    #[error("--record, --replay and --auto need --cassettes DIR")]
    NoCassetteDir,
}

/// How far the run has come, for the progress line.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub case: String,
    pub iteration: usize,
    pub passed: bool,
}

/// The format `file`'s model speaks.
pub fn format_for(file: &EvalFile) -> Arc<dyn Format> {
    let model = &file.model;
    match model.api {
        Api::OpenAi => Arc::new(OpenAi {
            model: model.name.clone(),
            system: file.system.clone(),
            stream: model.stream,
            temperature: model.temperature,
            max_tokens: model.max_tokens,
        }),
        Api::Anthropic => Arc::new(Anthropic {
            model: model.name.clone(),
            system: file.system.clone(),
            stream: model.stream,
            temperature: model.temperature,
            max_tokens: model.max_tokens,
        }),
    }
}

/// The live model of `file`: its key read from the environment now (and masked from then on).
pub fn live_model(file: &EvalFile, format: Arc<dyn Format>) -> Result<HttpModel, ModelError> {
    let key = match &file.model.key {
        Some(written) => Some(
            crate::invoke::endpoint::expand_env(written)
                .map_err(|e| ModelError::Key(format!("{e} (the eval file's model.key)")))?,
        ),
        None => None,
    };
    HttpModel::new(&file.model.url, format, key)
}

/// What the model is shown of `tools`, each marked refused when it is destructive and not asked for.
pub fn toolbox(tools: &[Tool], settings: &Settings) -> Toolbox {
    let mut toolbox = Toolbox::default();
    for tool in tools {
        let hints = tool.hints();
        let refused = if settings.include_destructive {
            None
        } else if hints.marked_destructive() {
            Some("marked destructive; --include-destructive runs it".to_string())
        } else if hints.may_be_destructive() && !settings.local_server {
            Some("says nothing of being destructive, on a remote server; --include-destructive runs it".to_string())
        } else {
            None
        };
        toolbox.defs.push(ToolDef {
            name: tool.name.clone(),
            description: tool.description.clone(),
            input_schema: tool.sent_input_schema().clone(),
        });
        toolbox.calls.insert(tool.name.clone(), (tool.wire_id().to_string(), refused));
    }
    toolbox
}

/// Each tool's schema and compiled checker, by name, for the judge.
struct Schemas(HashMap<String, (Value, Checker)>);

impl call_match::Schemas for Schemas {
    fn schema(&self, tool: &str) -> Option<&Value> {
        self.0.get(tool).map(|(schema, _)| schema)
    }
    fn checker(&self, tool: &str) -> Option<&Checker> {
        self.0.get(tool).map(|(_, checker)| checker)
    }
}

/// A case's expectations read against the tools' schemas.
fn expectation(case: &EvalCase, schemas: &Schemas) -> CallExpect {
    let calls = case
        .expect
        .calls
        .iter()
        .map(|call| {
            let properties = schemas.0.get(&call.tool).and_then(|(schema, _)| schema.get("properties"));
            let args = call
                .args
                .iter()
                .map(|(name, written)| {
                    (name.clone(), call_match::accepted_values(written, properties.and_then(|p| p.get(name))))
                })
                .collect();
            ExpectedCall { tool: call.tool.clone(), args, exact: call.exact }
        })
        .collect();
    CallExpect { calls, order: case.expect.order, never: case.expect.never.clone() }
}

/// The models each case's answers come from, by the mode.
struct Models<'a> {
    live: Option<&'a dyn Model>,
    recorder: Option<crate::cassette::Recorder<'a>>,
    replay: Option<crate::cassette::Replay>,
    /// Cases answered from their cassettes (all of them in a replay).
    replayed: std::collections::HashSet<String>,
}

impl Models<'_> {
    fn for_case(&self, case: &str) -> Option<&dyn Model> {
        if self.replayed.contains(case) {
            return self.replay.as_ref().map(|r| r as &dyn Model);
        }
        match &self.recorder {
            Some(recorder) => Some(recorder as &dyn Model),
            None => self.live,
        }
    }
}

/// Everything a run needs from the outside.
pub struct Inputs<'a> {
    pub file: &'a EvalFile,
    pub tools: &'a [Tool],
    pub runner: &'a dyn Runner,
    /// The live model; `None` in a replay.
    pub live: Option<&'a dyn Model>,
    pub format: &'a dyn Format,
    pub cancel: &'a CancellationToken,
}

/// Runs every case of the file; `progress` hears of each iteration as it ends.
pub async fn run(
    inputs: Inputs<'_>,
    settings: &Settings,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<EvalReport, RunError> {
    let Inputs { file, tools, runner, live, format, cancel } = inputs;
    let raw_tools: Vec<Value> = tools.iter().map(as_listed).collect();
    let models = models(file, settings, live, &raw_tools)?;
    let toolbox = toolbox(tools, settings);
    let schemas = Schemas(
        tools.iter().map(|t| (t.name.clone(), (t.input_schema.clone(), Checker::new(&t.input_schema)))).collect(),
    );
    let expectations: Vec<CallExpect> = file.cases.iter().map(|c| expectation(c, &schemas)).collect();
    let iterations = settings.iterations.unwrap_or(file.iterations).max(1) as usize;
    let total = file.cases.len() * iterations;
    let work = (0..file.cases.len()).flat_map(|case| (0..iterations).map(move |i| (case, i)));
    let (toolbox, schemas, expectations, models) = (&toolbox, &schemas, &expectations, &models);
    let mut results = futures_util::stream::iter(work)
        .map(|(index, iteration)| async move {
            let case = &file.cases[index];
            let trajectory = match models.for_case(&case.name) {
                Some(model) => {
                    let agent = Agent { format, model, runner, toolbox, max_turns: file.max_turns as usize, cancel };
                    agent.run(&case.name, iteration, &case.prompt).await
                }
                None => Trajectory { error: Some("no model to ask".into()), ..Trajectory::default() },
            };
            (index, judged(iteration, trajectory, &expectations[index], schemas))
        })
        .buffer_unordered(settings.jobs.max(1));
    let mut by_case: Vec<Vec<IterationReport>> = vec![Vec::new(); file.cases.len()];
    let mut done = 0;
    while let Some((index, report)) = results.next().await {
        done += 1;
        progress(Progress {
            done,
            total,
            case: file.cases[index].name.clone(),
            iteration: report.iteration,
            passed: report.passed,
        });
        by_case[index].push(report);
    }
    drop(results);
    if let (Some(recorder), Some(dir)) = (&models.recorder, &settings.cassettes) {
        for (case, exchanges) in recorder.take() {
            crate::cassette::write(dir, &case, &raw_tools, &exchanges)?;
        }
    }
    Ok(report(file, by_case, raw_tools))
}

/// The models for `settings.mode`, the cassettes read.
fn models<'a>(
    file: &EvalFile,
    settings: &Settings,
    live: Option<&'a dyn Model>,
    raw_tools: &[Value],
) -> Result<Models<'a>, RunError> {
    let mut models = Models { live, recorder: None, replay: None, replayed: Default::default() };
    if settings.mode == Mode::Live {
        return Ok(models);
    }
    let dir = settings.cassettes.as_ref().ok_or(RunError::NoCassetteDir)?;
    let mut cassettes = HashMap::new();
    for case in &file.cases {
        let read = match settings.mode {
            Mode::Replay => Some(crate::cassette::read(dir, &case.name)?),
            Mode::Auto if crate::cassette::path_for(dir, &case.name).exists() => {
                Some(crate::cassette::read(dir, &case.name)?)
            }
            _ => None,
        };
        if let Some(recorded) = read {
            models.replayed.insert(case.name.clone());
            cassettes.insert(case.name.clone(), recorded);
        }
    }
    models.replay = Some(crate::cassette::Replay::new(cassettes, raw_tools.to_vec()));
    if settings.mode != Mode::Replay
        && let Some(live) = live
    {
        models.recorder = Some(crate::cassette::Recorder::new(live));
    }
    Ok(models)
}

/// A tool's definition as the server listed it (as read, when the listing is not kept).
fn as_listed(tool: &Tool) -> Value {
    match &tool.written.raw {
        Some(raw) => (**raw).clone(),
        None => serde_json::json!({
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.sent_input_schema(),
        }),
    }
}

/// One iteration judged.
fn judged(iteration: usize, trajectory: Trajectory, expect: &CallExpect, schemas: &Schemas) -> IterationReport {
    let made: Vec<MadeCall> = trajectory
        .calls
        .iter()
        .map(|c| MadeCall { tool: c.tool.clone(), arguments: c.arguments.clone(), not_json: c.not_json })
        .collect();
    let calls_judged = call_match::judge(expect, &made, schemas);
    let mut failures: Vec<String> = trajectory.error.iter().cloned().collect();
    failures.extend(calls_judged.iter().filter(|v| !v.is_right()).map(CallVerdict::line));
    IterationReport { iteration: iteration + 1, passed: failures.is_empty(), failures, calls_judged, trajectory }
}

/// The scores of every case and tool.
fn report(file: &EvalFile, by_case: Vec<Vec<IterationReport>>, tools: Vec<Value>) -> EvalReport {
    let mut per_tool: Vec<ToolScore> = Vec::new();
    let mut replay_mismatches = Vec::new();
    let mut cases = Vec::new();
    for (case, mut verdicts) in file.cases.iter().zip(by_case) {
        verdicts.sort_by_key(|v| v.iteration);
        let mut mismatches: Vec<(&str, Vec<usize>)> = Vec::new();
        for verdict in &verdicts {
            if let Some(ModelError::Replay(why)) = &verdict.trajectory.model_error {
                match mismatches.iter_mut().find(|(said, _)| *said == why.as_str()) {
                    Some((_, iterations)) => iterations.push(verdict.iteration),
                    None => mismatches.push((why, vec![verdict.iteration])),
                }
            }
            count_tools(&mut per_tool, verdict);
        }
        for (why, iterations) in mismatches {
            let shown: Vec<String> = iterations.iter().map(ToString::to_string).collect();
            let word = if iterations.len() == 1 { "iteration" } else { "iterations" };
            replay_mismatches.push(format!("{} ({word} {}): {why}", case.name, shown.join(", ")));
        }
        let passed = verdicts.iter().filter(|v| v.passed).count();
        let n = verdicts.len();
        let pass_rate = if n == 0 { 0.0 } else { passed as f64 / n as f64 };
        let (lo, hi) = wilson(passed, n);
        let mut expected_tools: Vec<String> = case.expect.calls.iter().map(|c| c.tool.clone()).collect();
        expected_tools.dedup();
        cases.push(CaseReport {
            name: case.name.clone(),
            location: case.location.clone(),
            passed,
            iterations: n,
            pass_rate: round(pass_rate),
            interval: [round(lo), round(hi)],
            pass_k: pass_k_table(passed, n),
            min_pass_rate: case.min_pass_rate,
            ok: pass_rate + 1e-9 >= case.min_pass_rate,
            expected_tools,
            refused: verdicts.iter().flat_map(|v| &v.trajectory.calls).filter(|c| c.refused.is_some()).count(),
            verdicts,
        });
    }
    per_tool.sort_by(|a, b| a.tool.cmp(&b.tool));
    EvalReport {
        file: file.path.display().to_string(),
        model: ModelShown {
            api: file.model.api,
            url: crate::redact::url(&file.model.url),
            name: file.model.name.clone(),
        },
        cases,
        per_tool,
        tools,
        replay_mismatches,
    }
}

fn count_tools(per_tool: &mut Vec<ToolScore>, verdict: &IterationReport) {
    for judged in &verdict.calls_judged {
        let entry = tool_score(per_tool, judged.tool());
        match judged {
            CallVerdict::Right { .. } => {
                entry.expected += 1;
                entry.chosen += 1;
                entry.right += 1;
            }
            CallVerdict::Wrong { .. } | CallVerdict::Invalid { .. } | CallVerdict::OutOfOrder { .. } => {
                entry.expected += 1;
                entry.chosen += 1;
            }
            CallVerdict::Missing { .. } => entry.expected += 1,
            CallVerdict::Extra { .. } | CallVerdict::Forbidden { .. } => entry.unexpected += 1,
        }
    }
    for call in verdict.trajectory.calls.iter().filter(|c| c.refused.is_some()) {
        tool_score(per_tool, &call.tool).refused += 1;
    }
}

/// The score of `tool`, a new one when it has none yet.
fn tool_score<'a>(per_tool: &'a mut Vec<ToolScore>, tool: &str) -> &'a mut ToolScore {
    let index = match per_tool.iter().position(|t| t.tool == tool) {
        Some(index) => index,
        None => {
            per_tool.push(ToolScore { tool: tool.to_string(), ..ToolScore::default() });
            per_tool.len() - 1
        }
    };
    &mut per_tool[index]
}
