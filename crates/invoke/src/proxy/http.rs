//! The Streamable HTTP proxy: each request the client sends to `--listen` goes to the server as it
//! came (method, headers but hop-by-hop ones, body), and the answer comes back as it went (status,
//! headers, the body streamed: SSE events pass one by one with their ids and `retry`; 202s, GET
//! streams, DELETE, 401 with `WWW-Authenticate` and redirects unchanged). The tap sees the
//! request's body and each JSON answer or SSE event, beside the stream, never in its way.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::StreamExt;

use super::intercept::Interceptor;
use super::intercept::over_http::{Judging, Outcome};
use super::seen::Seen;
use super::{Keep, ProxyError};
use crate::loopback::{Bound, Reach};
use crate::wire::{HttpDetails, Side, Tap, TapHandle};

/// Where the HTTP proxy passes requests.
#[derive(Debug, Clone)]
pub enum Target {
    Url(String),
    Named(String),
    Command(Vec<String>),
}

/// The most of a request body read (they are JSON-RPC messages).
const MAX_REQUEST: usize = 64 * 1024 * 1024;

/// Headers of one connection only (RFC 9110 §7.6.1), never passed on; and those the HTTP client
/// sets itself.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

struct Shared {
    upstream: String,
    client: reqwest::Client,
    tap: TapHandle,
    interceptor: Arc<Interceptor>,
}

/// Runs the proxy on `listen` until SIGINT or SIGTERM.
pub fn run(listen: &str, target: Target, keep: &Keep) -> Result<u8, ProxyError> {
    let upstream = match target {
        Target::Url(url) => url,
        Target::Named(name) => {
            let options = crate::invoke::endpoint::EndpointOptions { server: Some(name), ..Default::default() };
            let resolved = options.resolve()?;
            match resolved.mcp_url {
                Some(url) => url,
                None => return Err(ProxyError::NotHttp),
            }
        }
        Target::Command(command) => return super::listen::run(listen, &command, keep),
    };
    let warn = super::warner(keep.name.as_deref());
    let options = crate::invoke::endpoint::EndpointOptions { mcp_url: Some(upstream.clone()), ..Default::default() };
    let case_server = crate::cases::server_keys::case_server(&options, &[]).keys;
    let holds = Arc::new(super::intercept::Holds::default());
    let tap = Tap::spawn(super::sinks(keep, case_server, &warn, &holds), warn);
    let interceptor = super::interceptor(keep, holds, tap.handle());
    let client = crate::invoke::http::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ProxyError::Runtime(std::io::Error::other(e)))?;
    let shared = Arc::new(Shared { upstream, client, tap: tap.handle(), interceptor });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ProxyError::Runtime)?;
    let served = runtime.block_on(serve(listen, shared, keep.name.as_deref()));
    tap.finish();
    served.map(|()| 0)
}

/// Binds `listen` and says so on stderr: `listening on http://ADDR/mcp, {what} (Ctrl-C stops it)`.
/// An address others can reach is said to be one: the proxy then answers any `Host` (only a
/// browser's foreign `Origin` is refused), so whoever reaches the address reaches the server.
pub(super) async fn listen_on(listen: &str, name: Option<&str>, what: &str) -> Result<Bound, ProxyError> {
    let bound =
        Bound::bind_named(listen).await.map_err(|source| ProxyError::Listen { addr: listen.to_string(), source })?;
    let warn = super::warner(name);
    let addr = bound.addr();
    warn(&format!("listening on http://{addr}/mcp, {what} (Ctrl-C stops it)"));
    if Reach::of(addr) == Reach::Network {
        warn(&format!("{} is not a loopback address: anyone who can reach it can use the server", addr.ip()));
    }
    Ok(bound)
}

async fn serve(listen: &str, shared: Arc<Shared>, name: Option<&str>) -> Result<(), ProxyError> {
    let passing = format!("passing to {}", crate::redact::url(&shared.upstream));
    let bound = listen_on(listen, name, &passing).await?;
    let router = axum::Router::new().fallback(pass).with_state(shared);
    let mut signals = crate::signals::StopSignals::new().map_err(ProxyError::Runtime)?;
    let stopped = async move {
        signals.recv().await;
    };
    bound
        .serve(router)
        .run_until(stopped)
        .await
        .map_err(|source| ProxyError::Listen { addr: listen.to_string(), source })
}

