//! MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): what a tool's `_meta` says of
//! the interactive view it ships. Read from the definition as written, so `list --json`, lint and
//! `tooldeck app` agree on it.

use serde::Serialize;
use serde_json::Value;

/// The MIME type of an app's HTML resource.
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The scheme every app resource's URI uses.
pub const UI_SCHEME: &str = "ui://";

/// A URI past this length is not kept: a definition is outside input.
const MAX_URI: usize = 2_048;

/// A tool's app: its `ui://` resource, who may see the tool, and the CSP the tool itself declares
/// (the resource's own `_meta.ui.csp` comes with the resource and takes precedence).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppUi {
    pub resource_uri: String,
    /// `model`, `app`, or both; the spec's default when not given is both.
    pub visibility: Vec<String>,
    /// `_meta.ui.csp` as written on the tool, when it is.
    pub csp: Option<Value>,
    /// Read from the legacy `_meta["ui/resourceUri"]` key rather than `_meta.ui.resourceUri`.
    #[serde(skip)]
    pub legacy: bool,
}

impl AppUi {
    /// The app a tool's `_meta` names, if any: `_meta.ui.resourceUri`, else the legacy
    /// `_meta["ui/resourceUri"]`. A value that is not a short string names none.
    pub fn from_meta(meta: &Value) -> Option<AppUi> {
        let ui = meta.get("ui").filter(|ui| ui.is_object());
        let (uri, legacy) = match ui.and_then(|ui| ui.get("resourceUri")).and_then(Value::as_str) {
            Some(uri) => (uri, false),
            None => (meta.get("ui/resourceUri").and_then(Value::as_str)?, true),
        };
        if uri.is_empty() || uri.len() > MAX_URI {
            return None;
        }
        let visibility = match ui.and_then(|ui| ui.get("visibility")).and_then(Value::as_array) {
            Some(given) => given.iter().filter_map(Value::as_str).take(8).map(str::to_string).collect(),
            None => vec!["model".to_string(), "app".to_string()],
        };
        let csp = ui.and_then(|ui| ui.get("csp")).filter(|csp| csp.is_object()).cloned();
        Some(AppUi { resource_uri: uri.to_string(), visibility, csp, legacy })
    }

    /// A host offers the tool to the model (visibility names `model`).
    /// The mark the list and the tool's header show: `app`, or `app-only` when no model is
    /// offered the tool.
    pub fn mark(&self) -> &'static str {
        if self.model_sees() { "app" } else { "app-only" }
    }

    pub fn model_sees(&self) -> bool {
        self.visibility.iter().any(|v| v == "model")
    }

    /// The app may call the tool (visibility names `app`).
    pub fn app_sees(&self) -> bool {
        self.visibility.iter().any(|v| v == "app")
    }
}

/// Whether a tool may be called by an app: one without `_meta.ui` is visible to both model and
/// app, by the spec's default.
pub fn app_may_call(app: Option<&AppUi>) -> bool {
    app.is_none_or(AppUi::app_sees)
}

/// Whether a MIME type is the app profile (`text/html;profile=mcp-app`, spaces and case aside).
pub fn is_app_mime(mime: &str) -> bool {
    let squeezed: String = mime.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    squeezed == APP_MIME || squeezed.replace('"', "") == APP_MIME
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_current_and_the_legacy_key() {
        let app = AppUi::from_meta(&json!({"ui": {"resourceUri": "ui://a/b", "visibility": ["app"]}})).unwrap();
        assert_eq!((app.resource_uri.as_str(), app.model_sees(), app.app_sees()), ("ui://a/b", false, true));
        let legacy = AppUi::from_meta(&json!({"ui/resourceUri": "ui://old"})).unwrap();
        assert!(legacy.legacy && legacy.model_sees() && legacy.app_sees());
        assert_eq!(AppUi::from_meta(&json!({"ui": {"resourceUri": 5}})), None);
        assert_eq!(AppUi::from_meta(&json!({"other": 1})), None);
    }

    #[test]
    fn the_app_mime_type_is_matched_loosely() {
        assert!(is_app_mime("text/html;profile=mcp-app"));
        assert!(is_app_mime("Text/HTML; profile=\"mcp-app\""));
        assert!(!is_app_mime("text/html"));
    }
}
