//! The app's side of the conversation: every JSON-RPC message the view posts (relayed by the
//! host page) answered here, through tooldeck's MCP session, and said as an [`AppEvent`]. What
//! goes to the view (the tool's input and result) waits in an outbox the host page drains.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use super::AppEvent;
use crate::catalog::Tool;
use crate::catalog::app_ui::{UI_SCHEME, app_may_call};
use crate::invoke::Endpoint;
use crate::sync::lock;
use crate::tasks::OwnedTasks;

/// Messages a second the view may send; past it they are dropped and counted.
pub const MAX_PER_SECOND: u64 = 100;
/// Messages waiting for the view; past it the oldest go.
const MAX_OUTBOX: usize = 64;
/// The spec's revision of the app protocol this host speaks.
pub const PROTOCOL: &str = "2026-01-26";
/// The id of the host's one `ui/resource-teardown` request.
const TEARDOWN_ID: &str = "tooldeck-teardown";

/// What the bridge needs to answer: the session, the app's tool and its call, the server's tools.
pub struct BridgeSetup {
    pub endpoint: Arc<Endpoint>,
    pub tool: Tool,
    /// The server's tools, for `tools/call`'s visibility check.
    pub tools: Vec<Tool>,
    pub input: Value,
    pub result: Value,
    pub host_context: Value,
    /// How long a loaded view may take to send `ui/initialize`.
    pub init_wait: Duration,
}

pub struct Bridge {
    setup: BridgeSetup,
    events: mpsc::Sender<AppEvent>,
    outbox: Mutex<VecDeque<Value>>,
    ready: Notify,
    initialized: AtomicBool,
    /// The view answered `ui/resource-teardown`.
    torn_down: Notify,
    /// The host page has asked for messages at least once (it is open somewhere).
    page_seen: AtomicBool,
    /// The app has ended: the page's poll is answered at once, and nothing more is queued.
    closed: AtomicBool,
    /// The tool's last input and result (the first call's, then each later one's): what a view
    /// that (re)starts its handshake gets.
    latest: Mutex<(Value, Value)>,
    /// The view's messages in the current second, and those dropped.
    rate: Mutex<Rate>,
    last_size: Mutex<(u64, u64)>,
    /// Its timers: stopped when the app ends (or the bridge goes).
    tasks: OwnedTasks,
}

/// The view's messages counted by the second: past [`MAX_PER_SECOND`] they are dropped.
#[derive(Debug)]
struct Rate {
    /// When the current second started.
    start: Instant,
    /// Messages in it, dropped or not.
    count: u64,
    /// Messages dropped in it.
    dropped: u64,
}

impl Rate {
    fn new(now: Instant) -> Rate {
        Rate { start: now, count: 0, dropped: 0 }
    }

    /// Starts a new second at `now` if the current one has ended: how many were dropped in the
    /// one that ended, when any were (to be said once).
    fn roll(&mut self, now: Instant) -> Option<u64> {
        if now.duration_since(self.start) < Duration::from_secs(1) {
            return None;
        }
        let dropped = self.dropped;
        *self = Rate::new(now);
        (dropped > 0).then_some(dropped)
    }

    /// Counts one message in the current second: true when it is over the rate (dropped).
    fn count(&mut self) -> bool {
        self.count += 1;
        let over = self.count > MAX_PER_SECOND;
        if over {
            self.dropped += 1;
        }
        over
    }
}

