//! `tooldeck fuzz`: a tool server tested from its own schemas. Arguments come from the schema
//! in four phases (examples, coverage, random valid, random invalid); each answer is judged
//! (crash, hang, refused valid input, accepted invalid input, broken output...); each kind of
//! failure is shrunk to its smallest input and kept. No terminal code here: the command line
//! and the app both drive [`run`].

mod as_success;
mod causes;
mod coverage;
mod engine;
mod invalid;
mod judge;
mod message;
mod mutate;
mod pin;
pub mod report;
mod rules;
mod schema;
mod shrink;
mod valid;

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

pub use coverage::{coverage, examples, minimal};
pub use engine::{Caller, Progress, Stoppable, run, skip_reason};
pub use invalid::break_one;
pub use judge::{CallResult, Evidence, Judge, Verdict};
pub use message::{normalise, shape};
pub use pin::{Pin, PinError, Pinned};
pub use shrink::candidates;
pub use valid::Generator;

/// The phases of a tool's run, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Examples,
    /// `--seed-from`'s arguments, changed field by field.
    Seeds,
    Coverage,
    Valid,
    Invalid,
    Shrink,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Examples => "examples",
            Phase::Seeds => "mutated seeds",
            Phase::Coverage => "coverage",
            Phase::Valid => "random valid",
            Phase::Invalid => "random invalid",
            Phase::Shrink => "shrinking",
        }
    }
}

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// The server process died (or the connection did).
    Crash,
    /// No answer within the timeout.
    Hang,
    /// A JSON-RPC error of the server's own (-32603 and the like).
    ProtocolError,
    /// Input the schema accepts, refused (`isError`, -32602).
    RefusesValid,
    /// Input the schema refuses, answered as a success.
    AcceptsInvalid,
    /// A result that breaks the tool's output schema.
    OutputSchema,
    /// A result that breaks the protocol's own shape.
    MalformedResult,
    /// An answer slower than the threshold.
    Slow,
    /// Input the schema refuses, accepted, after which a read-only sibling that answered well
    /// before fails inside: the tool saved what it should have refused.
    BreaksState,
    /// Valid input refused for a rule the schema does not express: a field required for one
    /// value of another, two fields that must be ordered or not given together.
    UnstatedRule,
    /// A success whose only text reads as an error: the model is not told it failed.
    ErrorAsSuccess,
    /// A line on a stdio server's stdout that is not a JSON-RPC message.
    StdoutNotJsonRpc,
}

/// Whether a finding is the server being wrong, or worth saying without being a bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// A crash, a hang, an internal error, a result that breaks a schema or the protocol,
    /// invalid input accepted, valid input refused for no stated reason.
    Bug,
    /// What a server author should hear of but that breaks no input: a rule the schema does not
    /// express, an error answered as a success, a line on stdout that is not JSON-RPC.
    Note,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Bug => "bug",
            Severity::Note => "note",
        }
    }
}

impl Kind {
    pub const ALL: [Kind; 12] = [
        Kind::Crash,
        Kind::Hang,
        Kind::ProtocolError,
        Kind::RefusesValid,
        Kind::AcceptsInvalid,
        Kind::OutputSchema,
        Kind::MalformedResult,
        Kind::Slow,
        Kind::BreaksState,
        Kind::UnstatedRule,
        Kind::ErrorAsSuccess,
        Kind::StdoutNotJsonRpc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Crash => "crash",
            Kind::Hang => "hang",
            Kind::ProtocolError => "protocol-error",
            Kind::RefusesValid => "refuses-valid",
            Kind::AcceptsInvalid => "accepts-invalid",
            Kind::OutputSchema => "output-schema",
            Kind::MalformedResult => "malformed-result",
            Kind::Slow => "slow",
            Kind::BreaksState => "breaks-state",
            Kind::UnstatedRule => "unstated-rule",
            Kind::ErrorAsSuccess => "error-as-success",
            Kind::StdoutNotJsonRpc => "stdout-not-json-rpc",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Kind::Crash
            | Kind::Hang
            | Kind::ProtocolError
            | Kind::RefusesValid
            | Kind::AcceptsInvalid
            | Kind::OutputSchema
            | Kind::MalformedResult
            | Kind::Slow
            | Kind::BreaksState => Severity::Bug,
            Kind::UnstatedRule | Kind::ErrorAsSuccess | Kind::StdoutNotJsonRpc => Severity::Note,
        }
    }
}

