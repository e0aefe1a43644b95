//! An MCP session, over either transport: what differs between a server started as a command
//! (it can be started again) and one over Streamable HTTP (it may want a token, or a sign-in)
//! is decided here, so that [`crate::invoke::Endpoint`] has one MCP arm.

use std::sync::Arc;

use super::McpEndpoint;
use super::http::McpHttpEndpoint;
use super::stdio::McpStdio;
use crate::invoke::request::CallRequest;
use crate::invoke::{Exchange, InvokeError, Outcome, Progress};

pub enum McpSession {
    /// A server started as a command, over its stdin and stdout.
    Stdio(McpStdio),
    /// A server over Streamable HTTP: a token can be given after a 401.
    Http(McpHttpEndpoint),
}

impl From<McpStdio> for McpSession {
    fn from(stdio: McpStdio) -> McpSession {
        McpSession::Stdio(stdio)
    }
}

impl From<McpHttpEndpoint> for McpSession {
    fn from(http: McpHttpEndpoint) -> McpSession {
        McpSession::Http(http)
    }
}

impl McpSession {
    pub async fn call_with_progress(
        &self,
        request: &CallRequest,
        on_progress: impl Fn(Progress) + Send + Sync + 'static,
    ) -> Result<(Outcome, Exchange), InvokeError> {
        match self {
            McpSession::Stdio(e) => e.current().await.call_with_progress(request, on_progress).await,
            McpSession::Http(e) => e.call_with_progress(request, on_progress).await,
        }
    }

    pub async fn list_tools(&self) -> Result<String, InvokeError> {
        match self {
            McpSession::Stdio(e) => e.current().await.list_tools().await,
            McpSession::Http(e) => e.list_tools().await,
        }
    }

    pub async fn read_resource(&self, uri: &str) -> Result<(Vec<super::content::Embedded>, Vec<String>), InvokeError> {
        match self {
            McpSession::Stdio(e) => e.current().await.read_resource(uri).await,
            McpSession::Http(e) => e.read_resource(uri).await,
        }
    }

    pub fn describe(&self, request: &CallRequest) -> Exchange {
        match self {
            McpSession::Stdio(e) => McpEndpoint::describe_call(&e.label(), request),
            McpSession::Http(e) => e.describe(request),
        }
    }

    pub fn asks(&self) -> &super::asks::Asks {
        match self {
            McpSession::Stdio(e) => e.asks(),
            McpSession::Http(e) => e.asks(),
        }
    }

    pub async fn protocol_version(&self) -> Option<String> {
        match self {
            McpSession::Stdio(e) => e.protocol_version().await,
            McpSession::Http(e) => e.protocol_version().await,
        }
    }

    pub async fn roots_changed(&self) {
        match self {
            McpSession::Stdio(e) => e.roots_changed().await,
            McpSession::Http(e) => e.roots_changed().await,
        }
    }

    /// A bearer token for the server: only a server over HTTP takes one.
    pub async fn authorize(&self, token: &str) -> Result<(), InvokeError> {
        match self {
            McpSession::Stdio(_) => Ok(()),
            McpSession::Http(e) => e.authorize(token).await,
        }
    }

    pub async fn close(self) {
        match self {
            McpSession::Stdio(e) => e.close().await,
            McpSession::Http(e) => e.close().await,
        }
    }

    /// The connection in use (none for an HTTP server not connected yet).
    pub async fn current(&self) -> Option<Arc<McpEndpoint>> {
        match self {
            McpSession::Stdio(e) => Some(e.current().await),
            McpSession::Http(e) => e.current().await,
        }
    }

    pub fn events(&self) -> super::events::EventSink {
        match self {
            McpSession::Stdio(e) => e.events(),
            McpSession::Http(e) => e.events(),
        }
    }

    /// Starts a stdio server again, or opens a new HTTP session (`initialize` again).
    pub async fn reconnect(&self) -> Result<(), InvokeError> {
        match self {
            McpSession::Stdio(e) => e.reconnect().await,
            McpSession::Http(e) => e.reconnect().await,
        }
    }

    pub async fn failed_exchange(&self, call_id: &str) -> Option<Exchange> {
        match self {
            McpSession::Stdio(e) => e.current().await.take_failed_exchange(call_id),
            McpSession::Http(e) => e.failed_exchange(call_id).await,
        }
    }

    pub fn label(&self) -> String {
        match self {
            McpSession::Stdio(e) => e.label(),
            McpSession::Http(e) => e.label(),
        }
    }

    /// The HTTP session, for signing in and out.
    pub fn http(&self) -> Option<&McpHttpEndpoint> {
        match self {
            McpSession::Stdio(_) => None,
            McpSession::Http(e) => Some(e),
        }
    }
}
