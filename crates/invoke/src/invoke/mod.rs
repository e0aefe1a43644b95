//! Talking to tool servers: one normalised [`Outcome`] for every protocol and every way a server
//! can answer (or fail to). No terminal code here.

pub mod artifact;
pub mod auth;
pub mod browser;
pub mod endpoint;
pub mod envelope;
mod error;
pub use error::{Cause, InvokeError, MAX_ERROR_DATA};
mod exchange;
mod faces;
pub mod http;
pub use faces::{Faces, ResourceListing};
pub mod mcp;
pub mod mock;
mod named;
pub use named::NamedError;
pub mod otc;
pub mod replay;
pub mod request;
pub mod save;
pub mod thumbnail;

pub use exchange::Exchange;
pub use mcp::content::ContentItem;
pub use request::CallRequest;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// Bodies larger than this are cut off with a clear message rather than read whole.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// What a call came to, as `tooldeck call` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Value,
    Error,
    RequiresAuthorization,
    Artifact,
    /// The tool returned nothing.
    Null,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Value => "value",
            Status::Error => "error",
            Status::RequiresAuthorization => "requires_authorization",
            Status::Artifact => "artifact",
            Status::Null => "null",
        }
    }
}

/// The normalised result of one call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub status: Status,
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthPrompt>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// MCP: every item of the result's `content`, in order, each with its data.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentItem>,
    /// MCP: `value` is the result's `structuredContent` (not read from its text).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub structured: bool,
    /// Every way the response broke its protocol; the raw response is kept in the exchange.
    pub warnings: Vec<String>,
    /// What an MCP server asked during the call (elicitation, sampling) and how it was answered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<Value>,
    /// The MCP protocol revision the call was made with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    pub duration_ms: u64,
    /// The call id the server answered with (or the one sent, when it gave none).
    pub call_id: String,
    /// MCP `prompts/get`: the role of the message each content item came from, item by item
    /// (none for a tool's result).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
}

