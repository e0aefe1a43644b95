//! Why a call got no answer, typed at the invoke boundary: a JSON-RPC error answer keeps its
//! code, message and data as the server sent them, and a transport failure keeps the error that
//! caused it (`std::error::Error::source`), so code that needs to know (fuzz's judge, the app's
//! failure kinds, `call`'s exit codes) matches a variant instead of reading words.
//!
//! Each Display is the whole sentence a person reads (the cause's words included, as before the
//! causes were kept), with secrets masked: print it, not the chain under it.

use std::sync::Arc;

use serde_json::Value;

use crate::redact;

/// A JSON-RPC error's `data` is kept up to this size (its compact JSON); beyond it, the start of
/// that JSON as a string: a server's data is outside input and may be any size.
pub const MAX_ERROR_DATA: usize = 4 * 1024;

/// The error under an [`InvokeError`] (reqwest's, an I/O error, rmcp's), shared so that the
/// error stays `Clone` as the app's messages need. Transparent: its Display and its `source()`
/// are the wrapped error's, so the chain walks on into reqwest's and hyper's own causes.
#[derive(Debug, Clone)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Cause {
        Cause(Arc::new(error))
    }

    /// The wrapped error as its own type (`std::io::Error`, `reqwest::Error`...), if it is one.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Two causes are alike when they say the same: the app's messages compare errors in tests,
/// and the wrapped types (reqwest's, io's) have no equality of their own.
impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for Cause {}

/// Why a call got no answer at all (an answer of any kind is an [`Outcome`](super::Outcome)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvokeError {
    #[error("cannot set up the HTTP client: {reason}")]
    Setup {
        reason: String,
        #[source]
        source: Option<Cause>,
    },
    #[error("cannot connect to {}: {}", redact::command(.url), redact::command(.reason))]
    Connect {
        url: String,
        reason: String,
        #[source]
        source: Option<Cause>,
    },
    #[error("no answer from {} within {limit}{}", redact::command(.url), still_working_said(*.still_working))]
    Timeout {
        url: String,
        /// The limit that ran out, as the person set it: "60 s (--timeout)", "5 s (--max-time)".
        limit: String,
        /// The server was still reporting progress (or its task's status) when the limit ran
        /// out: working for as long as it was asked to, not stuck.
        still_working: bool,
    },
    /// The server answered the request with a JSON-RPC error. `server` is its label (masked),
    /// `data` at most [`MAX_ERROR_DATA`] (see [`InvokeError::protocol`]), boxed to keep every
    /// `Result` of the invoke layer small.
    #[error(
        "{server}: {method} failed with JSON-RPC error {code}: {}{}",
        redact::expanded(.message),
        .data.as_ref().map(|d| format!(" ({})", redact::expanded(&d.to_string()))).unwrap_or_default()
    )]
    Protocol { server: String, method: String, code: i64, message: String, data: Option<Box<Value>> },
    /// An answer that cannot be read as the protocol's: a line that is not JSON, a result rmcp
    /// cannot read, a field of the wrong type.
    #[error("{0}")]
    Unreadable(String),
    /// The server broke the protocol's rules in another way: a task that never moves, a list
    /// whose pages never end, input still wanted after every round.
    #[error("{0}")]
    Broken(String),
    /// Nothing was sent: what was asked is not something this endpoint does (resources of an
    /// OTC server, a log level MCP does not name, arguments that are not an object), or the
    /// run was stopped first.
    #[error("{0}")]
    NotSent(String),
    /// A plain HTTP request (an OTC tool list, an artifact) answered with an error status, or
    /// with a redirect the same-origin rule did not follow (`redirect`: where it pointed, masked).
    #[error(
        "GET {}{}",
        redact::url(.url),
        .redirect.as_ref().map_or_else(|| format!(" answered {status}"), |r| format!(": {r}"))
    )]
    Http { url: String, status: reqwest::StatusCode, redirect: Option<String> },
    #[error("the call to {} failed: {}", redact::command(.url), redact::command(.reason))]
    Transport {
        url: String,
        reason: String,
        #[source]
        source: Option<Cause>,
    },
    /// The connection is gone: the server exited, closed it, or forgot the session. Reconnecting
    /// (`R` in the app) is the way on.
    #[error("{} is gone: {}", redact::command(.url), redact::command(.reason))]
    Gone {
        url: String,
        reason: String,
        #[source]
        source: Option<Cause>,
    },
    /// The server answered 401: it wants a token (the app asks for one; `--token mcp=…`).
    #[error(
        "{} wants authorization: HTTP 401{}; sign in with `{}` (or --login), or give a token with --token mcp=TOKEN or --header 'Authorization: Bearer …'",
        redact::url(.url),
        .challenge.as_deref().map(|c| format!(" (WWW-Authenticate: {c})")).unwrap_or_default(),
        crate::invoke::auth::login_command(.url)
    )]
    Unauthorized { url: String, challenge: Option<String> },
    /// Signing in (OAuth) stopped: the step, the URL and why.
    #[error("signing in to {} failed: {reason}", redact::url(.url))]
    SignIn {
        url: String,
        reason: String,
        #[source]
        source: Option<Cause>,
    },
}

