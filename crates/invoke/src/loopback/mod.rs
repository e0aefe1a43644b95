//! One way to serve HTTP to this machine only, for every server tooldeck runs (the demo server,
//! the sign-in's redirect listener, the MCP Apps host, `proxy --listen`, `serve-mock --port`):
//! bound to 127.0.0.1 (port 0 picks a free one; `proxy --listen` may name another address),
//! refusing requests that come from elsewhere by name (`guard`, put in front of every router
//! here, so no server can go without it), and stopped gracefully: dropping the server stops it,
//! requests already being answered finish first.

pub mod guard;

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use guard::{Reach, Refusal, is_loopback_host};

/// How long requests in progress may go on once the server is asked to stop.
const GRACE: Duration = Duration::from_secs(2);

/// A running server, guarded. Dropping it stops it; [`LoopbackServer::shutdown`] does the same
/// and waits for it.
#[derive(Debug)]
pub struct LoopbackServer {
    /// `http://ADDR`, without a trailing slash.
    url: String,
    addr: SocketAddr,
    stop: CancellationToken,
    task: Option<JoinHandle<io::Result<()>>>,
}

/// A port bound, not served yet: for a router that must know its own origin (the MCP Apps host
/// names its origins in its pages), or a caller that says where it listens first.
#[derive(Debug)]
pub struct Bound {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Bound {
    /// Binds 127.0.0.1:`port` (0 picks a free port).
    pub async fn bind(port: u16) -> io::Result<Bound> {
        Bound::listening(TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?)
    }

    /// Binds the address a person named (`proxy --listen HOST:PORT`): a loopback one keeps the
    /// loopback rule; any other is served with the network rule ([`Reach::Network`]).
    pub async fn bind_named(address: &str) -> io::Result<Bound> {
        Bound::listening(TcpListener::bind(address).await?)
    }

    fn listening(listener: TcpListener) -> io::Result<Bound> {
        let addr = listener.local_addr()?;
        Ok(Bound { listener, addr })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Serves `router` behind the guard on the current Tokio runtime; must be called from within
    /// one. A refused request gets 403 and why, as plain text.
    pub fn serve(self, router: axum::Router) -> LoopbackServer {
        self.serve_answering(router, guard::plain_refusal)
    }

    /// [`Bound::serve`], refused requests answered by `answer` (a server's own error format).
    pub fn serve_answering(self, router: axum::Router, answer: guard::Answer) -> LoopbackServer {
        let Bound { listener, addr } = self;
        let guard = guard::Guard { reach: Reach::of(addr), answer };
        let router = router.layer(axum::middleware::from_fn_with_state(guard, guard::guard));
        let stop = CancellationToken::new();
        let signal = stop.clone().cancelled_owned();
        let task = tokio::spawn(async move { axum::serve(listener, router).with_graceful_shutdown(signal).await });
        LoopbackServer { url: format!("http://{addr}"), addr, stop, task: Some(task) }
    }
}

impl LoopbackServer {
    /// Binds 127.0.0.1:`port` (0 picks a free port) and serves `router` behind the guard on the
    /// current Tokio runtime; must be called from within one. Fails only when the port cannot be
    /// bound.
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

    /// Runs until `stop` ends (a signal, for a server that runs until Ctrl-C), then shuts down
    /// as [`LoopbackServer::shutdown`] does; or until the server fails, with its error.
    pub async fn run_until(mut self, stop: impl Future<Output = ()>) -> io::Result<()> {
        let Some(mut task) = self.task.take() else { return Ok(()) };
        tokio::select! {
            ended = &mut task => return ended.unwrap_or_else(|e| Err(io::Error::other(e))),
            () = stop => {}
        }
        self.task = Some(task);
        self.shutdown().await;
        Ok(())
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
        let router = axum::Router::new().route("/", get(|| async { "here" }));
        let server = LoopbackServer::start(router, 0).await.expect("a free port");
        assert!(server.addr().ip().is_loopback());
        let client = crate::invoke::http::client_builder().build().expect("a client");
        let answer = client.get(server.url()).send().await.expect("an answer");
        assert_eq!(answer.text().await.expect("a body"), "here");
        let rebound = client.get(server.url()).header("host", "evil.example").send().await.expect("an answer");
        assert_eq!(rebound.status(), 403, "a page reaching it by another name is refused");
        assert_eq!(rebound.text().await.expect("a body"), Refusal::ForeignHost.to_string());
        let foreign =
            client.get(server.url()).header("origin", "https://evil.example").send().await.expect("an answer");
        assert_eq!(foreign.status(), 403, "a page of another site is refused");
        let url = server.url().to_string();
        server.shutdown().await;
        assert!(client.get(url).send().await.is_err(), "stopped");
    }
}
