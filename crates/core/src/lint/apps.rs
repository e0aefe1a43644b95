//! MCP Apps rules (SEP-1865): a tool's `_meta.ui` names a `ui://` resource the server serves as
//! `text/html;profile=mcp-app`, and a tool only apps may call is not judged as a model's tool.

use super::{Finding, Options, Part, Sink};
use crate::catalog::Tool;
use crate::catalog::app_ui::{APP_MIME, UI_SCHEME, is_app_mime};

/// A resource as the server lists it, for [`check_resources`] (lint does not talk to servers:
/// the command line lists them and hands them here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub uri: String,
    pub mime_type: Option<String>,
}

/// The rules about one tool's `_meta.ui` on its own.
pub(super) fn check(sink: &mut Sink) {
    let Some(app) = sink.tool.written.app.clone() else { return };
    if !app.resource_uri.starts_with(UI_SCHEME) {
        sink.push(
            "apps/resource-scheme",
            Part::Tool,
            "",
            format!("`_meta.ui.resourceUri` is \"{}\", not a ui:// URI: hosts will not render it", app.resource_uri),
            "name the app's HTML resource with a ui:// URI".into(),
        );
    }
    if app.legacy {
        sink.push(
            "apps/legacy-key",
            Part::Tool,
            "",
            "the app is named by the legacy `_meta[\"ui/resourceUri\"]` key".into(),
            "write `_meta: {ui: {resourceUri: ...}}` (keep the old key beside it for older hosts)".into(),
        );
    }
    let unknown: Vec<&str> =
        app.visibility.iter().map(String::as_str).filter(|v| *v != "model" && *v != "app").collect();
    if app.visibility.is_empty() || !unknown.is_empty() {
        sink.push(
            "apps/visibility",
            Part::Tool,
            "",
            match unknown.is_empty() {
                true => "`_meta.ui.visibility` is empty: neither the model nor the app may call the tool".into(),
                false => format!(
                    "`_meta.ui.visibility` names {}: only \"model\" and \"app\" mean something",
                    unknown.join(", ")
                ),
            },
            "list \"model\", \"app\" or both (both is the default when it is left out)".into(),
        );
    }
    if !app.visibility.is_empty() && !app.model_sees() {
        sink.push(
            "apps/app-only",
            Part::Tool,
            "",
            "only its app may call this tool (`visibility: [\"app\"]`): a host does not offer it to a model, so the tips, provider and cost checks skip it".into(),
            "nothing to do, unless a model should call it: then add \"model\" to `_meta.ui.visibility`".into(),
        );
    }
}

/// True for a tool a host gives the model: every tool but those only apps may see.
pub fn offered_to_model(tool: &Tool) -> bool {
    tool.written.app.as_ref().is_none_or(|app| app.model_sees() || app.visibility.is_empty())
}

/// The rules that need the server's resource list: the app's resource is listed, with the app
/// MIME type.
pub fn check_resources(tools: &[Tool], served: &[Served], options: &Options) -> Vec<Finding> {
    let mut findings = Vec::new();
    for tool in tools {
        let Some(app) = &tool.written.app else { continue };
        let mut sink = Sink::new(tool, options);
        match served.iter().find(|r| r.uri == app.resource_uri) {
            None => sink.push(
                "apps/missing-resource",
                Part::Tool,
                "",
                format!("the app's resource {} is not among the server's resources", app.resource_uri),
                "list the ui:// resource in resources/list (registerAppResource does)".into(),
            ),
            Some(resource) if !resource.mime_type.as_deref().is_some_and(is_app_mime) => sink.push(
                "apps/resource-mime",
                Part::Tool,
                "",
                format!(
                    "the app's resource {} is listed as {}, not {APP_MIME}",
                    app.resource_uri,
                    resource.mime_type.as_deref().unwrap_or("no MIME type")
                ),
                format!("give the resource the MIME type {APP_MIME}"),
            ),
            Some(_) => {}
        }
        findings.extend(sink.close());
    }
    findings
}
