//! What an MCP server says besides answers: its stderr (stdio), `notifications/message` log
//! entries, `notifications/tools/list_changed`, and how it went away (exit code or signal, a
//! session the HTTP server no longer knows). They are queued here for whoever shows them (the
//! app's server pane), bounded: a server that writes faster than the screen reads loses its
//! oldest lines, counted, never memory.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use tokio::io::AsyncRead;
use tokio::sync::Notify;
use tokio_util::codec::FramedRead;

use crate::sync::lock;
use crate::wire::LineDecoder;

/// Bytes of one stderr or log line kept; the rest of a longer line is cut (and said so).
pub const MAX_LINE_BYTES: usize = 4096;
/// Events waiting to be taken; beyond this many, or this many bytes of text, the oldest are
/// dropped and counted.
const MAX_PENDING: usize = 20_000;
const MAX_PENDING_BYTES: usize = 8 * 1024 * 1024;
/// Lines of stderr kept to say why a server went away.
pub const TAIL_LINES: usize = 12;

#[derive(Debug, Clone, PartialEq)]
pub enum ServerEvent {
    /// One line the stdio server wrote to stderr, as it wrote it (not yet made safe to draw).
    Stderr(String),
    /// A `notifications/message` entry: its level, logger and data (a string, or JSON text).
    Log { level: String, logger: Option<String>, text: String },
    /// `notifications/tools/list_changed`: the catalog should list the tools again.
    ToolsChanged,
    /// The stdio server's process ended: how ("exited with code 1", "was killed by signal 9") and
    /// its last stderr lines.
    Exited { how: String, last_lines: Vec<String> },
    /// The connection is gone (the server closed it, or an HTTP server forgot the session).
    Lost(String),
    /// `notifications/resources/updated`: a subscribed resource changed (its URI), and when it
    /// said so (local `HH:MM:SS`).
    ResourceUpdated { uri: String, at: String },
    /// `notifications/resources/list_changed`: the resources should be listed again.
    ResourcesChanged,
    /// `notifications/prompts/list_changed`: the prompts should be listed again.
    PromptsChanged,
    /// This many events were dropped because nobody took them in time.
    Skipped(u64),
    /// Something tooldeck did to reach the server that the person may want to know (it was
    /// met again with `initialize`, it speaks an older revision than the one pinned).
    Note(String),
}

#[derive(Default)]
struct Pending {
    queue: VecDeque<ServerEvent>,
    bytes: usize,
    skipped: u64,
}

impl ServerEvent {
    /// The text it holds, roughly: what a queue of them costs.
    fn bytes(&self) -> usize {
        match self {
            ServerEvent::Stderr(text)
            | ServerEvent::Lost(text)
            | ServerEvent::Note(text)
            | ServerEvent::ResourceUpdated { uri: text, .. } => text.len(),
            ServerEvent::Log { level, logger, text } => {
                level.len() + logger.as_ref().map_or(0, String::len) + text.len()
            }
            ServerEvent::Exited { how, last_lines } => how.len() + last_lines.iter().map(String::len).sum::<usize>(),
            ServerEvent::ToolsChanged
            | ServerEvent::ResourcesChanged
            | ServerEvent::PromptsChanged
            | ServerEvent::Skipped(_) => 0,
        }
    }
}

/// Where a connection's events go: pushed from the transport's tasks, taken in batches.
#[derive(Clone, Default)]
pub struct EventSink {
    inner: Arc<(Mutex<Pending>, Notify)>,
    /// Every message of the session, for the traffic pane (kept across reconnects, as the
    /// events are).
    traffic: super::traffic::Traffic,
    /// Other sinks the session's frames go to, beside the traffic log.
    sinks: Arc<Mutex<Vec<Box<dyn crate::wire::FrameSink>>>>,
    /// The first line a stdio server wrote to stdout that is not JSON-RPC (a banner, a log
    /// line), kept across restarts: said once per session.
    stray: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventSink")
    }
}

impl EventSink {
    /// One message of the session, as a frame: to the traffic log and every other sink. They
    /// run here, beside the transport, so they must be quick (in memory); one that fails is
    /// let go.
    pub fn frame(&self, frame: crate::wire::Frame) {
        self.traffic.frame(&frame);
        let mut sinks = lock(&self.sinks);
        sinks.retain_mut(|sink| sink.accept(&frame).is_ok());
    }

