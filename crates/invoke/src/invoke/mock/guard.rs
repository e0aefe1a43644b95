//! The demo server answers only this machine's own clients: the rule of every loopback server
//! (`crate::loopback::guard`: a loopback `Host`, a loopback `Origin`), and a POST must say it is
//! JSON (which a page cannot send without asking first, as `text/plain` can).

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
    // Host and Origin: the rule of every loopback server, said as the demo server's.
    if let Some(why) = crate::loopback::refusal(headers) {
        let said = match why.contains("origins") {
            true => "the demo server refuses requests from other origins",
            false => "the demo server answers only Host 127.0.0.1, localhost or [::1]",
        };
        return Some((StatusCode::FORBIDDEN, said));
    }
    if method == Method::POST {
        let text = |name| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
        let json = text(header::CONTENT_TYPE)
            .and_then(|ct| ct.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Some((StatusCode::UNSUPPORTED_MEDIA_TYPE, "a POST to the demo server must be application/json"));
        }
    }
    None
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
