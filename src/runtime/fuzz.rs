//! The app's fuzz runs (`ServerEffect::Fuzz`), each over a connection of its own: a fuzz run is out to
//! crash and hang the server, and a stdio server that crashed takes its session with it. With a
//! second process (stdio) or a second session (HTTP) the server the person works with is never
//! restarted, its log never flooded, and a call of theirs never waits behind the run's. One run
//! at a time; stopping it cuts the call in flight short and reports the findings so far.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::app::{EffectError, FuzzMsg, Msg};
use crate::catalog::Tool;
use crate::fuzz::{Progress, Settings, Stoppable};
use crate::invoke::endpoint::EndpointOptions;

/// Progress goes to the app at most this often (a fast server answers thousands a second).
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// How to connect to a server again: what its first connection was made from.
#[derive(Debug, Clone)]
pub(super) struct Recipe {
    pub options: EndpointOptions,
    pub headers: Vec<(String, String)>,
    pub demo_url: Option<String>,
}

/// The app's fuzz run: at most one at a time.
#[derive(Default)]
pub(super) struct FuzzRun {
    current: Option<FuzzTask>,
}

/// The run going on: how to stop it.
struct FuzzTask {
    id: u64,
    stop: Arc<AtomicBool>,
    cut: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl FuzzTask {
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.cut.cancel();
    }
}

impl Drop for FuzzTask {
    /// The app quit (or a new run began): the run's connection, and its server process, go too.
    fn drop(&mut self) {
        self.stop();
        self.task.abort();
    }
}

impl FuzzRun {
    /// Fuzzes `tool` on the server it is called on, over a new connection to it.
    pub(super) fn start(&mut self, s: &super::sessions::SessionHandle, id: u64, tool: Tool) {
        // One run at a time: a new one ends the last (its drop stops it).
        self.current = None;
        let done = s.done.clone();
        let recipe = s.recipe.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let cut = CancellationToken::new();
        let (flag, token) = (stop.clone(), cut.clone());
        let task = s.spawn(async move {
            let result = fuzz(recipe, tool, id, &flag, token, &done).await;
            let _ = done.send(Msg::Fuzz(FuzzMsg::Done { id, result })).await;
        });
        self.current = Some(FuzzTask { id, stop, cut, task });
    }

    /// Stops run `id` if it is the one going on (its findings so far are still reported).
    pub(super) fn stop(&self, id: u64) {
        if let Some(run) = self.current.as_ref().filter(|r| r.id == id) {
            run.stop();
        }
    }
}

/// The settings `tooldeck fuzz` would use for this server, with a seed from the clock (the
/// report gives it, so a run can be repeated with `tooldeck fuzz --seed`).
fn settings(options: &EndpointOptions) -> Settings {
    let stdio = options.mcp.is_some();
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    Settings {
        seed,
        jobs: if stdio { 1 } else { 4 },
        local_server: stdio || !options.names_a_server(),
        ..Settings::default()
    }
}

async fn fuzz(
    recipe: Recipe,
    tool: Tool,
    id: u64,
    stop: &AtomicBool,
    cut: CancellationToken,
    done: &mpsc::Sender<Msg>,
) -> Result<Box<crate::fuzz::Report>, EffectError> {
    let mut options = recipe.options;
    crate::fuzz::cap_call_time(&mut options);
    let settings = settings(&options);
    // What the server asks during a call is answered as `tooldeck call` answers it: the person
    // is not asked a question a fuzz run caused.
    let endpoint =
        options.connect(recipe.headers, recipe.demo_url.as_deref()).await.map_err(EffectError::FuzzConnection)?;
    let caller = Stoppable { caller: endpoint, cut };
    let last = Mutex::new(None::<Instant>);
    let report = |progress: &Progress| {
        let Ok(mut last) = last.lock() else { return };
        if last.is_some_and(|at| at.elapsed() < PROGRESS_EVERY) {
            return;
        }
        *last = Some(Instant::now());
        // Best effort: a full queue skips a report, never slows the run.
        let _ = done.try_send(Msg::Fuzz(FuzzMsg::Progress { id, progress: progress.clone() }));
    };
    let ran = crate::fuzz::run(&caller, std::slice::from_ref(&tool), &settings, &report, stop).await;
    caller.caller.close().await;
    Ok(Box::new(ran?))
}