impl InvokeError {
    /// A JSON-RPC error answer, its `data` bounded to [`MAX_ERROR_DATA`].
    pub fn protocol(
        server: impl Into<String>,
        method: impl Into<String>,
        code: i64,
        message: impl Into<String>,
        data: Option<Value>,
    ) -> InvokeError {
        InvokeError::Protocol {
            server: server.into(),
            method: method.into(),
            code,
            message: message.into(),
            data: data.map(|d| Box::new(bounded(d))),
        }
    }

    /// The server's JSON-RPC error code, when the error is its error answer.
    pub fn json_rpc_code(&self) -> Option<i64> {
        match self {
            InvokeError::Protocol { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// True for what the server (or the plain HTTP server) said or broke, as against the way to
    /// it failing: `call` exits 1 for these, the app calls them an error answer.
    pub fn is_answer(&self) -> bool {
        matches!(
            self,
            InvokeError::Protocol { .. }
                | InvokeError::Unreadable(_)
                | InvokeError::Broken(_)
                | InvokeError::NotSent(_)
                | InvokeError::Http { .. }
        )
    }

    pub fn setup(error: impl std::error::Error + Send + Sync + 'static) -> InvokeError {
        InvokeError::Setup { reason: error.to_string(), source: Some(Cause::new(error)) }
    }

    /// A connection refused for a reason of tooldeck's words, with no error under it.
    pub fn connect(url: impl Into<String>, reason: impl Into<String>) -> InvokeError {
        InvokeError::Connect { url: url.into(), reason: reason.into(), source: None }
    }

    pub fn transport(url: impl Into<String>, reason: impl Into<String>) -> InvokeError {
        InvokeError::Transport { url: url.into(), reason: reason.into(), source: None }
    }

    pub fn gone(url: impl Into<String>, reason: impl Into<String>) -> InvokeError {
        InvokeError::Gone { url: url.into(), reason: reason.into(), source: None }
    }

    pub fn sign_in(url: impl Into<String>, reason: impl Into<String>) -> InvokeError {
        InvokeError::SignIn { url: url.into(), reason: reason.into(), source: None }
    }

    /// The same error with `cause` kept under it (for the variants that keep one).
    pub fn caused_by(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> InvokeError {
        match &mut self {
            InvokeError::Setup { source, .. }
            | InvokeError::Connect { source, .. }
            | InvokeError::Transport { source, .. }
            | InvokeError::Gone { source, .. }
            | InvokeError::SignIn { source, .. } => *source = Some(Cause::new(cause)),
            _ => {}
        }
        self
    }

    /// No answer within `limit` (as the person set it: "60 s (--timeout)").
    pub fn timeout(url: impl Into<String>, limit: impl Into<String>) -> InvokeError {
        InvokeError::Timeout { url: url.into(), limit: limit.into(), still_working: false }
    }

    /// `self`, said to have been still working when its time ran out (a timeout only).
    #[must_use]
    pub fn still_working(self) -> InvokeError {
        match self {
            InvokeError::Timeout { url, limit, .. } => InvokeError::Timeout { url, limit, still_working: true },
            other => other,
        }
    }

    pub fn from_reqwest(error: reqwest::Error, url: &str) -> InvokeError {
        // reqwest's own message is terse; its sources say what actually happened.
        let mut reason = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            reason.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        let url = url.to_string();
        if super::http::is_redirect_loop(&error) {
            InvokeError::transport(url, super::http::RedirectLoop.to_string()).caused_by(error)
        } else if error.is_timeout() {
            InvokeError::timeout(url, "the time allowed (--timeout)")
        } else if error.is_connect() {
            let reason = super::http::why_unanswered(&error);
            InvokeError::connect(url, reason).caused_by(error)
        } else {
            InvokeError::transport(url, reason).caused_by(error)
        }
    }
}

/// `data` as it came when its compact JSON fits [`MAX_ERROR_DATA`], else the start of that JSON
/// as a string, cut at a character boundary and marked as cut.
fn bounded(data: Value) -> Value {
    let text = data.to_string();
    if text.len() <= MAX_ERROR_DATA {
        return data;
    }
    let mut end = MAX_ERROR_DATA;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Value::String(format!("{}… (cut at {} KiB)", &text[..end], MAX_ERROR_DATA >> 10))
}

/// The end of a timeout's line when the server was still working.
fn still_working_said(still_working: bool) -> &'static str {
    if still_working { ", though it was still reporting progress" } else { "" }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use serde_json::json;

    use super::*;

    #[test]
    fn a_json_rpc_error_reads_as_before_and_keeps_its_parts() {
        let error = InvokeError::protocol("mcp:x", "tools/call", -32602, "bad n", Some(json!({"field": "n"})));
        assert_eq!(error.to_string(), r#"mcp:x: tools/call failed with JSON-RPC error -32602: bad n ({"field":"n"})"#);
        assert_eq!(error.json_rpc_code(), Some(-32602));
        let plain = InvokeError::protocol("mcp:x", "tools/list", -32603, "boom", None);
        assert_eq!(plain.to_string(), "mcp:x: tools/list failed with JSON-RPC error -32603: boom");
    }

    #[test]
    fn huge_error_data_is_cut() {
        let error = InvokeError::protocol("s", "m", 1, "x", Some(json!({"big": "é".repeat(MAX_ERROR_DATA)})));
        let InvokeError::Protocol { data: Some(data), .. } = &error else { panic!("{error:?}") };
        let Value::String(cut) = data.as_ref() else { panic!("{data:?}") };
        assert!(cut.len() < MAX_ERROR_DATA + 40 && cut.ends_with("(cut at 4 KiB)"), "{}", cut.len());
    }

    #[test]
    fn the_cause_chain_is_walkable_and_typed() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let error = InvokeError::connect("http://127.0.0.1:9", "refused").caused_by(io);
        let cause = error.source().expect("a source");
        let InvokeError::Connect { source: Some(kept), .. } = &error else { panic!("{error:?}") };
        assert_eq!(
            kept.downcast_ref::<std::io::Error>().map(std::io::Error::kind),
            Some(std::io::ErrorKind::ConnectionRefused)
        );
        assert_eq!(cause.to_string(), "refused");
        // Display is unchanged by the cause: the sentence as a person reads it.
        assert_eq!(error.to_string(), "cannot connect to http://127.0.0.1:9: refused");
    }

    /// reqwest's error is kept whole: the chain goes on through hyper's to the I/O error, whose
    /// kind code can read without parsing words.
    #[tokio::test]
    async fn a_refused_connection_keeps_reqwests_chain_down_to_the_io_error() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            listener.local_addr().expect("an address").port()
        };
        let url = format!("http://127.0.0.1:{port}/tools");
        let client = crate::invoke::http::client_builder().build().expect("a client");
        let refused = client.get(&url).send().await.expect_err("nothing listens there");
        let error = InvokeError::from_reqwest(refused, &url);
        assert!(matches!(error, InvokeError::Connect { .. }), "{error:?}");
        let mut chain = Vec::new();
        let mut next = error.source();
        while let Some(cause) = next {
            chain.push(cause);
            next = cause.source();
        }
        assert!(chain.len() >= 2, "{chain:?}");
        assert!(chain[0].to_string().starts_with("error sending request"), "{}", chain[0]);
        let io = chain.iter().find_map(|c| c.downcast_ref::<std::io::Error>()).expect("an I/O error in the chain");
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
    }

    #[test]
    fn secrets_stay_masked_in_the_display() {
        let error = InvokeError::Http {
            url: "https://x.test/tools?api_key=s3cret".into(),
            status: reqwest::StatusCode::NOT_FOUND,
            redirect: None,
        };
        assert!(!error.to_string().contains("s3cret"), "{error}");
        let error = InvokeError::transport("https://u:s3cret@x.test/mcp", "refused");
        assert!(!error.to_string().contains("s3cret"), "{error}");
    }
}
