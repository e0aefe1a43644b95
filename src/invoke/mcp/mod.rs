//! The Model Context Protocol (PROTOCOLS.md §3) over stdio (a child process) or Streamable HTTP,
//! through the rmcp crate: `initialize` → `tools/list` (paginated) → `tools/call`.

pub mod asks;
pub mod content;
mod drive;
pub mod http;
mod line_cap;
pub mod negotiate;
pub mod process;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, NumberOrString, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ReadResourceRequestParams, RequestParamsMeta,
};
use rmcp::service::ClientServiceExt;
use rmcp::service::NotificationContext;
use rmcp::service::{ClientInitializeError, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};

use super::envelope::read_mcp_owned;
use super::otc::CallRequest;
use super::{Exchange, InvokeError, Outcome};
use process::{ServerProcess, StdioServer};

/// How long `connect_*` and each request wait unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long the client has to close the server's input.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// How much of a child's stderr is kept, to explain why it went away.
const STDERR_TAIL_BYTES: usize = 2048;

/// A guard against a server whose `nextCursor` never ends.
const MAX_PAGES: usize = 10_000;

/// A connected MCP server. Dropping it closes the connection and kills a stdio child.
pub struct McpEndpoint {
    client: RunningService<RoleClient, ProgressRelay>,
    /// `mcp:stdio COMMAND` or the server's URL: what the exchange view and errors call it.
    label: String,
    timeout: Duration,
    /// The last few KiB the child wrote to stderr (stdio only).
    stderr_tail: Option<Arc<Mutex<Vec<u8>>>>,
    /// The stdio server's process (killed if still running when this is dropped).
    process: Option<ServerProcess>,
    /// Set when the server wrote a message over the size cap (and the connection was ended).
    oversized: Option<Arc<std::sync::atomic::AtomicBool>>,
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
        McpEndpoint::connect_started(StdioServer::spawn(command_line)?, timeout).await
    }

    /// Speaks MCP with a server already started (`tooldeck call` starts it before its runtime).
    pub async fn connect_started(server: StdioServer, timeout: Duration) -> Result<McpEndpoint, InvokeError> {
        McpEndpoint::connect_started_with(server, timeout, asks::ClientSetup::default()).await
    }

    /// [`McpEndpoint::connect_started`] with who answers the server's asks, the revision and
    /// `--max-time`.
    pub async fn connect_started_with(
        server: StdioServer,
        timeout: Duration,
        setup: asks::ClientSetup,
    ) -> Result<McpEndpoint, InvokeError> {
        let lifecycle = setup.lifecycle().map_err(InvokeError::Setup)?;
        let label = server.label.clone();
        let (pipes, process) = server.into_pipes().map_err(|e| InvokeError::Connect {
            url: label.clone(),
            reason: format!("cannot read the server's output: {e}"),
        })?;
        let tail = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut stderr) = pipes.stderr {
            let tail = Arc::clone(&tail);
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let mut kept = tail.lock().unwrap_or_else(|e| e.into_inner());
                    kept.extend_from_slice(&buf[..n]);
                    if kept.len() > STDERR_TAIL_BYTES {
                        let excess = kept.len() - STDERR_TAIL_BYTES;
                        kept.drain(..excess);
                    }
                }
            });
        }
        let oversized = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stdout = line_cap::LineCap::new(pipes.stdout, super::MAX_BODY_BYTES, Arc::clone(&oversized));
        let relay = ProgressRelay::with(&setup);
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(stdout, pipes.stdin);
        let served = tokio::time::timeout(timeout, negotiate::serve(relay, transport, lifecycle)).await;
        // On an error `process` is dropped here, which kills the server.
        let mut endpoint = McpEndpoint::finish_connect(served, label, timeout, Some(tail), &setup).await?;
        endpoint.process = Some(process);
        endpoint.oversized = Some(oversized);
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
        McpEndpoint::connect_http_with(url, headers, timeout, asks::ClientSetup::default()).await
    }

    /// [`McpEndpoint::connect_http_with_timeout`] with a [`asks::ClientSetup`]. Without a pinned
    /// revision, a server that refuses `server/discover` other than the way the spec asks (an
    /// HTTP error) is met again with `initialize`.
    pub async fn connect_http_with(
        url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
        setup: asks::ClientSetup,
    ) -> Result<McpEndpoint, InvokeError> {
        let lifecycle = setup.lifecycle().map_err(InvokeError::Setup)?;
        let label = url.to_string();
        let mut custom = HashMap::new();
        for (name, value) in headers {
            let bad = |what: &str| InvokeError::Setup(format!("the header {name:?} has an invalid {what}"));
            let header_name =
                reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()).map_err(|_| bad("name"))?;
            let header_value = reqwest::header::HeaderValue::from_str(value.trim()).map_err(|_| bad("value"))?;
            custom.insert(header_name, header_value);
        }
        let transport = || {
            let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom.clone());
            StreamableHttpClientTransport::from_config(config)
        };
        let relay = ProgressRelay::with(&setup);
        let auto = matches!(lifecycle, rmcp::service::ClientLifecycleMode::Auto { .. });
        let served = tokio::time::timeout(timeout, relay.clone().serve_with_lifecycle(transport(), lifecycle)).await;
        let served = match served {
            Ok(Err(_)) if auto => {
                let initialize = rmcp::service::ClientLifecycleMode::Initialize;
                tokio::time::timeout(timeout, relay.serve_with_lifecycle(transport(), initialize)).await
            }
            other => other,
        };
        match McpEndpoint::finish_connect(served, label.clone(), timeout, None, &setup).await {
            Ok(endpoint) => Ok(endpoint),
            // rmcp reports a refused initialize only as a closed connection; ask the server
            // directly whether it wants authorization, to say so instead.
            Err(error) => Err(wants_authorization(url, custom.into_iter().collect(), timeout).await.unwrap_or(error)),
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
        let lifecycle = setup.lifecycle().map_err(InvokeError::Setup)?;
        let (read, write) = tokio::io::split(stream);
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(read, write);
        let served =
            tokio::time::timeout(DEFAULT_TIMEOUT, negotiate::serve(ProgressRelay::with(&setup), transport, lifecycle))
                .await;
        McpEndpoint::finish_connect(served, label.to_string(), DEFAULT_TIMEOUT, None, &setup).await
    }

    async fn finish_connect(
        served: Result<
            Result<RunningService<RoleClient, ProgressRelay>, ClientInitializeError>,
            tokio::time::error::Elapsed,
        >,
        label: String,
        timeout: Duration,
        stderr_tail: Option<Arc<Mutex<Vec<u8>>>>,
        setup: &asks::ClientSetup,
    ) -> Result<McpEndpoint, InvokeError> {
        match served {
            Err(_) => Err(InvokeError::Timeout { url: label }),
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
                    if let Some(text) = tail_text(tail) {
                        reason.push_str(&format!("; its stderr ended with: {text}"));
                    }
                }
                Err(InvokeError::Connect { url: label, reason })
            }
            Ok(Ok(client)) => {
                let agreed = client.peer_info().map(|info| info.protocol_version.clone());
                if let (Ok(Some(pinned)), Some(agreed)) = (setup.pinned(), agreed)
                    && pinned != agreed
                {
                    let _ = client.cancel().await;
                    let reason =
                        format!("the server answered with protocol {agreed} where --protocol asked for {pinned}");
                    return Err(InvokeError::Connect { url: label, reason });
                }
                let max_time = setup.max_time;
                Ok(McpEndpoint { client, label, timeout, stderr_tail, process: None, oversized: None, max_time })
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
                    serde_json::to_value(tool)
                        .map_err(|e| InvokeError::Protocol(format!("{}: cannot re-encode a tool: {e}", self.label)))?,
                );
            }
            match page.next_cursor {
                Some(next) if !next.is_empty() => cursor = Some(next),
                _ => return Ok(json!({ "tools": tools }).to_string()),
            }
        }
        Err(InvokeError::Protocol(format!("{}: tools/list still had a nextCursor after {MAX_PAGES} pages", self.label)))
    }

    fn params(&self, request: &CallRequest) -> Result<CallToolRequestParams, InvokeError> {
        call_params(request)
    }

    /// The request as it would be sent, for `--dry-run` and the exchange view.
    pub fn describe(&self, request: &CallRequest) -> Exchange {
        McpEndpoint::describe_call(&self.label, request)
    }

    /// The `tools/call` request to the server `label` names, as it would be sent.
    pub fn describe_call(label: &str, request: &CallRequest) -> Exchange {
        let body = match call_params(request) {
            Ok(params) => serde_json::to_string_pretty(&params).unwrap_or_default(),
            Err(_) => serde_json::to_string_pretty(&json!({"name": request.tool_id, "arguments": request.arguments}))
                .unwrap_or_default(),
        };
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
        lock(&listeners).push((request.call_id.clone(), Box::new(on_progress)));
        // Whatever happens to the call, its listener goes with it.
        let _forget = Forget { listeners, key: request.call_id.clone() };
        let mut exchange = self.describe(request);
        let started = Instant::now();
        // A task's state goes where its progress would (the newest call's listener).
        let status = move |progress| {
            if let Some((_, listener)) = lock(&listeners_for_status).last() {
                listener(progress);
            }
        };
        let result = self.drive_call(params, request.as_task, &status).await?;
        exchange.duration_ms = started.elapsed().as_millis() as u64;
        let value = serde_json::to_value(&result)
            .map_err(|e| InvokeError::Protocol(format!("{}: cannot re-encode the result: {e}", self.label)))?;
        exchange.response_body = serde_json::to_string_pretty(&value).unwrap_or_default();
        // Taken apart, not copied: a large inline blob is held by the exchange and its item only.
        let mut outcome = read_mcp_owned(value, &request.call_id);
        outcome.duration_ms = exchange.duration_ms;
        outcome.protocol = self.protocol_version();
        for asked in self.client.service().asks.take_asked() {
            outcome.warnings.extend(asked.warning());
            outcome.asked.push(asks::asked_json(&asked));
        }
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
            .map_err(|e| InvokeError::Protocol(format!("{}: cannot re-encode a resource: {e}", self.label)))?;
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

    /// Awaits one request within the timeout, turning rmcp's errors into ours.
    async fn request<T>(
        &self,
        method: &str,
        future: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, InvokeError> {
        match tokio::time::timeout(self.timeout, future).await {
            Err(_) => Err(InvokeError::Timeout { url: self.label.clone() }),
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(self.map_error(method, error)),
        }
    }

    fn map_error(&self, method: &str, error: ServiceError) -> InvokeError {
        let label = &self.label;
        match error {
            ServiceError::McpError(e) => {
                let mut message = format!("{label}: {method} failed with JSON-RPC error {}: {}", e.code.0, e.message);
                if let Some(data) = e.data {
                    message.push_str(&format!(" ({data})"));
                }
                InvokeError::Protocol(message)
            }
            ServiceError::Timeout { .. } => InvokeError::Timeout { url: label.clone() },
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
                if self.oversized.as_ref().is_some_and(|o| o.load(std::sync::atomic::Ordering::Relaxed)) =>
            {
                let limit = super::MAX_BODY_BYTES >> 20;
                let reason = format!("its answer to {method} is larger than {limit} MiB, so the connection was ended");
                InvokeError::Transport { url: label.clone(), reason }
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let mut reason = format!("the server closed the connection during {method} (did it exit or crash?)");
                if let ServiceError::TransportSend(e) = &error {
                    reason.push_str(&format!(": {e}"));
                }
                if let Some(tail) = self.stderr_tail.as_deref().and_then(tail_text) {
                    reason.push_str(&format!("; its stderr ended with: {tail}"));
                }
                InvokeError::Transport { url: label.clone(), reason }
            }
            // rmcp reads results by their type: a result it cannot read (a content block of a type
            // MCP does not define, a field of the wrong type) is no result at all to it.
            ServiceError::UnexpectedResponse => InvokeError::Protocol(format!(
                "{label}: the server's {method} result could not be read (a content block of a type MCP does \
                 not define, or a field of the wrong type?)"
            )),
            other => InvokeError::Protocol(format!("{label}: {method} failed: {other}")),
        }
    }
}

/// The `tools/call` parameters for `request`; MCP arguments must be an object (`null` sends none).
fn call_params(request: &CallRequest) -> Result<CallToolRequestParams, InvokeError> {
    let params = CallToolRequestParams::new(request.tool_id.clone());
    match &request.arguments {
        Value::Null => Ok(params),
        Value::Object(map) => Ok(params.with_arguments(map.clone())),
        other => Err(InvokeError::Protocol(format!(
            "MCP tool arguments must be a JSON object, not {}",
            match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                _ => "a boolean",
            }
        ))),
    }
}

