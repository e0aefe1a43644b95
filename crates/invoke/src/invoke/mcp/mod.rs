//! The Model Context Protocol over stdio (a child process) or Streamable HTTP,
//! through the rmcp crate: `initialize` → `tools/list` (paginated) → `tools/call`.

pub mod asks;
pub mod completion;
pub mod content;
mod drive;
mod errors;
pub mod events;
mod fallback;
pub mod http;
mod http_auth;
mod http_tap;
pub mod info;
mod line_cap;
pub mod negotiate;
pub mod process;
pub mod prompts;
mod raw;
mod relay;
mod roots;
pub mod traffic;
pub mod uri_template;
/// The replay builder moved beside OTC's in `invoke::replay`; its old path still names it.
pub use super::replay;
pub use process::split_command_line;
mod as_result;
pub mod exchange_log;
pub mod resources;
pub mod session;
pub mod stdio;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, NumberOrString, PaginatedRequestParams, ProgressToken, ReadResourceRequestParams,
    RequestParamsMeta,
};
use rmcp::service::ClientServiceExt;
use rmcp::service::{ClientInitializeError, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};

use super::envelope::read_mcp_owned;
use super::{Exchange, InvokeError, Outcome};
use crate::invoke::request::CallRequest;
use crate::sync::lock;
use events::{EventSink, ServerEvent, StderrTail};
use process::{ServerProcess, StdioServer};
use relay::Forget;
pub use relay::ProgressRelay;

/// How long `connect_*` and each request wait unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long the client has to close the server's input.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// How long after its stderr closes a stdio server is watched for its exit status.
const EXIT_WATCH: Duration = Duration::from_secs(5);

/// A guard against a server whose `nextCursor` never ends.
const MAX_PAGES: usize = 10_000;

/// A connected MCP server. Dropping it closes the connection and kills a stdio child.
pub struct McpEndpoint {
    client: RunningService<RoleClient, ProgressRelay>,
    /// `mcp:stdio COMMAND` or the server's URL: what the exchange view and errors call it.
    label: String,
    timeout: Duration,
    /// The last lines the child wrote to stderr (stdio only).
    stderr_tail: Option<StderrTail>,
    /// The stdio server's process (killed if still running when this is dropped).
    process: Option<ServerProcess>,
    /// Set when the server wrote a message over the size cap (and the connection was ended).
    oversized: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Every JSON-RPC message of the connection (bounded), for the exchange view.
    wire: exchange_log::Wire,
    /// Where the server's stderr, log entries and list changes go.
    events: EventSink,
    /// The exchange of the last call that got no answer, by call id.
    failed: Mutex<Option<(String, Exchange)>>,
    /// `--max-time`: the most a whole call may take, progress or not.
    max_time: Option<Duration>,
}

impl std::fmt::Debug for McpEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpEndpoint").field("label", &self.label).field("timeout", &self.timeout).finish()
    }
}

impl McpEndpoint {
    /// Spawns `command_line` (split like a POSIX shell would, without running one) and speaks MCP
    /// on its stdin/stdout. Its stderr is captured (never shown on the terminal); the child is
    /// killed when the endpoint is dropped.
    pub async fn connect_stdio(command_line: &str) -> Result<McpEndpoint, InvokeError> {
        McpEndpoint::connect_stdio_with_timeout(command_line, DEFAULT_TIMEOUT).await
    }

    pub async fn connect_stdio_with_timeout(command_line: &str, timeout: Duration) -> Result<McpEndpoint, InvokeError> {
        let server = StdioServer::spawn(command_line)?;
        let (setup, events) = (asks::ClientSetup::default(), EventSink::default());
        McpEndpoint::connect_command(server, command_line, timeout, setup, events).await
    }

    /// Speaks MCP with a server already started (`tooldeck call` starts it before its runtime).
    pub async fn connect_started(server: StdioServer, timeout: Duration) -> Result<McpEndpoint, InvokeError> {
        McpEndpoint::connect_started_with(server, timeout, asks::ClientSetup::default(), EventSink::default()).await
    }

