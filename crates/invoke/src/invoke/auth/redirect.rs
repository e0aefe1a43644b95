//! The redirect back from the browser: a listener on 127.0.0.1 that takes one request (state
//! checked) and closes, or a redirected URL the person pastes (`--no-browser`).

use std::collections::HashMap;
use std::time::Duration;

use axum::extract::RawQuery;
use axum::http::StatusCode;
use axum::routing::get;
use tokio::sync::mpsc;

use super::AuthError;
use crate::loopback::LoopbackServer;
pub const CALLBACK_PATH: &str = "/callback";

/// The query of the redirect: `code`, `state`, `iss`, or `error`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redirected {
    pub params: HashMap<String, String>,
}

impl Redirected {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }

    /// The query of a URL (or of a bare `?code=…&state=…`, or of the path alone).
    pub fn from_url(text: &str) -> Redirected {
        let query = text.trim().split_once('?').map_or("", |(_, q)| q);
        let query = query.split('#').next().unwrap_or_default();
        Redirected { params: url::form_urlencoded::parse(query.as_bytes()).into_owned().collect() }
    }
}

/// The loopback server the browser is sent back to, and what it received.
pub struct Listener {
    server: LoopbackServer,
    received: mpsc::Receiver<Redirected>,
    pub redirect_uri: String,
}

impl Listener {
    /// Serves 127.0.0.1 on `port` (0: any free port). The redirect URI names 127.0.0.1, not
    /// `localhost`, so it matches what the listener is bound to whatever the resolver says.
    pub async fn bind(port: u16) -> Result<Listener, AuthError> {
        // Bounded: a page reloaded many times is dropped past the first few.
        let (sender, received) = mpsc::channel(4);
        let router = axum::Router::new()
            .route(CALLBACK_PATH, get(move |RawQuery(query): RawQuery| came_back(query, sender.clone())))
            .fallback(|| async { StatusCode::NOT_FOUND });
        let server = LoopbackServer::start(router, port)
            .await
            .map_err(|e| AuthError::Redirect(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
        let redirect_uri = format!("{}{CALLBACK_PATH}", server.url());
        Ok(Listener { server, received, redirect_uri })
    }

    /// Waits for the browser to come back (requests for other paths, a favicon, are answered
    /// 404): the first redirect ends the wait, and the caller checks its `state`.
    pub async fn accept(mut self, timeout: Duration) -> Result<Redirected, AuthError> {
        let wait = async {
            let redirected = self.received.recv().await;
            redirected.ok_or_else(|| AuthError::Redirect("the listener stopped".into()))
        };
        let redirected =
            tokio::time::timeout(timeout, wait).await.map_err(|_| AuthError::TimedOut(timeout.as_secs()))?;
        // The page has been answered; the listener stops with it.
        self.server.shutdown().await;
        redirected
    }
}

/// The browser came back to the callback with `query`: the person reads whether it worked in the
/// terminal, and the page says so.
async fn came_back(query: Option<String>, to: mpsc::Sender<Redirected>) -> &'static str {
    let redirected = Redirected::from_url(&format!("?{}", query.unwrap_or_default()));
    let page = if redirected.get("code").is_some() {
        "Signed in: you can close this tab and go back to tooldeck."
    } else {
        "tooldeck could not use this sign-in; the terminal says why."
    };
    let _ = to.try_send(redirected);
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_url_gives_its_query() {
        let r = Redirected::from_url(" http://127.0.0.1:5/callback?code=a%20b&state=s&iss=https%3A%2F%2Fx#frag\n");
        assert_eq!((r.get("code"), r.get("state"), r.get("iss")), (Some("a b"), Some("s"), Some("https://x")));
        assert_eq!(Redirected::from_url("nothing").params.len(), 0);
    }

    #[tokio::test]
    async fn the_listener_takes_the_redirect_and_skips_other_paths() {
        let listener = Listener::bind(0).await.unwrap();
        let uri = listener.redirect_uri.clone();
        let base = uri.trim_end_matches(CALLBACK_PATH).to_string();
        let task = tokio::spawn(async move { listener.accept(Duration::from_secs(5)).await });
        let client = crate::invoke::http::client_builder().build().unwrap();
        assert_eq!(client.get(format!("{base}/favicon.ico")).send().await.unwrap().status(), 404);
        let page = client.get(format!("{uri}?code=C&state=S")).send().await.unwrap().text().await.unwrap();
        assert!(page.contains("Signed in"), "{page}");
        let got = task.await.unwrap().unwrap();
        assert_eq!(got.get("code"), Some("C"));
    }

    #[tokio::test]
    async fn nobody_coming_back_times_out() {
        let listener = Listener::bind(0).await.unwrap();
        let error = listener.accept(Duration::from_millis(50)).await.unwrap_err();
        assert!(matches!(error, AuthError::TimedOut(_)), "{error}");
    }
}
