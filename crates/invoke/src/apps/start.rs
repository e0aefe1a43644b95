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

/// Reads `tool`'s view (a tool whose view cannot be hosted is not called for nothing), calls
/// the tool with `input` as a model's host would, and serves both on loopback.
pub async fn start(
    endpoint: Arc<Endpoint>,
    tools: Vec<Tool>,
    tool: &Tool,
    input: Value,
    init_wait: Duration,
) -> Result<Started, AppError> {
    let view = load::view(&endpoint, tool).await?;
    let (result, ok) = load::call(&endpoint, &tool.name, input.clone()).await;
    let mut notes = view.notes.clone();
    if !ok {
        notes.push(format!("{} failed; the app gets its error as the result", tool.name));
    }
    let (events, heard) = mpsc::channel(MAX_EVENTS);
    let setup =
        BridgeSetup { endpoint, host_context: host_context(tool), tool: tool.clone(), tools, input, result, init_wait };
    let bridge = Bridge::new(setup, events);
    let hosted = host::serve(Arc::clone(&bridge), &view, tool.display_title()).await?;
    Ok(Started { hosted, events: heard, bridge, notes })
}

/// What the view learns of its host in `ui/initialize`: tooldeck's default theme's colours as
/// the spec's CSS variables, inline display, the locale and time zone, and the tool it shows.
fn host_context(tool: &Tool) -> Value {
    let definition = tool.written.raw.as_deref().cloned().unwrap_or_else(|| json!({"name": tool.name}));
    let locale = std::env::var("LANG").ok().and_then(|l| l.split('.').next().map(|l| l.replace('_', "-")));
    let locale = locale.filter(|l| l.len() <= 16 && l != "C" && l != "POSIX").unwrap_or_else(|| "en-US".into());
    json!({
        "toolInfo": {"tool": definition},
        "theme": "dark",
        "styles": {"variables": {
            "--color-background-primary": "#1e1e2e",
            "--color-background-secondary": "#313244",
            "--color-text-primary": "#cdd6f4",
            "--color-text-secondary": "#a6adc8",
            "--color-border-primary": "#45475a",
            "--color-ring-primary": "#89b4fa",
            "--font-sans": "system-ui, sans-serif",
            "--font-mono": "ui-monospace, monospace",
        }},
        "displayMode": "inline",
        "availableDisplayModes": ["inline"],
        "containerDimensions": {"maxHeight": 10000},
        "locale": locale,
        "platform": "desktop",
        "userAgent": format!("tooldeck/{}", env!("CARGO_PKG_VERSION")),
    })
}
