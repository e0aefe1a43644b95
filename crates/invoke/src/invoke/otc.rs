//! Open Tool Calling over HTTP, as the OTC 1.0 specification (OpenExecProtocol/Specification)
//! has it: `GET /health`, `GET /tools`, `POST /tools/call`.

use std::time::{Duration, Instant};

use super::envelope::read_otc_response;
use super::{Exchange, InvokeError, MAX_BODY_BYTES, Outcome};

/// The protocol-neutral call lives in `invoke::request`; its old path here still names it.
pub use super::request::CallRequest;

#[derive(Debug, Clone)]
pub struct OtcEndpoint {
    base: String,
    call_path: String,
    headers: Vec<(String, String)>,
    client: reqwest::Client,
    /// Headers shown masked whatever their names.
    masked: Vec<String>,
}

impl OtcEndpoint {
    /// `base` without a trailing slash; `call_path` is `/tools/call` or an older server's `/execute`.
    pub fn new(
        base: &str,
        call_path: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
    ) -> Result<Self, InvokeError> {
        let client = super::http::client_builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(InvokeError::setup)?;
        let call_path = if call_path.starts_with('/') { call_path.to_string() } else { format!("/{call_path}") };
        Ok(OtcEndpoint { base: base.trim_end_matches('/').to_string(), call_path, headers, client, masked: Vec::new() })
    }

    /// Shows these headers' values masked whatever their names (they came from the environment
    /// or the config file).
    pub fn masking(mut self, names: Vec<String>) -> OtcEndpoint {
        self.masked = names;
        self
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn call_url(&self) -> String {
        format!("{}{}", self.base, self.call_path)
    }

    /// The request as it would be sent, for `--dry-run` and the exchange view.
    pub fn describe(&self, request: &CallRequest) -> Exchange {
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        headers.extend(self.headers.iter().cloned());
        Exchange {
            method: "POST".into(),
            url: self.call_url(),
            request_headers: headers,
            request_body: serde_json::to_string_pretty(&request.body()).unwrap_or_default(),
            masked_headers: self.masked.clone(),
            ..Exchange::default()
        }
    }

    /// Sends one call. A server that answers (whatever it answers) gives an `Outcome`; one that
    /// cannot be reached or times out is an error.
    pub async fn call(&self, request: &CallRequest) -> Result<(Outcome, Exchange), InvokeError> {
        let mut exchange = self.describe(request);
        let started = Instant::now();
        let mut builder = self.client.post(&exchange.url).json(&request.body());
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        let response = builder.send().await.map_err(|e| InvokeError::from_reqwest(e, &exchange.url))?;
        let status = response.status().as_u16();
        let redirect = super::http::refused_redirect(&response);
        exchange.status = Some(status);
        exchange.response_headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_string);
        let (body, truncated) = read_capped(response).await.map_err(|e| InvokeError::from_reqwest(e, &exchange.url))?;
        let elapsed = started.elapsed();
        exchange.duration_ms = elapsed.as_millis() as u64;
        exchange.response_body = String::from_utf8_lossy(&body).into_owned();
        exchange.response_truncated = truncated;
        let mut outcome = read_otc_response(status, content_type.as_deref(), &body, truncated, &request.call_id);
        outcome.duration_ms = exchange.duration_ms;
        outcome.warnings.extend(redirect);
        Ok((outcome, exchange))
    }

    /// `GET /tools`: the server's own definitions as text, for the catalog to read.
    pub async fn list_tools(&self) -> Result<String, InvokeError> {
        let url = format!("{}/tools", self.base);
        let mut builder = self.client.get(&url);
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        let response = builder.send().await.map_err(|e| InvokeError::from_reqwest(e, &url))?;
        let status = response.status();
        if let Some(redirect) = super::http::refused_redirect(&response) {
            return Err(InvokeError::Http { url, status, redirect: Some(redirect) });
        }
        let (body, truncated) = read_capped(response).await.map_err(|e| InvokeError::from_reqwest(e, &url))?;
        if !status.is_success() {
            return Err(InvokeError::Http { url, status, redirect: None });
        }
        if truncated {
            return Err(InvokeError::Unreadable(format!(
                "GET {}: the tool list is larger than 16 MiB",
                crate::redact::url(&url)
            )));
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// `GET /health`: true for 200, false for 503 (not ready).
    pub async fn health(&self) -> Result<bool, InvokeError> {
        let url = format!("{}/health", self.base);
        let response = self.client.get(&url).send().await.map_err(|e| InvokeError::from_reqwest(e, &url))?;
        Ok(response.status().is_success())
    }
}

/// Reads a body up to [`MAX_BODY_BYTES`]; the rest is left unread and reported as truncated.
async fn read_capped(mut response: reqwest::Response) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            body.extend_from_slice(&chunk[..MAX_BODY_BYTES - body.len()]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}
