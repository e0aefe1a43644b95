//! The session's traffic: every JSON-RPC message that went between a client and an MCP server,
//! in order (the handshake, requests both ways, notifications, cancelled calls), and over HTTP
//! each POST's status line and headers. Messages come as [`wire::Frame`](crate::wire::Frame)s
//! through [`FrameSink`]: where tooldeck is the client (its rmcp transport, `super::wire`) and
//! where it only watches a proxy (`tooldeck attach`), so the traffic pane has one rendering for
//! both. It outlives a connection (a restarted server's messages follow the old one's) and is
//! bounded the way the server pane's log is: the newest [`MAX_ENTRIES`] entries and at most
//! [`MAX_BYTES`] of text, the dropped ones counted.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::Value;

use super::exchange_log::HttpRecord;
use crate::wire::{Frame, FrameSink, Marks, Side};

pub const MAX_ENTRIES: usize = 100_000;
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
/// Requests remembered by id so that an answer can be named by its request's method.
const MAX_PENDING: usize = 4096;

/// Which way an entry went: between the client and the server, whoever they are (tooldeck is
/// the client of its own sessions; a proxy's client is someone else).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the client to the server.
    ClientToServer,
    /// From the server to the client.
    ServerToClient,
    /// An HTTP exchange (status line and headers) that carried a message.
    Http,
    /// A line the server wrote on its stderr (a stdio server behind a proxy): beside the wire,
    /// the client never saw it.
    ServerStderr,
}

impl Direction {
    /// The way a frame from `from` went.
    pub fn of(from: Side) -> Direction {
        match from {
            Side::Client => Direction::ClientToServer,
            Side::Server | Side::Proxy => Direction::ServerToClient,
            Side::Stderr => Direction::ServerStderr,
        }
    }
}

/// One entry of the traffic log.
#[derive(Debug, Clone, PartialEq)]
pub struct TrafficEntry {
    /// Its place in the session: 0 is the first message ever recorded.
    pub seq: u64,
    /// Milliseconds since the session's first entry.
    pub at_ms: u64,
    pub direction: Direction,
    /// The JSON-RPC id, as JSON text, when it has one.
    pub id: Option<String>,
    /// The message's method; for an answer, its request's method.
    pub method: Option<String>,
    /// True for an answer (a result or an error: an id, no method), false for a request or
    /// notification.
    pub answer: bool,
    /// The message, pretty-printed as it went over the wire (headers for HTTP entries).
    pub text: Arc<str>,
    pub http: Option<HttpRecord>,
    /// Made for the MCP App hosted in the browser (its `tools/call` or `resources/read`), or
    /// the answer to one, or the HTTP exchange that carried one.
    pub by_app: bool,
    /// What a proxy said of it (`tooldeck attach`): held at a breakpoint, made by a fault.
    pub marks: Marks,
}

impl TrafficEntry {
    /// A one-line summary for lists: `→ tools/call #3`, `← tools/call #3 (error)`.
    pub fn summary(&self) -> String {
        let arrow = match self.direction {
            Direction::ClientToServer => "→",
            Direction::ServerToClient => "←",
            Direction::Http => "⇄",
            Direction::ServerStderr => {
                let first = self.text.lines().next().unwrap_or_default();
                return crate::text::visible(&format!("⇠ stderr: {first}")).into_owned();
            }
        };
        let unnamed = match self.answer {
            true => "answer",
            false if self.text.ends_with(crate::wire::NOT_JSON_RPC) => crate::wire::NOT_JSON_RPC,
            false => "?",
        };
        let method = self.method.as_deref().unwrap_or(unnamed);
        let id = self.id.as_ref().map(|id| format!(" #{}", id.trim_matches('"'))).unwrap_or_default();
        let what = match (&self.http, self.answer) {
            (Some(http), _) => format!(" HTTP {}", http.status.map_or("(no answer)".into(), |s| s.to_string())),
            (None, true) if self.text.contains("\"error\":") => " (error)".to_string(),
            (None, true) => " (result)".to_string(),
            // A name with a space is a label (`HTTP 400: ...`), not a JSON-RPC method.
            (None, false) if self.id.is_none() && self.method.as_ref().is_some_and(|m| !m.contains(' ')) => {
                " (notification)".to_string()
            }
            _ => String::new(),
        };
        let by = match (&self.marks.injected, self.by_app) {
            (Some(_), _) => "proxy ",
            (None, true) => "app ",
            (None, false) => "",
        };
        crate::text::visible(&format!("{by}{arrow} {method}{id}{what}")).into_owned()
    }

