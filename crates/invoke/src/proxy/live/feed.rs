//! The watcher's side: the running proxies listed (a socket that no longer answers is a proxy
//! that died: it is removed), one opened (its first line, the recent frames, then each as it
//! passes); a saved record's lines are read the same way (`follow.rs`). Every read is
//! bounded: a line, the first line and a record file. A watcher also writes to the proxy on the
//! same connection: breakpoints and what to do with a held message ([`Controls`], the lines of
//! [`super::control`]).

use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use serde_json::{Map, Value};

use super::control::{Control, Notice};
use super::place::{self, LiveError};
use super::port::{self, HANDSHAKE};
use crate::wire::{BlockingLines, Frame, HttpDetails, HttpShown, LineDecoder, Marks, RecordLine, Side};

/// The longest line read from a feed: a message the proxy keeps whole (32 MiB), masked and
/// written as a record line, with room to spare.
const MAX_LINE: usize = 48 * 1024 * 1024;
/// The longest first line (who the proxy is).
const MAX_FIRST_LINE: usize = 64 * 1024;
/// How often a watcher waiting for the next line looks whether it should stop.
const POLL: Duration = Duration::from_millis(200);

/// What a proxy says of itself first.
#[derive(Debug, Clone, PartialEq)]
pub struct Announcement {
    pub name: String,
    /// The server as a case file names it: `mcp` (the command) or `mcp_url`, and headers.
    pub server: Map<String, Value>,
    /// The folder the proxy runs in (its server's command is relative to it).
    pub cwd: Option<PathBuf>,
    pub pid: u64,
    /// When it started (RFC 3339).
    pub since: String,
    /// Messages passed so far.
    pub messages: u64,
    /// The recent lines that follow the first.
    backlog: usize,
}

impl Announcement {
    fn read(line: &[u8], name: &str) -> Result<Announcement, LiveError> {
        let not_a_feed = || LiveError::NotAFeed { name: name.to_string() };
        let about: Value = serde_json::from_slice(line).map_err(|_| not_a_feed())?;
        if about.get(super::FEED_KEY).and_then(Value::as_u64) != Some(super::FEED_VERSION) {
            return Err(not_a_feed());
        }
        let text = |key: &str| about.get(key).and_then(Value::as_str).map(str::to_string);
        let count = |key: &str| about.get(key).and_then(Value::as_u64).unwrap_or_default();
        Ok(Announcement {
            name: text("name").unwrap_or_else(|| name.to_string()),
            server: about.get("server").and_then(Value::as_object).cloned().unwrap_or_default(),
            cwd: text("cwd").map(PathBuf::from),
            pid: count("pid"),
            since: text("since").unwrap_or_default(),
            messages: count("messages"),
            backlog: usize::try_from(count("backlog")).unwrap_or(usize::MAX),
        })
    }

    /// The server in a line: its command or URL, secrets masked as a case file has them.
    pub fn server_shown(&self) -> String {
        let shown = ["mcp", "mcp_url", "endpoint"].iter().find_map(|key| self.server.get(*key)?.as_str());
        crate::text::visible(shown.unwrap_or("?")).into_owned()
    }
}

/// A running proxy, as the listing shows it.
#[derive(Debug, Clone)]
pub struct Running {
    pub path: PathBuf,
    pub about: Announcement,
}

/// The running proxies, by name. A socket (or port file) that no longer answers is removed;
/// one of another user, or one that says something else, is left out.
pub fn list() -> Result<Vec<Running>, LiveError> {
    let folder = place::folder()?;
    let entries = std::fs::read_dir(&folder)
        .map_err(|source| LiveError::Folder { path: folder.display().to_string(), source })?;
    let mut running: Vec<Running> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == super::EXTENSION))
        .take(1000)
        .filter_map(|path| {
            let name = path.file_stem()?.to_string_lossy().into_owned();
            match hello(&path, &name) {
                Ok((about, _)) => Some(Running { path, about }),
                Err(LiveError::NoAnswer { .. }) => {
                    let _ = std::fs::remove_file(&path);
                    None
                }
                Err(_) => None,
            }
        })
        .collect();
    running.sort_by(|a, b| a.about.name.cmp(&b.about.name));
    Ok(running)
}

/// True when something answers at `path` (a live proxy's socket or port).
pub fn answers(path: &Path) -> bool {
    port::connect(path).is_ok()
}

