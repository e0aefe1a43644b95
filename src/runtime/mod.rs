//! Runs the app: the terminal (`terminal`: raw mode and the alternate screen, always undone, also
//! on panic), a terminal that goes away (`hang_up`), the event loop (`event_loop`), the effects
//! the app asks for (`effects`) and an MCP server's own events (`server_events`).
//!
//! Every way out (`q`, the input ending, a signal, a hang-up, an error) returns from
//! [`run`], so the connection is dropped and its server process group ended before `main`
//! exits; a panic and a stuck loop end the servers themselves
//! ([`end_all_now`](crate::invoke::mcp::process::end_all_now)).

use std::sync::Arc;

use futures_util::future::{BoxFuture, FutureExt, Shared};
use tokio::sync::mpsc;

use crate::app::{Msg, ServerMsg};
use crate::invoke::endpoint::EndpointOptions;
use crate::invoke::{Endpoint, InvokeError};

mod app_style;
mod apps;
mod calls;
mod effects;
mod evals;
mod event_loop;
mod faces;
mod fuzz;
mod hang_up;
mod history;
mod server_events;
mod sessions;
mod sign_in;
mod supervisor;
mod terminal;

pub use evals::run_eval;
pub use event_loop::run;
pub use terminal::{TerminalGuard, restore};

/// The server the app talks to, as the user named it; connected after the first frame.
pub struct ServerSpec {
    pub options: EndpointOptions,
    pub headers: Vec<(String, String)>,
    /// The built-in demo server, when no server was named.
    pub demo_url: Option<String>,
    /// The server as a saved case file names it (headers as `${ENV}` placeholders).
    pub case_server: serde_json::Map<String, serde_json::Value>,
    /// `tooldeck attach`: the traffic pane shows a proxy's traffic instead of this connection's.
    pub watched: Option<Watched>,
}

/// A proxy's traffic the app watches (`tooldeck attach`): what was read of it already, and what
/// brings the rest (the proxy's live feed, or the record file followed as it grows).
pub struct Watched {
    pub traffic: crate::invoke::mcp::traffic::Traffic,
    pub feed: Option<crate::proxy::live::Following>,
}

/// The servers the app talks to (the first answers for tools from files), and the command
/// line's shared options for servers connected later from the list of those found.
pub struct ServerSpecs {
    pub each: Vec<ServerSpec>,
    pub shared: EndpointOptions,
    /// `--watch`: a change under these paths restarts (or reconnects) every server.
    pub watch: Option<crate::watch::Watch>,
}

/// Reads the definition files, after the first frame and off the UI thread.
pub type LoadCatalog = Box<dyn FnOnce(&(dyn Fn(crate::catalog::LoadProgress) + Sync)) -> crate::catalog::Loaded + Send>;

/// The connection, made once and awaited by every task that needs it (the first frame does not
/// wait for a server to start).
type Connection = Shared<BoxFuture<'static, Result<Arc<Endpoint>, InvokeError>>>;

impl ServerSpec {
    /// Connects, with what the server asks sent to `asks_to` (the person answers in the app).
    fn connect(self, asks_to: mpsc::UnboundedSender<crate::invoke::mcp::asks::PendingAsk>) -> Connection {
        let setup = self.options.client_setup();
        setup.asks.ask_person(asks_to);
        async move { self.options.connect_with(self.headers, self.demo_url.as_deref(), setup).await.map(Arc::new) }
            .boxed()
            .shared()
    }
}

/// The server's tool list, read off the UI thread, as the message that brings it to the app.
async fn list_server_tools(endpoint: Result<Arc<Endpoint>, InvokeError>, label: String) -> Msg {
    let listed = match endpoint {
        Ok(endpoint) => {
            crate::invoke::endpoint::list_catalog(&endpoint, &label, &crate::invoke::endpoint::to_call()).await
        }
        Err(e) => Err(e),
    };
    let result = match listed {
        Err(InvokeError::Unauthorized { url, challenge }) => {
            return Msg::Server(ServerMsg::WantsToken { url, challenge });
        }
        Ok((tools, _)) => Ok(tools),
        Err(e) => Err(e.into()),
    };
    Msg::Server(ServerMsg::Tools { label, result })
}
