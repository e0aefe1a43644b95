//! `--watch PATH`: files or folders whose changes restart (or reconnect to) a server and run the
//! work again. The `notify` crate reports the operating system's events; this module keeps the
//! ones that mean "a file was written, made, removed or renamed" under a watched path, and turns
//! a burst of them (an editor's save is several) into one [`Change`].
//!
//! Folders are watched recursively, but events under `.git`, `node_modules`, `target`,
//! `__pycache__` and `dist` are ignored unless the path given is inside one of them (a build or a
//! package install writes there thousands of times, and the server's own source is elsewhere).
//! A file is watched through its folder, so an editor that saves by writing a new file and
//! renaming it over the old one is still seen.

use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher as _};

/// Folders whose changes are ignored inside a watched folder (unless the path given names them).
pub const IGNORED: [&str; 5] = [".git", "node_modules", "target", "__pycache__", "dist"];

/// How long the files must be quiet before a change is reported: an editor's save (write, rename,
/// metadata) and a formatter run after it come within a few milliseconds of each other.
pub const QUIET: Duration = Duration::from_millis(150);

/// However busy the files stay (a build writing for seconds), a change is reported after this.
const LONGEST_WAIT: Duration = Duration::from_secs(2);

/// Events waiting to be debounced. Past this many, the rest are dropped: the change is already
/// known, and only its list of paths is cut short.
const RAW_EVENTS: usize = 1024;

/// How many changed paths a [`Change`] names; the rest are counted.
const PATHS_KEPT: usize = 16;

/// Why a path cannot be watched.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("--watch {path}: no such file or folder")]
    Missing { path: String },
    #[error("--watch {path}: {source}")]
    Watch { path: String, source: notify::Error },
}

/// What changed in one burst of events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// The first [`PATHS_KEPT`] paths changed, each once, in the order first seen.
    pub paths: Vec<PathBuf>,
    /// How many other paths changed.
    pub more: usize,
}

impl Change {
    fn add(&mut self, path: PathBuf) {
        if self.paths.contains(&path) {
            return;
        }
        match self.paths.len() < PATHS_KEPT {
            true => self.paths.push(path),
            false => self.more += 1,
        }
    }

    /// `a.js`, `a.js, b.js` or `a.js and 3 more`, by file name (the folder is the one watched).
    pub fn summary(&self) -> String {
        let names: Vec<String> = self
            .paths
            .iter()
            .take(3)
            .map(|p| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()))
            .collect();
        let others = self.more + self.paths.len().saturating_sub(3);
        let mut line = if names.is_empty() { "files".to_string() } else { names.join(", ") };
        if others > 0 {
            line.push_str(&format!(" and {others} more"));
        }
        crate::text::visible(&line).into_owned()
    }
}

/// One watched path: a folder (recursive), or a file (watched through its folder).
#[derive(Debug, Clone)]
struct Root {
    path: PathBuf,
    file: bool,
}

impl Root {
    /// True when `path` is this file, or under this folder and not under an ignored folder.
    fn covers(&self, path: &Path) -> bool {
        if self.file {
            return path == self.path;
        }
        let Ok(rest) = path.strip_prefix(&self.path) else { return false };
        let scratch = path.file_name().and_then(|n| n.to_str()).is_some_and(is_editor_scratch);
        !scratch
            && !rest.components().any(|c| matches!(c, Component::Normal(name) if IGNORED.iter().any(|i| name == *i)))
    }
}

/// True for the files an editor writes beside the one being edited and then removes or keeps
/// aside: vim's swap files (`.a.js.swp`, `.swx`, `.swo`) and its write test `4913`, backups
/// (`a.js~`), Emacs's lock and auto-save (`.#a.js`, `#a.js#`), Kate's swap (`.a.js.kate-swp`),
/// JetBrains' safe write (`a.js___jb_tmp___`), gedit's (`.goutputstream-XYZ`). The save itself
/// changes the real file, which is seen; naming the scratch file in "what changed" only misleads.
fn is_editor_scratch(name: &str) -> bool {
    let vim_swap = name.starts_with('.') && [".swp", ".swx", ".swo"].iter().any(|end| name.ends_with(end));
    vim_swap
        || name == "4913"
        || name.ends_with('~')
        || name.starts_with(".#")
        || (name.len() > 2 && name.starts_with('#') && name.ends_with('#'))
        || name.ends_with(".kate-swp")
        || name.ends_with("___jb_tmp___")
        || name.ends_with("___jb_old___")
        || name.starts_with(".goutputstream-")
}

