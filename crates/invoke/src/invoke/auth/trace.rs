//! Each OAuth request in the session's traffic log (the exchange view), beside the steps of the
//! [`super::AuthLog`]: method, URL, headers and bodies both ways, the status or why there was
//! none. Secrets are masked by `crate::redact` before anything is kept: tokens, codes, the PKCE
//! verifier and client secrets in bodies as well as in headers and URLs.

use std::sync::{Arc, OnceLock};

use crate::invoke::mcp::exchange_log::HttpRecord;
use crate::invoke::mcp::traffic::Traffic;

/// A body is shown this far in the traffic log; metadata and token answers are far smaller.
const MAX_SHOWN_BODY: usize = 16 * 1024;

/// Where OAuth requests are recorded: the traffic log of the endpoint that signs in, once it
/// has one (`tooldeck auth login` has none, and prints the steps instead). Shared by clones.
#[derive(Clone, Default)]
pub struct Tracer(Arc<OnceLock<Traffic>>);

/// A request as it went out, secrets masked.
pub struct Sent {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

/// What came back: the status, the headers and the (bounded) body.
pub struct Received<'a> {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: &'a [u8],
}

impl Sent {
    pub fn of(request: &reqwest::Request) -> Sent {
        let headers = header_pairs(request.headers());
        let content_type = content_type(&headers);
        let body = request.body().and_then(reqwest::Body::as_bytes).map(|bytes| shown_body(&content_type, bytes));
        Sent { method: request.method().to_string(), url: request.url().to_string(), headers, body }
    }
}

/// A response's headers as text pairs (values that are not text are left out).
pub fn header_pairs(headers: &reqwest::header::HeaderMap) -> Vec<(String, String)> {
    headers.iter().filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_string()))).collect()
}

fn content_type(headers: &[(String, String)]) -> String {
    headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| value.to_ascii_lowercase())
        .unwrap_or_default()
}

/// A body as it may be shown: JSON with its secret fields masked, a form likewise, other text
/// as it came; cut at [`MAX_SHOWN_BODY`]. [`visible_lines`] runs over the whole entry after.
fn shown_body(content_type: &str, bytes: &[u8]) -> String {
    let shown = if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
        serde_json::to_string_pretty(&crate::redact::json_body(&value)).unwrap_or_default()
    } else if content_type.contains("x-www-form-urlencoded") {
        crate::redact::form_body(&String::from_utf8_lossy(bytes))
    } else if looks_like_json(content_type, bytes) {
        // Almost JSON (a trailing comma) cannot be masked field by field, and a token answer
        // like that holds the tokens: described, never shown.
        format!("(JSON that does not parse, {} bytes: not shown, it may hold secrets)", bytes.len())
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    };
    let mut shown = shown;
    if shown.len() > MAX_SHOWN_BODY {
        let cut = (0..=MAX_SHOWN_BODY).rev().find(|&i| shown.is_char_boundary(i)).unwrap_or(0);
        shown.truncate(cut);
        shown.push_str(&format!("\n… ({} bytes in all)", bytes.len()));
    }
    shown
}

/// A body that says it is JSON, or starts as JSON does.
fn looks_like_json(content_type: &str, bytes: &[u8]) -> bool {
    content_type.contains("json") || matches!(bytes.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{' | b'['))
}

/// `text` with control characters made visible in each line (the lines themselves kept): a
/// server's header or body can never move the cursor.
fn visible_lines(text: &str) -> String {
    text.lines().map(|line| crate::text::visible(line).into_owned()).collect::<Vec<_>>().join("\n")
}

fn push_headers(text: &mut String, headers: &[(String, String)]) {
    for (name, value) in headers {
        text.push_str(&format!("{name}: {}\n", crate::redact::header_value(name, value)));
    }
}

impl Tracer {
    /// Records from now on into `traffic` (the first log given stays: an endpoint has one).
    pub fn record_into(&self, traffic: Traffic) {
        let _ = self.0.set(traffic);
    }

    /// Records one OAuth request of `step` and its answer, or why none came.
    pub fn request(&self, step: &str, sent: &Sent, answer: Result<Received<'_>, &str>) {
        let Some(traffic) = self.0.get() else { return };
        let url = crate::redact::oauth_url(&sent.url);
        let mut text = format!("{} {url}\n", sent.method);
        push_headers(&mut text, &sent.headers);
        if let Some(body) = &sent.body {
            text.push_str(&format!("\n{body}\n"));
        }
        let mut record = HttpRecord {
            id: None,
            url: sent.url.clone(),
            request_headers: sent.headers.clone(),
            ..HttpRecord::default()
        };
        match answer {
            Ok(received) => {
                text.push_str(&format!("\nHTTP {}\n", received.status));
                push_headers(&mut text, &received.headers);
                if !received.body.is_empty() {
                    text.push_str(&format!("\n{}\n", shown_body(&content_type(&received.headers), received.body)));
                }
                record.status = Some(received.status);
                record.response_headers = received.headers;
            }
            Err(reason) => text.push_str(&format!("\n(no answer: {reason})\n")),
        }
        let name = crate::text::visible(&format!("OAuth {step}: {} {url}", sent.method)).into_owned();
        traffic.exchange(name, &record, visible_lines(&text));
    }

    /// Records the part the browser plays: the authorization URL it was given, and the redirect
    /// the loopback listener received (its code masked), or why none came.
    pub fn browser(&self, address: &str, redirect_uri: &str, received: Result<&[(String, String)], &str>) {
        let Some(traffic) = self.0.get() else { return };
        let address = crate::redact::oauth_url(address);
        let mut text = format!("the browser was sent to\nGET {address}\n");
        let mut record = HttpRecord { id: None, url: address.clone(), ..HttpRecord::default() };
        match received {
            Ok(params) => {
                let mut query = url::form_urlencoded::Serializer::new(String::new());
                query.extend_pairs(params.iter());
                let back = crate::redact::oauth_url(&format!("{redirect_uri}?{}", query.finish()));
                text.push_str(&format!("\nand came back to the loopback listener with\nGET {back}\n"));
                record.url = back;
                record.status = Some(200);
            }
            Err(reason) => text.push_str(&format!("\n(no redirect: {reason})\n")),
        }
        // The list names the endpoint; the entry holds the whole URL.
        let endpoint = address.split('?').next().unwrap_or_default();
        let name = crate::text::visible(&format!("OAuth authorization (browser): GET {endpoint}")).into_owned();
        traffic.exchange(name, &record, visible_lines(&text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_that_is_almost_json_is_described_not_shown() {
        let almost = br#"{"access_token": "at-1234", "refresh_token": "rt-5678",}"#;
        for content_type in ["application/json", "text/plain", ""] {
            let shown = shown_body(content_type, almost);
            assert!(!shown.contains("at-1234") && !shown.contains("rt-5678"), "{shown}");
            assert!(shown.contains(&format!("{} bytes", almost.len())), "{shown}");
        }
        let json = shown_body("application/json", br#"{"access_token": "at-1234", "scope": "s"}"#);
        assert!(!json.contains("at-1234") && json.contains("\"scope\": \"s\""), "{json}");
        assert_eq!(shown_body("text/html", b"<html>Sign in</html>"), "<html>Sign in</html>");
    }
}
