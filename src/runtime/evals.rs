//! The app's eval runs (`ServerEffect::Eval`): the cases the app picked for the selected tool,
//! run by `tooldeck_evals::run` as `tooldeck eval` runs them (the file's model and key, its
//! iterations, 4 at a time, destructive tools refused), on the tool's server over its
//! session's own connection, so the calls the model makes show in the session's traffic. Each
//! iteration's end goes to the app as `EvalMsg::Progress`, the report as `EvalMsg::Done`. One
//! run at a time; stopping it cancels the run's one token, which ends the iterations going on
//! as stopped (the report still comes, saying so).

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tooldeck_evals::file::EvalFile;
use tooldeck_evals::report::EvalReport;
use tooldeck_evals::run::{Inputs, Progress, Settings};

use crate::app::{EffectError, EvalMsg, Msg};
use crate::invoke::Endpoint;
use crate::invoke::endpoint::{list_catalog, to_call};

/// Iterations run at a time, as `tooldeck eval`'s default `--jobs`.
const JOBS: usize = 4;

/// The app's eval run: at most one at a time.
#[derive(Default)]
pub(super) struct EvalRun {
    current: Option<EvalTask>,
}

/// The run going on: how to stop it.
struct EvalTask {
    id: u64,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for EvalTask {
    /// The app quit (or a new run began): the run's model requests and calls go too.
    fn drop(&mut self) {
        self.cancel.cancel();
        self.task.abort();
    }
}

impl EvalRun {
    /// Runs `file`'s cases on the server of session `s`.
    pub(super) fn start(&mut self, s: &super::sessions::SessionHandle, id: u64, file: EvalFile) {
        // One run at a time: a new one ends the last (its drop stops it).
        self.current = None;
        let done = s.done.clone();
        let connection = s.endpoint.clone();
        let (label, options) = (s.label.clone(), &s.recipe.options);
        // A tool that says nothing of being destructive runs on a server started here (stdio,
        // or the demo server), as `tooldeck eval` decides it.
        let local_server = options.mcp.is_some() || !options.names_a_server();
        let cancel = CancellationToken::new();
        let token = cancel.clone();
        let task = s.spawn(async move {
            let result = match connection.await {
                Ok(endpoint) => {
                    let mut progress = progress_to(&done, id);
                    run_eval(&endpoint, &label, &file, local_server, &token, &mut progress).await.map(Box::new)
                }
                Err(e) => Err(EffectError::EvalTools(e)),
            };
            let _ = done.send(Msg::Eval(EvalMsg::Done { id, result })).await;
        });
        self.current = Some(EvalTask { id, cancel, task });
    }

    /// Stops run `id` if it is the one going on (its report still comes).
    pub(super) fn stop(&self, id: u64) {
        if let Some(run) = self.current.as_ref().filter(|r| r.id == id) {
            run.cancel.cancel();
        }
    }
}

/// Each iteration's end, to the app (best effort: a full queue skips one, never slows the run;
/// the report says it all at the end).
fn progress_to(done: &mpsc::Sender<Msg>, id: u64) -> impl FnMut(Progress) + Send + use<> {
    let done = done.clone();
    move |progress| {
        let _ = done.try_send(Msg::Eval(EvalMsg::Progress { id, progress }));
    }
}

/// `file`'s cases on `endpoint` (called `label`): its tools listed and shown to the file's model,
/// live (its key read from the environment now), `progress` told of each iteration.
pub async fn run_eval(
    endpoint: &Endpoint,
    label: &str,
    file: &EvalFile,
    local_server: bool,
    cancel: &CancellationToken,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<EvalReport, EffectError> {
    let format = tooldeck_evals::run::format_for(file);
    let model = tooldeck_evals::run::live_model(file, std::sync::Arc::clone(&format))?;
    let (tools, _) = list_catalog(endpoint, label, &to_call()).await.map_err(EffectError::EvalTools)?;
    let settings = Settings { jobs: JOBS, local_server, ..Settings::default() };
    let inputs = Inputs { file, tools: &tools, runner: endpoint, live: Some(&model), format: format.as_ref(), cancel };
    tooldeck_evals::run::run(inputs, &settings, progress).await.map_err(|e| EffectError::Eval(e.to_string()))
}
