//! The redirect back from the browser: a listener on 127.0.0.1 that takes one request (state
//! checked) and closes, or a redirected URL the person pastes (`--no-browser`).

use std::collections::HashMap;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::AuthError;

/// The request line and headers of the redirect are read this far.
const MAX_REQUEST: usize = 16 * 1024;
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

pub struct Listener {
    listener: TcpListener,
    pub redirect_uri: String,
}

impl Listener {
    /// Binds 127.0.0.1 on `port` (0: any free port). The redirect URI names 127.0.0.1, not
    /// `localhost`, so it matches what the listener is bound to whatever the resolver says.
    pub async fn bind(port: u16) -> Result<Listener, AuthError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| AuthError::Redirect(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
        let port = listener.local_addr().map_err(|e| AuthError::Redirect(e.to_string()))?.port();
        Ok(Listener { listener, redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}") })
    }

    /// Waits for the redirect carrying `state`; requests for other paths (a favicon) are answered
    /// 404 and waited past, a wrong `state` ends the wait with an error.
    pub async fn accept(self, state: &str, timeout: Duration) -> Result<Redirected, AuthError> {
        let wait = async {
            loop {
                let (mut socket, _) = self
                    .listener
                    .accept()
                    .await
                    .map_err(|e| AuthError::Redirect(format!("the listener failed: {e}")))?;
                let Some(target) = read_target(&mut socket).await else { continue };
                if !target.starts_with(CALLBACK_PATH) {
                    let _ = socket
                        .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .await;
                    continue;
                }
                let redirected = Redirected::from_url(&target);
                let good = redirected.get("state") == Some(state);
                let page = if good && redirected.get("code").is_some() {
                    "Signed in: you can close this tab and go back to tooldeck."
                } else {
                    "tooldeck could not use this sign-in; the terminal says why."
                };
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
                let _ = socket.shutdown().await;
                return Ok(redirected);
            }
        };
        tokio::time::timeout(timeout, wait).await.map_err(|_| AuthError::TimedOut(timeout.as_secs()))?
    }
}

/// The request target of one HTTP request (`/callback?code=…`), read with a bound.
async fn read_target(socket: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 2048];
    let read = async {
        while !buffer.windows(4).any(|w| w == b"\r\n\r\n") && buffer.len() < MAX_REQUEST {
            let n = socket.read(&mut chunk).await.ok()?;
            if n == 0 {
                break;
            }
            buffer.extend_from_slice(&chunk[..n]);
        }
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), read).await.ok()??;
    let text = String::from_utf8_lossy(&buffer);
    let line = text.lines().next()?;
    let mut parts = line.split(' ');
    (parts.next()? == "GET").then_some(())?;
    parts.next().map(str::to_string)
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
        let task = tokio::spawn(async move { listener.accept("S", Duration::from_secs(5)).await });
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
        let error = listener.accept("S", Duration::from_millis(50)).await.unwrap_err();
        assert!(matches!(error, AuthError::TimedOut(_)), "{error}");
    }
}
