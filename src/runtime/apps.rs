//! The app's MCP App host (`ServerEffect::HostApp`): started as `tooldeck app` starts it, over the
//! tool's session, opened in the browser through the one gate; each thing the app does comes
//! back as a status line. One app at a time: a new one, or leaving tooldeck, ends the last.

use std::time::Duration;

use super::effects::Calls;
use super::sessions::SessionHandle;
use crate::app::Msg;
use crate::catalog::Tool;

/// How long a loaded app may take to send `ui/initialize` before a line says so.
const INIT_WAIT: Duration = Duration::from_secs(10);

/// The task hosting an app; dropping it ends the app and both its servers.
pub(super) struct Hosting(tokio::task::JoinHandle<()>);

impl Drop for Hosting {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Calls {
    pub(super) fn host_app(&mut self, s: &SessionHandle, tool: Tool, arguments: serde_json::Value) {
        self.hosting = None;
        let (endpoint, label, done) = (s.endpoint.clone(), s.label.clone(), self.done.clone());
        let task = s.spawn(async move {
            let say = |text: String| {
                let done = done.clone();
                async move {
                    let _ = done.send(Msg::Said(text)).await;
                }
            };
            let started = async {
                let endpoint = endpoint.await.map_err(|e| e.to_string())?;
                let options = crate::invoke::endpoint::to_call();
                let (tools, _) = crate::invoke::endpoint::list_catalog(&endpoint, &label, &options)
                    .await
                    .map_err(|e| e.to_string())?;
                crate::apps::start(endpoint, tools, &tool, arguments, INIT_WAIT).await.map_err(|e| e.to_string())
            };
            let started = match started.await {
                Ok(started) => started,
                Err(why) => return say(format!("the app cannot start: {why}")).await,
            };
            let crate::apps::Started { hosted, mut events, notes, .. } = started;
            for note in notes {
                say(format!("app: {note}")).await;
            }
            let url = hosted.url.clone();
            let opened = tokio::task::spawn_blocking(move || crate::invoke::browser::open(&url)).await;
            say(match opened {
                Ok(Ok(())) => format!("app host: {} (opened in the browser)", hosted.url),
                Ok(Err(e)) => format!("app host: {}: {e}", hosted.url),
                Err(e) => format!("app host: {}: {e}", hosted.url),
            })
            .await;
            while let Some(event) = events.recv().await {
                say(event.to_string()).await;
            }
        });
        self.hosting = Some(Hosting(task));
    }
}