    /// Hands the session's frames to `sink` too, from now on.
    pub fn add_sink(&self, sink: Box<dyn crate::wire::FrameSink>) {
        lock(&self.sinks).push(sink);
    }

    /// A line of the stdio server's stdout that is not JSON-RPC: the first is kept and said in
    /// the server pane; the others are not said again.
    pub fn stray_stdout(&self, line: &str) {
        let line = crate::text::truncate(line.trim(), 200).into_owned();
        let first = {
            let mut stray = lock(&self.stray);
            stray.is_none().then(|| stray.insert(line.clone()).clone())
        };
        if let Some(line) = first {
            self.push(ServerEvent::Note(stray_words(&line)));
        }
    }

    /// The first line of the session's stdout that was not JSON-RPC, if any.
    pub fn stray_line(&self) -> Option<String> {
        lock(&self.stray).clone()
    }

    /// The session's traffic log.
    pub fn traffic(&self) -> super::traffic::Traffic {
        self.traffic.clone()
    }

    pub fn push(&self, event: ServerEvent) {
        let (pending, notify) = &*self.inner;
        {
            let mut pending = lock(pending);
            pending.bytes += event.bytes();
            pending.queue.push_back(event);
            while pending.queue.len() > MAX_PENDING || (pending.bytes > MAX_PENDING_BYTES && pending.queue.len() > 1) {
                if let Some(old) = pending.queue.pop_front() {
                    pending.bytes -= old.bytes();
                    pending.skipped += 1;
                }
            }
        }
        notify.notify_one();
    }

    /// Everything queued, waiting until there is something.
    pub async fn next_batch(&self) -> Vec<ServerEvent> {
        loop {
            let batch = self.take();
            if !batch.is_empty() {
                return batch;
            }
            self.inner.1.notified().await;
        }
    }

    /// Everything queued now (maybe nothing).
    pub fn take(&self) -> Vec<ServerEvent> {
        let mut pending = lock(&self.inner.0);
        let skipped = std::mem::take(&mut pending.skipped);
        let mut batch: Vec<ServerEvent> = Vec::with_capacity(pending.queue.len() + 1);
        if skipped > 0 {
            batch.push(ServerEvent::Skipped(skipped));
        }
        batch.extend(pending.queue.drain(..));
        pending.bytes = 0;
        batch
    }
}

/// What is said of a line on stdout that is not JSON-RPC.
pub fn stray_words(line: &str) -> String {
    format!("the server wrote to stdout: `{}`: strict clients fail here", crate::text::visible(line))
}

/// The last lines a server wrote to stderr, to say why it went away.
#[derive(Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: &str) {
        let mut lines = lock(&self.0);
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line.to_string());
    }

    pub fn lines(&self) -> Vec<String> {
        lock(&self.0).iter().cloned().collect()
    }

    /// The lines, each made safe to print (escapes shown, not obeyed) and indented under a
    /// heading: `None` when the server wrote nothing.
    pub fn describe(&self) -> Option<String> {
        describe_lines(&self.lines())
    }
}

/// `lines` as an indented block under "its last stderr lines:", escapes shown.
pub fn describe_lines(lines: &[String]) -> Option<String> {
    let shown: Vec<String> =
        lines.iter().filter(|l| !l.trim().is_empty()).map(|l| format!("  {}", crate::text::visible(l))).collect();
    (!shown.is_empty()).then(|| format!("its last stderr lines:\n{}", shown.join("\n")))
}

/// Reads `stderr` line by line until it ends: each line to `sink` (when there is one) and the
/// tail. A line longer than [`MAX_LINE_BYTES`] is cut there, and says so.
pub async fn read_stderr(stderr: impl AsyncRead + Unpin, sink: Option<EventSink>, tail: StderrTail) {
    let mut lines = FramedRead::with_capacity(stderr, LineDecoder::cutting(MAX_LINE_BYTES), 8192);
    while let Some(Ok(line)) = lines.next().await {
        let mut text = String::from_utf8_lossy(&line.bytes).into_owned();
        if !line.is_whole() {
            text.push_str(&format!(" … ({} more bytes cut)", line.size - line.bytes.len()));
        }
        tail.push(&text);
        if let Some(sink) = &sink {
            sink.push(ServerEvent::Stderr(text));
        }
    }
}

