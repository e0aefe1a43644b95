//! A server on this machine answers only this machine's own clients. Binding 127.0.0.1 is not
//! enough: a web page can reach it through a DNS name that resolves to 127.0.0.1 (DNS
//! rebinding) or send to it from another origin. So the `Host` must be a loopback name, and a
//! browser's `Origin`, when it says one, a loopback origin. Every HTTP server tooldeck runs
//! passes each request through [`check`] first ([`super::LoopbackServer`] puts it in front).

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Where a server was bound, which decides the `Host` names it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// A loopback address (127.0.0.1, [::1]): only loopback names (`127.0.0.1`, `localhost`,
    /// `[::1]`), only loopback origins.
    Loopback,
    /// An address others can reach (`proxy --listen 0.0.0.0:8800`, asked for by name): any
    /// `Host` (the names others use for this machine cannot be known), but a browser's `Origin`
    /// must be a loopback one or the server's own (the `Host` the request names).
    Network,
}

impl Reach {
    /// The reach of a server bound to `addr`.
    pub fn of(addr: std::net::SocketAddr) -> Reach {
        // Canonical first: `[::ffff:127.0.0.1]` is loopback too.
        if addr.ip().to_canonical().is_loopback() { Reach::Loopback } else { Reach::Network }
    }
}

/// Why a request was refused: it did not come from this machine's own client, as far as its
/// headers tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No `Host` header (or one that is not text): HTTP/1.1 requires one.
    #[error("this server answers only requests that name their Host")]
    NoHost,
    /// A `Host` that is not a loopback name: a page reaching 127.0.0.1 through a name of its own.
    #[error("this server answers only Host 127.0.0.1, localhost or [::1]")]
    ForeignHost,
    /// An `Origin` that is neither a loopback origin nor the server's own: a page of another site.
    #[error("this server refuses requests from other origins")]
    ForeignOrigin,
}

/// How a server answers a refused request: plain text by default ([`plain_refusal`]), or in
/// the server's own error format (the demo server's JSON).
pub type Answer = fn(Refusal) -> Response;

/// 403 with the refusal as plain text.
pub fn plain_refusal(refusal: Refusal) -> Response {
    (StatusCode::FORBIDDEN, refusal.to_string()).into_response()
}

/// The guard in front of a server: its reach and how it answers a refusal.
#[derive(Clone, Copy)]
pub struct Guard {
    pub reach: Reach,
    pub answer: Answer,
}

/// The middleware [`super::LoopbackServer`] puts in front of every router.
pub async fn guard(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    match check(request.headers(), guard.reach) {
        Err(refusal) => (guard.answer)(refusal),
        Ok(()) => next.run(request).await,
    }
}

/// Whether a request with these headers may be answered by a server of this reach: the one rule
/// every server tooldeck runs applies.
pub fn check(headers: &HeaderMap, reach: Reach) -> Result<(), Refusal> {
    let host = match headers.get(header::HOST).map(|v| v.to_str()) {
        Some(Ok(host)) => host,
        _ => return Err(Refusal::NoHost),
    };
    if reach == Reach::Loopback && !is_loopback_host(host) {
        return Err(Refusal::ForeignHost);
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().map_err(|_| Refusal::ForeignOrigin)?;
        let authority = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
        let ours = authority.is_some_and(|authority| {
            is_loopback_host(authority) || (reach == Reach::Network && authority.eq_ignore_ascii_case(host))
        });
        if !ours {
            return Err(Refusal::ForeignOrigin);
        }
    }
    Ok(())
}

/// `127.0.0.1`, `localhost` or `[::1]`, with or without a port.
pub fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or(rest, |(inside, _)| inside),
        None => {
            host.rsplit_once(':').map_or(host, |(name, port)| if port.parse::<u16>().is_ok() { name } else { host })
        }
    };
    matches!(name.to_ascii_lowercase().as_str(), "127.0.0.1" | "localhost" | "::1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        pairs.iter().map(|(k, v)| (k.clone(), v.parse().unwrap())).collect()
    }

    #[test]
    fn only_loopback_hosts_and_origins() {
        for host in ["localhost", "LOCALHOST:1", "[::1]:8765", "127.0.0.1", "127.0.0.1:8765"] {
            assert_eq!(check(&headers(&[(header::HOST, host)]), Reach::Loopback), Ok(()), "{host}");
        }
        for host in ["evil.example:8765", "127.0.0.1.evil.example", "localhost.evil", "[::2]:1"] {
            assert_eq!(check(&headers(&[(header::HOST, host)]), Reach::Loopback), Err(Refusal::ForeignHost), "{host}");
        }
        assert_eq!(check(&HeaderMap::new(), Reach::Loopback), Err(Refusal::NoHost));
        let foreign = headers(&[(header::HOST, "127.0.0.1:8765"), (header::ORIGIN, "https://evil.example")]);
        assert_eq!(check(&foreign, Reach::Loopback), Err(Refusal::ForeignOrigin));
        let same = headers(&[(header::HOST, "127.0.0.1:8765"), (header::ORIGIN, "http://localhost:3000")]);
        assert_eq!(check(&same, Reach::Loopback), Ok(()));
        let opaque = headers(&[(header::HOST, "127.0.0.1:8765"), (header::ORIGIN, "null")]);
        assert_eq!(check(&opaque, Reach::Loopback), Err(Refusal::ForeignOrigin), "a sandboxed page's origin");
    }

    #[test]
    fn on_the_network_any_host_but_only_its_own_or_loopback_origins() {
        let named = headers(&[(header::HOST, "devbox.lan:8800")]);
        assert_eq!(check(&named, Reach::Network), Ok(()));
        let own = headers(&[(header::HOST, "devbox.lan:8800"), (header::ORIGIN, "http://DEVBOX.lan:8800")]);
        assert_eq!(check(&own, Reach::Network), Ok(()));
        let local = headers(&[(header::HOST, "10.0.0.5:8800"), (header::ORIGIN, "http://localhost:3000")]);
        assert_eq!(check(&local, Reach::Network), Ok(()));
        let foreign = headers(&[(header::HOST, "devbox.lan:8800"), (header::ORIGIN, "https://evil.example")]);
        assert_eq!(check(&foreign, Reach::Network), Err(Refusal::ForeignOrigin));
        let other_port = headers(&[(header::HOST, "devbox.lan:8800"), (header::ORIGIN, "http://devbox.lan:9000")]);
        assert_eq!(check(&other_port, Reach::Network), Err(Refusal::ForeignOrigin));
        assert_eq!(check(&HeaderMap::new(), Reach::Network), Err(Refusal::NoHost));
    }

    #[test]
    fn the_reach_follows_the_address() {
        assert_eq!(Reach::of("127.0.0.1:1".parse().unwrap()), Reach::Loopback);
        assert_eq!(Reach::of("[::1]:1".parse().unwrap()), Reach::Loopback);
        assert_eq!(Reach::of("[::ffff:127.0.0.1]:1".parse().unwrap()), Reach::Loopback);
        assert_eq!(Reach::of("0.0.0.0:1".parse().unwrap()), Reach::Network);
        assert_eq!(Reach::of("192.168.1.4:1".parse().unwrap()), Reach::Network);
    }
}