/// The end of what a child wrote to stderr, trimmed and with control characters escaped.
fn tail_text(tail: &Mutex<Vec<u8>>) -> Option<String> {
    let bytes = tail.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let start = text.char_indices().rev().nth(299).map_or(0, |(i, _)| i);
    Some(text[start..].escape_debug().to_string())
}

/// Splits a command line into words the way a POSIX shell would (quotes, backslashes and `#`
/// comments), without expanding anything.
pub fn split_command_line(line: &str) -> Result<Vec<String>, String> {
    shlex::split(line).ok_or_else(|| format!("the command {line:?} has an unclosed quote or ends in a lone backslash"))
}

#[cfg(test)]
mod tests {
    use super::split_command_line;

    #[test]
    fn splits_like_a_shell() {
        let split = |s: &str| split_command_line(s).unwrap();
        assert_eq!(split("  node  server.js --port 3 "), ["node", "server.js", "--port", "3"]);
        assert_eq!(split(r#"sh -c 'exit 3'"#), ["sh", "-c", "exit 3"]);
        assert_eq!(split(r#"a "b \"c\" d" e\ f ''"#), ["a", r#"b "c" d"#, "e f", ""]);
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(split("node s.js # a comment"), ["node", "s.js"]);
        for unbalanced in ["a 'b", "a \"b", "a b\\"] {
            let error = split_command_line(unbalanced).unwrap_err();
            assert!(error.contains("has an unclosed quote"), "{error}");
        }
    }
}

/// `Some` error explaining a 401 (with the server's `WWW-Authenticate`), when that is what `url`
/// answers to an `initialize`.
async fn wants_authorization(url: &str, headers: reqwest::header::HeaderMap, timeout: Duration) -> Option<InvokeError> {
    let client = reqwest::Client::builder().timeout(timeout).default_headers(headers).build().ok()?;
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tooldeck", "version": env!("CARGO_PKG_VERSION")}
    }});
    let response =
        client.post(url).header("accept", "application/json, text/event-stream").json(&initialize).send().await.ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    let challenge = response.headers().get("www-authenticate").and_then(|v| v.to_str().ok()).map(str::to_string);
    Some(InvokeError::Unauthorized { url: url.to_string(), challenge })
}

type Listener = Box<dyn Fn(super::Progress) + Send + Sync>;

/// The client side's handler: passes `notifications/progress` to the call waiting on that token.
/// rmcp puts its own request id in the token, so a report whose token names no call goes to the
/// newest call (the app runs one call per endpoint at a time).
#[derive(Clone, Default)]
pub struct ProgressRelay {
    listeners: Arc<Mutex<Vec<(String, Listener)>>>,
    /// Who answers what the server asks (elicitation, sampling, roots); see [`asks`].
    asks: asks::Asks,
    /// The revision asked for in `initialize` (`--protocol`); the newest otherwise.
    protocol: Option<rmcp::model::ProtocolVersion>,
}

impl ProgressRelay {
    fn with(setup: &asks::ClientSetup) -> ProgressRelay {
        ProgressRelay { asks: setup.asks.clone(), protocol: setup.pinned().ok().flatten(), ..ProgressRelay::default() }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl rmcp::ClientHandler for ProgressRelay {
    /// tooldeck introduces itself by its own name and version (rmcp's default is "rmcp").
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let me = rmcp::model::Implementation::new("tooldeck", env!("CARGO_PKG_VERSION")).with_title("tooldeck");
        let mut config = rmcp::model::ClientConfig::new(asks::Asks::capabilities(), me);
        if let Some(version) = &self.protocol {
            config.protocol_version = version.clone();
        }
        config
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.asks.elicit(request).await
    }

    #[allow(deprecated)] // sampling: see asks.rs
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        self.asks.sample(params).await
    }

    #[allow(deprecated)] // roots: see asks.rs
    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(self.asks.list_roots())
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let key = match &params.progress_token.0 {
            NumberOrString::String(s) => s.to_string(),
            NumberOrString::Number(n) => n.to_string(),
        };
        let listeners = lock(&self.listeners);
        let listener = listeners.iter().find(|(k, _)| *k == key).or_else(|| listeners.last());
        if let Some((_, listener)) = listener {
            listener(super::Progress { progress: params.progress, total: params.total, message: params.message });
        }
    }
}

/// Removes a call's progress listener when the call ends (or is dropped).
struct Forget {
    listeners: Arc<Mutex<Vec<(String, Listener)>>>,
    key: String,
}

impl Drop for Forget {
    fn drop(&mut self) {
        lock(&self.listeners).retain(|(k, _)| *k != self.key);
    }
}