    /// True when `filter` (lower case) appears in its method or its text (or is part of
    /// `stderr`, for a line of the server's stderr).
    pub fn matches(&self, filter: &str) -> bool {
        filter.is_empty()
            || (self.direction == Direction::ServerStderr && "stderr".contains(filter))
            || self.method.as_deref().is_some_and(|m| m.to_lowercase().contains(filter))
            || self.text.to_lowercase().contains(filter)
    }

    /// The JSON message the entry shows (a proxy's HTTP frame has its request line and headers
    /// first, then a blank line), masked as the log holds it.
    pub fn message(&self) -> Option<Value> {
        match serde_json::from_str::<Value>(&self.text) {
            Ok(message) => Some(message),
            Err(_) => self.text.split_once("\n\n").and_then(|(_, body)| serde_json::from_str(body).ok()),
        }
    }

    /// The entry as it may be shown or copied (an HTTP entry's secrets are masked already).
    pub fn shown_text(&self) -> String {
        self.text.to_string()
    }
}

/// An HTTP exchange as text: the request line and headers, then the status and headers.
fn describe_http(http: &HttpRecord) -> String {
    let mut text = format!("POST {}\n", crate::redact::url(&http.url));
    for (name, value) in &http.request_headers {
        text.push_str(&format!("{name}: {}\n", crate::redact::header_value(name, value)));
    }
    match http.status {
        Some(status) => text.push_str(&format!("\nHTTP {status}\n")),
        None => text.push_str("\n(no answer: the request failed)\n"),
    }
    for (name, value) in &http.response_headers {
        text.push_str(&format!("{name}: {}\n", crate::redact::header_value(name, value)));
    }
    text
}

/// A frame's HTTP as text: the request line (or the status) and the headers, secrets masked,
/// then a blank line.
fn http_lines(http: &crate::wire::HttpDetails) -> String {
    let mut text = match (&http.method, http.status) {
        (Some(method), _) => {
            format!("{method} {}\n", crate::redact::path_and_query(http.path.as_deref().unwrap_or_default()))
        }
        (None, Some(status)) => format!("HTTP {status}\n"),
        (None, None) => String::new(),
    };
    for (name, value) in &http.headers {
        text.push_str(&format!("{name}: {}\n", crate::redact::header_value(name, value)));
    }
    text.push('\n');
    text
}

/// The record with its secrets masked: the log never holds them.
fn masked(record: &HttpRecord) -> HttpRecord {
    let mask = |headers: &[(String, String)]| {
        headers.iter().map(|(n, v)| (n.clone(), crate::redact::header_value(n, v))).collect()
    };
    HttpRecord {
        id: record.id.clone(),
        url: crate::redact::url(&record.url),
        request_headers: mask(&record.request_headers),
        status: record.status,
        response_headers: mask(&record.response_headers),
    }
}

struct Log {
    /// When the log begins: its first entry's time at the latest (a record's backlog, read at
    /// once, begins before the log does).
    origin: SystemTime,
    entries: VecDeque<TrafficEntry>,
    bytes: usize,
    next_seq: u64,
    dropped: u64,
    /// (who sent it, id) → method and whether the hosted app made it, for requests not
    /// answered yet.
    pending: HashMap<(Direction, String), (String, bool)>,
    /// Requests the hosted app is about to make: (token, method, tool name or URI).
    app_requests: Vec<(u64, String, String)>,
    next_token: u64,
}

impl Default for Log {
    fn default() -> Log {
        Log {
            origin: SystemTime::now(),
            entries: VecDeque::new(),
            bytes: 0,
            next_seq: 0,
            dropped: 0,
            pending: HashMap::new(),
            app_requests: Vec::new(),
            next_token: 0,
        }
    }
}

/// The traffic log of a session; cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Traffic(Arc<Mutex<Log>>);

impl std::fmt::Debug for Traffic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Traffic")
    }
}

