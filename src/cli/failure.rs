//! How a command ends: a named exit code, and when it could not do its job, one message on
//! stderr ([`Failure`], returned with `?`).

use std::io::Write as _;
use std::process::ExitCode;

/// Exit codes, the same for every command.
pub mod exit {
    pub const OK: u8 = 0;
    /// What the command looks for was found: a tool error, a failed case, an error finding, a
    /// breaking change (and, for the app and the demo server, a failure to start or serve).
    pub const FAILED: u8 = 1;
    /// `tooldeck call`: the tool answered with an error.
    pub const TOOL_ERROR: u8 = FAILED;
    pub const USAGE: u8 = 2;
    pub const INVALID_ARGUMENTS: u8 = 3;
    pub const AUTHORIZATION_REQUIRED: u8 = 4;
    pub const TRANSPORT: u8 = 5;
    /// `call --strict`: the server answered, but not the way the protocol says.
    pub const PROTOCOL_DEVIATION: u8 = 6;

    /// `code` as the process's exit code.
    pub fn code(code: u8) -> std::process::ExitCode {
        std::process::ExitCode::from(code)
    }
}

/// Why a command stops: its exit code and what to say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into() }
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(exit::USAGE, message)
    }

    pub fn failed(message: impl Into<String>) -> Failure {
        Failure::new(exit::FAILED, message)
    }

    pub fn transport(message: impl Into<String>) -> Failure {
        Failure::new(exit::TRANSPORT, message)
    }

    /// Says the message on stderr, line by line with control characters made visible (it may
    /// quote a server or a file) and `${VAR}` values masked, and gives the exit code.
    pub fn report(self) -> ExitCode {
        let message = crate::redact::expanded(&self.message);
        let lines: Vec<String> = message.lines().map(|l| crate::text::visible(l).into_owned()).collect();
        let _ = writeln!(std::io::stderr(), "tooldeck: {}", lines.join("\n"));
        exit::code(self.code)
    }
}

/// A command's result as the process's exit code, the failure said on the way.
pub fn finish(result: Result<ExitCode, Failure>) -> ExitCode {
    result.unwrap_or_else(Failure::report)
}

/// A server name that does not resolve, or options that contradict each other: a usage error.
impl From<crate::invoke::NamedError> for Failure {
    fn from(error: crate::invoke::NamedError) -> Failure {
        Failure::usage(error.to_string())
    }
}

/// A header or token that cannot be used: a usage error.
impl From<crate::invoke::endpoint::ValueError> for Failure {
    fn from(error: crate::invoke::endpoint::ValueError) -> Failure {
        Failure::usage(error.to_string())
    }
}
