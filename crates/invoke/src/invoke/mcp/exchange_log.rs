//! The real exchange: every JSON-RPC message that goes to and comes from an MCP server, recorded
//! by wrapping rmcp's transport ([`LoggedTransport`]), so the exchange view shows what was sent and received
//! (ids, methods, params, results or errors, notifications that came during a call) rather than
//! what tooldeck meant to send. Server notifications are also turned into [`ServerEvent`]s here.
//! The record is bounded: the last [`MAX_MESSAGES`] messages, at most [`MAX_BYTES`] of text.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

use super::events::{EventSink, ServerEvent};
use crate::wire::{Frame, Side};

const MAX_MESSAGES: usize = 256;
const MAX_BYTES: usize = 48 * 1024 * 1024;
const MAX_HTTP: usize = 64;

/// One message as it went over the wire.
#[derive(Debug, Clone)]
pub struct Recorded {
    seq: u64,
    /// Who sent it: `Client` is tooldeck (a request, a notification, an answer to the server's
    /// request).
    pub from: Side,
    /// The JSON-RPC id, as JSON text (`7`, `"a"`), when it has one.
    pub id: Option<String>,
    pub method: Option<String>,
    /// `params.name` (a `tools/call`'s tool): how a call finds its own request.
    name: Option<String>,
    /// The message, pretty-printed.
    pub text: Arc<str>,
}

/// What one HTTP POST carried besides its JSON-RPC message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HttpRecord {
    /// The JSON-RPC id of the message posted.
    pub id: Option<String>,
    pub url: String,
    pub request_headers: Vec<(String, String)>,
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
}

#[derive(Default)]
struct WireLog {
    messages: VecDeque<Recorded>,
    bytes: usize,
    next_seq: u64,
    /// The server's questions (elicitation, sampling) received so far, counted in the order they
    /// came, whatever the log kept: rmcp answers each in a task of its own, so a call's answer
    /// can be read before every question that came ahead of it was taken up.
    questions: usize,
    http: VecDeque<HttpRecord>,
    /// The last `Mcp-Session-Id` and `MCP-Protocol-Version` the client sent.
    session_id: Option<String>,
    protocol_header: Option<String>,
    /// Why the server no longer knows the session, once it said so.
    lost: Option<String>,
    /// Why an answer will never come (its stream was cut at the size cap), for the request
    /// waiting on it.
    failure: Option<String>,
    /// The last 401 or 403 and its `WWW-Authenticate`, for the endpoint to sign in and retry.
    challenge: Option<(u16, Option<String>)>,
    /// The ids of the latest results that came without `content` (see `raw.rs`).
    no_content: VecDeque<String>,
}

/// The record of one connection's messages; cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Wire(Arc<Mutex<WireLog>>, Arc<tokio::sync::Notify>);

/// The messages of one `tools/call`, as the exchange view shows them.
#[derive(Debug, Clone, Default)]
pub struct CallWire {
    /// The request's JSON-RPC id, as JSON text.
    pub request_id: Option<String>,
    pub request: String,
    pub response: Option<String>,
    /// Notifications and requests from the server between the request and its answer.
    pub during: Vec<String>,
    pub http: Option<HttpRecord>,
}

impl CallWire {
    /// Puts what went over the wire into `exchange`: the JSON-RPC request and answer as sent and
    /// received, what came between, and on HTTP the status line and headers.
    pub fn fill(&self, exchange: &mut crate::invoke::Exchange) {
        exchange.request_body = self.request.clone();
        if let Some(response) = &self.response {
            exchange.response_body = response.clone();
        }
        exchange.during = self.during.clone();
        if let Some(http) = &self.http {
            exchange.method = "POST".into();
            exchange.url = http.url.clone();
            exchange.request_headers = http.request_headers.clone();
            exchange.status = http.status;
            exchange.response_headers = http.response_headers.clone();
        } else {
            exchange.method = "JSON-RPC".into();
        }
    }
}

