//! One Streamable HTTP session of `proxy --listen -- COMMAND`: a stdio server of its own (a stdio
//! server holds one session's state, so each `initialize` starts one), its stdin fed by the
//! client's POSTs, and each line of its stdout routed to the HTTP stream it belongs on: an answer
//! to the POST that asked, a server request or notification to the POST stream it relates to (by
//! progress token, else the newest open one), else the GET stream, else a bounded queue the next
//! GET stream is handed first.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::invoke::mcp::process::{ServerProcess, StdioServer};
use crate::proxy::intercept::{Conversation, Deliver, Interceptor, Verdict};
use crate::sync::lock;
use crate::tasks::OwnedTasks;
use crate::wire::{LineDecoder, Side, TapHandle};

/// The longest line of the server's stdout passed on; a longer one is dropped (and said).
pub const MAX_LINE: usize = 64 * 1024 * 1024;
/// Server messages kept for a GET stream not open yet; the oldest go first past this.
const MAX_QUEUED: usize = 1024;
/// Messages that may wait for one slow HTTP client before the server's output waits for it.
const STREAM_DEPTH: usize = 256;

/// A message for one HTTP stream: a line of the server's stdout.
pub type Outgoing = mpsc::Sender<Bytes>;

/// The streams of a session and what waits on each.
#[derive(Default)]
struct Routes {
    /// The POST streams open, by number: their sender, whether SSE, how many answers they wait for.
    posts: HashMap<u64, Post>,
    /// Which POST stream waits for the answer to each request id.
    waiting: HashMap<String, u64>,
    /// Which POST stream carries each request's progress notifications.
    progress: HashMap<String, u64>,
    next: u64,
    get: Option<Outgoing>,
    queued: VecDeque<Bytes>,
}

struct Post {
    out: Outgoing,
    events: bool,
    left: usize,
}

/// One session: the server's input, its process, and the routes of its output.
pub struct Session {
    stdin: tokio::sync::Mutex<tokio::process::ChildStdin>,
    process: Mutex<Option<ServerProcess>>,
    routes: Mutex<Routes>,
    /// The session's requests in flight, for faults and breakpoints on their answers.
    conversation: Conversation,
    /// What it runs beside the server: its output routed, its stderr passed on, judged messages
    /// delivered. Stopped when the session ends.
    tasks: OwnedTasks,
}

/// A session as a [`Deliver`]: the server's input one way, the client's HTTP streams the other.
pub struct SessionDeliver {
    pub session: std::sync::Arc<Session>,
    /// True when the judged message came from the server (it goes on to the client).
    pub from_the_server: bool,
}

impl SessionDeliver {
    fn to_server(&self, line: Bytes) {
        let session = std::sync::Arc::clone(&self.session);
        self.session.tasks.spawn(async move {
            let _ = session.write(&line).await;
        });
    }

    fn to_client(&self, line: Bytes, routed_as: &Value) {
        if let Some((out, last)) = self.session.route(routed_as, &line) {
            self.session.tasks.spawn(async move {
                let _ = out.send(line).await;
                drop(last);
            });
        }
    }
}

impl Deliver for SessionDeliver {
    fn forward(&self, line: Bytes, original: &Value) {
        match self.from_the_server {
            true => self.to_client(line, original),
            false => self.to_server(line),
        }
    }

    fn answer(&self, line: Bytes) {
        match self.from_the_server {
            true => self.to_server(line),
            false => {
                let routed_as = crate::wire::parse_json(&line).unwrap_or(Value::Null);
                self.to_client(line, &routed_as);
            }
        }
    }
}

/// The key of a JSON-RPC id (or progress token) in the routes.
fn key(id: &Value) -> String {
    id.to_string()
}

impl Session {
    /// Starts `command` for a new session; the task that routes its output runs until the server
    /// closes its stdout, then calls `ended`.
    pub fn start(
        command: &str,
        tap: TapHandle,
        interceptor: std::sync::Arc<Interceptor>,
        ended: impl FnOnce() + Send + 'static,
    ) -> Result<std::sync::Arc<Session>, crate::invoke::InvokeError> {
        let server = StdioServer::spawn(command)?;
        let label = server.label.clone();
        let (pipes, process) =
            server.into_pipes().map_err(|e| crate::invoke::InvokeError::connect(label, e.to_string()).caused_by(e))?;
        let session = std::sync::Arc::new(Session {
            stdin: tokio::sync::Mutex::new(pipes.stdin),
            process: Mutex::new(Some(process)),
            routes: Mutex::new(Routes::default()),
            conversation: Conversation::default(),
            tasks: OwnedTasks::default(),
        });
        if let Some(stderr) = pipes.stderr {
            // Passed on to the proxy's stderr, and each line kept in the record.
            let told = tap.clone();
            session
                .tasks
                .spawn(async move { super::super::stderr::relay_async(stderr, tokio::io::stderr(), &told).await });
        }
        let routing = std::sync::Arc::clone(&session);
        session.tasks.spawn(async move {
            routing.route_output(pipes.stdout, &tap, &interceptor).await;
            routing.close_streams();
            ended();
        });
        Ok(session)
    }

