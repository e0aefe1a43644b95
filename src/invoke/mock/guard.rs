//! The demo server answers only this machine's own clients. Binding 127.0.0.1 is not enough: a
//! web page can reach it through a DNS name that resolves to 127.0.0.1 (DNS rebinding) or post
//! to it from another origin. So the `Host` must be a loopback name, a browser's `Origin` must be
//! a loopback origin, and a POST must say it is JSON (which a page cannot send without asking
//! first, as `text/plain` can).

use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

pub async fn local_only(request: Request, next: Next) -> Response {
    match refusal(request.method(), request.headers()) {
        Some((status, why)) => super::error_json(status, why, None),
        None => next.run(request).await,
    }
}

fn refusal(method: &Method, headers: &HeaderMap) -> Option<(StatusCode, &'static str)> {
    let text = |name| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    if !text(header::HOST).is_some_and(is_loopback) {
        return Some((StatusCode::FORBIDDEN, "the demo server answers only Host 127.0.0.1, localhost or [::1]"));
    }
    if let Some(origin) = text(header::ORIGIN) {
        let host = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
        if !host.is_some_and(is_loopback) {
            return Some((StatusCode::FORBIDDEN, "the demo server refuses requests from other origins"));
        }
    }
    if method == Method::POST {
        let json = text(header::CONTENT_TYPE)
            .and_then(|ct| ct.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Some((StatusCode::UNSUPPORTED_MEDIA_TYPE, "a POST to the demo server must be application/json"));
        }
    }
    None
}

/// `127.0.0.1`, `localhost` or `[::1]`, with or without a port.
fn is_loopback(host: &str) -> bool {
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
    fn only_loopback_hosts_and_origins_and_json_posts() {
        let local = headers(&[(header::HOST, "127.0.0.1:8765"), (header::CONTENT_TYPE, "application/json")]);
        assert_eq!(refusal(&Method::POST, &local), None);
        for host in ["localhost", "LOCALHOST:1", "[::1]:8765", "127.0.0.1"] {
            assert_eq!(refusal(&Method::GET, &headers(&[(header::HOST, host)])), None, "{host}");
        }
        for host in ["evil.example:8765", "127.0.0.1.evil.example", "localhost.evil", "[::2]:1"] {
            assert!(refusal(&Method::GET, &headers(&[(header::HOST, host)])).is_some(), "{host}");
        }
        assert!(refusal(&Method::GET, &HeaderMap::new()).is_some(), "no Host");
        let foreign = headers(&[(header::HOST, "127.0.0.1:8765"), (header::ORIGIN, "https://evil.example")]);
        assert!(refusal(&Method::GET, &foreign).is_some());
        let same = headers(&[(header::HOST, "127.0.0.1:8765"), (header::ORIGIN, "http://localhost:3000")]);
        assert_eq!(refusal(&Method::GET, &same), None);
        let plain = headers(&[(header::HOST, "127.0.0.1:8765"), (header::CONTENT_TYPE, "text/plain")]);
        assert_eq!(refusal(&Method::POST, &plain).map(|r| r.0), Some(StatusCode::UNSUPPORTED_MEDIA_TYPE));
    }
}