impl Wire {
    fn lock(&self) -> std::sync::MutexGuard<'_, WireLog> {
        crate::sync::lock(&self.0)
    }

    /// Records `value` (a whole JSON-RPC message); its text is given back to share.
    pub fn record(&self, from: Side, value: &Value) -> Arc<str> {
        let text: Arc<str> = serde_json::to_string_pretty(value).unwrap_or_default().into();
        let id = value.get("id").filter(|id| !id.is_null()).map(Value::to_string);
        let method = value.get("method").and_then(Value::as_str).map(str::to_string);
        let name = value.pointer("/params/name").and_then(Value::as_str).map(str::to_string);
        let question = from == Side::Server
            && id.is_some()
            && matches!(method.as_deref(), Some("elicitation/create" | "sampling/createMessage"));
        let mut log = self.lock();
        let seq = log.next_seq;
        log.next_seq += 1;
        log.questions += usize::from(question);
        log.bytes += text.len();
        log.messages.push_back(Recorded { seq, from, id, method, name, text: Arc::clone(&text) });
        while log.messages.len() > MAX_MESSAGES || (log.bytes > MAX_BYTES && log.messages.len() > 1) {
            if let Some(old) = log.messages.pop_front() {
                log.bytes -= old.text.len();
            }
        }
        text
    }

    /// Records a message from the server that is not valid JSON, as it came (its secrets
    /// masked): it answers request `id` when that could be read.
    pub fn record_raw(&self, id: Option<String>, text: Arc<str>) {
        let mut log = self.lock();
        let seq = log.next_seq;
        log.next_seq += 1;
        log.bytes += text.len();
        log.messages.push_back(Recorded { seq, from: Side::Server, id, method: None, name: None, text });
        while log.messages.len() > MAX_MESSAGES || (log.bytes > MAX_BYTES && log.messages.len() > 1) {
            if let Some(old) = log.messages.pop_front() {
                log.bytes -= old.text.len();
            }
        }
    }

    /// The result answering request `id` came without `content`.
    pub fn note_no_content(&self, id: String) {
        let mut log = self.lock();
        if log.no_content.len() == MAX_HTTP {
            log.no_content.pop_front();
        }
        log.no_content.push_back(id);
    }

    /// True when the result answering request `id` came without `content`.
    pub fn had_no_content(&self, id: &str) -> bool {
        self.lock().no_content.iter().any(|noted| noted == id)
    }

    pub fn record_http(&self, record: HttpRecord) {
        let mut log = self.lock();
        let header = |name: &str| {
            record.request_headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
        };
        if let Some(session) = header("mcp-session-id") {
            log.session_id = Some(session);
        }
        if let Some(version) = header("mcp-protocol-version") {
            log.protocol_header = Some(version);
        }
        let answered_session = record
            .response_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id"))
            .map(|(_, v)| v.clone());
        if answered_session.is_some() {
            log.session_id = answered_session;
        }
        if log.http.len() == MAX_HTTP {
            log.http.pop_front();
        }
        log.http.push_back(record);
    }

    /// An answer will never come (`why`): the request waiting for one fails now.
    pub fn fail(&self, why: String) {
        self.lock().failure = Some(why);
        self.1.notify_waiters();
    }

    /// True when a failure is waiting to be taken.
    pub fn failing(&self) -> bool {
        self.lock().failure.is_some()
    }

    /// Forgets a failure no request was waiting for.
    pub fn clear_failure(&self) {
        self.lock().failure = None;
    }

    /// Why an answer will never come, when the transport has said so already.
    pub fn take_failure(&self) -> Option<String> {
        self.lock().failure.take()
    }

    /// Why an answer will never come, once the transport says so.
    pub async fn failure(&self) -> String {
        loop {
            let notified = self.1.notified();
            if let Some(why) = self.lock().failure.take() {
                return why;
            }
            notified.await;
        }
    }

    /// The server refused a request with `status` (401 or 403) and this challenge.
    pub fn challenged(&self, status: u16, challenge: Option<String>) {
        self.lock().challenge = Some((status, challenge));
    }

    /// The refusal since the last look, if any.
    pub fn take_challenge(&self) -> Option<(u16, Option<String>)> {
        self.lock().challenge.take()
    }

    /// The server said it no longer knows the session (`why`: its status and words).
    pub fn session_lost(&self, why: String) {
        self.lock().lost = Some(why);
    }

    pub fn lost(&self) -> Option<String> {
        self.lock().lost.clone()
    }

    /// The HTTP session id the server gave, when there is one.
    pub fn session_id(&self) -> Option<String> {
        self.lock().session_id.clone()
    }

    /// The `MCP-Protocol-Version` header the client sends, when it sends one.
    pub fn protocol_header(&self) -> Option<String> {
        self.lock().protocol_header.clone()
    }

    /// Where the record is now: a call made after this finds its request from here (rmcp
    /// chooses the JSON-RPC id, and replaces the progress token with it).
    pub fn mark(&self) -> u64 {
        self.lock().next_seq
    }

    /// The server's questions (elicitation, sampling) received so far on this connection.
    pub fn questions(&self) -> usize {
        self.lock().questions
    }

    /// The first `tools/call` of `tool` sent since `mark`, its answer (if it came) and what the
    /// server sent in between.
    pub fn call(&self, mark: u64, tool: &str) -> Option<CallWire> {
        self.exchange(mark, "tools/call", Some(tool))
    }

    /// The first request of `method` (named `name`, when given) sent since `mark`, its answer
    /// and what the server sent in between: a `resources/read` or `prompts/get` as the exchange
    /// view shows it.
    pub fn exchange(&self, mark: u64, method: &str, name: Option<&str>) -> Option<CallWire> {
        let log = self.lock();
        let request = log.messages.iter().find(|m| {
            m.seq >= mark
                && m.from == Side::Client
                && m.method.as_deref() == Some(method)
                && name.is_none_or(|name| m.name.as_deref() == Some(name))
        })?;
        let response = log
            .messages
            .iter()
            .find(|m| m.seq > request.seq && m.from == Side::Server && m.method.is_none() && m.id == request.id);
        let end = response.map_or(u64::MAX, |r| r.seq);
        let during = log
            .messages
            .iter()
            .filter(|m| m.seq > request.seq && m.seq < end && m.from == Side::Server && m.method.is_some())
            .map(|m| m.text.to_string())
            .collect();
        let http = log.http.iter().rev().find(|h| h.id.is_some() && h.id == request.id).cloned();
        Some(CallWire {
            request_id: request.id.clone(),
            request: request.text.to_string(),
            response: response.map(|r| r.text.to_string()),
            during,
            http,
        })
    }
}

