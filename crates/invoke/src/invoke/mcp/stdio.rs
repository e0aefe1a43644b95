//! An MCP server over stdio that can be started again: after it died (or hangs), `reconnect`
//! starts its command afresh and speaks `initialize` again, its events still going to the same
//! sink, so the server pane carries on across restarts.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::RwLock;

use super::McpEndpoint;
use super::asks::ClientSetup;
use super::events::EventSink;
use super::process::StdioServer;
use crate::invoke::InvokeError;

pub struct McpStdio {
    command: String,
    timeout: Duration,
    /// Who answers the server's asks, the revision and `--max-time`, for each start.
    setup: ClientSetup,
    events: EventSink,
    current: RwLock<Arc<McpEndpoint>>,
    /// The endings of the servers started before this one (each closed on a task of its own, so
    /// that a restart is not held up): [`McpStdio::close`] waits for them, so none outlives it.
    retired: std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl McpStdio {
    /// Starts `command_line` and speaks MCP with it.
    pub async fn connect(command_line: &str, timeout: Duration, setup: ClientSetup) -> Result<McpStdio, InvokeError> {
        let server = StdioServer::spawn_in(command_line, &setup.env, setup.cwd.as_deref())?;
        let endpoint =
            McpEndpoint::connect_command(server, command_line, timeout, setup.clone(), EventSink::default()).await?;
        Ok(McpStdio::from_endpoint(endpoint, command_line, timeout, setup))
    }

    /// An endpoint already connected (`tooldeck call` starts its server early), to be started
    /// again with `command_line`.
    pub fn from_endpoint(endpoint: McpEndpoint, command_line: &str, timeout: Duration, setup: ClientSetup) -> McpStdio {
        // Started again, a server that speaks a revision with `initialize` is met that way at once.
        let older = endpoint.protocol_version().is_some_and(|v| v.as_str() < "2026-07-28");
        let setup = ClientSetup { initialize_first: setup.initialize_first || older, ..setup };
        McpStdio {
            command: command_line.to_string(),
            timeout,
            setup,
            events: endpoint.events(),
            current: RwLock::new(Arc::new(endpoint)),
            retired: std::sync::Mutex::default(),
        }
    }

    /// The live connection.
    pub async fn current(&self) -> Arc<McpEndpoint> {
        Arc::clone(&*self.current.read().await)
    }

    /// What answers the server's asks (the same across restarts).
    pub fn asks(&self) -> &super::asks::Asks {
        &self.setup.asks
    }

    /// The revision agreed with the server that runs now.
    pub async fn protocol_version(&self) -> Option<String> {
        self.current().await.protocol_version()
    }

    /// Sends `notifications/roots/list_changed` to the server that runs now.
    pub async fn roots_changed(&self) {
        self.current().await.roots_changed().await;
    }

    pub fn events(&self) -> EventSink {
        self.events.clone()
    }

    /// `mcp:stdio COMMAND`.
    pub fn label(&self) -> String {
        format!("mcp:stdio {}", crate::redact::command(self.command.trim()))
    }

    /// Ends the server that runs (if it still does) and starts the command again.
    pub async fn reconnect(&self) -> Result<(), InvokeError> {
        // Held until the new server is up: a call made meanwhile waits for it instead of
        // reaching the old one, which still runs until then (`--watch` restarts on a save, and
        // the person's next Ctrl-R is meant for the edited server). Calls in flight keep theirs.
        let mut current = self.current.write().await;
        let server = StdioServer::spawn_in(&self.command, &self.setup.env, self.setup.cwd.as_deref())?;
        let fresh =
            McpEndpoint::connect_command(server, &self.command, self.timeout, self.setup.clone(), self.events.clone())
                .await?;
        let old = std::mem::replace(&mut *current, Arc::new(fresh));
        drop(current);
        // A call still holding the old one ends it when it lets go (the process is ended on
        // drop, on a thread `main` waits for).
        if let Ok(old) = Arc::try_unwrap(old) {
            let mut retired = crate::sync::lock(&self.retired);
            retired.retain(|ending| !ending.is_finished());
            retired.push(tokio::spawn(old.close()));
        }
        Ok(())
    }

    /// Ends the server that runs, and waits for those started before it to be ended too.
    pub async fn close(self) {
        let McpStdio { current, retired, .. } = self;
        if let Ok(endpoint) = Arc::try_unwrap(current.into_inner()) {
            endpoint.close().await;
        }
        let retired = std::mem::take(&mut *crate::sync::lock(&retired));
        futures_util::future::join_all(retired).await;
    }
}
