//! Tasks that live no longer than their owner (an app's bridge, a proxy session): each runs
//! until it ends or its owner stops them, or goes, when it is dropped where it stands. The
//! app's own runtime has its supervisor for this; here each owner holds its own.
//!
//! A token alone, not tokio-util's `TaskTracker`: no owner waits for its tasks to finish, and the
//! tracker's `rt` feature would rebuild the HTTP stack under it.

use std::future::Future;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The owner's tasks, stopped by [`OwnedTasks::stop`] or when this is dropped.
#[derive(Debug, Default)]
pub struct OwnedTasks {
    stop: CancellationToken,
}

impl OwnedTasks {
    /// Runs `work` on the current runtime until it ends or the owner stops its tasks.
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) -> JoinHandle<()> {
        let stop = self.stop.clone();
        tokio::spawn(async move {
            stop.run_until_cancelled(work).await;
        })
    }

    /// Stops every task, those running and any spawned from now on.
    pub fn stop(&self) {
        self.stop.cancel();
    }
}

impl Drop for OwnedTasks {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    /// Waits (up to a second) for every task holding `held` to let it go.
    pub(crate) async fn let_go(held: &Arc<()>) -> bool {
        for _ in 0..100 {
            if Arc::strong_count(held) == 1 {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    #[tokio::test]
    async fn the_owner_going_stops_its_tasks() {
        let held = Arc::new(());
        let tasks = OwnedTasks::default();
        let holding = Arc::clone(&held);
        let task = tasks.spawn(async move {
            std::future::pending::<()>().await;
            drop(holding);
        });
        drop(tasks);
        assert!(let_go(&held).await, "the task still holds what it held");
        assert!(task.await.is_ok(), "it ended, not panicked");
    }

    #[tokio::test]
    async fn stopped_tasks_end_and_later_ones_do_not_run() {
        let tasks = OwnedTasks::default();
        let held = Arc::new(());
        let holding = Arc::clone(&held);
        tasks.spawn(async move {
            std::future::pending::<()>().await;
            drop(holding);
        });
        tasks.stop();
        assert!(let_go(&held).await);
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let running = Arc::clone(&ran);
        let late = tasks.spawn(async move { running.store(true, std::sync::atomic::Ordering::SeqCst) });
        assert!(late.await.is_ok());
        assert!(!ran.load(std::sync::atomic::Ordering::SeqCst), "a task spawned after the stop never runs");
    }
}
