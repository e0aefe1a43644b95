//! Meeting a server at the newest revision both speak. rmcp 3.9 probes with `server/discover`
//! (2026-07-28) and falls back to `initialize` only when the probe gets a JSON-RPC error; a
//! server that answers the probe with "I speak only 2025-x" (-32022 with its versions) ends
//! the connection instead. Here that answer also falls back to `initialize`, on the same
//! stream: the transport is handed back when rmcp drops it after the failed probe.

use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RunningService, TxJsonRpcMessage};
use rmcp::transport::Transport;

use std::time::Duration;

use serde_json::json;

use super::ProgressRelay;
use super::asks::Asks;

/// A transport that returns its inner transport to `slot` when dropped.
struct GiveBack<T> {
    /// Always `Some` until the drop takes it.
    inner: Option<T>,
    slot: Arc<Mutex<Option<T>>>,
}

impl<T> Drop for GiveBack<T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            *crate::sync::lock(&self.slot) = Some(inner);
        }
    }
}

impl<T: Transport<RoleClient> + 'static> GiveBack<T> {
    fn inner(&mut self) -> &mut T {
        self.inner.as_mut().expect("the inner transport is there until the drop")
    }
}

impl<T: Transport<RoleClient> + 'static> Transport<RoleClient> for GiveBack<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner().send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<rmcp::service::RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner().receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner().close()
    }
}

/// True when the server said, in answer to `server/discover`, that it speaks only revisions
/// that begin with `initialize`.
fn speaks_only_legacy(error: &ClientInitializeError) -> bool {
    matches!(error, ClientInitializeError::NoCompatibleProtocolVersion { server_supported, .. }
        if !server_supported.is_empty() && server_supported.iter().all(|v| v.has_initialize()))
}

/// Starts the session over `transport` the way `lifecycle` says, falling back to `initialize`
/// as the module's comment explains.
pub(super) async fn serve<T>(
    relay: ProgressRelay,
    transport: T,
    lifecycle: ClientLifecycleMode,
) -> Result<RunningService<RoleClient, ProgressRelay>, ClientInitializeError>
where
    T: Transport<RoleClient> + 'static,
{
    let auto = matches!(lifecycle, ClientLifecycleMode::Auto { .. });
    let slot = Arc::new(Mutex::new(None));
    let wrapped = GiveBack { inner: Some(transport), slot: Arc::clone(&slot) };
    match relay.clone().serve_with_lifecycle(wrapped, lifecycle).await {
        Err(error) if auto && speaks_only_legacy(&error) => {
            let returned = crate::sync::lock(&slot).take();
            match returned {
                Some(transport) => relay.serve_with_lifecycle(transport, ClientLifecycleMode::Initialize).await,
                None => Err(error),
            }
        }
        other => other,
    }
}

/// How tooldeck meets a server: who answers its asks, which protocol revision (`--protocol`
/// pins one; otherwise the newest both speak) and how long a whole call may take.
#[derive(Debug, Clone, Default)]
pub struct ClientSetup {
    pub asks: Asks,
    pub protocol: Option<String>,
    pub max_time: Option<Duration>,
    /// Where the steps of a sign-in go (the app's auth pane, or stderr for headless commands).
    pub auth_log: crate::invoke::auth::AuthLog,
    /// Begin with `initialize` rather than `server/discover` (a server met before that did
    /// not take the probe: it is met the way that worked).
    pub initialize_first: bool,
    /// The environment and folder a stdio server starts with, beside tooldeck's own (a client
    /// config's `env` and `cwd`).
    pub env: Vec<(String, String)>,
    pub cwd: Option<std::path::PathBuf>,
}

/// The revision asked for in an `initialize` nothing pinned: the newest that has one.
pub const NEWEST_WITH_INITIALIZE: rmcp::model::ProtocolVersion = rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE;

/// The revisions rmcp knows, oldest first.
pub const KNOWN_PROTOCOLS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

impl ClientSetup {
    /// True when nothing pins the revision and the connection begins with the probe: a server
    /// that fails it is met again with `initialize`.
    pub fn probes(&self) -> bool {
        self.protocol.is_none() && !self.initialize_first
    }

    /// The revision `initialize` asks for: the pinned one, or the newest that has `initialize`.
    pub fn initialize_version(&self) -> Option<rmcp::model::ProtocolVersion> {
        match self.pinned() {
            Ok(Some(version)) => Some(version),
            _ if self.initialize_first => Some(NEWEST_WITH_INITIALIZE),
            _ => None,
        }
    }

    /// The pinned revision, checked against those tooldeck knows.
    pub fn pinned(&self) -> Result<Option<rmcp::model::ProtocolVersion>, ProtocolError> {
        let Some(given) = self.protocol.as_deref() else { return Ok(None) };
        if !KNOWN_PROTOCOLS.contains(&given) {
            return Err(ProtocolError::Unknown { given: given.to_string(), known: KNOWN_PROTOCOLS.join(", ") });
        }
        serde_json::from_value(json!(given)).map(Some).map_err(|e| ProtocolError::Unreadable(e.to_string()))
    }

    /// How the connection starts: `server/discover` for 2026-07-28 (falling back to
    /// `initialize` for an older server), `initialize` alone for a pinned older revision or
    /// when [`ClientSetup::initialize_first`] says so.
    pub fn lifecycle(&self) -> Result<rmcp::service::ClientLifecycleMode, ProtocolError> {
        use rmcp::model::ProtocolVersion;
        use rmcp::service::ClientLifecycleMode;
        Ok(match self.pinned()? {
            None if self.initialize_first => ClientLifecycleMode::Initialize,
            None => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(NEWEST_WITH_INITIALIZE),
            },
            Some(version) if !version.has_initialize() => {
                ClientLifecycleMode::Discover { preferred_versions: vec![version] }
            }
            Some(_) => ClientLifecycleMode::Initialize,
        })
    }
}

/// Why `--protocol` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("--protocol {given:?} is not a revision tooldeck knows ({known})")]
    Unknown { given: String, known: String },
    /// A known revision rmcp could not read (its own words).
    #[error("{0}")]
    Unreadable(String),
}
