//! Why a call got no result, sorted by what the person can do about it: a server that answered
//! with an error is not helped by a restart, one that is gone is. And why the other work the
//! app asks of the runtime (a download, a save, a sign-in, a fuzz run...) came to nothing.

use crate::invoke::InvokeError;
use crate::text::visible;

/// What kind of failure, for the result pane's headline and the keys it offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The server answered, with a JSON-RPC error or an answer that cannot be read.
    ErrorAnswer,
    /// The server could not be reached (refused, no such host, an HTTP error status).
    Unreachable,
    /// No answer within the time allowed.
    TimedOut,
    /// The server exited, closed the connection or forgot the session.
    Gone,
    /// The request was never sent (a bad header, sign-in needed).
    NotSent,
    /// Known only by its words.
    Other,
}

impl FailureKind {
    /// The result pane's first line.
    pub fn headline(self) -> &'static str {
        match self {
            FailureKind::ErrorAnswer => "✗ the server answered with an error",
            FailureKind::Unreachable => "✗ cannot reach the server",
            FailureKind::TimedOut => "✗ no answer in time",
            FailureKind::Gone => "✗ the server is gone",
            FailureKind::NotSent => "✗ not sent",
            FailureKind::Other => "✗ no answer",
        }
    }

    /// Restarting the server (or opening a new session) may help.
    pub fn restart_helps(self) -> bool {
        !matches!(self, FailureKind::ErrorAnswer | FailureKind::NotSent)
    }
}

/// A call that came back without a result: why, in words, and of what kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallFailure {
    pub message: String,
    pub kind: FailureKind,
}

impl From<InvokeError> for CallFailure {
    fn from(error: InvokeError) -> CallFailure {
        let kind = match &error {
            error if error.is_answer() => FailureKind::ErrorAnswer,
            InvokeError::Connect { .. } | InvokeError::Transport { .. } => FailureKind::Unreachable,
            InvokeError::Timeout { .. } => FailureKind::TimedOut,
            InvokeError::Gone { .. } => FailureKind::Gone,
            _ => FailureKind::NotSent,
        };
        CallFailure { message: error.to_string(), kind }
    }
}

/// A failure known only by its words: "no answer", with every key that may help.
impl From<String> for CallFailure {
    fn from(message: String) -> CallFailure {
        CallFailure { message, kind: FailureKind::Other }
    }
}

impl From<&str> for CallFailure {
    fn from(message: &str) -> CallFailure {
        CallFailure::from(message.to_string())
    }
}

/// Why work the app asked of the runtime came to nothing, as the runtime reports it back in a
/// [`Msg`](super::Msg). The app shows it where the work was for; every message reads as it did
/// when it was the cause's own text. Causes that cannot be cloned (a file system error, a task
/// that stopped) are kept as their words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EffectError {
    /// The server (or an artifact's host) refused, failed or could not be reached.
    #[error(transparent)]
    Server(#[from] InvokeError),
    /// Signing in or out stopped at a step.
    #[error(transparent)]
    SignIn(#[from] crate::invoke::auth::AuthError),
    #[error("only an MCP server over HTTP (--mcp-url) signs in with OAuth")]
    SignInNeedsHttp,
    #[error("signing in is not set up here")]
    SignInNotSetUp,
    /// A fuzz run could not go on.
    #[error(transparent)]
    Fuzz(#[from] crate::fuzz::FuzzError),
    /// The fuzz run's own connection to the server could not be made.
    #[error("cannot open a connection for fuzzing: {0}")]
    FuzzConnection(InvokeError),
    /// An eval run's model cannot be asked (its key's variable is not set, its URL is not one).
    #[error("the eval file's model: {0}")]
    EvalModel(#[from] tooldeck_evals::provider::ModelError),
    /// An eval run could not list the server's tools to show the model.
    #[error("cannot list the server's tools for the eval run: {0}")]
    EvalTools(InvokeError),
    /// An eval run could not go on (its words).
    #[error("{0}")]
    Eval(String),
    /// The server is not one the runtime knows how to connect again.
    #[error("the server's connection options are not known here")]
    NoConnectionOptions,
    /// `resources/read` of `uri` failed; `why` is the server's answer without the server's name
    /// (the pane names it already).
    #[error("cannot read {}: {why}", visible(uri))]
    Unreadable { uri: String, why: String },
    #[error("the server read {} as no contents at all", visible(.0))]
    NoContents(String),
    #[error(transparent)]
    Inline(#[from] crate::invoke::artifact::InlineError),
    /// An artifact could not be saved (the message names the file or the download).
    #[error("{0}")]
    Save(String),
    /// The case file at `path` could not be written.
    #[error("{path}: {why}")]
    CaseFile { path: String, why: String },
    /// The work's thread ended before the work did (it panicked, or the runtime is stopping).
    #[error("{0}")]
    Stopped(String),
}

impl EffectError {
    /// Appending to the case file at `path` failed: the error names the file ("No such file or
    /// directory" alone does not).
    pub fn case_file(path: &str, error: &std::io::Error) -> EffectError {
        EffectError::CaseFile { path: path.to_string(), why: error.to_string() }
    }
}

impl From<crate::invoke::save::SaveError> for EffectError {
    fn from(error: crate::invoke::save::SaveError) -> EffectError {
        EffectError::Save(error.to_string())
    }
}

impl From<tokio::task::JoinError> for EffectError {
    fn from(error: tokio::task::JoinError) -> EffectError {
        EffectError::Stopped(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_rpc_error_is_an_answer_and_no_restart_is_offered() {
        let failure = CallFailure::from(InvokeError::protocol("mcp:x", "tools/call", -32603, "boom", None));
        assert_eq!(failure.kind.headline(), "✗ the server answered with an error");
        assert!(!failure.kind.restart_helps());
        let refused = CallFailure::from(InvokeError::connect("http://127.0.0.1:9", "refused"));
        assert_eq!(refused.kind, FailureKind::Unreachable);
        assert!(refused.kind.restart_helps());
    }

    #[test]
    fn what_the_runtime_reports_reads_as_its_cause_did() {
        let refused = InvokeError::connect("http://127.0.0.1:9", "refused");
        assert_eq!(EffectError::from(refused.clone()).to_string(), refused.to_string());
        assert_eq!(
            EffectError::FuzzConnection(refused).to_string(),
            "cannot open a connection for fuzzing: cannot connect to http://127.0.0.1:9: refused"
        );
        let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
        assert_eq!(
            EffectError::case_file("cases/x.yaml", &missing).to_string(),
            "cases/x.yaml: No such file or directory"
        );
        // A URI from the server is shown with its control characters made visible.
        let unreadable = EffectError::Unreadable { uri: "test://a\u{1b}[2J".into(), why: "gone".into() };
        assert_eq!(unreadable.to_string(), "cannot read test://a␛[2J: gone");
        assert_eq!(
            EffectError::NoContents("test://n".into()).to_string(),
            "the server read test://n as no contents at all"
        );
    }
}