/// Connects to the proxy at `path` (`name` for what is said) and reads its first line.
fn hello(path: &Path, name: &str) -> Result<(Announcement, Feed), LiveError> {
    place::owned_by_me(path, name)?;
    let no_answer = |source| LiveError::NoAnswer { name: name.to_string(), source };
    let (stream, timing, writer) = port::connect(path).map_err(no_answer)?;
    timing(HANDSHAKE).map_err(no_answer)?;
    let mut feed = Feed::over(stream, timing, Some(writer), MAX_FIRST_LINE);
    let first = feed.read_line().map_err(no_answer)?;
    let Some(first) = first else {
        return Err(no_answer(io::Error::new(io::ErrorKind::UnexpectedEof, "it closed at once")));
    };
    feed.lines.decoder_mut().set_cap(MAX_LINE);
    Ok((Announcement::read(&first, name)?, feed))
}

/// Opens the running proxy `name`: who it is, its recent frames (the latest `tools/list` and its
/// answer among them), and the feed of what follows. A recent line that is held, made by the
/// proxy or a notice (the breakpoints set) is kept for the feed, which brings it with its marks.
pub fn open(name: &str) -> Result<(Announcement, Vec<Frame>, Feed), LiveError> {
    let folder = place::folder()?;
    let path = place::path_of(&folder, name);
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(LiveError::NoSuchProxy { name: name.to_string() });
    }
    let (about, mut feed) = hello(&path, name)?;
    let mut recent = Vec::new();
    for _ in 0..about.backlog {
        match feed.read_line() {
            Ok(Some(line)) => match feed_line(&line) {
                Some(FeedLine::Frame(frame, marks)) if marks.is_empty() => recent.push(*frame),
                Some(line) => feed.pending.push_back(line),
                None => {}
            },
            Ok(None) => break,
            Err(source) => return Err(LiveError::NoAnswer { name: name.to_string(), source }),
        }
    }
    Ok((about, recent, feed))
}

/// A proxy's feed after its first lines: each frame as it passes.
pub struct Feed {
    /// Its lines; one read in part when the wait ran out is kept for the next read.
    lines: BlockingLines<port::Stream>,
    timing: port::Timing,
    /// The way back to the proxy, until [`Feed::controls`] takes it.
    writer: Option<port::Writer>,
    /// Lines read with the recent frames that the follower takes first (held, the proxy's own,
    /// notices).
    pending: VecDeque<FeedLine>,
}

/// A line of the feed, as a watcher takes it.
#[derive(Debug, Clone)]
pub enum FeedLine {
    /// A message that passed (or that the proxy holds or made: its marks).
    Frame(Box<Frame>, Marks),
    /// What the proxy says of breakpoints and holds, or of frames this watcher missed.
    Notice(Notice),
}

/// A feed line read: a frame with its marks, a notice, or `None` for a line of neither kind.
fn feed_line(raw: &[u8]) -> Option<FeedLine> {
    let line = crate::wire::parse_record_line(raw).ok()?;
    if let Some(notice) = Notice::read(&line) {
        return Some(FeedLine::Notice(notice));
    }
    let line = RecordLine::of_value(line)?;
    let marks = Marks { held: line.held, injected: line.injected.as_deref().map(std::sync::Arc::from) };
    let note = proxy_note(&line, &marks);
    let frame = frame_of_line(line).or(note)?;
    Some(FeedLine::Frame(Box::new(frame), marks))
}

/// A line of the proxy's own with no message (a delayed or dropped message's fault), as a frame
/// of its text: its note, else its rule.
fn proxy_note(line: &RecordLine, marks: &Marks) -> Option<Frame> {
    let rule = marks.injected.as_deref()?;
    let said = line.note.clone().unwrap_or_else(|| format!("injected: {rule}"));
    let at = line.time.as_deref().and_then(crate::wire::parse_timestamp);
    Some(Frame::new(Side::Proxy, at.unwrap_or_else(SystemTime::now), Bytes::from(said), None))
}

/// The way back to a proxy: control lines (breakpoints, a held message sent or dropped).
pub struct Controls(port::Writer);

impl Controls {
    /// Writes `control` as one line; a proxy that stopped reading fails it after a short wait.
    pub fn send(&mut self, control: &Control) -> io::Result<()> {
        let mut line = control.to_line().into_bytes();
        line.push(b'\n');
        self.0.write_all(&line)?;
        self.0.flush()
    }
}

impl Feed {
    /// The feed read from `stream`, its lines held to `cap` bytes.
    fn over(stream: port::Stream, timing: port::Timing, writer: Option<port::Writer>, cap: usize) -> Feed {
        let lines = BlockingLines::new(stream, LineDecoder::skipping(cap));
        Feed { lines, timing, writer, pending: VecDeque::new() }
    }

    /// The way back to the proxy (once: a second call has none).
    pub fn controls(&mut self) -> Option<Controls> {
        self.writer.take().map(Controls)
    }