/// A JSON-RPC error answer.
fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn answer(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

impl Bridge {
    pub fn new(setup: BridgeSetup, events: mpsc::Sender<AppEvent>) -> Arc<Bridge> {
        let latest = Mutex::new((setup.input.clone(), setup.result.clone()));
        Arc::new(Bridge {
            latest,
            torn_down: Notify::new(),
            closed: AtomicBool::new(false),
            page_seen: AtomicBool::new(false),
            setup,
            events,
            outbox: Mutex::new(VecDeque::new()),
            ready: Notify::new(),
            initialized: AtomicBool::new(false),
            rate: Mutex::new(Rate::new(Instant::now())),
            last_size: Mutex::new((0, 0)),
            tasks: OwnedTasks::default(),
        })
    }

    /// Says `event`; a reader that has fallen far behind loses it rather than holding the app up.
    pub fn say(&self, event: AppEvent) {
        let _ = self.events.try_send(event);
    }

    /// Queues `message` for the view (nothing, once the app has ended).
    pub fn send(&self, message: Value) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        let mut outbox = lock(&self.outbox);
        if outbox.len() >= MAX_OUTBOX {
            outbox.pop_front();
        }
        outbox.push_back(message);
        drop(outbox);
        self.ready.notify_one();
    }

    /// What waits for the view, waiting up to `wait` for something.
    pub async fn next(&self, wait: Duration) -> Vec<Value> {
        self.page_seen.store(true, Ordering::SeqCst);
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let waiting: Vec<Value> = lock(&self.outbox).drain(..).collect();
            if !waiting.is_empty() || self.closed.load(Ordering::SeqCst) {
                return waiting;
            }
            if tokio::time::timeout_at(deadline, self.ready.notified()).await.is_err() {
                return Vec::new();
            }
        }
    }

    /// The tool's input and result, to the view.
    fn tool_called(&self, input: Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input", "params": {"arguments": input}}));
        self.send(json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": result}));
    }

    /// The app's tool is being called again elsewhere (the TUI's form): its arguments, before
    /// the answer comes. A view that has not finished its handshake gets them with it.
    pub fn tool_input(&self, input: Value) {
        lock(&self.latest).0 = input.clone();
        if self.initialized.load(Ordering::SeqCst) {
            self.send(
                json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input", "params": {"arguments": input}}),
            );
        }
    }

    /// The answer to that call, as the server sent it (a `CallToolResult`).
    pub fn tool_result(&self, result: Value) {
        lock(&self.latest).1 = result.clone();
        if self.initialized.load(Ordering::SeqCst) {
            self.send(json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": result}));
        }
    }

    /// Ends the app as the spec says: `ui/resource-teardown` to a view that started, answered
    /// within `wait` (or not), then the host page told the app ended and `why`, and given up to
    /// `wait` to hear it. Whether the view answered.
    pub async fn teardown(&self, why: &str, wait: Duration) -> bool {
        let mut answered = false;
        if self.initialized.load(Ordering::SeqCst) {
            self.send(json!({"jsonrpc": "2.0", "id": TEARDOWN_ID, "method": "ui/resource-teardown", "params": {}}));
            answered = tokio::time::timeout(wait, self.torn_down.notified()).await.is_ok();
        }
        self.send(json!({"jsonrpc": "2.0", "method": "tooldeck/ended", "params": {"why": why}}));
        self.closed.store(true, Ordering::SeqCst);
        // Nothing more is said of an app that ended: its timers go.
        self.tasks.stop();
        // A page that never asked is not waited for (no browser opened it).
        let deadline = tokio::time::Instant::now() + wait;
        while self.page_seen.load(Ordering::SeqCst)
            && !lock(&self.outbox).is_empty()
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        answered
    }

    /// True when this message is over the rate. The drops of a second are said when it ends:
    /// its first drop sets a timer for that, so a view that floods and then goes quiet still
    /// has its drops said (a message after the second ended says them too, whichever is first).
    fn over_rate(self: &Arc<Self>) -> bool {
        let mut rate = lock(&self.rate);
        if let Some(dropped) = rate.roll(Instant::now()) {
            self.say(AppEvent::Flood { dropped });
        }
        let over = rate.count();
        if over && rate.dropped == 1 {
            let ends = rate.start + Duration::from_secs(1);
            let bridge = Arc::downgrade(self);
            self.tasks.spawn(async move {
                tokio::time::sleep_until(ends).await;
                let Some(bridge) = bridge.upgrade() else { return };
                let ended = lock(&bridge.rate).roll(Instant::now());
                if let Some(dropped) = ended {
                    bridge.say(AppEvent::Flood { dropped });
                }
            });
        }
        over
    }

    /// Answers one message from the view (none for a notification or a response).
    pub async fn handle(self: &Arc<Self>, message: Value) -> Option<Value> {
        // The host page's own notes (the view loaded, how many it dropped) are not the view's
        // messages: a flood must not hide them.
        let from_page = message.get("method").and_then(Value::as_str).is_some_and(|m| m.starts_with("tooldeck/"));
        if !from_page && self.over_rate() {
            let id = message.get("id").filter(|_| message.get("method").is_some())?;
            return Some(error(id, -32000, "too many messages: the host drops them"));
        }
        let Some(method) = message.get("method").and_then(Value::as_str).filter(|m| m.len() <= 128) else {
            if message.get("id").and_then(Value::as_str) == Some(TEARDOWN_ID) {
                self.torn_down.notify_one();
            } else if message.get("result").is_none() && message.get("error").is_none() {
                self.say(AppEvent::Malformed { why: "a message that is neither a request nor an answer".into() });
            }
            return None;
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match message.get("id").cloned() {
            Some(id) => Some(match self.request(method, &params).await {
                Ok(result) => answer(&id, result),
                Err((code, why)) => error(&id, code, &why),
            }),
            None => {
                self.notification(method, &params);
                None
            }
        }
    }

    async fn request(self: &Arc<Self>, method: &str, params: &Value) -> Result<Value, (i64, String)> {
        match method {
            "ui/initialize" => Ok(self.initialize(params)),
            "tools/call" => self.call_tool(params).await,
            "resources/read" => self.read_resource(params).await,
            "ui/open-link" => self.open_link(params),
            "ui/message" => {
                self.say(AppEvent::Message { text: content_text(params.get("content")) });
                Ok(json!({}))
            }
            "ui/update-model-context" => {
                let mut text = content_text(params.get("content"));
                if let Some(structured) = params.get("structuredContent") {
                    text = format!("{text} {}", crate::json_out::to_line(structured).unwrap_or_default());
                }
                self.say(AppEvent::ModelContext { text: text.trim().to_string() });
                Ok(json!({}))
            }
            "ui/request-display-mode" => {
                let mode = params.get("mode").and_then(Value::as_str).unwrap_or_default().to_string();
                self.say(AppEvent::DisplayMode { mode });
                Ok(json!({"mode": "inline"}))
            }
            "ping" => Ok(json!({})),
            _ => {
                self.say(AppEvent::Unknown { method: method.to_string() });
                Err((-32601, format!("{method} is not supported by this host")))
            }
        }
    }

    fn notification(self: &Arc<Self>, method: &str, params: &Value) {
        match method {
            "ui/notifications/initialized" => {
                let (input, result) = lock(&self.latest).clone();
                self.tool_called(input, result);
            }
            "notifications/message" => {
                let level = params.get("level").and_then(Value::as_str).unwrap_or("info").to_string();
                let text = match params.get("data") {
                    Some(Value::String(text)) => text.clone(),
                    Some(data) => crate::json_out::to_line(data).unwrap_or_default(),
                    None => String::new(),
                };
                self.say(AppEvent::Log { level, text });
            }
            "ui/notifications/size-changed" => {
                let dimension = |key: &str| params.get(key).and_then(Value::as_f64).map_or(0, |v| v.max(0.0) as u64);
                let size = (dimension("width"), dimension("height"));
                if std::mem::replace(&mut *lock(&self.last_size), size) != size {
                    self.say(AppEvent::Size { width: size.0, height: size.1 });
                }
            }
            // The host page's own: the view's frame loaded, so the handshake should follow.
            "tooldeck/loaded" => self.watch_initialize(),
            "tooldeck/dropped" => {
                let dropped = params.get("count").and_then(Value::as_u64).unwrap_or(0);
                self.say(AppEvent::Flood { dropped });
            }
            _ => {}
        }
    }

    fn initialize(&self, params: &Value) -> Value {
        self.initialized.store(true, Ordering::SeqCst);
        let info = params.get("appInfo").or_else(|| params.get("clientInfo"));
        let name = info.and_then(|i| i.get("name")).and_then(Value::as_str).unwrap_or("unnamed app");
        let version = info.and_then(|i| i.get("version")).and_then(Value::as_str).unwrap_or("");
        self.say(AppEvent::Initialized { app: format!("{name} {version}").trim().to_string() });
        json!({
            "protocolVersion": PROTOCOL,
            "hostInfo": {"name": "tooldeck", "version": env!("CARGO_PKG_VERSION")},
            "hostCapabilities": {
                "openLinks": {},
                "serverTools": {},
                "serverResources": {},
                "logging": {},
                "message": {"text": {}},
                "updateModelContext": {"text": {}, "structuredContent": {}},
            },
            "hostContext": self.setup.host_context,
        })
    }

    /// After the view loaded: a line if it has not started the handshake in time.
    fn watch_initialize(self: &Arc<Self>) {
        let bridge = Arc::downgrade(self);
        let wait = self.setup.init_wait;
        self.tasks.spawn(async move {
            tokio::time::sleep(wait).await;
            let Some(bridge) = bridge.upgrade() else { return };
            if !bridge.initialized.load(Ordering::SeqCst) {
                bridge.say(AppEvent::NoInitialize { seconds: bridge.setup.init_wait.as_secs() });
            }
        });
    }

    async fn call_tool(&self, params: &Value) -> Result<Value, (i64, String)> {
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        let tool = self.setup.tools.iter().find(|t| t.name == name);
        let why = match tool {
            None => Some("the server lists no such tool".to_string()),
            Some(tool) if !app_may_call(tool.written.app.as_ref()) => {
                Some("its visibility does not include \"app\"".to_string())
            }
            Some(_) => None,
        };
        if let Some(why) = why {
            self.say(AppEvent::ToolRefused { name: name.clone(), why: why.clone() });
            return Err((-32602, format!("{name}: {why}")));
        }
        let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        // Through the session's own client: the traffic pane shows it as the app's.
        let _mark = self.setup.endpoint.traffic().map(|t| t.expect_app("tools/call", &name));
        let (result, ok) = super::load::call(&self.setup.endpoint, &name, arguments).await;
        self.say(AppEvent::ToolCalled { name, ok });
        Ok(result)
    }

    async fn read_resource(&self, params: &Value) -> Result<Value, (i64, String)> {
        let uri = params.get("uri").and_then(Value::as_str).unwrap_or_default().to_string();
        if !uri.starts_with(UI_SCHEME) {
            self.say(AppEvent::ResourceRefused { uri: uri.clone() });
            return Err((-32602, format!("{uri}: apps may read ui:// resources only")));
        }
        let _mark = self.setup.endpoint.traffic().map(|t| t.expect_app("resources/read", &uri));
        let read = self.setup.endpoint.read(&uri).await.map_err(|e| (-32603, e.to_string()))?;
        self.say(AppEvent::ResourceRead { uri });
        let contents: Vec<Value> = read.contents.iter().map(content_json).collect();
        Ok(json!({"contents": contents}))
    }

    fn open_link(&self, params: &Value) -> Result<Value, (i64, String)> {
        let url = params.get("url").and_then(Value::as_str).unwrap_or_default().to_string();
        if may_open(&url) {
            self.say(AppEvent::OpenLink { url });
            Ok(json!({}))
        } else {
            self.say(AppEvent::LinkRefused { url });
            Err((-32602, "only http, https and mailto links may be opened".into()))
        }
    }
}

/// An http(s) link with a host, or a mailto: address; never `javascript:`, `file:` or the rest.
pub fn may_open(url: &str) -> bool {
    let url = url.trim();
    crate::invoke::http::is_web_link(url)
        || url.get(..7).is_some_and(|s| s.eq_ignore_ascii_case("mailto:"))
            && url.len() > 7
            && !url.chars().any(char::is_control)
}

/// The text blocks of a message's `content` (an array of blocks, or one block), joined.
fn content_text(content: Option<&Value>) -> String {
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(blocks)) => blocks.iter().take(32).collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    };
    let texts: Vec<&str> = blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
    if texts.is_empty() && !blocks.is_empty() { "(no text)".to_string() } else { texts.join(" ") }
}

/// One read content as the protocol gives it (its `_meta` kept: the view may read its own).
fn content_json(content: &crate::invoke::mcp::content::Embedded) -> Value {
    let mut value = serde_json::to_value(content).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.remove("size");
        if let Some(meta) = &content.meta {
            object.insert("_meta".into(), meta.clone());
        }
    }
    value
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
