//! `--watch PATH`: files or folders whose changes restart (or reconnect to) a server and run the
//! work again. The `notify` crate reports the operating system's events; this module keeps the
//! ones that mean "a file was written, made, removed or renamed" under a watched path, and
//! `notify-debouncer-mini` turns a burst of them (an editor's save is several) into one
//! [`Change`]: it debounces each path on its own, so the burst as a whole is followed through one
//! more path of this module's own ([`burst`]), named in every kept event, which goes quiet only
//! when every path has. The longest wait ([`LONGEST_WAIT`]) is kept here, over what it reports.
//!
//! Folders are watched recursively, but events under `.git`, `node_modules`, `target`,
//! `__pycache__` and `dist` are ignored unless the path given is inside one of them (a build or a
//! package install writes there thousands of times, and the server's own source is elsewhere).
//! A file is watched through its folder, so an editor that saves by writing a new file and
//! renaming it over the old one is still seen.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};
use notify_debouncer_mini::{DebounceEventResult, DebouncedEventKind, Debouncer};

/// Folders whose changes are ignored inside a watched folder (unless the path given names them).
pub const IGNORED: [&str; 5] = [".git", "node_modules", "target", "__pycache__", "dist"];

/// How long the files must be quiet before a change is reported: an editor's save (write, rename,
/// metadata) and a formatter run after it come within a few milliseconds of each other.
pub const QUIET: Duration = Duration::from_millis(150);

/// However busy the files stay (a build writing for seconds), a change is reported after this.
const LONGEST_WAIT: Duration = Duration::from_secs(2);

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
    /// The first [`PATHS_KEPT`] paths changed, each once, in the order they went quiet (by name
    /// among those that went quiet together).
    pub paths: Vec<PathBuf>,
    /// How many other paths changed.
    pub more: usize,
    /// The other paths, each counted once however often it settles within the burst (up to
    /// [`OTHERS_KNOWN`]; past that a path is counted as it comes).
    others: std::collections::HashSet<PathBuf>,
}

/// How many paths past [`PATHS_KEPT`] a change remembers, to count each once.
const OTHERS_KNOWN: usize = 4096;

