//! What went over the wire in one call: for the exchange view, curl exports, dry runs and
//! history. Shown only through [`Exchange::request_json`], which masks secrets.

use serde::Serialize;
use serde_json::{Value, json};

use crate::redact;

/// The exact request and response of one call, for the exchange view and `--dry-run`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Exchange {
    pub method: String,
    pub url: String,
    pub request_headers: Vec<(String, String)>,
    pub request_body: String,
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
    pub response_body: String,
    pub response_truncated: bool,
    pub duration_ms: u64,
    /// MCP: the notifications and requests the server sent while the call ran (JSON-RPC text).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub during: Vec<String>,
    /// Request headers whose values are secrets by where they came from, whatever their names.
    #[serde(skip)]
    pub masked_headers: Vec<String>,
}

impl Exchange {
    /// The request as JSON (`method`, `url`, `headers`, `body`), secrets masked by the one rule:
    /// secret headers, the URL's password and secret parameters, OTC tokens in the body.
    pub fn request_json(&self) -> Value {
        let headers: serde_json::Map<String, Value> = self
            .request_headers
            .iter()
            .map(|(name, value)| {
                let masked = self.masked_headers.iter().any(|m| m.eq_ignore_ascii_case(name));
                let shown = if masked { redact::MASK.to_string() } else { redact::header_value(name, value) };
                (name.clone(), Value::String(shown))
            })
            .collect();
        // OTC's `context.authorization[].token` is a secret field like any other.
        let body: Value = serde_json::from_str(&self.request_body).unwrap_or(Value::String(self.request_body.clone()));
        let body = redact::json_message(&body).unwrap_or(body);
        json!({"method": self.method, "url": redact::url(&self.url), "headers": headers, "body": body})
    }

    /// The response headers as they may be shown.
    pub fn response_headers_shown(&self) -> impl Iterator<Item = (&str, String)> {
        self.response_headers.iter().map(|(name, value)| (name.as_str(), redact::header_value(name, value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked() {
        let exchange = Exchange {
            method: "POST".into(),
            url: "http://user:pw@x/tools/call?api_key=k3y".into(),
            request_headers: vec![
                ("Authorization".into(), "Bearer abc".into()),
                ("X-Api-Key".into(), "xyz".into()),
                ("Cookie".into(), "sid=1234".into()),
            ],
            request_body: r#"{"request":{"context":{"authorization":[{"id":"g","token":"tok"}]}}}"#.into(),
            ..Exchange::default()
        };
        let shown = exchange.request_json().to_string();
        for secret in ["abc", "\"tok\"", "xyz", "1234", "pw", "k3y"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }
}