pub(super) fn kept_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| !HOP_BY_HOP.contains(&name.as_str()))
        .map(|(name, value)| (name.to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect()
}

/// A request the proxy answers itself (no session, a body that is not JSON, a server that
/// cannot be started or reached): recorded as the answer, so the record says why the client's
/// message went unanswered.
pub(super) fn answer_recorded(tap: &TapHandle, status: StatusCode, content_type: &str, body: String) -> Response {
    let headers = vec![(header::CONTENT_TYPE.to_string(), content_type.to_string())];
    let details = HttpDetails { method: None, path: None, status: Some(status.as_u16()), headers };
    tap.send(Side::Server, Bytes::from(body.clone()), Some(details));
    (status, [(header::CONTENT_TYPE, content_type.to_string())], body).into_response()
}

pub(super) fn refuse_recorded(tap: &TapHandle, status: StatusCode, why: &str) -> Response {
    answer_recorded(tap, status, "text/plain; charset=utf-8", format!("tooldeck proxy: {why}"))
}

/// One request passed on, its answer passed back.
async fn pass(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_REQUEST).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "tooldeck proxy: the request body is too large").into_response();
    };
    let headers = kept_headers(&parts.headers);
    let path = parts.uri.path_and_query().map(|p| p.as_str().to_string());
    let details = HttpDetails { method: Some(parts.method.to_string()), path, status: None, headers: headers.clone() };
    let judging = shared.interceptor.armed().then(|| Judging {
        interceptor: Arc::clone(&shared.interceptor),
        conversation: Arc::default(),
        tap: shared.tap.clone(),
    });
    let body = match &judging {
        Some(judging) if !body.is_empty() => match judging.judge(Side::Client, body, Some(&details)).await {
            Outcome::Forward(body) => body,
            Outcome::Answer(answer) => {
                return ([(header::CONTENT_TYPE, "application/json")], answer).into_response();
            }
            Outcome::Nothing => return StatusCode::ACCEPTED.into_response(),
        },
        _ => {
            shared.tap.send(Side::Client, body.clone(), Some(details));
            body
        }
    };
    let mut upstream = shared.client.request(parts.method.clone(), &shared.upstream).body(body);
    for (name, value) in parts.headers.iter().filter(|(name, _)| !HOP_BY_HOP.contains(&name.as_str())) {
        upstream = upstream.header(name, value);
    }
    let answer = match upstream.send().await {
        Ok(answer) => answer,
        Err(e) => {
            let why = format!("the server cannot be reached: {e}");
            return refuse_recorded(&shared.tap, StatusCode::BAD_GATEWAY, &crate::redact::urls_in(&why));
        }
    };
    let status = answer.status();
    let mut response = Response::builder().status(status.as_u16());
    for (name, value) in answer.headers().iter().filter(|(name, _)| !HOP_BY_HOP.contains(&name.as_str())) {
        response = response.header(name, value);
    }
    let details = HttpDetails {
        method: None,
        path: None,
        status: Some(status.as_u16()),
        headers: kept_headers(answer.headers()),
    };
    let events = answer
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if let Some(judging) = judging {
        let judged = judging.body(answer.bytes_stream(), events, details);
        return response.body(Body::from_stream(judged)).unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response());
    }
    let mut seen = Seen::new(shared.tap.clone(), details, events, super::pump::MAX_KEPT);
    let stream = answer.bytes_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            seen.feed(bytes);
        }
        chunk
    });
    response.body(Body::from_stream(stream)).unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

// The intercept's judging (`intercept::over_http`) reads events with these two: it passes on each
// event's own bytes (or rewrites its data), which `sse-stream` does not give back. The tap's view
// of a stream (`super::seen`) reads it with `sse-stream`.

/// The end of the first event in `buffer`: (where its text ends, where the next begins).
pub(super) fn find_blank_line(buffer: &[u8]) -> Option<(usize, usize)> {
    let lf = memchr::memmem::find(buffer, b"\n\n").map(|at| (at, at + 2));
    let crlf = memchr::memmem::find(buffer, b"\r\n\r\n").map(|at| (at, at + 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}
