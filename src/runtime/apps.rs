//! The app's MCP App host (`ServerEffect::HostApp`): started as `tooldeck app` starts it, over the
//! tool's session, opened in the browser through the one gate. Each thing the app does comes
//! back to the app as `ServerMsg::App` (a status line, a line in the server pane, a link to
//! confirm); its `tools/call` and `resources/read` go through the session's own client, so the
//! traffic pane shows them. Each later call of the tool made in the TUI reaches the view
//! (`ui/notifications/tool-input` and `tool-result`).
//!
//! One app at a time. It ends (`ui/resource-teardown` to the view, the host page told, both
//! loopback servers stopped) on `TaskEffect::EndApp` (the selection left its tool, its server went
//! away), when another app is hosted, and when tooldeck leaves (`AppHosting::close`); a
//! session's scope or tooldeck's root being cancelled drops it where it stands, which stops
//! the servers too.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::sessions::SessionHandle;
use crate::app::{Msg, ServerMsg};
use crate::apps::bridge::Bridge;
use crate::apps::{AppEvent, HostStyle, Options};
use crate::catalog::{SessionId, Tool};

/// How long a loaded app may take to send `ui/initialize` before a line says so.
const INIT_WAIT: Duration = Duration::from_secs(10);
/// How long the view has to answer `ui/resource-teardown`, and the page to hear it ended.
const TEARDOWN_WAIT: Duration = Duration::from_millis(1500);
/// How long leaving tooldeck waits for the app to end before it goes anyway.
const CLOSE_WAIT: Duration = Duration::from_secs(4);

/// The bridge of the app being hosted, once it has started.
pub(super) type BridgeSlot = Arc<OnceLock<Arc<Bridge>>>;

/// The MCP App being hosted, if one is (at most one at a time), and the look it is given.
pub(super) struct AppHosting {
    hosting: Option<Hosting>,
    /// The theme's look, for the hosted app's host context.
    style: HostStyle,
}

/// The app being hosted. Dropping it (or sending on `end`) ends it gracefully: the task tears
/// the view down and stops the servers itself.
struct Hosting {
    session: SessionId,
    /// The tool's name on the wire: the TUI's calls of it reach the view.
    tool: String,
    bridge: BridgeSlot,
    /// Why it ends, and whether to say so when it has; dropped unsent, tooldeck is leaving.
    end: Option<oneshot::Sender<(String, bool)>>,
    task: tokio::task::JoinHandle<()>,
}

impl Hosting {
    /// Asks the app to end for `why` (`say`: with a last `AppEvent::Ended`); the task that
    /// hosts it finishes on its own.
    fn end(mut self, why: &str, say: bool) -> tokio::task::JoinHandle<()> {
        if let Some(end) = self.end.take() {
            let _ = end.send((why.to_string(), say));
        }
        self.task
    }
}

/// What the hosting task needs.
struct Setup {
    endpoint: super::Connection,
    label: String,
    tool: Tool,
    arguments: Value,
    style: HostStyle,
    bridge: BridgeSlot,
    end: oneshot::Receiver<(String, bool)>,
    done: mpsc::Sender<Msg>,
}

impl AppHosting {
    /// No app hosted yet; each will be given `style`.
    pub(super) fn new(style: HostStyle) -> AppHosting {
        AppHosting { hosting: None, style }
    }

    /// Hosts `tool`'s app over session `s`, ending the one hosted before.
    pub(super) fn host(&mut self, s: &SessionHandle, tool: Tool, arguments: Value) {
        // The app the person leaves is not news: the new one's lines follow.
        if let Some(hosting) = self.hosting.take() {
            drop(hosting.end("another app was opened", false));
        }
        let (end_tx, end) = oneshot::channel();
        let bridge = BridgeSlot::default();
        let wire = tool.wire_id().to_string();
        let setup = Setup {
            endpoint: s.endpoint.clone(),
            label: s.label.clone(),
            tool,
            arguments,
            style: self.style.clone(),
            bridge: Arc::clone(&bridge),
            end,
            done: s.done.clone(),
        };
        let task = s.spawn(host(setup));
        self.hosting = Some(Hosting { session: s.id, tool: wire, bridge, end: Some(end_tx), task });
    }

    /// Ends the app being hosted, if one is (`TaskEffect::EndApp`); it says when it has ended.
    pub(super) fn end(&mut self, why: &str) {
        if let Some(hosting) = self.hosting.take() {
            drop(hosting.end(why, true));
        }
    }

