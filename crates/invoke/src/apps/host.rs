//! The two loopback servers an app runs on: the host page (a random port, a secret in the path)
//! and the sandbox origin that serves the view under its CSP (another port: another origin, so
//! the view cannot reach the host page, its secret or tooldeck's endpoints).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

use super::AppError;
use super::bridge::{Bridge, MAX_PER_SECOND};
use super::load::View;
use super::start::HostStyle;
use crate::loopback::{Bound, LoopbackServer};

/// One message from the host page past this is refused (an app's arguments and results fit).
const MAX_MESSAGE: usize = 1024 * 1024;
/// How long the host page's poll waits for a message before asking again.
const POLL: Duration = Duration::from_secs(20);
const PAGE: &str = include_str!("host.html");

/// An app being hosted; dropping it stops both servers.
pub struct Hosted {
    /// The host page, to open in the browser (its secret is the only way in).
    pub url: String,
    /// The view's origin (`http://127.0.0.1:PORT`).
    pub sandbox_origin: String,
    /// The host page's server and the view's: dropping them stops both.
    _servers: [LoopbackServer; 2],
}

#[derive(Clone)]
struct Host {
    bridge: Arc<Bridge>,
    page: Arc<str>,
}

#[derive(Clone)]
struct Sandboxed {
    html: Arc<str>,
    policy: HeaderValue,
    permissions: HeaderValue,
}

fn secret() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Serves `view` for `bridge` on two fresh loopback ports, titled `title`, the host page in
/// `style`'s colours.
pub async fn serve(bridge: Arc<Bridge>, view: &View, title: &str, style: &HostStyle) -> Result<Hosted, AppError> {
    // Two origins: the view must not reach the host page's (the spec's sandbox proxy).
    let (host_port, sandbox_port) = (Bound::bind(0).await?, Bound::bind(0).await?);
    let (host_origin, sandbox_origin) = (host_port.url(), sandbox_port.url());
    let (host_secret, view_secret) = (secret(), secret());
    let view_url = format!("{sandbox_origin}/{view_secret}/view");
    let nonce = secret();
    let page = PAGE
        .replace("__TITLE__", &attribute(title))
        .replace("__ALLOW__", &attribute(&view.sandbox.allow))
        .replace("__VIEW_URL__", &view_url)
        .replace("__SANDBOX_ORIGIN__", &sandbox_origin)
        .replace("__MAX_PER_SECOND__", &MAX_PER_SECOND.to_string())
        .replace("__NONCE__", &nonce)
        .replace("__BACKGROUND__", &colour(style, "--color-background-primary", "#1e1e2e"))
        .replace("__TEXT__", &colour(style, "--color-text-primary", "#cdd6f4"));
    let page_policy = format!(
        "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; \
         frame-src {sandbox_origin}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    );
    let host = Host { bridge, page: Arc::from(page) };
    let host_router = Router::new()
        .route(&format!("/{host_secret}/"), get(host_page))
        .route(&format!("/{host_secret}/rpc"), post(rpc))
        .route(&format!("/{host_secret}/next"), get(next))
        .layer(DefaultBodyLimit::max(MAX_MESSAGE))
        .layer(axum::middleware::map_response(move |response: Response| {
            let policy = page_policy.clone();
            async move { guarded(response, &policy) }
        }))
        .with_state(host);
    let view_policy = format!("{}; frame-ancestors {host_origin}", view.sandbox.policy);
    let sandboxed = Sandboxed {
        html: Arc::from(view.html.as_str()),
        policy: header_value(&view_policy),
        permissions: header_value(&permissions_policy(&view.sandbox.allow)),
    };
    let sandbox_router = Router::new().route(&format!("/{view_secret}/view"), get(view_page)).with_state(sandboxed);
    let servers = [host_port.serve(host_router), sandbox_port.serve(sandbox_router)];
    Ok(Hosted { url: format!("{host_origin}/{host_secret}/"), sandbox_origin, _servers: servers })
}

impl Hosted {
    /// Stops both servers, letting requests being answered finish (briefly), and waits for them.
    pub async fn shutdown(self) {
        let [host, sandbox] = self._servers;
        tokio::join!(host.shutdown(), sandbox.shutdown());
    }
}

/// A colour of `style` for the host page's own CSS: only `#` and hex digits get in.
fn colour(style: &HostStyle, name: &str, fallback: &str) -> String {
    let value = style.get(name).unwrap_or(fallback);
    let plain = value.len() <= 9 && value.starts_with('#') && value[1..].chars().all(|c| c.is_ascii_hexdigit());
    if plain { value.to_string() } else { fallback.to_string() }
}

/// Every answer of the host server: its own CSP, never cached, never sniffed.
fn guarded(mut response: Response, policy: &str) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, header_value(policy));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// A header value from text tooldeck built (the policy's origins were checked); an impossible
/// one becomes the strictest policy rather than a panic.
fn header_value(text: &str) -> HeaderValue {
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'"))
}

/// `camera; microphone` (the frame's `allow`) as a Permissions-Policy header: those for the
/// view's own origin, every other powerful feature off.
fn permissions_policy(allow: &str) -> String {
    ["camera", "microphone", "geolocation", "clipboard-write"]
        .iter()
        .map(|feature| match allow.split("; ").any(|a| a == *feature) {
            true => format!("{feature}=(self)"),
            false => format!("{feature}=()"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text for an HTML attribute or element.
fn attribute(text: &str) -> String {
    let visible = crate::text::visible(text);
    let mut out = String::with_capacity(visible.len());
    for c in visible.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

async fn host_page(State(host): State<Host>) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], host.page.to_string()).into_response()
}

async fn rpc(State(host): State<Host>, body: Bytes) -> Response {
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        host.bridge.say(super::AppEvent::Malformed { why: "a message that is not JSON".into() });
        return StatusCode::BAD_REQUEST.into_response();
    };
    match host.bridge.handle(message).await {
        Some(reply) => Json(reply).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

async fn next(State(host): State<Host>) -> Response {
    Json(host.bridge.next(POLL).await).into_response()
}

async fn view_page(State(view): State<Sandboxed>) -> Response {
    let mut response = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], view.html.to_string()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, view.policy);
    headers.insert("permissions-policy", view.permissions);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}
