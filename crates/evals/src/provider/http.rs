//! A model over HTTP: the request posted to the API, the answer read whole or as a stream of
//! server-sent events, bounded, and every way it can fail said (401, 429 after waiting as
//! `Retry-After` asks, 5xx, a stream that breaks, an answer too large).

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde_json::Value;

use super::{Format, Model, ModelError, excerpt};

/// An answer larger than this is cut off: no model's answer to a tool call is this large, and a
/// run of many iterations must not hold many of them.
pub const MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;
/// Tries of one request the model keeps answering 429 to.
pub const MAX_TRIES: usize = 4;
/// The longest `Retry-After` waited for; a longer one is waited this long.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(30);
/// Silence from the model (between bytes of an answer) before the request is given up.
pub const READ_TIMEOUT: Duration = Duration::from_secs(120);

pub struct HttpModel {
    client: reqwest::Client,
    url: String,
    format: Arc<dyn Format>,
    key: Option<String>,
}

impl HttpModel {
    /// A model at `base_url` (`http://127.0.0.1:11434/v1`) speaking `format`; `key` already
    /// expanded from the environment (and so masked wherever tooldeck shows text).
    pub fn new(base_url: &str, format: Arc<dyn Format>, key: Option<String>) -> Result<HttpModel, ModelError> {
        let client = crate::invoke::http::client_builder()
            .read_timeout(READ_TIMEOUT)
            .build()
            .map_err(|e| ModelError::Unreachable { url: base_url.into(), reason: e.to_string() })?;
        let url = format!("{}{}", base_url.trim_end_matches('/'), format.path());
        Ok(HttpModel { client, url, format, key })
    }

    async fn post(&self, request: &Value) -> Result<Value, ModelError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let mut builder = self.client.post(&self.url).json(request);
            if let Some(key) = &self.key {
                for (name, value) in self.format.key_headers(key) {
                    builder = builder.header(name, value);
                }
            }
            let response = builder.send().await.map_err(|e| ModelError::Unreachable {
                url: crate::redact::url(&self.url),
                reason: excerpt(&crate::invoke::http::why_unanswered(&e)),
            })?;
            let status = response.status().as_u16();
            if status == 429 && tries < MAX_TRIES {
                tokio::time::sleep(retry_after(&response)).await;
                continue;
            }
            if !(200..300).contains(&status) {
                let body = read_capped(response, 4096).await.unwrap_or_default();
                let message = excerpt(&String::from_utf8_lossy(&body));
                return Err(match status {
                    401 | 403 => ModelError::Unauthorized { status, message },
                    429 => ModelError::RateLimited { tries, message },
                    _ => ModelError::Status { status, message },
                });
            }
            let streamed = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|t| t.starts_with("text/event-stream"));
            return if streamed { self.read_stream(response).await } else { read_json(response).await };
        }
    }

    async fn read_stream(&self, response: reqwest::Response) -> Result<Value, ModelError> {
        let mut events = Box::pin(sse_stream::SseStream::from_bytes_stream(response.bytes_stream()));
        let mut assembler = self.format.assembler();
        let mut size = 0usize;
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| ModelError::Stream(excerpt(&e.to_string())))?;
            let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else { continue };
            size += data.len();
            if size > MAX_ANSWER_BYTES {
                return Err(ModelError::TooLarge { limit_mb: MAX_ANSWER_BYTES / (1024 * 1024) });
            }
            assembler.event(event.event.as_deref(), &data)?;
        }
        assembler.finish()
    }
}

impl Model for HttpModel {
    fn answer<'a>(
        &'a self,
        _case: &'a str,
        _iteration: usize,
        _turn: usize,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Value, ModelError>> {
        Box::pin(self.post(request))
    }
}

/// How long a 429 asks to wait (`Retry-After` in seconds), at most [`MAX_RETRY_WAIT`].
fn retry_after(response: &reqwest::Response) -> Duration {
    let seconds = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(1.0);
    Duration::from_secs_f64(seconds).min(MAX_RETRY_WAIT)
}

async fn read_json(response: reqwest::Response) -> Result<Value, ModelError> {
    let body = read_capped(response, MAX_ANSWER_BYTES).await?;
    serde_json::from_slice(&body).map_err(|e| {
        ModelError::Unreadable(format!(
            "not JSON ({e}): {}",
            excerpt(&String::from_utf8_lossy(&body[..body.len().min(300)]))
        ))
    })
}

/// The body, refused once it passes `limit` bytes.
async fn read_capped(response: reqwest::Response, limit: usize) -> Result<Vec<u8>, ModelError> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ModelError::Stream(excerpt(&crate::invoke::http::why_unanswered(&e))))?;
        if body.len() + chunk.len() > limit {
            return Err(ModelError::TooLarge { limit_mb: limit / (1024 * 1024) });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
