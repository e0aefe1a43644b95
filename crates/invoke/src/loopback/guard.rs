//! A server on 127.0.0.1 answers only this machine's own clients. Binding 127.0.0.1 is not
//! enough: a web page can reach it through a DNS name that resolves to 127.0.0.1 (DNS
//! rebinding) or send to it from another origin. So the `Host` must be a loopback name, and a
//! browser's `Origin`, when it says one, a loopback origin.

use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The middleware for a loopback server's router: a request from elsewhere gets 403 and why.
pub async fn local_only(request: Request, next: Next) -> Response {
    match refusal(request.headers()) {
        Some(why) => (StatusCode::FORBIDDEN, why).into_response(),
        None => next.run(request).await,
    }
}

/// Why a request with these headers did not come from this machine's own client, if it did not.
pub fn refusal(headers: &HeaderMap) -> Option<&'static str> {
    let text = |name| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    if !text(header::HOST).is_some_and(is_loopback_host) {
        return Some("this server answers only Host 127.0.0.1, localhost or [::1]");
    }
    if let Some(origin) = text(header::ORIGIN) {
        let host = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
        if !host.is_some_and(is_loopback_host) {
            return Some("this server refuses requests from other origins");
        }
    }
    None
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
            assert_eq!(refusal(&headers(&[(header::HOST, host)])), None, "{host}");
        }
        for host in ["evil.example:8765", "127.0.0.1.evil.example", "localhost.evil", "[::2]:1"] {
            assert!(refusal(&headers(&[(header::HOST, host)])).is_some(), "{host}");
        }
        assert!(refusal(&HeaderMap::new()).is_some(), "no Host");
        let foreign = headers(&[(header::HOST, "127.0.0.1:8765"), (header::ORIGIN, "https://evil.example")]);
        assert!(refusal(&foreign).is_some());
        let same = headers(&[(header::HOST, "127.0.0.1:8765"), (header::ORIGIN, "http://localhost:3000")]);
        assert_eq!(refusal(&same), None);
    }
}
