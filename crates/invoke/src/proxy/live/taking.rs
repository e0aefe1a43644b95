//! The thread that takes watchers as they connect, owned by the live feed: stopped and joined
//! when the feed goes, not left waiting on its listener until the process ends.

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use super::port::{Knock, Listener};

/// The running thread, and how to stop it: a flag it reads after each connection, and one
/// connection of this side's own to wake it from its wait.
pub(super) struct Taking {
    stop: Arc<AtomicBool>,
    knock: Knock,
    thread: Option<JoinHandle<()>>,
}

impl Taking {
    /// Hands each watcher that connects to `welcome`, on a thread of its own.
    pub(super) fn start(
        listener: Listener,
        welcome: impl Fn(Box<dyn Read + Send>, Box<dyn Write + Send>) + Send + 'static,
    ) -> io::Result<Taking> {
        let knock = listener.knock()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("live-feed".into())
            .spawn(move || listener.accept_each(&stopping, welcome))?;
        Ok(Taking { stop, knock, thread: Some(thread) })
    }

    /// Stops the thread and waits for it; again, it does nothing. Called while the listener's
    /// socket is still there to be knocked on.
    pub(super) fn stop(&mut self) {
        let Some(thread) = self.thread.take() else { return };
        self.stop.store(true, Ordering::Release);
        // A knock that finds no one (the socket removed under it) would leave the thread
        // waiting: it is not joined then, and ends with the process as it always did.
        if self.knock.knock() {
            let _ = thread.join();
        }
    }
}

impl Drop for Taking {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_is_stopped_and_joined_with_its_owner() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("t.sock");
        let held = Arc::new(());
        let holding = Arc::clone(&held);
        let mut taking = Taking::start(Listener::bind(&path).expect("bound"), move |_, _| {
            let _ = &holding;
        })
        .expect("started");
        taking.stop();
        assert!(taking.thread.is_none(), "joined");
        assert_eq!(Arc::strong_count(&held), 1, "what the thread held went with it");
    }

    #[test]
    fn the_port_way_stops_too() {
        let dir = tempfile::tempdir().expect("a folder");
        let listener = Listener::bind_port(&dir.path().join("t.port")).expect("bound");
        let held = Arc::new(());
        let holding = Arc::clone(&held);
        let taking = Taking::start(listener, move |_, _| {
            let _ = &holding;
        })
        .expect("started");
        drop(taking);
        assert_eq!(Arc::strong_count(&held), 1, "joined, and what it held dropped");
    }
}