impl Change {
    fn add(&mut self, path: PathBuf) {
        if self.paths.contains(&path) || self.others.contains(&path) {
            return;
        }
        if self.paths.len() < PATHS_KEPT {
            self.paths.push(path);
            return;
        }
        self.more += 1;
        if self.others.len() < OTHERS_KNOWN {
            self.others.insert(path);
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

/// The path of the burst itself, added to every kept event: no event names an empty path.
/// Debounced like the others, it goes quiet once no watched path has changed for the quiet time.
fn burst() -> PathBuf {
    PathBuf::new()
}

/// Watches paths until dropped; [`Watch::changed`] gives each debounced change.
pub struct Watch {
    // Dropping the debouncer ends its thread and the watcher under it, and with them the
    // changes: [`Watch::changed`] then answers `None`.
    _debouncer: Debouncer<ChangeWatcher>,
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
        // One change waits at most: more while it waits are the same news.
        let (tx, changes) = tokio::sync::mpsc::channel(1);
        let mut bursts = Bursts { changes: tx, quiet, change: Change::default(), began: None, unknown: false };
        let config = notify_debouncer_mini::Config::default().with_timeout(quiet).with_batch_mode(true);
        let mut debouncer =
            notify_debouncer_mini::new_debouncer_opt::<_, ChangeWatcher>(config, move |result: DebounceEventResult| {
                bursts.take(result)
            })
            .map_err(|source| WatchError::Watch { path: String::new(), source })?;
        for root in &roots {
            debouncer
                .watcher()
                .watch(&root.path, RecursiveMode::Recursive)
                .map_err(|source| WatchError::Watch { path: root.path.display().to_string(), source })?;
        }
        Ok(Watch { _debouncer: debouncer, changes })
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

/// What the debouncer reports, gathered into changes (on the debouncer's thread).
struct Bursts {
    changes: tokio::sync::mpsc::Sender<Change>,
    quiet: Duration,
    change: Change,
    /// When the debouncer first reported of the burst under way (a quiet time after it began).
    began: Option<Instant>,
    /// The system's queue overflowed (or a folder went away): something changed, but what is
    /// not known.
    unknown: bool,
}

impl Bursts {
    fn take(&mut self, result: DebounceEventResult) {
        let events = match result {
            Ok(events) => events,
            Err(_) => {
                self.unknown = true;
                // A burst under way says it when it goes quiet; else nothing else will.
                if self.began.is_none() {
                    self.send();
                }
                return;
            }
        };
        let began = *self.began.get_or_insert_with(Instant::now);
        let mut quiet = false;
        let mut named: Vec<PathBuf> = Vec::new();
        for event in events {
            match event.path == burst() {
                true => quiet = event.kind == DebouncedEventKind::Any,
                false => named.push(event.path),
            }
        }
        named.sort();
        for path in named {
            self.change.add(path);
        }
        // However busy the files stay, the change is said after the longest wait (counted from
        // the burst's first event, a quiet time before the debouncer's first report of it).
        if quiet || began.elapsed() + self.quiet >= LONGEST_WAIT {
            self.send();
        }
    }

    fn send(&mut self) {
        let change = std::mem::take(&mut self.change);
        let unknown = std::mem::take(&mut self.unknown);
        self.began = None;
        if change.paths.is_empty() && !unknown {
            // The burst's paths went out already, at its longest wait.
            return;
        }
        // One change waiting already says as much; a reader that left hears nothing.
        let _ = self.changes.try_send(change);
    }
}

/// `notify`'s recommended watcher, passing on only the changes under the watched paths (each
/// event naming the burst too): the debouncer then sees only what counts.
struct ChangeWatcher {
    inner: notify::RecommendedWatcher,
    roots: Arc<Mutex<Vec<Root>>>,
    /// The folders the inner watcher watches (a file is watched through its folder).
    watched: Vec<PathBuf>,
}

impl Watcher for ChangeWatcher {
    fn new<F: notify::EventHandler>(mut handler: F, config: notify::Config) -> notify::Result<Self> {
        let roots: Arc<Mutex<Vec<Root>>> = Arc::default();
        let filter = Arc::clone(&roots);
        let keep = move |event: notify::Result<notify::Event>| match event {
            Ok(mut event) if is_a_change(&event.kind) => {
                let roots = crate::sync::lock(&filter);
                event.paths.retain(|path| roots.iter().any(|root| root.covers(path)));
                drop(roots);
                if !event.paths.is_empty() {
                    event.paths.push(burst());
                    handler.handle_event(Ok(event));
                }
            }
            Ok(_) => {}
            Err(e) => handler.handle_event(Err(e)),
        };
        let inner = notify::RecommendedWatcher::new(keep, config)?;
        Ok(ChangeWatcher { inner, roots, watched: Vec::new() })
    }

    /// Watches `path` as a [`Root`]: a folder in `mode`, or a file through its folder.
    fn watch(&mut self, path: &Path, mode: RecursiveMode) -> notify::Result<()> {
        let root = Root { path: path.to_path_buf(), file: !path.is_dir() };
        let (target, mode) = match root.file {
            true => (path.parent().unwrap_or(Path::new("/")).to_path_buf(), RecursiveMode::NonRecursive),
            false => (root.path.clone(), mode),
        };
        if !self.watched.contains(&target) {
            self.inner.watch(&target, mode)?;
            self.watched.push(target);
        }
        crate::sync::lock(&self.roots).push(root);
        Ok(())
    }

    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        crate::sync::lock(&self.roots).retain(|root| root.path != path);
        match self.watched.iter().position(|watched| watched == path) {
            Some(at) => {
                self.watched.remove(at);
                self.inner.unwatch(path)
            }
            None => Ok(()),
        }
    }

    fn kind() -> notify::WatcherKind {
        notify::RecommendedWatcher::kind()
    }
}

#[cfg(test)]
#[path = "watch_tests.rs"]
mod tests;