impl Outcome {
    /// An outcome of `status` with nothing else filled in yet.
    pub fn new(status: Status, call_id: impl Into<String>) -> Outcome {
        Outcome {
            status,
            success: matches!(status, Status::Value | Status::Artifact | Status::Null),
            value: None,
            error: None,
            authorization: None,
            artifacts: Vec::new(),
            content: Vec::new(),
            structured: false,
            warnings: Vec::new(),
            asked: Vec::new(),
            protocol: None,
            duration_ms: 0,
            call_id: call_id.into(),
            roles: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolError {
    /// For the user and the model.
    pub message: String,
    /// For the developer only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub developer_message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub can_retry: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_prompt_content: Option<String>,
    /// A 422's `parameter_errors`: parameter name → message, shown on the form's fields.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub parameter_errors: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AuthPrompt {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Artifact {
    pub url: String,
    pub content_type: Option<String>,
    /// As declared by the server.
    pub size: Option<u64>,
    pub description: Option<String>,
}

/// How far a running call has come, as the server reported it (MCP `notifications/progress`).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// The endpoint the user chose: one way to list tools and call them, whatever the protocol.
// One per server, made once and shared behind an `Arc`: its size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Endpoint {
    Otc(otc::OtcEndpoint),
    /// MCP, over stdio or Streamable HTTP.
    Mcp(mcp::session::McpSession),
}

impl Endpoint {
    pub async fn call(&self, request: &CallRequest) -> Result<(Outcome, Exchange), InvokeError> {
        self.call_with_progress(request, |_| {}).await
    }

    /// Like [`Endpoint::call`], reporting progress where the protocol carries it (MCP).
    pub async fn call_with_progress(
        &self,
        request: &CallRequest,
        on_progress: impl Fn(Progress) + Send + Sync + 'static,
    ) -> Result<(Outcome, Exchange), InvokeError> {
        let (mut outcome, exchange) = match self {
            Endpoint::Otc(e) => e.call(request).await?,
            Endpoint::Mcp(e) => e.call_with_progress(request, on_progress).await?,
        };
        // MCP results carry no duration of their own: the round trip is the duration.
        if outcome.duration_ms == 0 {
            outcome.duration_ms = exchange.duration_ms;
        }
        Ok((outcome, exchange))
    }

    /// The server's own tool definitions as text the catalog loader reads.
    pub async fn list_tools(&self) -> Result<String, InvokeError> {
        match self {
            Endpoint::Otc(e) => e.list_tools().await,
            Endpoint::Mcp(e) => e.list_tools().await,
        }
    }

    /// MCP `resources/read` (a `resource_link` in a result); OTC has nothing like it.
    pub async fn read_resource(&self, uri: &str) -> Result<(Vec<mcp::content::Embedded>, Vec<String>), InvokeError> {
        match self {
            Endpoint::Otc(_) => Err(InvokeError::NotSent("resources/read is MCP's: this endpoint speaks OTC".into())),
            Endpoint::Mcp(e) => e.read_resource(uri).await,
        }
    }

    pub fn describe(&self, request: &CallRequest) -> Exchange {
        match self {
            Endpoint::Otc(e) => e.describe(request),
            Endpoint::Mcp(e) => e.describe(request),
        }
    }

    /// What answers an MCP server's asks (none for OTC).
    pub fn asks(&self) -> Option<&mcp::asks::Asks> {
        match self {
            Endpoint::Otc(_) => None,
            Endpoint::Mcp(e) => Some(e.asks()),
        }
    }

    /// The MCP protocol revision agreed with the server.
    pub async fn protocol_version(&self) -> Option<String> {
        match self {
            Endpoint::Otc(_) => None,
            Endpoint::Mcp(e) => e.protocol_version().await,
        }
    }

    /// Replaces the MCP roots and tells the server when they changed.
    pub async fn set_roots(&self, roots: Vec<String>) {
        let Some(asks) = self.asks() else { return };
        if !asks.set_roots(roots) {
            return;
        }
        if let Endpoint::Mcp(e) = self {
            e.roots_changed().await;
        }
    }

    /// Gives the server the token for `provider` (MCP over HTTP takes it as a bearer token;
    /// OTC tokens travel in each request instead, so there is nothing to do for them).
    pub async fn authorize(&self, provider: &str, token: &str) -> Result<(), InvokeError> {
        match self {
            Endpoint::Mcp(e) if provider == mcp::http::MCP_PROVIDER => e.authorize(token).await,
            _ => Ok(()),
        }
    }

    /// Ends the session the way its protocol asks: an MCP stdio server sees its input close and
    /// is given a moment to exit before it is stopped; an HTTP session is ended at the server.
    pub async fn close(self) {
        if let Endpoint::Mcp(e) = self {
            e.close().await;
        }
    }

    /// The MCP connection in use (none for OTC, or an HTTP server not connected yet).
    async fn mcp(&self) -> Option<std::sync::Arc<mcp::McpEndpoint>> {
        match self {
            Endpoint::Otc(_) => None,
            Endpoint::Mcp(e) => e.current().await,
        }
    }

    /// Where an MCP server's stderr, log entries, list changes and its going away are reported.
    pub fn events(&self) -> Option<mcp::events::EventSink> {
        match self {
            Endpoint::Otc(_) => None,
            Endpoint::Mcp(e) => Some(e.events()),
        }
    }

    /// The first line a stdio MCP server wrote to stdout that is not JSON-RPC (a banner, a log
    /// line), if it wrote one this session: strict clients fail on it.
    pub fn stray_stdout(&self) -> Option<String> {
        self.events()?.stray_line()
    }

    /// What an MCP server said of itself in `initialize`.
    pub async fn info(&self) -> Option<mcp::info::ServerInfo> {
        self.mcp().await?.info()
    }

    /// `logging/setLevel` to an MCP server.
    pub async fn set_log_level(&self, level: &str) -> Result<(), InvokeError> {
        match self.mcp().await {
            Some(mcp) => mcp.set_log_level(level).await,
            None => Err(InvokeError::NotSent("log levels are MCP's: this endpoint speaks OTC".into())),
        }
    }

    /// Starts an MCP stdio server again, or opens a new HTTP session (`initialize` again).
    pub async fn reconnect(&self) -> Result<(), InvokeError> {
        match self {
            Endpoint::Otc(_) => Ok(()),
            Endpoint::Mcp(e) => e.reconnect().await,
        }
    }

    /// The MCP session over HTTP, for signing in and out (none for any other endpoint).
    pub fn http(&self) -> Option<&mcp::http::McpHttpEndpoint> {
        match self {
            Endpoint::Otc(_) => None,
            Endpoint::Mcp(e) => e.http(),
        }
    }

    /// What went over the wire for a call that got no answer.
    pub async fn failed_exchange(&self, request: &CallRequest) -> Option<Exchange> {
        match self {
            // What was sent (to the call path the server was given), with no answer.
            Endpoint::Otc(e) => Some(e.describe(request)),
            Endpoint::Mcp(e) => e.failed_exchange(&request.call_id).await,
        }
    }

    /// For status lines and the catalog's source labels: secrets masked.
    pub fn label(&self) -> String {
        match self {
            Endpoint::Otc(e) => crate::redact::url(e.base()),
            Endpoint::Mcp(e) => e.label(),
        }
    }
}
