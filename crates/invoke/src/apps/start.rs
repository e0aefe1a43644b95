//! Starting an app: its view read, its tool called, the bridge and the two servers up. The
//! command line and the TUI's runtime start apps the same way.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::bridge::{Bridge, BridgeSetup};
use super::host::{self, Hosted};
use super::{AppError, AppEvent, load};
use crate::catalog::Tool;
use crate::invoke::Endpoint;

/// Events waiting to be said; past it the bridge drops them rather than wait.
const MAX_EVENTS: usize = 1024;

/// An app being hosted: dropping `hosted` ends it.
pub struct Started {
    pub hosted: Hosted,
    pub events: mpsc::Receiver<AppEvent>,
    pub bridge: Arc<Bridge>,
    /// Said before it runs: refused CSP origins and permissions, a MIME type that is not the
    /// app profile, a first call that failed.
    pub notes: Vec<String>,
}

/// How an app is hosted: how long its handshake may take, and the host's look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// How long a loaded view may take to send `ui/initialize` before a line says so.
    pub init_wait: Duration,
    pub style: HostStyle,
}

impl Options {
    /// `init_wait`, with tooldeck's default look.
    pub fn new(init_wait: Duration) -> Options {
        Options { init_wait, style: HostStyle::default() }
    }
}

/// The host's look, for `ui/initialize`'s host context: `light` or `dark`, and the spec's CSS
/// variables (`--color-background-primary`...) from the terminal's theme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostStyle {
    pub theme: String,
    pub variables: Vec<(String, String)>,
}

impl Default for HostStyle {
    /// tooldeck's default (dark) theme on a dark terminal.
    fn default() -> HostStyle {
        let variables = [
            ("--color-background-primary", "#1e1e2e"),
            ("--color-background-secondary", "#313244"),
            ("--color-text-primary", "#cdd6f4"),
            ("--color-text-secondary", "#a6adc8"),
            ("--color-border-primary", "#45475a"),
            ("--color-ring-primary", "#89b4fa"),
        ];
        let variables = variables.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        HostStyle { theme: "dark".into(), variables }
    }
}

impl HostStyle {
    /// The variable `name`'s value, if the style sets it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.variables.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Reads `tool`'s view (a tool whose view cannot be hosted is not called for nothing), calls
/// the tool with `input` as a model's host would, and serves both on loopback.
pub async fn start(
    endpoint: Arc<Endpoint>,
    tools: Vec<Tool>,
    tool: &Tool,
    input: Value,
    options: &Options,
) -> Result<Started, AppError> {
    let view = load::view(&endpoint, tool).await?;
    let (result, ok) = load::call(&endpoint, &tool.name, input.clone()).await;
    let mut notes = view.notes.clone();
    if !ok {
        notes.push(format!("{} failed; the app gets its error as the result", tool.name));
    }
    let (events, heard) = mpsc::channel(MAX_EVENTS);
    let host_context = host_context(tool, &options.style);
    let init_wait = options.init_wait;
    let setup = BridgeSetup { endpoint, host_context, tool: tool.clone(), tools, input, result, init_wait };
    let bridge = Bridge::new(setup, events);
    let hosted = host::serve(Arc::clone(&bridge), &view, tool.display_title(), &options.style).await?;
    Ok(Started { hosted, events: heard, bridge, notes })
}

/// What the view learns of its host in `ui/initialize`: the theme's colours as the spec's CSS
/// variables, inline display, the locale, and the tool it shows.
fn host_context(tool: &Tool, style: &HostStyle) -> Value {
    let definition = tool.written.raw.as_deref().cloned().unwrap_or_else(|| json!({"name": tool.name}));
    let locale = std::env::var("LANG").ok().and_then(|l| l.split('.').next().map(|l| l.replace('_', "-")));
    let locale = locale.filter(|l| l.len() <= 16 && l != "C" && l != "POSIX").unwrap_or_else(|| "en-US".into());
    let mut variables: serde_json::Map<String, Value> =
        style.variables.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    variables.insert("--font-sans".into(), "system-ui, sans-serif".into());
    variables.insert("--font-mono".into(), "ui-monospace, monospace".into());
    json!({
        "toolInfo": {"tool": definition},
        "theme": style.theme,
        "styles": {"variables": variables},
        "displayMode": "inline",
        "availableDisplayModes": ["inline"],
        "containerDimensions": {"maxHeight": 10000},
        "locale": locale,
        "platform": "desktop",
        "userAgent": format!("tooldeck/{}", env!("CARGO_PKG_VERSION")),
    })
}
