//! The demo server answers only this machine's own clients: the rule of every loopback server
//! (`crate::loopback::guard`: a loopback `Host`, a loopback `Origin`), said in the demo server's
//! JSON; and a POST must say it is JSON (which a page cannot send without asking first, as
//! `text/plain` can).

use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::loopback::Refusal;

/// The loopback guard's refusal as the demo server's error: 403 and why, in JSON.
pub fn refused(refusal: Refusal) -> Response {
    let said = match refusal {
        Refusal::NoHost | Refusal::ForeignHost => "the demo server answers only Host 127.0.0.1, localhost or [::1]",
        Refusal::ForeignOrigin => "the demo server refuses requests from other origins",
    };
    super::error_json(StatusCode::FORBIDDEN, said, None)
}

pub async fn json_posts_only(request: Request, next: Next) -> Response {
    match refusal(request.method(), request.headers()) {
        Some((status, why)) => super::error_json(status, why, None),
        None => next.run(request).await,
    }
}

fn refusal(method: &Method, headers: &HeaderMap) -> Option<(StatusCode, &'static str)> {
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
    fn posts_must_be_json() {
        let json = headers(&[(header::HOST, "127.0.0.1:8765"), (header::CONTENT_TYPE, "application/json")]);
        assert_eq!(refusal(&Method::POST, &json), None);
        assert_eq!(refusal(&Method::GET, &headers(&[(header::HOST, "127.0.0.1")])), None);
        let plain = headers(&[(header::HOST, "127.0.0.1:8765"), (header::CONTENT_TYPE, "text/plain")]);
        assert_eq!(refusal(&Method::POST, &plain).map(|r| r.0), Some(StatusCode::UNSUPPORTED_MEDIA_TYPE));
    }

    #[test]
    fn a_refusal_is_said_as_the_demo_servers_json() {
        assert_eq!(refused(Refusal::ForeignOrigin).status(), StatusCode::FORBIDDEN);
    }
}