    /// Hands each line to `take` until the proxy ends (true), `take` fails (true) or `stop` is
    /// set (false). A line that is neither a frame nor a notice is skipped.
    pub fn follow(mut self, take: &mut dyn FnMut(FeedLine) -> io::Result<()>, stop: &AtomicBool) -> bool {
        while let Some(line) = self.pending.pop_front() {
            if take(line).is_err() {
                return true;
            }
        }
        if (self.timing)(POLL).is_err() {
            return true;
        }
        while !stop.load(Ordering::Relaxed) {
            match self.read_line() {
                Ok(Some(line)) => {
                    if let Some(line) = feed_line(&line)
                        && take(line).is_err()
                    {
                        return true;
                    }
                }
                Ok(None) => return true,
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                Err(_) => return true,
            }
        }
        false
    }

    /// The next line (without its newline); a line past the cap is skipped whole, and one the
    /// proxy did not end (it stopped mid-line) is no line. `None` at the end. A wait that runs
    /// out keeps what was read for the next call.
    fn read_line(&mut self) -> io::Result<Option<Bytes>> {
        while let Some(line) = self.lines.next_line()? {
            if !line.newline {
                return Ok(None);
            }
            if line.is_whole() {
                return Ok(Some(line.bytes));
            }
        }
        Ok(None)
    }
}

/// A record line (the feed's, or a saved record's) as a frame.
pub fn frame_of_line(line: RecordLine) -> Option<Frame> {
    let RecordLine { time, from, http, size, message, text, note, trimmed, injected, .. } = line;
    let injected = injected.map(std::sync::Arc::from);
    let http = http.map(http_of);
    // When it passed, so the traffic pane shows a record's timing, not the moment it was read.
    let at = time.as_deref().and_then(crate::wire::parse_timestamp).unwrap_or_else(SystemTime::now);
    let size = size.and_then(|s| usize::try_from(s).ok());
    if let Some(message) = message {
        // Its bytes are the message as written on the record's line.
        let mut frame = Frame::of_value(from, message.into_owned()).injected_by(injected);
        (frame.at, frame.http, frame.trimmed) = (at, http, trimmed);
        return Some(frame);
    }
    if let Some(text) = text {
        let mut frame = Frame::new(from, at, Bytes::from(text), http);
        // Cut or trimmed: the size on the wire, so it reads back as cut (masking alone changes
        // a text's length, which is not a cut).
        let cut = note.as_deref().is_some_and(|note| note.starts_with("cut: "));
        if let Some(size) = size.filter(|size| (trimmed || cut) && *size > frame.raw.len()) {
            frame.size = size;
        }
        frame.trimmed = trimmed;
        return Some(frame.injected_by(injected));
    }
    let mut frame = Frame::too_large(from, at, size?, http);
    frame.too_deep = note.as_deref() == Some(crate::wire::TOO_DEEP);
    Some(frame.injected_by(injected))
}

/// The HTTP details of a record line, as the record wrote them (masked already).
fn http_of(http: HttpShown) -> HttpDetails {
    let mut headers = Vec::new();
    for (name, value) in http.headers {
        match value {
            Value::Array(values) => {
                headers.extend(values.iter().filter_map(Value::as_str).map(|v| (name.clone(), v.to_string())));
            }
            Value::String(value) => headers.push((name, value)),
            _ => {}
        }
    }
    HttpDetails { method: http.method, path: http.path, status: http.status, headers }
}

