//! MCP Apps hosted in the person's browser (SEP-1865): a tool's `ui://` view runs in a sandboxed
//! frame on a loopback origin of its own, and its JSON-RPC over `postMessage` is carried out
//! through tooldeck's MCP session. No terminal code: the command line and the app print or show
//! the [`AppEvent`]s.
//!
//! - [`load`]: call the tool as a model's host would and read its view (bounded, checked);
//! - [`csp`]: the policy and permissions the view gets, from what its resource declares;
//! - [`bridge`]: each message of the view answered, every one an [`AppEvent`];
//! - [`host`]: the two loopback servers (the host page, the sandbox origin).

pub mod bridge;
pub mod csp;
pub mod host;
pub mod load;
mod start;

pub use start::{HostStyle, Options, Started, start};

use std::fmt;

/// Why an app cannot be hosted; each worded as the person reads it.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{tool} has no app: its definition names no ui:// resource in _meta.ui.resourceUri")]
    NoApp { tool: String },
    #[error("the app's resource {uri} could not be read: {why}")]
    Unreadable { uri: String, why: String },
    #[error("the app's resource {uri} is {size}, more than the {limit} an app may be")]
    TooLarge { uri: String, size: String, limit: String },
    #[error("the app's resource {uri} is {mime}, not HTML: it is not an app")]
    NotHtml { uri: String, mime: String },
    #[error("cannot serve the app on 127.0.0.1: {0}")]
    Serve(#[from] std::io::Error),
}

/// Something the app did, or that happened to it: one line each, headless; a line in the TUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppEvent {
    /// The app answered the handshake (its name and version, as it says).
    Initialized {
        app: String,
    },
    ToolCalled {
        name: String,
        ok: bool,
    },
    ToolRefused {
        name: String,
        why: String,
    },
    ResourceRead {
        uri: String,
    },
    ResourceRefused {
        uri: String,
    },
    /// A link the app asks to open (not opened by tooldeck: the person opens it).
    OpenLink {
        url: String,
    },
    LinkRefused {
        url: String,
    },
    Message {
        text: String,
    },
    ModelContext {
        text: String,
    },
    Log {
        level: String,
        text: String,
    },
    Size {
        width: u64,
        height: u64,
    },
    DisplayMode {
        mode: String,
    },
    /// A method tooldeck does not carry out.
    Unknown {
        method: String,
    },
    /// Messages dropped over the rate limit.
    Flood {
        dropped: u64,
    },
    /// The view loaded and did not start the handshake in time.
    NoInitialize {
        seconds: u64,
    },
    /// Something the app sent that is not JSON-RPC.
    Malformed {
        why: String,
    },
    /// Said once before serving: a CSP origin or permission refused, a MIME type that is not
    /// the app profile.
    Note {
        text: String,
    },
    /// The app ended (told `ui/resource-teardown`, its servers stopped), or could not start:
    /// why.
    Ended {
        why: String,
    },
}

/// Text from an app, for one line: control characters visible, secrets masked, cut short.
fn shown(text: &str) -> String {
    let one_line: String = text.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    let masked = crate::redact::expanded(&one_line);
    crate::text::truncate(&crate::text::visible(&masked), 240).into_owned()
}

impl fmt::Display for AppEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppEvent::Initialized { app } => write!(f, "app: started ({})", shown(app)),
            AppEvent::ToolCalled { name, ok: true } => write!(f, "app: called tool {}", shown(name)),
            AppEvent::ToolCalled { name, ok: false } => write!(f, "app: called tool {} (it failed)", shown(name)),
            AppEvent::ToolRefused { name, why } => write!(f, "app: refused tools/call {}: {}", shown(name), shown(why)),
            AppEvent::ResourceRead { uri } => write!(f, "app: read resource {}", shown(uri)),
            AppEvent::ResourceRefused { uri } => {
                write!(f, "app: refused resources/read {}: apps may read ui:// resources only", shown(uri))
            }
            AppEvent::OpenLink { url } => {
                write!(f, "app: asks to open {} (not opened: open it yourself)", crate::invoke::browser::shown(url))
            }
            AppEvent::LinkRefused { url } => write!(
                f,
                "app: refused to open {}: only http, https and mailto links",
                crate::invoke::browser::shown(url)
            ),
            AppEvent::Message { text } => write!(f, "app: message: {}", shown(text)),
            AppEvent::ModelContext { text } => write!(f, "app: model context: {}", shown(text)),
            AppEvent::Log { level, text } => write!(f, "app: log {}: {}", shown(level), shown(text)),
            AppEvent::Size { width, height } => write!(f, "app: size {width}x{height}"),
            AppEvent::DisplayMode { mode } => write!(f, "app: asks for display mode {} (stays inline)", shown(mode)),
            AppEvent::Unknown { method } => write!(f, "app: {} is not carried out", shown(method)),
            AppEvent::Flood { dropped } => {
                write!(f, "app: {dropped} messages dropped: more than {} a second", bridge::MAX_PER_SECOND)
            }
            AppEvent::NoInitialize { seconds } => write!(
                f,
                "app: loaded but sent no ui/initialize in {seconds} s: it may not be an MCP app (or its script failed)"
            ),
            AppEvent::Malformed { why } => write!(f, "app: sent {}", shown(why)),
            AppEvent::Note { text } => write!(f, "app: {}", shown(text)),
            AppEvent::Ended { why } => write!(f, "app: ended: {}", shown(why)),
        }
    }
}
