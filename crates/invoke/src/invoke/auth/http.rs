//! The one HTTP client OAuth requests go through: no redirect followed (an authorization server
//! that moves is followed by discovery, not by the client), bounded answers, and each request
//! written to the [`AuthLog`] and to the session's traffic log ([`Tracer`]) with its secrets
//! masked.

use futures_util::StreamExt;
use serde_json::Value;

use super::trace::{Received, Sent, Tracer, header_pairs};
use super::{AuthError, AuthLog, REQUEST_TIMEOUT, StepKind, transport};

/// An answer's body is read this far; metadata and token answers are a few kilobytes.
const MAX_ANSWER: usize = 1 << 20;

/// The reqwest client for OAuth: redirects are not followed (an authorization code or token must
/// never be carried to another origin). Kept in one function so a shared redirect policy can
/// take its place.
pub fn oauth_client() -> reqwest::Client {
    client_with_timeout(REQUEST_TIMEOUT)
}

fn client_with_timeout(timeout: std::time::Duration) -> reqwest::Client {
    crate::invoke::http::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .build()
        .unwrap_or_default()
}

/// An answer: its status, content type and (bounded) body.
#[derive(Debug, Clone)]
pub struct AuthResponse {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl AuthResponse {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as JSON, or why not (an HTML page, say) for `step` at `url`. The body itself is
    /// never quoted: an answer that is almost JSON (a trailing comma) still holds the tokens.
    pub fn json(&self, step: &'static str, url: &str) -> Result<Value, AuthError> {
        serde_json::from_slice(&self.body).map_err(|e| AuthError::BadAnswer {
            step,
            url: crate::redact::oauth_url(url),
            reason: format!("not JSON ({}; {e})", self.described()),
        })
    }

    /// The answer by its content type and size, for messages that must not quote it.
    pub fn described(&self) -> String {
        let kind = if self.content_type.is_empty() { "no content type" } else { &self.content_type };
        format!("{}, {}", crate::text::visible(kind), crate::text::size::human_bytes(self.body.len() as u64))
    }

    /// `error` and `error_description` of an OAuth error answer; else the JSON with its secret
    /// fields masked (`crate::redact`), or what the answer is when it is not JSON. Never the raw
    /// body, which may hold tokens.
    pub fn error_detail(&self) -> String {
        let Ok(value) = serde_json::from_slice::<Value>(&self.body) else {
            return format!("an answer that is not JSON ({})", self.described());
        };
        let field = |name: &str| value.get(name).and_then(Value::as_str).map(|s| crate::text::visible(s).into_owned());
        match (field("error"), field("error_description")) {
            (Some(error), Some(description)) => format!("{error}: {description}"),
            (Some(error), None) => error,
            _ => masked_start(&value),
        }
    }
}

/// The start of a JSON answer with its secret fields masked, made safe to print.
fn masked_start(value: &Value) -> String {
    let text = crate::redact::json_body(value).to_string();
    let cut = (0..=text.len().min(200)).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    let more = if cut < text.len() { "…" } else { "" };
    format!("{}{more}", crate::text::visible(&text[..cut]))
}

#[derive(Clone)]
pub struct OAuthHttp {
    client: reqwest::Client,
    pub log: AuthLog,
    pub tracer: Tracer,
    timeout: std::time::Duration,
    /// The MCP server signed in to, which decides whether plain http may be used
    /// ([`transport::allowed`]); none: https only.
    server: Option<url::Url>,
}

impl OAuthHttp {
    pub fn new(log: AuthLog) -> OAuthHttp {
        OAuthHttp { client: oauth_client(), log, tracer: Tracer::default(), timeout: REQUEST_TIMEOUT, server: None }
    }

    /// The same client (log and traffic shared) signing in for the MCP server at `server`.
    pub fn for_server(&self, server: Option<&url::Url>) -> OAuthHttp {
        OAuthHttp { server: server.cloned(), ..self.clone() }
    }