/// The server's latest answer to `tools/list` among `frames`, as text (what
/// `invoke::endpoint::read_server_tools` reads).
pub fn recorded_tools(frames: &[Frame]) -> Option<String> {
    let mut asked: Vec<&Value> = Vec::new();
    let mut listed = None;
    for frame in frames {
        match (frame.from, frame.id()) {
            (Side::Client, Some(id)) if frame.method() == Some("tools/list") => asked.push(id),
            (Side::Server, Some(id)) if frame.is_response() && asked.contains(&id) => {
                listed = frame.message.as_ref().and_then(|m| m.get("result")).filter(|r| r.get("tools").is_some());
            }
            _ => {}
        }
    }
    listed.map(Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn record_lines_become_frames_and_the_tool_list_is_found() {
        let lines = [
            json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}),
            json!({"from": "server", "text": "listening", "note": crate::wire::NOT_JSON_RPC}),
            json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "add"}]}}}),
            json!({"dropped": 3}),
            json!({"from": "server", "size": 99_000_000, "note": "too large to keep: its size only"}),
        ];
        let frames: Vec<Frame> = lines.into_iter().filter_map(RecordLine::of_value).filter_map(frame_of_line).collect();
        assert_eq!(frames.len(), 4);
        assert!(frames[1].breaks_clients());
        assert!(!frames[3].kept() && frames[3].size == 99_000_000);
        assert_eq!(recorded_tools(&frames).as_deref(), Some(r#"{"tools":[{"name":"add"}]}"#));
        let http =
            http_of(serde_json::from_value(json!({"method": "POST", "headers": {"a": ["1", "2"], "b": "3"}})).unwrap());
        assert_eq!(http.headers.len(), 3);
    }

    #[test]
    fn held_and_injected_lines_and_notices_reach_the_follower_with_their_marks() {
        let lines = [
            json!({"breakpoints": [{"method": "tools/call", "tool": null, "from": "client"}]}),
            json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}, "held": 1}),
            json!({"released": 1, "as": "dropped"}),
            json!({"from": "proxy", "injected": "tools/call:error=-32000",
                   "message": {"jsonrpc": "2.0", "id": 3, "error": {"code": -32000, "message": "x"}}}),
            json!({"from": "proxy", "injected": "ping:delay=2s", "note": "delayed 2s"}),
            json!({"something": "else"}),
        ];
        let input: Vec<u8> = lines.iter().flat_map(|l| format!("{l}\n").into_bytes()).collect();
        let mut feed = Feed::over(Box::new(std::io::Cursor::new(input)), Box::new(|_| Ok(())), None, MAX_LINE);
        feed.pending.push_back(FeedLine::Notice(Notice::Dropped { dropped: 4 }));
        let mut taken = Vec::new();
        let mut take = |line| {
            taken.push(line);
            Ok(())
        };
        assert!(feed.follow(&mut take, &AtomicBool::new(false)), "the feed ended");
        assert_eq!(taken.len(), 6, "the pending line first, then each but the unknown one: {taken:?}");
        assert!(matches!(taken[0], FeedLine::Notice(Notice::Dropped { dropped: 4 })));
        assert!(matches!(&taken[1], FeedLine::Notice(Notice::Breakpoints { breakpoints }) if breakpoints.len() == 1));
        let FeedLine::Frame(held, marks) = &taken[2] else { panic!("a frame") };
        assert_eq!((held.from, held.method(), marks.held), (Side::Client, Some("tools/call"), Some(1)));
        assert!(matches!(
            taken[3],
            FeedLine::Notice(Notice::Released { released: 1, how: crate::proxy::live::control::Release::Dropped })
        ));
        let FeedLine::Frame(injected, marks) = &taken[4] else { panic!("a frame") };
        assert_eq!((injected.from, marks.injected.as_deref()), (Side::Proxy, Some("tools/call:error=-32000")));
        let FeedLine::Frame(delayed, marks) = &taken[5] else { panic!("a frame") };
        assert_eq!((&delayed.raw[..], marks.injected.as_deref()), (&b"delayed 2s"[..], Some("ping:delay=2s")));
    }

    #[test]
    fn controls_are_written_one_line_each() {
        #[derive(Clone, Default)]
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().write(bytes)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let written = Shared::default();
        let mut controls = Controls(Box::new(written.clone()));
        controls.send(&Control::Drop(2)).unwrap();
        controls.send(&Control::Clear).unwrap();
        let text = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, "{\"drop\":2}\n{\"clear\":\"breakpoints\"}\n");
    }

    #[test]
    fn a_line_too_long_is_skipped_and_a_cut_wait_resumes() {
        /// Gives its parts one a read; an empty part is a wait that ran out.
        struct Waits(VecDeque<&'static [u8]>);
        impl io::Read for Waits {
            fn read(&mut self, into: &mut [u8]) -> io::Result<usize> {
                match self.0.pop_front() {
                    Some([]) => Err(io::ErrorKind::WouldBlock.into()),
                    Some(part) => io::Read::read(&mut &part[..], into),
                    None => Ok(0),
                }
            }
        }
        let parts = Waits(VecDeque::from([&b"sho"[..], b"", b"rt\n0123456789abcdef\nne", b"", b"xt\nno end"]));
        let mut feed = Feed::over(Box::new(parts), Box::new(|_| Ok(())), None, 8);
        let wait = |read: io::Result<Option<Bytes>>| read.is_err_and(|e| e.kind() == io::ErrorKind::WouldBlock);
        assert!(wait(feed.read_line()));
        assert_eq!(feed.read_line().unwrap().as_deref(), Some(&b"short"[..]), "what came before the wait kept");
        assert!(wait(feed.read_line()), "the long line is skipped");
        assert_eq!(feed.read_line().unwrap().as_deref(), Some(&b"next"[..]));
        assert_eq!(feed.read_line().unwrap(), None, "a line the proxy did not end is none");
    }
}
