//! The proxy's side of the live feed: a listener thread takes watchers (`watcher.rs`); the sink
//! (on the tap's thread) turns each frame into a record line once and offers it to every
//! watcher's bounded queue. A slow or stuck watcher loses lines (counted, then said to it in a
//! `dropped` line), never slows the tap, let alone the wire.

use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::TrySendError;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use super::place::{self, LiveError};
use super::taking::Taking;
use super::watcher::{Controller, LiveHub, Watcher, welcome};
use crate::wire::{Frame, FrameSink, Side, Warn};

/// The recent lines a new watcher is sent first, at most this many and this many bytes.
const BACKLOG_LINES: usize = 2000;
const BACKLOG_BYTES: usize = 16 * 1024 * 1024;
/// `tools/list` requests remembered by id, to know their answers.
const LIST_IDS: usize = 64;

/// A line of the feed, shared by every queue it is in.
pub(super) type Line = Arc<str>;

/// What the sink and the listener share.
pub(super) struct Shared {
    /// The first line's fields but the counts (name, server, cwd, pid, since).
    pub(super) about: Map<String, Value>,
    pub(super) messages: u64,
    pub(super) backlog: VecDeque<(u64, Line)>,
    pub(super) backlog_bytes: usize,
    /// The latest `tools/list` request and its answer, sent to every new watcher even once they
    /// left the backlog: the list attach shows.
    pub(super) listed: Vec<(u64, Line)>,
    pub(super) list_requests: VecDeque<(Value, u64, Line)>,
    pub(super) watchers: Vec<Watcher>,
    pub(super) next_watcher: u64,
    pub(super) controls: Option<Arc<dyn Controller>>,
}

/// The live feed as a sink of the proxy's tap. Dropped (the proxy ending), its socket goes.
pub struct LiveSink {
    shared: Arc<Mutex<Shared>>,
    path: PathBuf,
    name: String,
    /// The thread taking watchers, stopped with the sink.
    taking: Option<Taking>,
}

/// Publishes the proxy's live feed: named `wanted` (else after the server), in the folder of
/// running proxies. `None`, said once through `warn`, when it cannot be: the proxy goes on all
/// the same. A name another running proxy has gets a suffix (`notes-2`), said when `--name`
/// gave it. `controls` hears what watchers write. With the sink comes the hub that speaks to
/// every watcher.
pub fn publish(
    wanted: Option<&str>,
    server: &Map<String, Value>,
    warn: &Warn,
    controls: Option<Arc<dyn Controller>>,
) -> Option<(Box<dyn FrameSink>, LiveHub)> {
    let folder = match place::folder() {
        Ok(folder) => folder,
        Err(e) => {
            warn(&format!("{e}; no live feed for tooldeck attach"));
            return None;
        }
    };
    let named = wanted.is_some();
    let wanted = match wanted {
        Some(name) => place::file_name(name),
        None => default_name(server),
    };
    let (name, listener) = match bind_free(&folder, &wanted) {
        Ok(bound) => bound,
        Err(e) => {
            warn(&format!("{e}; no live feed for tooldeck attach"));
            return None;
        }
    };
    // A name the person gave is said when taken; one made from the server is suffixed quietly.
    if named && name != wanted {
        warn(&format!("another running proxy is named {wanted}: this one is {name} (tooldeck attach {name})"));
    }
    let mut about = Map::new();
    about.insert(super::FEED_KEY.into(), json!(super::FEED_VERSION));
    about.insert("name".into(), json!(name));
    about.insert("server".into(), Value::Object(server.clone()));
    if let Ok(cwd) = std::env::current_dir() {
        about.insert("cwd".into(), json!(cwd.display().to_string()));
    }
    about.insert("pid".into(), json!(std::process::id()));
    about.insert("since".into(), json!(crate::text::rfc3339_now()));
    let shared = Arc::new(Mutex::new(Shared {
        about,
        messages: 0,
        backlog: VecDeque::new(),
        backlog_bytes: 0,
        listed: Vec::new(),
        list_requests: VecDeque::new(),
        watchers: Vec::new(),
        next_watcher: 0,
        controls,
    }));
    let path = place::path_of(&folder, &name);
    let welcoming = Arc::clone(&shared);
    let taking = match Taking::start(listener, move |reading, writing| welcome(reading, writing, &welcoming)) {
        Ok(taking) => taking,
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            warn(&format!("cannot take watchers ({e}); no live feed for tooldeck attach"));
            return None;
        }
    };
    let hub = LiveHub { shared: Arc::clone(&shared) };
    Some((Box::new(LiveSink { shared, path, name, taking: Some(taking) }), hub))
}