/// "exited with code 1", "was killed by signal 9 (SIGKILL)": what follows "the server".
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("was killed by signal {signal}{name}");
        }
    }
    format!("ended ({status})")
}

/// A `notifications/message` entry's data as one text: a string as it is, anything else as JSON.
pub fn log_text(data: &serde_json::Value) -> String {
    let text = match data {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.len() <= MAX_LINE_BYTES {
        return text;
    }
    let mut end = MAX_LINE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} … ({} more bytes cut)", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_on_stdout_that_is_not_json_rpc_is_said_once_per_session() {
        let sink = EventSink::default();
        let inspect = super::super::raw::inspector(super::super::exchange_log::Wire::default(), sink.clone());
        assert_eq!(inspect(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(sink.stray_line(), None, "a JSON-RPC message is no stray line");
        inspect(b"Starting Time MCP server...\r");
        inspect(b"another log line");
        assert_eq!(sink.stray_line().as_deref(), Some("Starting Time MCP server..."));
        let notes: Vec<ServerEvent> = sink.take().into_iter().filter(|e| matches!(e, ServerEvent::Note(_))).collect();
        assert_eq!(
            notes,
            [ServerEvent::Note(
                "the server wrote to stdout: `Starting Time MCP server...`: strict clients fail here".into()
            )]
        );
    }

    #[tokio::test]
    async fn stderr_is_read_in_whole_lines_cut_when_long() {
        let long = "x".repeat(MAX_LINE_BYTES + 10);
        let input = format!("Cannot find module 'x'\n\x1b[31mred\x1b[0m\r\n{long}\nlast without newline");
        let sink = EventSink::default();
        let tail = StderrTail::default();
        read_stderr(input.as_bytes(), Some(sink.clone()), tail.clone()).await;
        let lines: Vec<String> = sink
            .take()
            .into_iter()
            .map(|e| match e {
                ServerEvent::Stderr(s) => s,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(lines[0], "Cannot find module 'x'");
        assert_eq!(lines[1], "\x1b[31mred\x1b[0m", "kept as written; escaped where drawn");
        assert!(lines[2].ends_with("… (10 more bytes cut)"), "{}", &lines[2][MAX_LINE_BYTES - 5..]);
        assert_eq!(lines[3], "last without newline");
        let said = tail.describe().unwrap();
        assert!(said.starts_with("its last stderr lines:\n  Cannot find module 'x'\n"), "{said}");
        assert!(!said.contains('\x1b'), "escapes are shown, not obeyed: {said:?}");
    }

    #[test]
    fn a_flood_keeps_the_newest_and_counts_the_rest() {
        let sink = EventSink::default();
        for i in 0..MAX_PENDING + 5 {
            sink.push(ServerEvent::Stderr(i.to_string()));
        }
        let batch = sink.take();
        assert_eq!(batch[0], ServerEvent::Skipped(5));
        assert_eq!(batch[1], ServerEvent::Stderr("5".into()));
        assert_eq!(batch.len(), MAX_PENDING + 1);
        assert!(sink.take().is_empty());
        let long = "x".repeat(MAX_LINE_BYTES);
        for _ in 0..MAX_PENDING {
            sink.push(ServerEvent::Stderr(long.clone()));
        }
        let batch = sink.take();
        let held: usize = batch.iter().map(ServerEvent::bytes).sum();
        assert!(held <= MAX_PENDING_BYTES, "{held}");
        assert!(matches!(batch[0], ServerEvent::Skipped(n) if n > 0));
    }

    #[cfg(unix)]
    #[test]
    fn exits_are_described_by_code_or_signal() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(describe_exit(std::process::ExitStatus::from_raw(3 << 8)), "exited with code 3");
        assert_eq!(describe_exit(std::process::ExitStatus::from_raw(9)), "was killed by signal 9 (SIGKILL)");
    }
}
