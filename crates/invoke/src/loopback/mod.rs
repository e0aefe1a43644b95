//! One way to serve HTTP to this machine only, for every server tooldeck runs (the demo server,
//! the sign-in's redirect listener, and what comes next: the proxy's listener, the MCP Apps
//! host): bound to 127.0.0.1 (port 0 picks a free one), refusing requests that come from
//! elsewhere by name (`guard`), and stopped gracefully: dropping the server stops it, requests
//! already being answered finish first.

pub mod guard;

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use guard::{is_loopback_host, local_only, refusal};

/// How long requests in progress may go on once the server is asked to stop.
const GRACE: Duration = Duration::from_secs(2);

/// A running server on 127.0.0.1. Dropping it stops it; [`LoopbackServer::shutdown`] does the
/// same and waits for it.
#[derive(Debug)]
pub struct LoopbackServer {
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    url: String,
    addr: SocketAddr,
    stop: CancellationToken,
    task: Option<JoinHandle<io::Result<()>>>,
}

/// A port bound on 127.0.0.1, not served yet: for a router that must know its own origin (the
/// MCP Apps host names its origins in its pages).
#[derive(Debug)]
pub struct Bound {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Bound {
    /// Binds 127.0.0.1:`port` (0 picks a free port).
    pub async fn bind(port: u16) -> io::Result<Bound> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
        let addr = listener.local_addr()?;
        Ok(Bound { listener, addr })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Serves `router` on the current Tokio runtime; must be called from within one.
    pub fn serve(self, router: axum::Router) -> LoopbackServer {
        let Bound { listener, addr } = self;
        let stop = CancellationToken::new();
        let signal = stop.clone().cancelled_owned();
        let task = tokio::spawn(async move { axum::serve(listener, router).with_graceful_shutdown(signal).await });
        LoopbackServer { url: format!("http://{addr}"), addr, stop, task: Some(task) }
    }
}

impl LoopbackServer {
    /// Binds 127.0.0.1:`port` (0 picks a free port) and serves `router` on the current Tokio
    /// runtime; must be called from within one. Fails only when the port cannot be bound. The
    /// router brings its own guard (`local_only`, or a stricter one of its own).
    pub async fn start(router: axum::Router, port: u16) -> io::Result<LoopbackServer> {
        Ok(Bound::bind(port).await?.serve(router))
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Cancelling it stops the server (as dropping it does).
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Runs until the server stops: an accept error, or its stop token cancelled. Returns the
    /// error that stopped it, if any.
    pub async fn wait(mut self) -> io::Result<()> {
        match self.task.take() {
            Some(task) => task.await.unwrap_or_else(|e| Err(io::Error::other(e))),
            None => Ok(()),
        }
    }

    /// Stops accepting, lets requests in progress finish for up to two seconds, then ends them.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let abort = task.abort_handle();
            if tokio::time::timeout(GRACE, task).await.is_err() {
                abort.abort();
            }
        }
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

#[cfg(test)]
mod tests {
    use axum::routing::get;

    use super::*;

    #[tokio::test]
    async fn it_serves_this_machine_by_its_loopback_names_and_stops_when_dropped() {
        let router =
            axum::Router::new().route("/", get(|| async { "here" })).layer(axum::middleware::from_fn(local_only));
        let server = LoopbackServer::start(router, 0).await.expect("a free port");
        assert!(server.addr().ip().is_loopback());
        let client = crate::invoke::http::client_builder().build().expect("a client");
        let answer = client.get(server.url()).send().await.expect("an answer");
        assert_eq!(answer.text().await.expect("a body"), "here");
        let rebound = client.get(server.url()).header("host", "evil.example").send().await.expect("an answer");
        assert_eq!(rebound.status(), 403, "a page reaching it by another name is refused");
        let url = server.url().to_string();
        server.shutdown().await;
        assert!(client.get(url).send().await.is_err(), "stopped");
    }
}
