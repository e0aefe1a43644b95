//! The client side's handler of an MCP connection: progress reports to the call waiting for them,
//! and what the server asks (elicitation, sampling, roots) to [`asks`](super::asks).

use std::sync::{Arc, Mutex};

use crate::sync::lock;
use rmcp::RoleClient;
use rmcp::model::{NumberOrString, ProgressNotificationParam};
use rmcp::service::NotificationContext;

use super::asks;

pub(super) type Listener = Box<dyn Fn(crate::invoke::Progress) + Send + Sync>;

/// The client side's handler: passes `notifications/progress` to the call waiting on that token.
/// rmcp puts its own request id in the token, so a report whose token names no call goes to the
/// newest call (the app runs one call per endpoint at a time).
#[derive(Clone, Default)]
pub struct ProgressRelay {
    pub(super) listeners: Arc<Mutex<Vec<(String, Listener)>>>,
    /// Who answers what the server asks (elicitation, sampling, roots); see [`asks`].
    pub(super) asks: asks::Asks,
    /// The revision asked for in `initialize` (`--protocol`); the newest otherwise.
    protocol: Option<rmcp::model::ProtocolVersion>,
}

impl ProgressRelay {
    pub(super) fn with(setup: &asks::ClientSetup) -> ProgressRelay {
        ProgressRelay { asks: setup.asks.clone(), protocol: setup.initialize_version(), ..ProgressRelay::default() }
    }
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

    /// A request rmcp could not read as one it knows: a sampling or elicitation request with
    /// parameters out of shape is answered -32602 at once (see [`asks::Asks::refuse_unreadable`]).
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CustomResult, rmcp::ErrorData> {
        Err(self.asks.refuse_unreadable(&request.method, request.params))
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let key = match &params.progress_token.0 {
            NumberOrString::String(s) => s.to_string(),
            NumberOrString::Number(n) => n.to_string(),
        };
        let listeners = lock(&self.listeners);
        let listener = listeners.iter().find(|(k, _)| *k == key).or_else(|| listeners.last());
        if let Some((_, listener)) = listener {
            listener(crate::invoke::Progress {
                progress: params.progress,
                total: params.total,
                message: params.message,
            });
        }
    }
}

/// Removes a call's progress listener when the call ends (or is dropped).
pub(super) struct Forget {
    pub(super) listeners: Arc<Mutex<Vec<(String, Listener)>>>,
    pub(super) key: String,
}

impl Drop for Forget {
    fn drop(&mut self) {
        lock(&self.listeners).retain(|(k, _)| *k != self.key);
    }
}
