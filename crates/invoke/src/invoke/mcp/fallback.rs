//! Reaching a stdio server whatever revision it speaks. tooldeck opens with `server/discover`
//! (2026-07-28); a server built on an older SDK may exit on that unknown method (the Python SDK
//! 1.1 does), answer it with something that is not a discover result, or say nothing. Such a
//! server is started again and met with `initialize`, the handshake every older revision has;
//! the server pane gets a line saying so, and nothing else shows it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::McpEndpoint;
use super::asks::ClientSetup;
use super::events::{EventSink, ServerEvent};
use super::process::StdioServer;
use crate::invoke::InvokeError;

/// How long a server may stay silent on `server/discover` before it is taken for one that
/// does not know the method (rmcp would wait 10 s; a person waits for the app meanwhile).
pub const PROBE_SILENCE: Duration = Duration::from_secs(5);

impl McpEndpoint {
    /// Speaks MCP with `server` (started from `command_line`). Unless a revision is pinned or
    /// `initialize` is known to be the way, a failed `server/discover` starts the command again
    /// and begins with `initialize` instead.
    pub async fn connect_command(
        server: StdioServer,
        command_line: &str,
        timeout: Duration,
        setup: ClientSetup,
        events: EventSink,
    ) -> Result<McpEndpoint, InvokeError> {
        if !setup.probes() {
            return McpEndpoint::connect_started_with(server, timeout, setup, events).await;
        }
        let probing = Arc::new(AtomicBool::new(true));
        let probe = McpEndpoint::connect_started_muting(
            server,
            timeout.min(PROBE_SILENCE),
            setup.clone(),
            events.clone(),
            Some(Arc::clone(&probing)),
        )
        .await;
        let first = match probe {
            Ok(mut endpoint) => {
                probing.store(false, Ordering::Relaxed);
                // The probe's short limit was for the handshake only: the session's requests
                // (a call waiting on a person's answer to the server's question) get the whole
                // timeout.
                endpoint.timeout = timeout;
                return Ok(endpoint);
            }
            Err(error) => error,
        };
        let server = StdioServer::spawn_in(command_line, &setup.env, setup.cwd.as_deref())?;
        let again = ClientSetup { initialize_first: true, ..setup };
        match McpEndpoint::connect_started_with(server, timeout, again, events.clone()).await {
            Ok(endpoint) => {
                let version = endpoint.protocol_version().unwrap_or_else(|| "an older revision".into());
                events.push(ServerEvent::Note(format!(
                    "the server did not take server/discover ({}); started it again with initialize: it speaks {version}",
                    probe_failure(&first)
                )));
                Ok(endpoint)
            }
            Err(second) => Err(second),
        }
    }
}

/// What the probe met, in a few words.
fn probe_failure(error: &InvokeError) -> String {
    match error {
        InvokeError::Timeout { .. } => format!("no answer within {} s", PROBE_SILENCE.as_secs()),
        InvokeError::Connect { reason, .. } if reason.contains("during initialize") => {
            "it closed the connection".to_string()
        }
        InvokeError::Connect { .. } => "its answer was not a discover result".to_string(),
        other => crate::text::visible(&other.to_string()).into_owned(),
    }
}