/// The name a proxy gets from its server: its script or program, or its URL's host. A server on
/// this machine is told apart by its port (`localhost-3001`): every one's host is 127.0.0.1.
fn default_name(server: &Map<String, Value>) -> String {
    if let Some(command) = server.get("mcp").and_then(Value::as_str) {
        return place::default_name(&shlex::split(command).unwrap_or_default());
    }
    let url = server.get("mcp_url").and_then(Value::as_str).and_then(|u| url::Url::parse(u).ok());
    let Some(url) = url else { return "proxy".to_string() };
    let local = match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match (local, url.port_or_known_default()) {
        (true, Some(port)) => format!("localhost-{port}"),
        _ => place::file_name(url.host_str().unwrap_or("proxy")),
    }
}

/// Binds `wanted`, else `wanted-2`, `wanted-3`...: a name is free when nothing is there or what
/// is there no longer answers (a proxy that died: its socket is removed).
fn bind_free(folder: &Path, wanted: &str) -> Result<(String, super::port::Listener), LiveError> {
    let mut last = None;
    for n in 1..=99 {
        let name = if n == 1 { wanted.to_string() } else { format!("{wanted}-{n}") };
        let path = place::path_of(folder, &name);
        if path.exists() {
            if super::feed::answers(&path) {
                continue;
            }
            let _ = std::fs::remove_file(&path);
        }
        match super::port::Listener::bind(&path) {
            Ok(listener) => return Ok((name, listener)),
            // Another proxy took it between the look and the bind.
            Err(e) if e.kind() == io::ErrorKind::AddrInUse || e.kind() == io::ErrorKind::AlreadyExists => {
                last = Some(e);
            }
            Err(source) => return Err(LiveError::Bind { path: path.display().to_string(), source }),
        }
    }
    let source = last.unwrap_or_else(|| io::Error::other("every name is taken"));
    Err(LiveError::Bind { path: place::path_of(folder, wanted).display().to_string(), source })
}

impl Shared {
    /// Offers `line` to every watcher's queue: one that is behind loses it (counted), one that
    /// is gone leaves.
    pub(super) fn offer(&mut self, line: &Line) {
        self.watchers.retain(|watcher| match watcher.queue.try_send(Arc::clone(line)) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                watcher.dropped.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(TrySendError::Disconnected(_)) => false,
        });
    }

    fn keep(&mut self, seq: u64, line: &Line, frame: &Frame) {
        self.backlog_bytes += line.len();
        self.backlog.push_back((seq, Arc::clone(line)));
        while self.backlog.len() > BACKLOG_LINES || (self.backlog_bytes > BACKLOG_BYTES && self.backlog.len() > 1) {
            if let Some((_, old)) = self.backlog.pop_front() {
                self.backlog_bytes -= old.len();
            }
        }
        match (frame.from, frame.id()) {
            (Side::Client, Some(id)) if frame.method() == Some("tools/list") => {
                if self.list_requests.len() == LIST_IDS {
                    self.list_requests.pop_front();
                }
                self.list_requests.push_back((id.clone(), seq, Arc::clone(line)));
            }
            (Side::Server, Some(id)) if frame.is_response() => {
                if let Some(at) = self.list_requests.iter().position(|(asked, _, _)| asked == id)
                    && let Some((_, asked_seq, asked)) = self.list_requests.remove(at)
                {
                    self.listed = vec![(asked_seq, asked), (seq, Arc::clone(line))];
                }
            }
            _ => {}
        }
    }
}

impl FrameSink for LiveSink {
    fn accept(&mut self, frame: &Frame) -> io::Result<()> {
        let line: Line = frame.record_text().map_err(io::Error::other)?;
        let mut shared = crate::sync::lock(&self.shared);
        let seq = shared.messages;
        shared.messages += 1;
        shared.keep(seq, &line, frame);
        shared.offer(&line);
        Ok(())
    }

