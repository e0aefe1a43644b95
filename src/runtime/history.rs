//! The history writer: each call the app records is appended to the history file.

use std::path::PathBuf;

/// Where past calls are written (none: no history is kept).
pub(super) struct HistoryWriter {
    path: Option<PathBuf>,
}

impl HistoryWriter {
    pub(super) fn new(path: Option<PathBuf>) -> HistoryWriter {
        HistoryWriter { path }
    }

    /// Appends `entry`, stamped now if it has no time yet.
    pub(super) fn record(&self, mut entry: Box<crate::history::PastCall>) {
        let Some(path) = self.path.clone() else { return };
        if entry.at.is_empty() {
            entry.at = crate::text::rfc3339_now();
        }
        // Off the UI thread; a history that cannot be written costs only the history. Not in a
        // supervised scope: a call answered just before quitting is still written down.
        tokio::task::spawn_blocking(move || crate::history::append(&path, &entry));
    }
}
