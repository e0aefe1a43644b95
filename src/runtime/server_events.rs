//! The runtime's side of the server pane: an MCP server's events brought to the app, what it
//! said of itself after each connection, `R` (start it again or open a new session, then list its
//! tools) and `logging/setLevel`.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::sessions::SessionHandle;
use super::{Connection, list_server_tools};
use crate::app::{Msg, ProxyMsg, ServerMsg};
use crate::invoke::Endpoint;
use crate::proxy::live::FeedLine;

/// What an MCP server said of itself, to the server pane.
pub(super) async fn send_info(endpoint: Option<&Arc<Endpoint>>, done: &mpsc::Sender<Msg>) {
    if let Some(endpoint) = endpoint
        && let Some(info) = endpoint.info().await
    {
        let _ = done.send(Msg::Server(ServerMsg::Info(Box::new(info)))).await;
    }
}

/// Brings an MCP server's stderr, log entries, list changes and its end to the app, a batch at
/// a time: the channel's bound holds the server back to the screen's pace, and the sink drops
/// (and counts) what does not fit meanwhile.
pub(super) fn forward_events(session: &SessionHandle) {
    let (endpoint, done) = (session.endpoint.clone(), session.done.clone());
    session.spawn(async move {
        let Ok(endpoint) = endpoint.await else { return };
        let Some(events) = endpoint.events() else { return };
        loop {
            let batch = events.next_batch().await;
            if done.send(Msg::Server(ServerMsg::Events(batch))).await.is_err() {
                return;
            }
        }
    });
}

/// How often the session's traffic is looked at for new messages: often enough that the pane
/// seems live, seldom enough to cost nothing while nothing happens.
const TRAFFIC_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Brings the session's traffic to the app: what it has not seen, a batch at a time. The log
/// is shared with the connection and bounded; the app keeps its own bounded copy.
pub(super) fn forward_traffic(session: &SessionHandle) {
    let (endpoint, done) = (session.endpoint.clone(), session.done.clone());
    let watched = session.watched.clone();
    session.spawn(async move {
        let traffic = match watched {
            Some(traffic) => traffic,
            None => {
                let Ok(endpoint) = endpoint.await else { return };
                let Some(traffic) = endpoint.traffic() else { return };
                traffic
            }
        };
        let mut seen = 0;
        while !done.is_closed() {
            let (entries, _) = traffic.since(seen);
            if let Some(last) = entries.last() {
                seen = last.seq + 1;
                if done.send(Msg::Server(ServerMsg::Traffic(entries))).await.is_err() {
                    return;
                }
            }
            tokio::time::sleep(TRAFFIC_POLL).await;
        }
    });
}

/// `R`: the server started again (or a new session; `restart` false for a connection just
/// made), what it says of itself, its tools.
pub(super) async fn reconnect(endpoint: Connection, done: mpsc::Sender<Msg>, label: String, restart: bool) {
    let reconnected = match endpoint.await {
        Ok(endpoint) if restart => endpoint.reconnect().await.map(|()| endpoint),
        Ok(endpoint) => Ok(endpoint),
        Err(e) => Err(e),
    };
    match reconnected {
        Ok(endpoint) => {
            let _ = done.send(Msg::Server(ServerMsg::Reconnected(Ok(())))).await;
            send_info(Some(&endpoint), &done).await;
            let _ = done.send(list_server_tools(Ok(endpoint), label).await).await;
        }
        Err(e) => {
            let _ = done.send(Msg::Server(ServerMsg::Reconnected(Err(e.into())))).await;
        }
    }
}

/// `logging/setLevel`; only a refusal is news.
pub(super) async fn set_log_level(endpoint: Connection, done: mpsc::Sender<Msg>, level: String) {
    if let Ok(endpoint) = endpoint.await
        && let Err(e) = endpoint.set_log_level(&level).await
    {
        let _ = done.send(Msg::Server(ServerMsg::LogLevelRefused(e.into()))).await;
    }
}

/// `tooldeck attach`: the proxy's feed (or a record file, as it grows) read into the session's
/// watched traffic (which
/// [`forward_traffic`] brings to the pane), held messages marked, on a blocking thread that looks
/// every poll whether the session's scope ended; what the proxy says of breakpoints and holds
/// goes to the app at once, and the proxy ending is said once. The app's control lines
/// (`to_write`) are written to the same connection, in order, by a task of their own.
pub(super) fn follow_feed(
    session: &SessionHandle,
    mut feed: crate::proxy::live::Following,
    to_write: mpsc::UnboundedReceiver<crate::proxy::live::Control>,
) {
    let Some(traffic) = session.watched.clone() else { return };
    let done = session.done.clone();
    let controls = feed.controls();
    let attached = controls.is_some();
    if let Some(controls) = controls {
        session.spawn(write_controls(controls, to_write, done.clone()));
    }
    session.spawn(async move {
        /// Tells the reading thread to stop when this task is cancelled (dropped).
        struct Stop(Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Stop {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        if attached {
            let _ = done.send(proxy(ProxyMsg::Attached)).await;
        }
        let stop = Stop(Arc::default());
        let flag = Arc::clone(&stop.0);
        let to_app = done.clone();
        let mut take = move |line: FeedLine| {
            match line {
                FeedLine::Frame(frame, marks) => traffic.marked_frame(&frame, marks),
                // The app gone: the feed is no longer followed.
                FeedLine::Notice(notice) => {
                    to_app.blocking_send(proxy(ProxyMsg::Notice(notice))).map_err(std::io::Error::other)?
                }
            }
            Ok(())
        };
        let said = feed.ended();
        let ended = tokio::task::spawn_blocking(move || feed.follow(&mut take, &flag)).await;
        if matches!(ended, Ok(true)) {
            if attached {
                let _ = done.send(proxy(ProxyMsg::Ended)).await;
            }
            let _ = done.send(Msg::Status(said.into())).await;
        }
    });
}

fn proxy(msg: ProxyMsg) -> Msg {
    Msg::Server(ServerMsg::Proxy(msg))
}

/// Writes the app's control lines to the proxy, one at a time off the async threads (a proxy
/// that stopped reading fails a write after a short wait); a line not written is said.
async fn write_controls(
    controls: crate::proxy::live::Controls,
    mut to_write: mpsc::UnboundedReceiver<crate::proxy::live::Control>,
    done: mpsc::Sender<Msg>,
) {
    let mut controls = Some(controls);
    while let Some(control) = to_write.recv().await {
        let Some(mut writer) = controls.take() else { break };
        let written = tokio::task::spawn_blocking(move || {
            let result = writer.send(&control);
            (writer, result)
        })
        .await;
        match written {
            Ok((writer, Ok(()))) => controls = Some(writer),
            Ok((writer, Err(e))) => {
                controls = Some(writer);
                let _ = done.send(proxy(ProxyMsg::NotWritten(e.to_string()))).await;
            }
            Err(_) => return,
        }
    }
}
