//! Every task the app's runtime starts runs here, under a cancellation token: the root's, or a
//! session's child of it. Quitting cancels the root, and with it every call, listing, sign-in,
//! reconnect, fetch, save and lint still going; ending a session cancels only its tasks. A task's
//! answer comes back as a `Msg`. Nothing else in `runtime/` spawns a task.

use std::future::Future;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::app::Msg;

/// Owns the root token; cheap to clone (every clone cancels the same tasks).
#[derive(Clone, Debug, Default)]
pub(super) struct Supervisor {
    root: CancellationToken,
}

impl Supervisor {
    /// A scope for one session's tasks: cancelled with the root, or alone when the session ends.
    pub fn session_scope(&self) -> CancellationToken {
        self.root.child_token()
    }

    /// The scope of tasks that belong to no session (the catalog, the history, a fetch...).
    pub fn root(&self) -> &CancellationToken {
        &self.root
    }

    /// Runs `work` until it ends or `scope` is cancelled (then it is dropped where it stands).
    pub fn spawn(&self, scope: &CancellationToken, work: impl Future<Output = ()> + Send + 'static) -> JoinHandle<()> {
        let scope = scope.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = scope.cancelled() => {}
                () = work => {}
            }
        })
    }

    /// Runs `work` in `scope` and sends the message it ends with to `to` (unless cancelled
    /// first, or the app is gone).
    pub fn answer(
        &self,
        scope: &CancellationToken,
        to: &mpsc::Sender<Msg>,
        work: impl Future<Output = Msg> + Send + 'static,
    ) -> JoinHandle<()> {
        let to = to.clone();
        self.spawn(scope, async move {
            let msg = work.await;
            let _ = to.send(msg).await;
        })
    }

    /// Every task is cancelled (quitting).
    pub fn shutdown(&self) {
        self.root.cancel();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Counts the tasks whose futures were dropped (cancelled or ended).
    struct Dropped(Arc<AtomicUsize>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn forever(dropped: &Arc<AtomicUsize>) -> impl Future<Output = ()> + Send + 'static {
        let guard = Dropped(Arc::clone(dropped));
        async move {
            let _guard = guard;
            std::future::pending::<()>().await
        }
    }

    #[tokio::test]
    async fn quitting_cancels_every_task_and_a_session_ending_only_its_own() {
        let supervisor = Supervisor::default();
        let (to, mut answers) = mpsc::channel(4);
        let dropped = Arc::new(AtomicUsize::new(0));
        let (alpha, beta) = (supervisor.session_scope(), supervisor.session_scope());
        let tasks = vec![
            supervisor.spawn(&alpha, forever(&dropped)),
            supervisor.spawn(&beta, forever(&dropped)),
            supervisor.spawn(supervisor.root(), forever(&dropped)),
            supervisor.answer(&beta, &to, async { Msg::Status("beta".into()) }),
        ];
        assert_eq!(answers.recv().await, Some(Msg::Status("beta".into())), "an answer comes back as a message");

        alpha.cancel();
        while !tasks[0].is_finished() {
            tokio::task::yield_now().await;
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "only alpha's task ended");
        assert!(!tasks[1].is_finished() && !tasks[2].is_finished());

        supervisor.shutdown();
        for task in tasks {
            task.await.expect("the task ended, not panicked");
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 3, "quitting cancelled every task, in a session or not");
    }
}