/// True for the events that mean a file's content or presence changed. Opening, reading and
/// closing a file (the server reading its own source) are not changes, nor is a metadata change:
/// the first read after a write updates the access time, which would restart the server again.
fn is_a_change(kind: &EventKind) -> bool {
    use notify::event::ModifyKind;
    match kind {
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Other => false,
    }
}

/// Watches paths until dropped; [`Watch::changed`] gives each debounced change.
pub struct Watch {
    // Dropping the watcher ends its events, and with them the debouncing thread.
    _watcher: notify::RecommendedWatcher,
    changes: tokio::sync::mpsc::Receiver<Change>,
}

impl Watch {
    /// Watches `paths` (files or folders), with the default quiet time.
    pub fn start(paths: &[PathBuf]) -> Result<Watch, WatchError> {
        Watch::start_with(paths, QUIET)
    }

    /// Watches `paths`; a change is reported once they have been quiet for `quiet`.
    pub fn start_with(paths: &[PathBuf], quiet: Duration) -> Result<Watch, WatchError> {
        let roots = paths.iter().map(|p| root(p)).collect::<Result<Vec<Root>, WatchError>>()?;
        let (raw_tx, raw_rx) = mpsc::sync_channel::<Option<PathBuf>>(RAW_EVENTS);
        let filter = roots.clone();
        let handler = move |event: notify::Result<notify::Event>| match event {
            Ok(event) if is_a_change(&event.kind) => {
                for path in event.paths.into_iter().filter(|p| filter.iter().any(|r| r.covers(p))) {
                    // A full queue already holds a change: only this path's name is lost.
                    let _ = raw_tx.try_send(Some(path));
                }
            }
            Ok(_) => {}
            // The system's queue overflowed (or a folder went away): something changed, but
            // what is not known.
            Err(_) => {
                let _ = raw_tx.try_send(None);
            }
        };
        let mut watcher =
            notify::recommended_watcher(handler).map_err(|source| WatchError::Watch { path: String::new(), source })?;
        let mut watched: Vec<PathBuf> = Vec::new();
        for root in &roots {
            let (target, mode) = match root.file {
                true => (root.path.parent().unwrap_or(Path::new("/")).to_path_buf(), RecursiveMode::NonRecursive),
                false => (root.path.clone(), RecursiveMode::Recursive),
            };
            if watched.contains(&target) {
                continue;
            }
            watcher
                .watch(&target, mode)
                .map_err(|source| WatchError::Watch { path: root.path.display().to_string(), source })?;
            watched.push(target);
        }
        // One change waits at most: more while it waits are the same news.
        let (tx, changes) = tokio::sync::mpsc::channel(1);
        std::thread::Builder::new()
            .name("tooldeck-watch".into())
            .spawn(move || debounce(&raw_rx, &tx, quiet))
            .map_err(|e| WatchError::Watch { path: String::new(), source: notify::Error::io(e) })?;
        Ok(Watch { _watcher: watcher, changes })
    }

    /// The next change (None only if the watching thread has ended).
    pub async fn changed(&mut self) -> Option<Change> {
        self.changes.recv().await
    }

    /// [`Watch::changed`], blocking the thread (not inside an async task).
    pub fn blocking_changed(&mut self) -> Option<Change> {
        self.changes.blocking_recv()
    }
}

/// The path as watched: absolute and with links resolved, as the system's events name it.
fn root(path: &Path) -> Result<Root, WatchError> {
    let missing = || WatchError::Missing { path: path.display().to_string() };
    let path = std::fs::canonicalize(path).map_err(|_| missing())?;
    let file = !path.is_dir();
    Ok(Root { path, file })
}