impl Traffic {
    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        crate::sync::lock(&self.0)
    }

    /// Records one frame: a JSON message pretty-printed (secrets masked: the log never holds
    /// them), a line that is not JSON as its text (flagged when it would break a client), a
    /// message too large to keep by its size.
    pub fn frame(&self, frame: &Frame) {
        self.marked_frame(frame, Marks::default());
    }

    /// Records one frame of a proxy's feed with what the proxy said of it (held, injected).
    pub fn marked_frame(&self, frame: &Frame, marks: Marks) {
        let direction = Direction::of(frame.from);
        // A proxy's HTTP frame shows the request line or status and headers above its body.
        let http = frame.http.as_ref().map(http_lines).unwrap_or_default();
        let Some(value) = &frame.message else {
            // An HTTP answer that is not JSON (a proxy's refusal, an HTML error page) is named in
            // lists by its status and first words, as an exchange is by what it was for; a
            // request with no body (the client's GET for the server's stream, a DELETE ending
            // the session) by its request line.
            let named = frame.http.as_ref().and_then(|h| match (h.status, &h.method) {
                (Some(status), _) => {
                    let body = String::from_utf8_lossy(&frame.raw);
                    let first = body.lines().next().unwrap_or_default();
                    Some(format!("HTTP {status}: {}", crate::text::truncate(&crate::redact::urls_in(first), 60)))
                }
                (None, Some(method)) if frame.raw.is_empty() => {
                    let path = h.path.as_deref().map(crate::redact::path_and_query).unwrap_or_default();
                    Some(format!("HTTP {method} {path}"))
                }
                (None, _) => None,
            });
            let text = if frame.has_text() {
                let line = crate::wire::text_of(frame);
                match frame.breaks_clients() {
                    true => format!("{line}\n\n{}", crate::wire::NOT_JSON_RPC),
                    false if !frame.kept() && !frame.trimmed => {
                        format!(
                            "{http}{line}\n\n({})",
                            crate::wire::cut_note(frame.raw.len() as u64, frame.size as u64)
                        )
                    }
                    false => format!("{http}{line}"),
                }
            } else if frame.too_deep {
                format!("{http}({} bytes: {})", frame.size, crate::wire::TOO_DEEP)
            } else {
                format!("{http}({} bytes: too large to keep)", frame.size)
            };
            let entry = TrafficEntry {
                seq: 0,
                at_ms: 0,
                direction,
                id: None,
                method: named,
                answer: false,
                text: text.into(),
                http: None,
                by_app: false,
                marks,
            };
            self.lock().push_at(entry, frame.at);
            return;
        };
        let shown = crate::redact::json_message(value);
        let pretty = serde_json::to_string_pretty(shown.as_ref().unwrap_or(value)).unwrap_or_default();
        let text: Arc<str> = if http.is_empty() { pretty.into() } else { format!("{http}{pretty}").into() };
        self.message(direction, value, text, frame.at, marks);
    }

    fn message(&self, direction: Direction, value: &Value, text: Arc<str>, at: SystemTime, marks: Marks) {
        let id = value.get("id").filter(|id| !id.is_null()).map(Value::to_string);
        let own_method = value.get("method").and_then(Value::as_str).map(str::to_string);
        let answer = crate::wire::jsonrpc::is_response(value);
        let mut log = self.lock();
        let (method, by_app) = match (&own_method, &id) {
            (Some(method), Some(id)) => {
                let by_app = direction == Direction::ClientToServer && log.app_made(method, value);
                if log.pending.len() >= MAX_PENDING {
                    log.pending.clear();
                }
                log.pending.insert((direction, id.clone()), (method.clone(), by_app));
                (own_method.clone(), by_app)
            }
            // An answer goes the other way from its request.
            (None, Some(id)) if answer => {
                log.pending.remove(&(direction.other(), id.clone())).map_or((None, false), |(m, by)| (Some(m), by))
            }
            _ => (own_method.clone(), false),
        };
        let entry = TrafficEntry { seq: 0, at_ms: 0, direction, id, method, answer, text, http: None, by_app, marks };
        log.push_at(entry, at);
    }

    /// The hosted app is about to send `method` (`tools/call` or `resources/read`) for `key`
    /// (the tool's name, the resource's URI) through this session: its request, answer and
    /// HTTP exchange are marked as the app's. Dropping the mark forgets it if nothing was sent
    /// (the call failed before it left), so a later request of the person's is not taken for
    /// the app's.
    pub fn expect_app(&self, method: &str, key: &str) -> AppRequest {
        let mut log = self.lock();
        let token = log.next_token;
        log.next_token += 1;
        // Bounded: an app's requests run one round at a time, a few at most.
        if log.app_requests.len() >= 64 {
            log.app_requests.remove(0);
        }
        log.app_requests.push((token, method.to_string(), key.to_string()));
        AppRequest { traffic: self.clone(), token }
    }

    /// Records a message from the server that is not valid JSON, as it came (its secrets masked
    /// by the caller): the answer to request `id` when that could be read.
    pub fn received_raw(&self, id: Option<String>, text: Arc<str>) {
        let mut log = self.lock();
        let method = id.as_ref().and_then(|id| log.pending.remove(&(Direction::ClientToServer, id.clone())));
        let answer = id.is_some();
        let (method, by_app) = method.map_or((None, false), |(m, by)| (Some(m), by));
        let direction = Direction::ServerToClient;
        let marks = Marks::default();
        log.push(TrafficEntry { seq: 0, at_ms: 0, direction, id, method, answer, text, http: None, by_app, marks });
    }

    /// Records the HTTP exchange that carried a message.
    pub fn http(&self, record: &HttpRecord) {
        let mut log = self.lock();
        // The POST carried the message sent just before with its id (a request, an answer to
        // the server's own request, or a notification without one): it names the exchange.
        let sent =
            log.entries.iter().rev().take(64).find(|e| e.direction == Direction::ClientToServer && e.id == record.id);
        let (method, by_app) = sent.map_or((None, false), |e| (e.method.clone(), e.by_app));
        let text: Arc<str> = describe_http(record).into();
        let entry = TrafficEntry {
            seq: 0,
            at_ms: 0,
            direction: Direction::Http,
            id: record.id.clone(),
            method,
            answer: false,
            text,
            http: Some(masked(record)),
            by_app,
            marks: Marks::default(),
        };
        log.push(entry);
    }

    /// Records an HTTP exchange that carried no JSON-RPC message: an OAuth request made while
    /// signing in (a discovery probe, registration, the token exchange, a refresh). `name` says
    /// what it was for and becomes the entry's method; `text` is what is shown, its secrets
    /// (bodies included) masked by the caller; the record's headers and URL are masked here.
    pub fn exchange(&self, name: String, record: &HttpRecord, text: String) {
        let entry = TrafficEntry {
            seq: 0,
            at_ms: 0,
            direction: Direction::Http,
            id: None,
            method: Some(name),
            answer: false,
            text: text.into(),
            http: Some(masked(record)),
            by_app: false,
            marks: Marks::default(),
        };
        self.lock().push(entry);
    }

    /// The entries from `seq` on (what a viewer has not seen yet), and how many were dropped
    /// in all to keep the log bounded.
    pub fn since(&self, seq: u64) -> (Vec<TrafficEntry>, u64) {
        let log = self.lock();
        let start = log.entries.partition_point(|e| e.seq < seq);
        (log.entries.range(start..).cloned().collect(), log.dropped)
    }

    /// The number of entries held now.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sequence number the next entry will get.
    pub fn next_seq(&self) -> u64 {
        self.lock().next_seq
    }
}

