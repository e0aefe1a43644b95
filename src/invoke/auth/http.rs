//! The one HTTP client OAuth requests go through: no redirect followed (an authorization server
//! that moves is followed by discovery, not by the client), bounded answers, and each request
//! written to the [`AuthLog`] and to the session's traffic log ([`Tracer`]) with its secrets
//! masked.

use futures_util::StreamExt;
use serde_json::Value;

use super::trace::{Received, Sent, Tracer, header_pairs};
use super::{AuthError, AuthLog, REQUEST_TIMEOUT, StepKind};

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
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as JSON, or why not (an HTML page, say) for `step` at `url`.
    pub fn json(&self, step: &'static str, url: &str) -> Result<Value, AuthError> {
        serde_json::from_slice(&self.body).map_err(|e| AuthError::BadAnswer {
            step,
            url: crate::redact::url(url),
            reason: format!("not JSON ({}; {e}): {}", self.content_type_or_none(), self.snippet()),
        })
    }

    fn content_type_or_none(&self) -> &str {
        if self.content_type.is_empty() { "no content type" } else { &self.content_type }
    }

    /// The start of the body, made safe to print, for messages.
    pub fn snippet(&self) -> String {
        let text = String::from_utf8_lossy(&self.body[..self.body.len().min(200)]).into_owned();
        crate::text::visible(text.trim()).into_owned()
    }

    /// `error` and `error_description` of an OAuth error answer, else the body's start.
    pub fn error_detail(&self) -> String {
        let Ok(value) = serde_json::from_slice::<Value>(&self.body) else { return self.snippet() };
        let field = |name: &str| value.get(name).and_then(Value::as_str).map(|s| crate::text::visible(s).into_owned());
        match (field("error"), field("error_description")) {
            (Some(error), Some(description)) => format!("{error}: {description}"),
            (Some(error), None) => error,
            _ => self.snippet(),
        }
    }
}

#[derive(Clone)]
pub struct OAuthHttp {
    client: reqwest::Client,
    pub log: AuthLog,
    pub tracer: Tracer,
    timeout: std::time::Duration,
}

impl OAuthHttp {
    pub fn new(log: AuthLog) -> OAuthHttp {
        OAuthHttp { client: oauth_client(), log, tracer: Tracer::default(), timeout: REQUEST_TIMEOUT }
    }

    /// The same client giving up on an answer after `timeout` instead of [`REQUEST_TIMEOUT`].
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> OAuthHttp {
        self.client = client_with_timeout(timeout);
        self.timeout = timeout;
        self
    }

    pub async fn get(&self, step: &'static str, url: &str, headers: &[(&str, &str)]) -> Result<Answer, AuthError> {
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
    ) -> Result<Answer, AuthError> {
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

    pub async fn post_json(&self, step: &'static str, url: &str, body: &Value) -> Result<Answer, AuthError> {
        let request = self.client.post(url).header("accept", "application/json").json(body);
        self.send(step, "POST", url, request).await
    }

    async fn send(
        &self,
        step: &'static str,
        method: &str,
        url: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<Answer, AuthError> {
        let shown = crate::redact::url(url);
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
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(crate::redact::url);
        let body = read_bounded(response).await;
        self.tracer.request(step, &sent, Ok(Received { status, headers, body: &body }));
        let moved = location.map(|l| format!(", Location: {l}")).unwrap_or_default();
        let kind = if (200..300).contains(&status) { StepKind::Request } else { StepKind::Skipped };
        self.log.push(kind, format!("{step}: {method} {shown} → HTTP {status}{moved} ({} bytes)", body.len()));
        Ok(Answer { status, content_type, body })
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