/// Collects events until `quiet` passes without one (or [`LONGEST_WAIT`] since the first), then
/// sends them as one change. Ends when the watcher (the sender of `raw`) or the receiver of
/// `changes` is gone.
fn debounce(raw: &mpsc::Receiver<Option<PathBuf>>, changes: &tokio::sync::mpsc::Sender<Change>, quiet: Duration) {
    use tokio::sync::mpsc::error::TrySendError;
    while let Ok(first) = raw.recv() {
        let began = Instant::now();
        let mut change = Change::default();
        let mut add = |event: Option<PathBuf>| {
            if let Some(path) = event {
                change.add(path);
            }
        };
        add(first);
        let mut open = true;
        while began.elapsed() < LONGEST_WAIT {
            match raw.recv_timeout(quiet) {
                Ok(event) => add(event),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        match changes.try_send(change) {
            Ok(()) | Err(TrySendError::Full(_)) => {}
            Err(TrySendError::Closed(_)) => return,
        }
        if !open {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(watch: &mut Watch, within: Duration) -> Option<Change> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
        runtime.block_on(async { tokio::time::timeout(within, watch.changed()).await.ok().flatten() })
    }

    fn folder() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp folder");
        let path = std::fs::canonicalize(dir.path()).expect("canonical");
        (dir, path)
    }

    #[test]
    fn a_burst_of_writes_is_one_change() {
        let (_dir, path) = folder();
        let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
        for i in 0..5 {
            std::fs::write(path.join("server.sh"), format!("echo {i}")).expect("write");
        }
        std::fs::write(path.join("tools.json"), "[]").expect("write");
        let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
        assert!(change.paths.contains(&path.join("server.sh")), "{change:?}");
        assert!(change.paths.contains(&path.join("tools.json")), "{change:?}");
        assert_eq!(next(&mut watch, Duration::from_millis(500)), None, "one change for the burst");
    }

    #[test]
    fn an_editors_scratch_files_are_not_named() {
        let (_dir, path) = folder();
        let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
        // vim's save: its write test, its swap file and backup, then the file itself.
        for scratch in ["4913", ".server.js.swp", "server.js~", ".#server.js", "#server.js#", "s.js___jb_tmp___"] {
            std::fs::write(path.join(scratch), "x").expect("write");
        }
        std::fs::write(path.join("server.js"), "new").expect("write");
        let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
        assert_eq!(change.paths, vec![path.join("server.js")], "{change:?}");
        for kept in ["server.js", "notes.swp", "#1", "tmp", "a.kate"] {
            assert!(!is_editor_scratch(kept), "{kept}");
        }
    }

    #[test]
    fn ignored_folders_are_not_changes_unless_named() {
        let (_dir, path) = folder();
        for name in IGNORED {
            std::fs::create_dir(path.join(name)).expect("mkdir");
        }
        let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
        for name in IGNORED {
            std::fs::write(path.join(name).join("x"), "1").expect("write");
        }
        assert_eq!(next(&mut watch, Duration::from_millis(600)), None);
        std::fs::write(path.join("src.rs"), "1").expect("write");
        let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
        assert_eq!(change.paths, vec![path.join("src.rs")]);

        // Named, an ignored folder is watched.
        let mut named = Watch::start(&[path.join("target")]).expect("watch");
        std::fs::write(path.join("target").join("y"), "1").expect("write");
        let change = next(&mut named, Duration::from_secs(5)).expect("a change");
        assert_eq!(change.paths, vec![path.join("target").join("y")]);
    }

    #[test]
    fn a_watched_file_survives_a_save_by_rename_and_reading_is_no_change() {
        let (_dir, path) = folder();
        let file = path.join("server.sh");
        std::fs::write(&file, "v1").expect("write");
        let mut watch = Watch::start(std::slice::from_ref(&file)).expect("watch");
        // Reading is not a change; another file in its folder is not either.
        let _ = std::fs::read(&file).expect("read");
        std::fs::write(path.join("other"), "x").expect("write");
        assert_eq!(next(&mut watch, Duration::from_millis(600)), None);
        for version in ["v2", "v3"] {
            std::fs::write(path.join("server.sh.tmp"), version).expect("write");
            std::fs::rename(path.join("server.sh.tmp"), &file).expect("rename");
            let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
            assert_eq!(change.paths, vec![file.clone()]);
        }
    }

    #[test]
    fn a_missing_path_is_an_error() {
        let (_dir, path) = folder();
        let error = Watch::start(&[path.join("nope")]).err().expect("an error");
        assert!(matches!(error, WatchError::Missing { .. }), "{error}");
    }

    #[test]
    fn a_summary_names_a_few_files_and_counts_the_rest() {
        let mut change = Change::default();
        for i in 0..20 {
            change.add(PathBuf::from(format!("/p/f{i}.js")));
        }
        change.add(PathBuf::from("/p/f0.js"));
        assert_eq!(change.summary(), "f0.js, f1.js, f2.js and 17 more");
        assert_eq!(Change::default().summary(), "files");
    }
}