/// One way a tool fails, with the smallest input found that still fails that way.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub tool: String,
    pub kind: Kind,
    /// A bug, or a note (the kind says which).
    pub severity: Severity,
    /// The shrunk input.
    pub arguments: Value,
    /// What the server said (or did), for the shrunk input.
    pub message: String,
    /// Whether the arguments meet the input schema.
    pub valid: bool,
    pub phase: Phase,
    /// The input as first found, before shrinking.
    pub original: Value,
    /// Calls spent shrinking.
    pub shrink_calls: usize,
    /// Inputs that failed for this cause (the same tool, kind and normalised message).
    pub count: usize,
    /// How a success of this tool came back during the run (for the saved case's expectation).
    #[serde(skip)]
    pub success_status: Option<crate::invoke::Status>,
    /// The call that fails after this one (a `breaks-state` finding): both make the reproducer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub then: Option<LaterCall>,
}

/// A call made after a finding's own, which fails because of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaterCall {
    pub tool: String,
    pub arguments: Value,
}

impl Report {
    /// The findings that are bugs (with `strict`, the notes too): what makes `fuzz` fail.
    pub fn failing(&self, strict: bool) -> usize {
        self.findings.iter().filter(|f| strict || f.severity == Severity::Bug).count()
    }
}

/// How a run goes.
#[derive(Debug, Clone)]
pub struct Settings {
    pub seed: u64,
    /// Calls per tool for the four phases (shrinking comes on top).
    pub max_calls: usize,
    /// The whole run stops after this long.
    pub time: Option<Duration>,
    /// Calls in flight at once.
    pub jobs: usize,
    /// An answer slower than this is a `slow` finding.
    pub slow: Duration,
    /// Calls spent shrinking one finding at most (a hang's are capped lower: each waits out the
    /// timeout).
    pub shrink_calls: usize,
    pub include_destructive: bool,
    /// Only tools marked `readOnlyHint: true` are called (`--read-only`).
    pub read_only: bool,
    /// Fields set to a known value in every input (`--pin`).
    pub pins: Vec<Pin>,
    /// A tool that hung this many times in a row is set aside.
    pub hang_limit: usize,
    /// How long a shrinking try of a hang waits: a try that answers within it does not hang.
    pub shrink_timeout: Duration,
    /// The server is a process started here (stdio MCP, the demo server): a tool that says
    /// nothing of being destructive is tried there, not on a remote server.
    pub local_server: bool,
    /// The arguments real clients sent (`--seed-from`), by tool name: after they are tried as
    /// they came (among the examples), each is mutated field by field.
    pub seeds: std::collections::HashMap<String, Vec<Value>>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 0,
            max_calls: 200,
            time: None,
            jobs: 1,
            slow: Duration::from_secs(2),
            shrink_calls: 200,
            include_destructive: false,
            read_only: false,
            pins: Vec::new(),
            hang_limit: 3,
            shrink_timeout: Duration::from_secs(2),
            local_server: true,
            seeds: std::collections::HashMap::new(),
        }
    }
}

/// A tool's part of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolSummary {
    pub tool: String,
    pub calls: usize,
    /// Calls per phase, in phase order.
    pub phases: Vec<(Phase, usize)>,
    /// Why the tool was not called at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// What is not a finding but worth knowing: the tool refuses most inputs (with an example),
    /// it was set aside after hanging again and again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a run came to.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub seed: u64,
    pub calls: usize,
    pub findings: Vec<Finding>,
    pub tools: Vec<ToolSummary>,
    /// Times the server was started again after a crash or a hang.
    pub restarts: usize,
    pub elapsed_ms: u64,
    /// Why the run ended early (the time limit, the server gone for good, stopped by the user).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The server could not be started again: the run ended there.
    #[serde(skip)]
    pub server_lost: bool,
}

/// Why a run could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FuzzError {
    #[error("the server could not be started again after it {after}: {reason}")]
    Restart { after: &'static str, reason: String },
    #[error("the server wants authorization: {0}")]
    Unauthorized(String),
}

/// A call may take `--timeout` in all unless `--max-time` says otherwise: progress notifications
/// restart an ordinary call's timeout, so a tool given a huge duration (server-everything's
/// long-running operation) would otherwise keep a fuzz run waiting for ever instead of being a
/// `hang`.
pub fn cap_call_time(options: &mut crate::invoke::endpoint::EndpointOptions) {
    if options.max_time.is_none() {
        options.max_time = Some(options.answer_timeout().as_secs());
    }
}

/// A seed for one tool from the run's seed and the tool's id, so that choosing other tools
/// does not change what this one gets.
pub fn tool_seed(seed: u64, tool: &str) -> u64 {
    // FNV-1a: stable across Rust versions, unlike the standard hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for byte in tool.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
