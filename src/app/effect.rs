//! What `update` asks the runtime to do, as nested enums by what carries it out: a session's
//! server ([`ServerEffect`]: every one of them is for a session, which is how the app addresses
//! them), the tasks already going, work off the UI thread, the desktop. The runtime matches each
//! with no wildcard, so a new variant does not compile until it is carried out.

use crate::catalog::{SessionId, Tool};
use crate::invoke::CallRequest;

/// What `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// For the current session's server (the first's, when the runtime gets it unaddressed).
    Server(ServerEffect),
    /// For the server of session `id`.
    Session {
        id: SessionId,
        effect: ServerEffect,
    },
    /// Connect a server found in a config (`--server NAME` in the app) and list its tools: a new
    /// session.
    ConnectFound(String),
    /// To a task already going: a call, a retry, a question, a fuzz run.
    Task(TaskEffect),
    /// CPU or disk work off the UI thread.
    Work(WorkEffect),
    /// The clipboard and the browser.
    Desktop(DesktopEffect),
}

/// What talks to one server, and so is carried out in a session.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerEffect {
    /// Send `request`; the answer is checked against `output_schema` off the UI thread.
    Invoke { id: u64, request: CallRequest, output_schema: Option<serde_json::Value> },
    /// Connect to the named server and list its tools.
    ListTools,
    /// Start the MCP server again (or open a new HTTP session) and list its tools again.
    Reconnect,
    /// `logging/setLevel` to the MCP server.
    SetLogLevel(String),
    /// Offer these roots to the MCP server, telling it they changed.
    SetRoots(Vec<String>),
    /// Give the server a token for `provider` and list its tools again (an MCP server over
    /// HTTP that answered 401).
    Authorize { provider: String, token: String },
    /// Sign in to the MCP server over HTTP (OAuth) starting from its last challenge, then list
    /// its tools again.
    SignIn { challenge: Option<String> },
    /// Forget the tokens kept for the server.
    SignOut,
    /// Read the resource at `uri` with MCP `resources/read` (a `resource_link` item) and preview
    /// it, off the UI thread; it comes back as `ContentMsg::ResourceRead`.
    ReadResource { run: u64, item: usize, uri: String },
    /// List the server's resources, templates and prompts (`FaceMsg::Listed`).
    ListFaces,
    /// Run `id` of a resource, template or prompt: `resources/read` or `prompts/get`, answered
    /// as a call is (`CallMsg::Done`).
    Face { id: u64, call_id: String, request: super::faces::FaceRequest },
    /// Suggestions for `argument` of entry `tool_id` (`completion/complete`, `FaceMsg::Completed`).
    Complete {
        tool_id: String,
        reference: crate::invoke::mcp::completion::Reference,
        argument: String,
        typed: String,
        context: serde_json::Map<String, serde_json::Value>,
    },
    /// `resources/subscribe` (`on`) or `resources/unsubscribe` of `uri` (`FaceMsg::Subscribed`).
    Subscribe { uri: String, on: bool },
    /// Fuzz `tool` in the background over a connection of its own (`FuzzMsg::Progress`,
    /// `FuzzMsg::Done`); a run going on is stopped first.
    Fuzz { id: u64, tool: Box<Tool> },
    /// Run the eval cases of `file` (already narrowed to the selected tool's) on this server in
    /// the background (`EvalMsg::Progress`, `EvalMsg::Done`); a run going on is stopped first.
    Eval { id: u64, file: Box<tooldeck_evals::file::EvalFile> },
    /// Host `tool`'s MCP App in the browser, first calling it with `arguments`; what the app
    /// does comes back as `ServerMsg::App`. A new one ends the last.
    HostApp { tool: Box<Tool>, arguments: serde_json::Value },
    /// Append a test case to a case file (with the session's server at its top).
    SaveCase { path: String, case: serde_json::Value },
    /// `tooldeck attach`: a line to the watched proxy (a breakpoint, a held message sent or
    /// dropped); one that cannot be written comes back as `ProxyMsg::NotWritten`.
    Control(crate::proxy::live::Control),
}

/// To a task already going.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskEffect {
    /// Cut call `id` short.
    Cancel { id: u64 },
    /// Send `CallMsg::RetryDue { id }` after `ms` milliseconds.
    RetryAfter { id: u64, ms: u64 },
    /// The person's answer to what a server asked (`ServerMsg::Asked`).
    AnswerAsk { id: u64, reply: crate::invoke::mcp::asks::AskReply },
    /// Stop fuzz run `id`: the call in flight is cut short, the findings so far reported.
    StopFuzz { id: u64 },
    /// Stop eval run `id`: the iterations going on end as stopped, the report comes as ever.
    StopEval { id: u64 },
    /// End the hosted MCP App (`ui/resource-teardown`, servers stopped), telling its page `why`.
    EndApp { why: String },
}

/// Work off the UI thread: CPU, the network for a download, the disk.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkEffect {
    /// Compile a tool's input schema into a checker (`LoadMsg::Checker`).
    CompileChecker { tool_id: String, schema: serde_json::Value },
    /// Run the lint rules over a tool (`LoadMsg::Linted`).
    Lint { tool: Box<Tool>, options: crate::lint::Options },
    /// Decode content item `item` of run `run` (it came inline: base64 or text) and draw its
    /// picture; it comes back as `ContentMsg::ItemDecoded`.
    DecodeInline { run: u64, item: usize, data: crate::invoke::mcp::content::Inline, content_type: Option<String> },
    /// Download an artifact (http(s) only), reporting progress.
    Fetch(String),
    /// Write an artifact to a file (`overwrite`: replace what is there, the user said so).
    Save { path: String, source: crate::invoke::save::SaveSource, overwrite: bool },
    /// Append to the history file (the runtime writes it).
    Record(Box<crate::history::PastCall>),
}

/// The person's desktop.
#[derive(Debug, Clone, PartialEq)]
pub enum DesktopEffect {
    /// Put text on the clipboard (OSC 52, so it works over SSH too).
    Copy(String),
    /// Open a URL with the system's opener (no shell involved).
    Open(String),
}