    /// Whether `step` may talk to `url` ([`transport::allowed`], the one rule); a refusal is
    /// said once, by the error that ends the sign-in: the step, the endpoint (masked) and the rule.
    pub fn check(&self, step: &'static str, url: &str) -> Result<(), AuthError> {
        transport::allowed(self.server.as_ref(), url).map_err(|refusal| AuthError::Insecure {
            step,
            url: crate::invoke::browser::shown(url),
            rule: refusal.rule(),
        })
    }

    /// The same client giving up on an answer after `timeout` instead of [`REQUEST_TIMEOUT`].
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> OAuthHttp {
        self.client = client_with_timeout(timeout);
        self.timeout = timeout;
        self
    }

    pub async fn get(
        &self,
        step: &'static str,
        url: &str,
        headers: &[(&str, &str)],
    ) -> Result<AuthResponse, AuthError> {
        let mut request = self.client.get(url).header("accept", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(step, "GET", url, request).await
    }

    /// A form POST (token requests); `basic` authenticates the client with HTTP Basic.
    pub async fn post_form(
        &self,
        step: &'static str,
        url: &str,
        form: &[(&str, String)],
        basic: Option<(&str, &str)>,
    ) -> Result<AuthResponse, AuthError> {
        let body = serde_urlencoded_pairs(form);
        let mut request = self
            .client
            .post(url)
            .header("accept", "application/json")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        if let Some((id, secret)) = basic {
            // RFC 6749 §2.3.1: both parts form-encoded before the Basic encoding.
            request = request.basic_auth(form_encode(id), Some(form_encode(secret)));
        }
        self.send(step, "POST", url, request).await
    }

    pub async fn post_json(&self, step: &'static str, url: &str, body: &Value) -> Result<AuthResponse, AuthError> {
        let request = self.client.post(url).header("accept", "application/json").json(body);
        self.send(step, "POST", url, request).await
    }

    async fn send(
        &self,
        step: &'static str,
        method: &str,
        url: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<AuthResponse, AuthError> {
        // Before the request is even built: nothing at all goes to an endpoint the rule refuses.
        self.check(step, url)?;
        let shown = crate::redact::oauth_url(url);
        let unreachable = |reason: String| {
            self.log.push(StepKind::Failed, format!("{step}: {method} {shown} → {reason}"));
            AuthError::Unreachable { step, url: shown.clone(), reason }
        };
        let request = request.build().map_err(|e| unreachable(error_chain(&e)))?;
        let sent = Sent::of(&request);
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(e) => {
                let reason = if e.is_timeout() {
                    format!("no answer within {} s", self.timeout.as_secs_f32())
                } else {
                    error_chain(&e)
                };
                self.tracer.request(step, &sent, Err(&reason));
                return Err(unreachable(reason));
            }
        };
        let status = response.status().as_u16();
        let headers = header_pairs(response.headers());
        let content_type =
            response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(crate::redact::oauth_url);
        let body = read_bounded(response).await;
        self.tracer.request(step, &sent, Ok(Received { status, headers, body: &body }));
        let moved = location.map(|l| format!(", Location: {l}")).unwrap_or_default();
        let kind = if (200..300).contains(&status) { StepKind::Request } else { StepKind::Skipped };
        self.log.push(kind, format!("{step}: {method} {shown} → HTTP {status}{moved} ({} bytes)", body.len()));
        Ok(AuthResponse { status, content_type, body })
    }
}

/// reqwest's message and its causes (its own is terse).
fn error_chain(error: &reqwest::Error) -> String {
    let mut reason = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        reason.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    reason
}

async fn read_bounded(response: reqwest::Response) -> Vec<u8> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = MAX_ANSWER.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if chunk.len() > room {
            break;
        }
    }
    body
}

pub fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn serde_urlencoded_pairs(form: &[(&str, String)]) -> String {
    let mut serializer = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in form {
        serializer.append_pair(name, value);
    }
    serializer.finish()
}