/// The server's requests whose answers are not yet written to it: a server that sends requests
/// and never reads the answers is cut off past this many, rather than have them pile up (rmcp
/// answers each request in a task of its own, and sends each answer as another).
pub const MAX_UNREAD_BY_SERVER: usize = 1024;

/// rmcp's transport with every message recorded on the way through, and server notifications
/// passed to `events`. When the transport ends, `on_end` says so. A server that does not read
/// what it is sent is cut off ([`MAX_UNREAD_BY_SERVER`]).
pub struct LoggedTransport<T> {
    inner: T,
    wire: Wire,
    events: Option<EventSink>,
    /// The server's requests received and not yet answered in full.
    unanswered: Arc<std::sync::atomic::AtomicUsize>,
    /// Set once the server was cut off: the stream then ends.
    cut: Arc<std::sync::atomic::AtomicBool>,
    /// What to report when the stream ends (`None`: nothing, e.g. a stdio server whose exit is
    /// reported by the process watcher).
    on_end: Option<String>,
}

impl<T> LoggedTransport<T> {
    pub fn new(inner: T, wire: Wire, events: Option<EventSink>, on_end: Option<String>) -> LoggedTransport<T> {
        LoggedTransport { inner, wire, events, on_end, unanswered: Arc::default(), cut: Arc::default() }
    }

    /// The server does not read: what is waiting for it is dropped, the waiting request told why,
    /// and the stream ends at the next message.
    fn cut_off(&self) {
        use std::sync::atomic::Ordering;
        if self.cut.swap(true, Ordering::SeqCst) {
            return;
        }
        let why = format!(
            "the server sent requests without reading the answers (more than {MAX_UNREAD_BY_SERVER} unread), so it \
             was cut off"
        );
        if let Some(events) = &self.events {
            events.push(ServerEvent::Lost(why.clone()));
        }
        self.wire.fail(why);
    }
}

