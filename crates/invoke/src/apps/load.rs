//! Getting an app ready to host: the tool called as a model's host would call it, and its view
//! read, bounded and checked, with the sandbox its resource declares.

use std::sync::Arc;

use serde_json::{Value, json};

use super::AppError;
use super::csp::{Sandbox, sandbox};
use crate::catalog::Tool;
use crate::catalog::app_ui::{APP_MIME, is_app_mime};
use crate::invoke::mcp::content::Inline;
use crate::invoke::{CallRequest, Endpoint};

/// An app's HTML past this size is refused: real views are a few hundred kilobytes, bundled.
pub const MAX_HTML: usize = 5 * 1024 * 1024;

/// An app's view, ready to serve.
#[derive(Debug, Clone)]
pub struct View {
    pub uri: String,
    pub html: String,
    pub sandbox: Sandbox,
    /// What the person should hear before it runs (a MIME type that is not the profile...).
    pub notes: Vec<String>,
}

/// Calls `tool` with `arguments` through `endpoint`: the `CallToolResult` as JSON for
/// `ui/notifications/tool-result`, and whether the call succeeded.
pub async fn call(endpoint: &Endpoint, tool: &str, arguments: Value) -> (Value, bool) {
    let called = endpoint.call(&CallRequest::new(tool, arguments)).await;
    (result_of(&called), called.as_ref().is_ok_and(|(outcome, _)| outcome.success))
}

/// A call's answer as `ui/notifications/tool-result` carries it: the `CallToolResult` the
/// server sent, or one that says why there is none.
pub fn result_of(
    called: &Result<(crate::invoke::Outcome, crate::invoke::Exchange), crate::invoke::InvokeError>,
) -> Value {
    match called {
        Ok((outcome, exchange)) => result_json(&exchange.response_body, outcome),
        Err(e) => error_result(&e.to_string()),
    }
}

/// The result as the server sent it: the JSON-RPC answer's `result`, else the outcome rebuilt.
fn result_json(body: &str, outcome: &crate::invoke::Outcome) -> Value {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    match parsed {
        Some(Value::Object(mut answer)) if answer.contains_key("jsonrpc") => {
            answer.remove("result").unwrap_or_else(|| error_result("the server answered with an error"))
        }
        Some(result @ Value::Object(_)) => result,
        _ => {
            let text = outcome.error.as_ref().map(|e| e.message.clone()).unwrap_or_default();
            let mut result = json!({"content": [{"type": "text", "text": text}], "isError": !outcome.success});
            if outcome.structured
                && let Some(value) = &outcome.value
            {
                result["structuredContent"] = value.clone();
            }
            result
        }
    }
}

/// A `CallToolResult` that says the call failed.
pub fn error_result(why: &str) -> Value {
    json!({"content": [{"type": "text", "text": why}], "isError": true})
}

/// Reads `tool`'s view: the first text (or base64 HTML) content of its `ui://` resource, at most
/// [`MAX_HTML`], with the sandbox from the content's `_meta.ui` (else the listing's, else the
/// tool's own `_meta.ui.csp`).
pub async fn view(endpoint: &Arc<Endpoint>, tool: &Tool) -> Result<View, AppError> {
    let app = tool.written.app.as_ref().ok_or_else(|| AppError::NoApp { tool: tool.name.clone() })?;
    let uri = app.resource_uri.clone();
    let unreadable = |why: String| AppError::Unreadable { uri: uri.clone(), why };
    let read = endpoint.read(&uri).await.map_err(|e| unreadable(e.to_string()))?;
    let content = read.contents.into_iter().next().ok_or_else(|| unreadable("the server gave no contents".into()))?;
    if content.size > MAX_HTML as u64 {
        return Err(AppError::TooLarge {
            uri,
            size: crate::text::human_bytes(content.size),
            limit: crate::text::human_bytes(MAX_HTML as u64),
        });
    }
    let mime = content.mime_type.clone().unwrap_or_default();
    if !mime.to_ascii_lowercase().starts_with("text/html") {
        return Err(AppError::NotHtml { uri, mime: if mime.is_empty() { "of no MIME type".into() } else { mime } });
    }
    let mut notes = Vec::new();
    if !is_app_mime(&mime) {
        notes.push(format!("the resource is {mime}, not {APP_MIME}: other hosts may not render it"));
    }
    let html = match &content.body {
        Inline::Text(text) => text.to_string(),
        Inline::Base64(_) => {
            let bytes = crate::invoke::artifact::inline_bytes(&content.body).map_err(|e| unreadable(e.to_string()))?;
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    let ui = match content.meta.as_ref().and_then(|m| m.get("ui")) {
        Some(ui) => Some(ui.clone()),
        None => listed_ui(endpoint, &uri).await.or_else(|| app.csp.as_ref().map(|csp| json!({"csp": csp}))),
    };
    let sandbox = sandbox(ui.as_ref());
    notes.extend(sandbox.refused.iter().cloned());
    Ok(View { uri, html, sandbox, notes })
}

/// `_meta.ui` of the resource as `resources/list` gives it, when the content has none.
async fn listed_ui(endpoint: &Endpoint, uri: &str) -> Option<Value> {
    let listing = endpoint.list_resources().await.ok()?;
    let resource = listing.resources.into_iter().find(|r| r.uri == uri)?;
    resource.raw.get("_meta")?.get("ui").cloned()
}