    /// The session's requests in flight.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// Writes one message (one line) to the server's stdin.
    pub async fn write(&self, line: &[u8]) -> std::io::Result<()> {
        let mut stdin = self.stdin.lock().await;
        stdin.write_all(line).await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await
    }

    /// A POST stream that waits for the answers to `ids` (its requests) and, when `events`, carries
    /// what the server sends meanwhile; its receiver ends after the last answer.
    pub fn open_post(&self, ids: &[Value], tokens: &[Value], events: bool) -> mpsc::Receiver<Bytes> {
        let (out, receiver) = mpsc::channel(STREAM_DEPTH);
        let mut routes = lock(&self.routes);
        let number = routes.next;
        routes.next += 1;
        for id in ids {
            routes.waiting.insert(key(id), number);
        }
        for token in tokens {
            routes.progress.insert(key(token), number);
        }
        routes.posts.insert(number, Post { out, events, left: ids.len() });
        receiver
    }

    /// The GET stream, handed what was queued for it first; `None` when one is open already.
    pub fn open_get(&self) -> Option<mpsc::Receiver<Bytes>> {
        let mut routes = lock(&self.routes);
        if routes.get.as_ref().is_some_and(|get| !get.is_closed()) {
            return None;
        }
        let (out, receiver) = mpsc::channel(STREAM_DEPTH.max(MAX_QUEUED));
        while let Some(message) = routes.queued.pop_front() {
            let _ = out.try_send(message);
        }
        routes.get = Some(out);
        Some(receiver)
    }

    /// Ends the server (DELETE, or the proxy stopping): its input closed, a grace, then signals;
    /// then the session's tasks stop (one blocked writing to the server, or sending to a client
    /// that no longer reads, would otherwise hold the session).
    pub async fn end(&self) {
        self.close_streams();
        let process = lock(&self.process).take();
        if let Some(process) = process {
            process.end(crate::invoke::mcp::process::EXIT_GRACE).await;
        }
        self.tasks.stop();
    }

    /// Every stream of the session ends (their senders dropped).
    fn close_streams(&self) {
        let mut routes = lock(&self.routes);
        routes.posts.clear();
        routes.waiting.clear();
        routes.progress.clear();
        routes.get = None;
    }

    /// Reads the server's stdout line by line until it closes: each line told to the tap, then
    /// sent on the stream it belongs on (judged first while faults or breakpoints are set).
    async fn route_output(
        self: &std::sync::Arc<Self>,
        stdout: tokio::process::ChildStdout,
        tap: &TapHandle,
        interceptor: &Interceptor,
    ) {
        let mut lines = FramedRead::with_capacity(stdout, LineDecoder::skipping(MAX_LINE), 64 * 1024);
        while let Some(Ok(line)) = lines.next().await {
            if !line.is_whole() {
                tap.send_too_large(Side::Server, line.size, None);
                continue;
            }
            let bytes = line.bytes;
            if interceptor.armed() {
                match interceptor.judge(&self.conversation, Side::Server, &bytes, None) {
                    Verdict::Pass => {}
                    verdict => {
                        let deliver = std::sync::Arc::new(SessionDeliver {
                            session: std::sync::Arc::clone(self),
                            from_the_server: true,
                        });
                        interceptor.carry_out(verdict, deliver, &tokio::runtime::Handle::current());
                        continue;
                    }
                }
            }
            tap.send(Side::Server, bytes.clone(), None);
            // A line that is not JSON cannot go over HTTP: the record and the warning have it.
            let Ok(message) = crate::wire::parse_json(&bytes) else { continue };
            if let Some((out, last)) = self.route(&message, &bytes) {
                let _ = out.send(bytes).await;
                drop(last);
            }
        }
    }

    /// Where `message` goes: its stream, and (for the last answer a POST waits for) the POST's
    /// entry, dropped after the send so that the stream ends with the answer.
    fn route(&self, message: &Value, bytes: &Bytes) -> Option<(Outgoing, Option<Post>)> {
        let mut routes = lock(&self.routes);
        let is_answer = crate::wire::jsonrpc::is_response(message);
        if is_answer {
            let number = routes.waiting.remove(&key(message.get("id")?))?;
            let post = routes.posts.get_mut(&number)?;
            post.left = post.left.saturating_sub(1);
            let out = post.out.clone();
            let last = if post.left == 0 { routes.posts.remove(&number) } else { None };
            if last.is_some() {
                routes.progress.retain(|_, stream| *stream != number);
            }
            return Some((out, last));
        }
        let token = message.pointer("/params/progressToken").map(key);
        let by_token = token.and_then(|t| routes.progress.get(&t).copied()).and_then(|n| routes.posts.get(&n));
        let newest = routes.posts.iter().filter(|(_, post)| post.events).max_by_key(|(n, _)| **n).map(|(_, post)| post);
        if let Some(post) = by_token.filter(|post| post.events).or(newest) {
            return Some((post.out.clone(), None));
        }
        if let Some(get) = routes.get.as_ref().filter(|get| !get.is_closed()) {
            return Some((get.clone(), None));
        }
        if routes.queued.len() >= MAX_QUEUED {
            routes.queued.pop_front();
        }
        routes.queued.push_back(bytes.clone());
        None
    }
}