impl<T> Transport<RoleClient> for LoggedTransport<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(&mut self, item: ClientJsonRpcMessage) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        use std::sync::atomic::Ordering;
        let answer = matches!(item, ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_));
        let unanswered = Arc::clone(&self.unanswered);
        // Once the server is cut off, nothing more is queued for it.
        let send = if self.cut.load(Ordering::SeqCst) {
            None
        } else {
            if let Ok(value) = serde_json::to_value(&item) {
                self.wire.record(Side::Client, &value);
                if let Some(events) = &self.events {
                    events.frame(Frame::of_value(Side::Client, value));
                }
            }
            Some(self.inner.send(item))
        };
        async move {
            let sent = match send {
                Some(send) => send.await,
                None => Ok(()),
            };
            if answer {
                let _ = unanswered.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
            }
            sent
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        if self.cut.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let message = self.inner.receive().await;
        if matches!(message, Some(ServerJsonRpcMessage::Request(_)))
            && self.unanswered.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= MAX_UNREAD_BY_SERVER
        {
            self.cut_off();
            return None;
        }
        match &message {
            Some(message) => {
                // An answer tooldeck made for the server (see `raw.rs`) is not recorded as the
                // server's: what the server sent is, already.
                if let Ok(value) = serde_json::to_value(message)
                    && super::raw::read_synthetic(value.pointer("/error/data")).is_none()
                {
                    self.wire.record(Side::Server, &value);
                    if let Some(events) = &self.events {
                        notify(events, &value);
                        events.frame(Frame::of_value(Side::Server, value));
                    }
                }
            }
            None => {
                if let (Some(events), Some(said)) = (&self.events, self.on_end.take()) {
                    events.push(ServerEvent::Lost(said));
                }
            }
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        // Closed by us: not news.
        self.on_end = None;
        self.inner.close()
    }
}

/// The events a server notification makes: log entries, a changed tool list.
fn notify(events: &EventSink, message: &Value) {
    match message.get("method").and_then(Value::as_str) {
        Some("notifications/message") => {
            let params = &message["params"];
            events.push(ServerEvent::Log {
                level: params["level"].as_str().unwrap_or("info").to_string(),
                logger: params["logger"].as_str().map(str::to_string),
                text: super::events::log_text(&params["data"]),
            });
        }
        Some("notifications/tools/list_changed") => events.push(ServerEvent::ToolsChanged),
        Some("notifications/resources/list_changed") => events.push(ServerEvent::ResourcesChanged),
        Some("notifications/prompts/list_changed") => events.push(ServerEvent::PromptsChanged),
        Some("notifications/resources/updated") => {
            let uri = message.pointer("/params/uri").and_then(Value::as_str).unwrap_or_default();
            events.push(ServerEvent::ResourceUpdated { uri: uri.to_string(), at: crate::text::time::time_of_day() });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_finds_its_request_answer_and_what_came_between() {
        let wire = Wire::default();
        let request = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "t", "_meta": {"progressToken": 3}}});
        wire.record(Side::Client, &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}));
        let mark = wire.mark();
        wire.record(Side::Client, &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
        wire.record(Side::Client, &request);
        wire.record(
            Side::Server,
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
        );
        wire.record(Side::Server, &json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}));
        wire.record(Side::Server, &json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}}));
        wire.record(Side::Server, &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}));
        let call = wire.call(mark, "t").unwrap();
        assert!(call.request.contains("\"tools/call\""), "{}", call.request);
        assert!(call.response.unwrap().contains("\"content\""));
        assert_eq!(call.during.len(), 1, "the log after the answer is not the call's");
        assert!(call.during[0].contains("notifications/progress"));
        assert!(call.request.contains("\"id\": 3"), "the call since the mark: {}", call.request);
        assert!(wire.call(mark, "other").is_none());
    }

    #[test]
    fn the_record_is_bounded() {
        let wire = Wire::default();
        for i in 0..MAX_MESSAGES * 2 {
            let _ = wire.record(
                Side::Server,
                &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"i": i}}),
            );
        }
        assert_eq!(wire.lock().messages.len(), MAX_MESSAGES);
    }

    #[test]
    fn notifications_become_events() {
        let events = EventSink::default();
        notify(
            &events,
            &json!({"method": "notifications/message", "params": {"level": "warning", "logger": "db", "data": {"a": 1}}}),
        );
        notify(&events, &json!({"method": "notifications/tools/list_changed"}));
        assert_eq!(
            events.take(),
            [
                ServerEvent::Log { level: "warning".into(), logger: Some("db".into()), text: r#"{"a":1}"#.into() },
                ServerEvent::ToolsChanged
            ]
        );
    }
}