    fn name(&self) -> String {
        format!("the live feed {}", self.name)
    }
}

impl Drop for LiveSink {
    fn drop(&mut self) {
        // Watchers' queues close with it: their threads end once written out.
        crate::sync::lock(&self.shared).watchers.clear();
        // No more watchers taken; stopped before its socket goes (it is woken through it).
        if let Some(mut taking) = self.taking.take() {
            taking.stop();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use bytes::Bytes;

    use std::sync::atomic::AtomicU64;
    use std::sync::mpsc::sync_channel;

    use super::super::watcher::WATCHER_QUEUE;
    use super::*;

    #[test]
    fn a_proxy_in_front_of_a_url_is_named_by_its_host_or_local_port() {
        let named = |url: &str| {
            let mut server = Map::new();
            server.insert("mcp_url".into(), Value::String(url.into()));
            default_name(&server)
        };
        assert_eq!(named("http://127.0.0.1:3001/mcp"), "localhost-3001");
        assert_eq!(named("http://localhost/mcp"), "localhost-80");
        assert_eq!(named("http://[::1]:8765/mcp"), "localhost-8765");
        assert_eq!(named("https://mcp.example.com/mcp"), "mcp.example.com");
        assert_eq!(named("not a url"), "proxy");
    }

    fn sink() -> LiveSink {
        let shared = Shared {
            about: Map::new(),
            messages: 0,
            backlog: VecDeque::new(),
            backlog_bytes: 0,
            listed: Vec::new(),
            list_requests: VecDeque::new(),
            watchers: Vec::new(),
            next_watcher: 0,
            controls: None,
        };
        let path = std::env::temp_dir().join(format!("tooldeck-live-test-{}", uuid::Uuid::new_v4()));
        LiveSink { shared: Arc::new(Mutex::new(shared)), path, name: "t".into(), taking: None }
    }

    fn frame(from: Side, text: &str) -> Frame {
        Frame::new(from, SystemTime::now(), Bytes::from(text.to_string()), None)
    }

    #[test]
    fn a_watcher_that_does_not_read_loses_lines_counted_and_never_holds_the_sink() {
        let mut sink = sink();
        let (queue, _never_read) = sync_channel(WATCHER_QUEUE);
        let dropped = Arc::new(AtomicU64::new(0));
        crate::sync::lock(&sink.shared).watchers.push(Watcher { number: 0, queue, dropped: Arc::clone(&dropped) });
        let line = frame(Side::Server, r#"{"jsonrpc":"2.0","method":"notifications/message"}"#);
        for _ in 0..WATCHER_QUEUE + 10 {
            sink.accept(&line).unwrap();
        }
        assert_eq!(dropped.load(Ordering::Relaxed), 10);
        let shared = crate::sync::lock(&sink.shared);
        assert_eq!(shared.messages, WATCHER_QUEUE as u64 + 10);
        assert_eq!(shared.backlog.len(), BACKLOG_LINES, "the backlog is bounded");
    }

    #[cfg(unix)]
    #[test]
    fn the_tool_list_is_kept_for_new_watchers_after_it_left_the_backlog() {
        let mut sink = sink();
        sink.accept(&frame(Side::Client, r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#)).unwrap();
        sink.accept(&frame(Side::Server, r#"{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}"#)).unwrap();
        for _ in 0..BACKLOG_LINES {
            sink.accept(&frame(Side::Server, r#"{"jsonrpc":"2.0","method":"notifications/message"}"#)).unwrap();
        }
        let (mut watcher, stream) = std::os::unix::net::UnixStream::pair().unwrap();
        welcome(Box::new(stream.try_clone().unwrap()), Box::new(stream), &sink.shared);
        drop(sink);
        // The feed ends with the watcher's reading end, which its closing ends.
        watcher.shutdown(std::net::Shutdown::Write).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut watcher, &mut text).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["backlog"], json!(BACKLOG_LINES + 2));
        assert_eq!(lines[1]["message"]["method"], "tools/list");
        assert_eq!(lines[2]["message"]["result"], json!({"tools": []}));
    }
}
