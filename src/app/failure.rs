//! Why a call got no result, sorted by what the person can do about it: a server that answered
//! with an error is not helped by a restart, one that is gone is.

use crate::invoke::InvokeError;

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
            InvokeError::Protocol(_) => FailureKind::ErrorAnswer,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_rpc_error_is_an_answer_and_no_restart_is_offered() {
        let failure =
            CallFailure::from(InvokeError::Protocol("tools/call failed with JSON-RPC error -32603: boom".into()));
        assert_eq!(failure.kind.headline(), "✗ the server answered with an error");
        assert!(!failure.kind.restart_helps());
        let refused =
            CallFailure::from(InvokeError::Connect { url: "http://127.0.0.1:9".into(), reason: "refused".into() });
        assert_eq!(refused.kind, FailureKind::Unreachable);
        assert!(refused.kind.restart_helps());
    }
}