    /// Leaving tooldeck (`Effects` dropped, on every way out of the event loop, after the
    /// terminal is restored): the app is torn down and its servers stopped before the tasks
    /// are cancelled, the leaving thread waiting at most [`CLOSE_WAIT`]. Not while panicking,
    /// nor outside a multi-threaded runtime: then the servers stop as the tasks are dropped.
    pub(super) fn close(&mut self) {
        let Some(hosting) = self.hosting.take() else { return };
        let task = hosting.end("tooldeck was closed", false);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        if std::thread::panicking() || runtime.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
            return;
        }
        tokio::task::block_in_place(|| {
            runtime.block_on(async {
                let _ = tokio::time::timeout(CLOSE_WAIT, task).await;
            })
        });
    }

    /// The bridge a call of `tool` in `session` should be told of: the hosted app's, when it
    /// is that tool's.
    pub(super) fn app_of(&self, session: SessionId, tool: &str) -> Option<BridgeSlot> {
        let hosting = self.hosting.as_ref().filter(|h| h.session == session && h.tool == tool)?;
        Some(Arc::clone(&hosting.bridge))
    }
}

/// Hosts the app until it is asked to end, then tears it down.
async fn host(setup: Setup) {
    let Setup { endpoint, label, tool, arguments, style, bridge, mut end, done } = setup;
    let say = |event: AppEvent| {
        let done = done.clone();
        async move {
            let _ = done.send(Msg::Server(ServerMsg::App(event))).await;
        }
    };
    let started = async {
        let endpoint = endpoint.await.map_err(|e| e.to_string())?;
        let options = crate::invoke::endpoint::to_call();
        let (tools, _) =
            crate::invoke::endpoint::list_catalog(&endpoint, &label, &options).await.map_err(|e| e.to_string())?;
        let options = Options { init_wait: INIT_WAIT, style };
        crate::apps::start(endpoint, tools, &tool, arguments, &options).await.map_err(|e| e.to_string())
    };
    let started = match started.await {
        Ok(started) => started,
        Err(why) => return say(AppEvent::Ended { why: format!("it cannot start: {why}") }).await,
    };
    let crate::apps::Started { hosted, mut events, notes, bridge: started_bridge } = started;
    let _ = bridge.set(Arc::clone(&started_bridge));
    for text in notes {
        say(AppEvent::Note { text }).await;
    }
    say(AppEvent::Note { text: open(&hosted.url).await }).await;
    let (why, said) = loop {
        tokio::select! {
            ending = &mut end => break ending.unwrap_or_else(|_| ("tooldeck was closed".into(), false)),
            event = events.recv() => match event {
                Some(event) => say(event).await,
                None => break ("the app's events stopped".into(), true),
            },
        }
    };
    started_bridge.teardown(&why, TEARDOWN_WAIT).await;
    hosted.shutdown().await;
    if said {
        // Not waited for: nobody may be reading any more.
        let _ = done.try_send(Msg::Server(ServerMsg::App(AppEvent::Ended { why })));
    }
}

/// Opens the host page through the one gate; what to say of it.
async fn open(url: &str) -> String {
    let link = url.to_string();
    let opened = tokio::task::spawn_blocking(move || crate::invoke::browser::open(&link)).await;
    match opened {
        Ok(Ok(())) => format!("host page {url} (opened in the browser)"),
        Ok(Err(e)) => format!("host page {url}: {e}"),
        Err(e) => format!("host page {url}: {e}"),
    }
}

/// A call of the hosted app's tool made in the TUI, told to its view: the arguments now, the
/// answer when it comes (`result`, as `ui/notifications/tool-result` carries it).
pub(super) struct ToldApp(Option<BridgeSlot>);

impl ToldApp {
    pub(super) fn new(slot: Option<BridgeSlot>, arguments: &Value) -> ToldApp {
        if let Some(bridge) = slot.as_ref().and_then(|s| s.get()) {
            bridge.tool_input(arguments.clone());
        }
        ToldApp(slot)
    }

    pub(super) fn answered(
        &self,
        called: &Result<(crate::invoke::Outcome, crate::invoke::Exchange), crate::invoke::InvokeError>,
    ) {
        if let Some(bridge) = self.0.as_ref().and_then(|s| s.get()) {
            bridge.tool_result(crate::apps::load::result_of(called));
        }
    }
}