    /// [`McpEndpoint::connect_started`] with who answers the server's asks, the revision and
    /// `--max-time` (`setup`); the server's stderr, log entries, list changes and exit go to
    /// `events`.
    pub async fn connect_started_with(
        server: StdioServer,
        timeout: Duration,
        setup: asks::ClientSetup,
        events: EventSink,
    ) -> Result<McpEndpoint, InvokeError> {
        McpEndpoint::connect_started_muting(server, timeout, setup, events, None).await
    }

    /// [`McpEndpoint::connect_started_with`]; while `probing` is set, the server's exit is not
    /// news (a server that ends on `server/discover` is started again, see `fallback.rs`).
    async fn connect_started_muting(
        server: StdioServer,
        timeout: Duration,
        setup: asks::ClientSetup,
        events: EventSink,
        probing: Option<Arc<std::sync::atomic::AtomicBool>>,
    ) -> Result<McpEndpoint, InvokeError> {
        let lifecycle = setup.lifecycle().map_err(InvokeError::setup)?;
        let label = server.label.clone();
        let (pipes, process) = server.into_pipes().map_err(|e| {
            InvokeError::connect(label.clone(), format!("cannot read the server's output: {e}")).caused_by(e)
        })?;
        let tail = StderrTail::default();
        if let Some(stderr) = pipes.stderr {
            let exited = process.watch_exit(EXIT_WATCH);
            let (tail, events) = (tail.clone(), events.clone());
            tokio::spawn(async move {
                events::read_stderr(stderr, Some(events.clone()), tail.clone()).await;
                // Its stderr closed: it exited, most likely. How, unless tooldeck ended it.
                if let Some(status) = exited.await
                    && !probing.is_some_and(|p| p.load(std::sync::atomic::Ordering::Relaxed))
                {
                    events.push(ServerEvent::Exited { how: events::describe_exit(status), last_lines: tail.lines() });
                }
            });
        }
        let oversized = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let wire = exchange_log::Wire::default();
        let stdout = line_cap::LineCap::new(pipes.stdout, super::MAX_BODY_BYTES, Arc::clone(&oversized))
            .inspecting(raw::inspector(wire.clone(), events.clone()));
        let relay = ProgressRelay::with(&setup);
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(stdout, pipes.stdin);
        let transport = exchange_log::LoggedTransport::new(transport, wire.clone(), Some(events.clone()), None);
        let served = tokio::time::timeout(timeout, negotiate::serve(relay, transport, lifecycle)).await;
        // On an error `process` is dropped here, which kills the server; how it ended if it did.
        let mut endpoint = match McpEndpoint::finish_connect(served, label, timeout, Some(tail), &setup, &events).await
        {
            Ok(endpoint) => endpoint,
            Err(InvokeError::Connect { url, reason, source }) => {
                let reason = match process.watch_exit(Duration::from_millis(200)).await {
                    Some(status) => reason.replacen(
                        "the server closed the connection during initialize (did it exit or crash?)",
                        &format!("the server {} during initialize", events::describe_exit(status)),
                        1,
                    ),
                    None => reason,
                };
                return Err(InvokeError::Connect { url, reason, source });
            }
            Err(error) => return Err(error),
        };
        endpoint.process = Some(process);
        endpoint.oversized = Some(oversized);
        endpoint.wire = wire;
        endpoint.events = events;
        Ok(endpoint)
    }

    /// Connects to a Streamable HTTP server at `url`, sending `headers` with every request.
    pub async fn connect_http(url: &str, headers: Vec<(String, String)>) -> Result<McpEndpoint, InvokeError> {
        McpEndpoint::connect_http_with_timeout(url, headers, DEFAULT_TIMEOUT).await
    }

    pub async fn connect_http_with_timeout(
        url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
    ) -> Result<McpEndpoint, InvokeError> {
        McpEndpoint::connect_http_with(url, headers, timeout, asks::ClientSetup::default(), EventSink::default()).await
    }