impl Direction {
    /// The way back (an answer goes the other way from its request).
    fn other(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
            Direction::Http => Direction::Http,
            Direction::ServerStderr => Direction::ServerStderr,
        }
    }
}

/// The log takes frames as a sink does: in memory, bounded, never slow (it runs beside the
/// wire, in the transport, so the traffic pane sees a message as soon as rmcp does).
impl FrameSink for Traffic {
    fn accept(&mut self, frame: &Frame) -> std::io::Result<()> {
        self.frame(frame);
        Ok(())
    }

    fn name(&self) -> String {
        "the traffic pane".into()
    }
}

/// A request the hosted app is about to make (`Traffic::expect_app`); forgotten when dropped.
pub struct AppRequest {
    traffic: Traffic,
    token: u64,
}

impl Drop for AppRequest {
    fn drop(&mut self) {
        self.traffic.lock().app_requests.retain(|(token, ..)| *token != self.token);
    }
}

impl Log {
    /// Whether the request `value` of `method` is one the app said it would make (taken once).
    fn app_made(&mut self, method: &str, value: &Value) -> bool {
        let key = match method {
            "tools/call" => value.pointer("/params/name"),
            "resources/read" => value.pointer("/params/uri"),
            _ => return false,
        };
        let Some(key) = key.and_then(Value::as_str) else { return false };
        let found = self.app_requests.iter().position(|(_, m, k)| m == method && k == key);
        found.map(|i| self.app_requests.remove(i)).is_some()
    }

    fn push(&mut self, entry: TrafficEntry) {
        self.push_at(entry, SystemTime::now());
    }

    /// `entry`, which went over the wire at `at`.
    fn push_at(&mut self, mut entry: TrafficEntry, at: SystemTime) {
        if self.entries.is_empty() && self.next_seq == 0 && at < self.origin {
            self.origin = at;
        }
        entry.seq = self.next_seq;
        entry.at_ms = at.duration_since(self.origin).unwrap_or_default().as_millis() as u64;
        self.next_seq += 1;
        self.bytes += entry.text.len();
        self.entries.push_back(entry);
        while self.entries.len() > MAX_ENTRIES || (self.bytes > MAX_BYTES && self.entries.len() > 1) {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.text.len();
                self.dropped += 1;
            }
        }
    }
}

#[cfg(test)]
#[path = "traffic_tests.rs"]
mod tests;