    /// [`McpEndpoint::connect_http_with_timeout`] with a [`asks::ClientSetup`], log entries, list
    /// changes and a lost session going to `events`. Without a pinned revision, a server that
    /// refuses `server/discover` other than the way the spec asks (an HTTP error) is met again
    /// with `initialize`.
    pub async fn connect_http_with(
        url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
        setup: asks::ClientSetup,
        events: EventSink,
    ) -> Result<McpEndpoint, InvokeError> {
        let lifecycle = setup.lifecycle().map_err(InvokeError::setup)?;
        let label = crate::redact::url(url);
        let mut custom = HashMap::new();
        for (name, value) in headers {
            let bad = |what: &str| InvokeError::Setup {
                reason: format!("the header {name:?} has an invalid {what}"),
                source: None,
            };
            let header_name =
                reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()).map_err(|_| bad("name"))?;
            let header_value = reqwest::header::HeaderValue::from_str(value.trim()).map_err(|_| bad("value"))?;
            custom.insert(header_name, header_value);
        }
        // A session the server forgot is said at once (and `R` reconnects), not mended behind
        // the user's back: their log level and subscriptions went with it.
        let wire = exchange_log::Wire::default();
        let client = crate::invoke::http::client_builder().build().map_err(InvokeError::setup)?;
        let transport = || {
            let config = StreamableHttpClientTransportConfig::with_uri(url)
                .custom_headers(custom.clone())
                .reinit_on_expired_session(false);
            let client = http_tap::HttpTap { client: client.clone(), wire: wire.clone(), events: events.clone() };
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let on_end = Some("the server ended the connection".to_string());
            exchange_log::LoggedTransport::new(transport, wire.clone(), Some(events.clone()), on_end)
        };
        let relay = ProgressRelay::with(&setup);
        let auto = matches!(lifecycle, rmcp::service::ClientLifecycleMode::Auto { .. });
        let probe_time = if auto { timeout.min(fallback::PROBE_SILENCE) } else { timeout };
        let served = tokio::time::timeout(probe_time, relay.clone().serve_with_lifecycle(transport(), lifecycle)).await;
        let served = match served {
            Ok(Err(_)) | Err(_) if auto => {
                // Why `server/discover` failed is no longer the news.
                wire.clear_failure();
                let again = asks::ClientSetup { initialize_first: true, ..setup.clone() };
                let initialize = rmcp::service::ClientLifecycleMode::Initialize;
                let served = tokio::time::timeout(
                    timeout,
                    ProgressRelay::with(&again).serve_with_lifecycle(transport(), initialize),
                )
                .await;
                if let Ok(Ok(client)) = &served {
                    let version = client.peer_info().map(|i| i.protocol_version.to_string()).unwrap_or_default();
                    events.push(ServerEvent::Note(format!(
                        "the server did not take server/discover; met it again with initialize: it speaks {version}"
                    )));
                }
                served
            }
            other => other,
        };
        match McpEndpoint::finish_connect(served, label.clone(), timeout, None, &setup, &events).await {
            Ok(mut endpoint) => {
                endpoint.wire = wire;
                endpoint.events = events;
                Ok(endpoint)
            }
            // The transport knows why (a redirect not followed, an answer over the cap).
            Err(_) if let Some(reason) = wire.take_failure() => Err(InvokeError::connect(label, reason)),
            // rmcp reports a refused initialize only as a closed connection; ask the server
            // directly whether it wants authorization, to say so instead.
            Err(error) => {
                // The transport saw the 401 itself (whichever request met it: `server/discover`
                // or `initialize`); only without one is the server asked again.
                if let Some((401, challenge)) = wire.take_challenge() {
                    return Err(InvokeError::Unauthorized { url: url.to_string(), challenge });
                }
                Err(http::wants_authorization(url, custom.into_iter().collect(), timeout).await.unwrap_or(error))
            }
        }
    }

    /// Speaks MCP over any byte stream (one end of a `tokio::io::duplex`, a socket...). `label`
    /// names the server in exchanges and errors.
    pub async fn connect_io<S>(stream: S, label: &str) -> Result<McpEndpoint, InvokeError>
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        McpEndpoint::connect_io_with(stream, label, asks::ClientSetup::default()).await
    }

    /// [`McpEndpoint::connect_io`] with a [`asks::ClientSetup`].
    pub async fn connect_io_with<S>(
        stream: S,
        label: &str,
        setup: asks::ClientSetup,
    ) -> Result<McpEndpoint, InvokeError>
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let lifecycle = setup.lifecycle().map_err(InvokeError::setup)?;
        let wire = exchange_log::Wire::default();
        let events = EventSink::default();
        let (read, write) = tokio::io::split(stream);
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(read, write);
        let on_end = Some("the server closed the connection".to_string());
        let transport = exchange_log::LoggedTransport::new(transport, wire.clone(), Some(events.clone()), on_end);
        let served =
            tokio::time::timeout(DEFAULT_TIMEOUT, negotiate::serve(ProgressRelay::with(&setup), transport, lifecycle))
                .await;
        let mut endpoint =
            McpEndpoint::finish_connect(served, label.to_string(), DEFAULT_TIMEOUT, None, &setup, &events).await?;
        endpoint.wire = wire;
        endpoint.events = events;
        Ok(endpoint)
    }

    async fn finish_connect(
        served: Result<
            Result<RunningService<RoleClient, ProgressRelay>, ClientInitializeError>,
            tokio::time::error::Elapsed,
        >,
        label: String,
        timeout: Duration,
        stderr_tail: Option<StderrTail>,
        setup: &asks::ClientSetup,
        events: &EventSink,
    ) -> Result<McpEndpoint, InvokeError> {
        match served {
            Err(_) => Err(InvokeError::timeout(label, errors::timeout_limit(timeout))),
            Ok(Err(error)) => {
                let mut reason = match &error {
                    ClientInitializeError::ConnectionClosed(_) | ClientInitializeError::TransportError { .. } => {
                        "the server closed the connection during initialize (did it exit or crash?)".to_string()
                    }
                    other => format!("initialize failed: {other}"),
                };
                if let Ok(Some(pinned)) = setup.pinned() {
                    reason.push_str(&format!(" (--protocol {pinned} was asked for; does the server speak it?)"));
                }
                if let Some(tail) = &stderr_tail {
                    // Give the reader a moment to catch the child's last words.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    if let Some(text) = tail.describe() {
                        reason.push_str(&format!("; {text}"));
                    }
                }
                Err(InvokeError::connect(label, reason).caused_by(error))
            }
            Ok(Ok(client)) => {
                let agreed = client.peer_info().map(|info| info.protocol_version.clone());
                if let (Ok(Some(pinned)), Some(agreed)) = (setup.pinned(), agreed)
                    && pinned != agreed
                {
                    // An older revision tooldeck speaks is the server's right answer to
                    // `initialize` (the spec's negotiation); a newer or unknown one is not.
                    let older_known =
                        agreed.as_str() < pinned.as_str() && negotiate::KNOWN_PROTOCOLS.contains(&agreed.as_str());
                    if !older_known {
                        let _ = client.cancel().await;
                        let reason =
                            format!("the server answered with protocol {agreed} where --protocol asked for {pinned}");
                        return Err(InvokeError::connect(label, reason));
                    }
                    events.push(ServerEvent::Note(format!(
                        "the server speaks protocol {agreed}, older than the {pinned} --protocol asked for: going on with {agreed}"
                    )));
                }
                Ok(McpEndpoint {
                    client,
                    label,
                    timeout,
                    stderr_tail,
                    process: None,
                    oversized: None,
                    wire: exchange_log::Wire::default(),
                    events: EventSink::default(),
                    failed: Mutex::new(None),
                    max_time: setup.max_time,
                })
            }
        }
    }

    /// How long each request waits for its answer.
    pub fn with_timeout(mut self, timeout: Duration) -> McpEndpoint {
        self.timeout = timeout;
        self
    }

    /// `mcp:stdio COMMAND` or the URL.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Who answers the server's asks, and the roots.
    pub fn asks(&self) -> &asks::Asks {
        &self.client.service().asks
    }

    /// Sends `notifications/roots/list_changed` (the roots were changed with [`asks::Asks::set_roots`]).
    pub async fn roots_changed(&self) {
        let _ = self.client.peer().notify_roots_list_changed().await;
    }

    /// The stdio child's process id (none for other transports).
    pub fn child_pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(ServerProcess::id)
    }

    /// The server's name and version as it gave them in `initialize`, when it did.
    pub fn server_info(&self) -> Option<(String, String)> {
        let peer = self.client.peer_info()?;
        let info = peer.server_info.as_ref()?;
        Some((info.name.clone(), info.version.clone()))
    }

    /// What went over the wire for call `call_id`, which got no answer (once).
    pub fn take_failed_exchange(&self, call_id: &str) -> Option<Exchange> {
        let mut failed = lock(&self.failed);
        if failed.as_ref().is_some_and(|(id, _)| id == call_id) { failed.take().map(|(_, e)| e) } else { None }
    }

    /// Where the server's stderr, log entries, list changes and its going away are reported.
    pub fn events(&self) -> EventSink {
        self.events.clone()
    }

    /// What the server said of itself in `initialize`, with the HTTP session id if there is one.
    pub fn info(&self) -> Option<info::ServerInfo> {
        let peer = serde_json::to_value(self.client.peer_info()?.as_ref()).ok()?;
        Some(info::ServerInfo::from_peer(&peer, self.wire.session_id()))
    }

    /// Asks the server to send log entries of `level` and above (`logging/setLevel`).
    #[allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); MCP 2025-06-18 servers use it.
    pub async fn set_log_level(&self, level: &str) -> Result<(), InvokeError> {
        let level: rmcp::model::LoggingLevel = serde_json::from_value(Value::String(level.to_string()))
            .map_err(|_| InvokeError::NotSent(format!("{level:?} is not an MCP log level")))?;
        let params = rmcp::model::SetLevelRequestParams::new(level);
        self.request("logging/setLevel", self.client.set_level(params)).await
    }

    /// Every tool across all `tools/list` pages, as the JSON text `{"tools": [...]}` (the shape of
    /// one `tools/list` result) for the catalog to read.
    pub async fn list_tools(&self) -> Result<String, InvokeError> {
        let mut tools: Vec<Value> = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor.take());
            let page = self.request("tools/list", self.client.list_tools(Some(params))).await?;
            for tool in &page.tools {
                tools.push(
                    serde_json::to_value(tool).map_err(|e| {
                        InvokeError::Unreadable(format!("{}: cannot re-encode a tool: {e}", self.label))
                    })?,
                );
            }
            match page.next_cursor {
                Some(next) if !next.is_empty() => cursor = Some(next),
                _ => return Ok(json!({ "tools": tools }).to_string()),
            }
        }
        Err(InvokeError::Broken(format!("{}: tools/list still had a nextCursor after {MAX_PAGES} pages", self.label)))
    }

    fn params(&self, request: &CallRequest) -> Result<CallToolRequestParams, InvokeError> {
        drive::call_params(request)
    }

    /// The request as it would be sent, for `--dry-run` and the exchange view.
    pub fn describe(&self, request: &CallRequest) -> Exchange {
        McpEndpoint::describe_call(&self.label, request)
    }

    /// The `tools/call` request to the server `label` names, as it would be sent: the whole
    /// JSON-RPC message. Its `id` is the session's to give when it is sent; 1 stands in for it.
    pub fn describe_call(label: &str, request: &CallRequest) -> Exchange {
        let params = match drive::call_params(request) {
            Ok(params) => serde_json::to_value(&params).unwrap_or_default(),
            Err(_) => json!({"name": request.tool_id, "arguments": request.arguments}),
        };
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let body = serde_json::to_string_pretty(&message).unwrap_or_default();
        Exchange { method: "tools/call".into(), url: label.to_string(), request_body: body, ..Exchange::default() }
    }

    /// `tools/call {name, arguments}` with `request.tool_id` as the name. Any result the server
    /// gives (including `isError`) is an `Outcome`; no answer (a crash, a closed pipe, a timeout,
    /// a JSON-RPC error) is an error.
    pub async fn call(&self, request: &CallRequest) -> Result<(Outcome, Exchange), InvokeError> {
        self.call_with_progress(request, |_| {}).await
    }

    /// Like [`McpEndpoint::call`], asking the server for progress (the call id is the progress
    /// token) and passing each report to `on_progress`.
    pub async fn call_with_progress(
        &self,
        request: &CallRequest,
        on_progress: impl Fn(super::Progress) + Send + Sync + 'static,
    ) -> Result<(Outcome, Exchange), InvokeError> {
        let mut params = self.params(request)?;
        params.set_progress_token(ProgressToken(NumberOrString::String(request.call_id.clone().into())));
        let listeners = self.client.service().listeners.clone();
        let listeners_for_status = listeners.clone();
        // When progress last came: a call whose time ran out soon after a report (within half
        // the silence allowed) was working, not stuck; silence for most of it is a hang.
        let last_progress = Arc::new(Mutex::new(None::<Instant>));
        let heard = Arc::clone(&last_progress);
        let on_progress = move |progress| {
            *lock(&heard) = Some(Instant::now());
            on_progress(progress);
        };
        lock(&listeners).push((request.call_id.clone(), Box::new(on_progress)));
        // Whatever happens to the call, its listener goes with it.
        let _forget = Forget { listeners, key: request.call_id.clone() };
        let mut exchange = self.describe(request);
        let started = Instant::now();
        let mark = self.wire.mark();
        let questions_before = self.wire.questions();
        // A task's state goes where its progress would (the newest call's listener).
        let status = move |progress| {
            if let Some((_, listener)) = lock(&listeners_for_status).last() {
                listener(progress);
            }
        };
        let result = self.or_wire_failure("tools/call", self.drive_call(params, request.as_task, &status)).await;
        exchange.duration_ms = started.elapsed().as_millis() as u64;
        let wire = self.wire.call(mark, &request.tool_id);
        if let Some(wire) = &wire {
            wire.fill(&mut exchange);
        }
        let result = match result {
            Ok(result) => result,
            Err(error) => {
                if wire.is_none() {
                    // Nothing went over the wire: the request is shown as it would have been sent.
                    exchange.method = "not sent (the connection was gone):".into();
                }
                // A failed call keeps what went over the wire.
                *lock(&self.failed) = Some((request.call_id.clone(), exchange));
                let working = lock(&last_progress).is_some_and(|at| at.elapsed() < self.timeout / 2);
                return Err(if working { error.still_working() } else { error });
            }
        };
        let value = result;
        if wire.as_ref().is_none_or(|w| w.response.is_none()) {
            exchange.response_body = serde_json::to_string_pretty(&value).unwrap_or_default();
        }
        // Taken apart, not copied: a large inline blob is held by the exchange and its item only.
        let mut outcome = read_mcp_owned(value, &request.call_id);
        // rmcp reads a result without `content` as an empty one: a deviation, said, not hidden.
        if wire.as_ref().and_then(|w| w.request_id.as_deref()).is_some_and(|id| self.wire.had_no_content(id)) {
            outcome.warnings.push(raw::NO_CONTENT.to_string());
        }
        outcome.duration_ms = exchange.duration_ms;
        outcome.protocol = self.protocol_version();
        let asks = &self.client.service().asks;
        asks.take_up(self.wire.questions() - questions_before).await;
        for asked in asks.take_asked() {
            outcome.warnings.extend(asked.warning());
            outcome.asked.push(asks::asked_json(&asked));
        }
        outcome.warnings.extend(asks.unkept_warning());
        Ok((outcome, exchange))
    }

    /// `resources/read {uri}`: the resource's contents (text or blob each), for a `resource_link`
    /// in a result. Contents that cannot be read are left out, each with a warning beside them.
    pub async fn read_resource(&self, uri: &str) -> Result<(Vec<content::Embedded>, Vec<String>), InvokeError> {
        let params = ReadResourceRequestParams::new(uri);
        let result = self.request("resources/read", self.client.read_resource(params)).await?;
        let contents = result
            .contents
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<Vec<Value>, _>>()
            .map_err(|e| InvokeError::Unreadable(format!("{}: cannot re-encode a resource: {e}", self.label)))?;
        drop(result);
        let mut warnings = Vec::new();
        let read = content::read_resource_contents(contents, &mut warnings);
        Ok((read, warnings))
    }

    /// Ends the session the way the MCP spec asks: a stdio server sees its input close and has a
    /// moment to exit by itself, then its process group gets SIGTERM and, a second later, SIGKILL
    /// (see [`ServerProcess::end`]).
    pub async fn close(self) {
        let McpEndpoint { client, process, .. } = self;
        // Cancelling the client ends its transport, which closes the server's input.
        let _ = tokio::time::timeout(CLOSE_GRACE, client.cancel()).await;
        if let Some(process) = process {
            process.end(process::EXIT_GRACE).await;
        }
    }
}
