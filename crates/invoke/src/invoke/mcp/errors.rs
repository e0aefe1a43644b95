//! How an MCP request's failure is said: each of rmcp's errors as one of ours, with what is
//! known about why (the server's exit status and last stderr lines, a session the server no
//! longer knows, an answer over the size cap).

use std::time::Duration;

use rmcp::service::ServiceError;

use super::McpEndpoint;
use super::events::{self, StderrTail};
use crate::invoke::InvokeError;

/// The per-request limit as the person sets it.
pub(super) fn timeout_limit(timeout: Duration) -> String {
    format!("{} s (--timeout)", timeout.as_secs_f64())
}

impl McpEndpoint {
    /// Awaits one request within the timeout, turning rmcp's errors into ours.
    pub(super) async fn request<T>(
        &self,
        method: &str,
        future: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, InvokeError> {
        self.wire.clear_failure();
        let answered = tokio::select! {
            // The transport's own reason comes first when both are ready: it is the true one.
            biased;
            why = self.wire.failure() => {
                return Err(InvokeError::transport(self.label.clone(), format!("{why} ({method})")));
            }
            answered = tokio::time::timeout(self.timeout, future) => answered,
        };
        match answered {
            Err(_) => Err(InvokeError::timeout(self.label.clone(), timeout_limit(self.timeout))),
            Ok(Ok(value)) => Ok(value),
            // rmcp may report a cut stream as a closed connection before the wire is polled.
            Ok(Err(_)) if let Some(why) = self.wire.take_failure() => {
                Err(InvokeError::transport(self.label.clone(), format!("{why} ({method})")))
            }
            Ok(Err(error)) => Err(self.fail(method, error).await),
        }
    }

    /// `future` (a call driven through its rounds), cut short when the wire says the stream
    /// it waits on is gone (a lost session, an answer over the cap).
    pub(super) async fn or_wire_failure<T>(
        &self,
        method: &str,
        future: impl Future<Output = Result<T, InvokeError>>,
    ) -> Result<T, InvokeError> {
        self.wire.clear_failure();
        let answered = tokio::select! {
            biased;
            why = self.wire.failure() => {
                return Err(InvokeError::transport(self.label.clone(), format!("{why} ({method})")));
            }
            answered = future => answered,
        };
        match (answered, self.wire.take_failure()) {
            (Err(_), Some(why)) => Err(InvokeError::transport(self.label.clone(), format!("{why} ({method})"))),
            (answered, _) => answered,
        }
    }

    /// rmcp's error as ours; for a server that went away, how it ended (stdio), once it has.
    pub(super) async fn fail(&self, method: &str, error: ServiceError) -> InvokeError {
        let ended = match (&error, &self.process) {
            (ServiceError::TransportClosed | ServiceError::TransportSend(_), Some(process)) => {
                process.watch_exit(Duration::from_millis(500)).await.map(events::describe_exit)
            }
            _ => None,
        };
        self.map_error_ended(method, error, ended)
    }

    pub(super) fn map_error(&self, method: &str, error: ServiceError) -> InvokeError {
        self.map_error_ended(method, error, None)
    }

    fn map_error_ended(&self, method: &str, error: ServiceError, ended: Option<String>) -> InvokeError {
        let label = &self.label;
        match error {
            // tooldeck answered for the server (see `raw.rs`): what happened, said as such.
            ServiceError::McpError(e) if let Some((kind, why)) = super::raw::read_synthetic(e.data.as_ref()) => {
                match kind {
                    super::raw::Synthetic::NotJson => InvokeError::Unreadable(format!(
                        "{label}: {why}, answering {method}; the line as it came is in the traffic log"
                    )),
                    super::raw::Synthetic::StreamEnded => InvokeError::gone(label.clone(), format!("{why} ({method})")),
                }
            }
            // The server's own error answer: kept as it came, for code to match on.
            ServiceError::McpError(e) => {
                InvokeError::protocol(label.clone(), method, i64::from(e.code.0), e.message.into_owned(), e.data)
            }
            ServiceError::Timeout { timeout } => {
                // rmcp says which limit ran out only by its length.
                let limit = match self.max_time {
                    // A whole-call limit as long as the silence allowed was set from
                    // `--timeout` (fuzz does so): named by the flag the person gave.
                    Some(max) if max == timeout && max != self.timeout => {
                        format!("{} s (--max-time)", max.as_secs_f64())
                    }
                    _ => timeout_limit(timeout),
                };
                InvokeError::timeout(label.clone(), limit)
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
                if self.oversized.as_ref().is_some_and(|o| o.load(std::sync::atomic::Ordering::Relaxed)) =>
            {
                let limit = crate::invoke::MAX_BODY_BYTES >> 20;
                let reason = format!("its answer to {method} is larger than {limit} MiB, so the connection was ended");
                InvokeError::transport(label.clone(), reason).caused_by(error)
            }
            ServiceError::TransportSend(ref e) if e.to_string().contains("Session expired") => {
                let reason = self.wire.lost().map_or_else(
                    || format!("the server no longer knows this session (it answered {method} with HTTP 404)"),
                    |why| format!("{why}, answering {method}"),
                );
                InvokeError::gone(label.clone(), reason).caused_by(error)
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let mut reason = match &ended {
                    Some(how) => format!("the server {how} during {method}"),
                    None => format!("the server closed the connection during {method} (did it exit or crash?)"),
                };
                if let ServiceError::TransportSend(e) = &error {
                    reason.push_str(&format!(": {e}"));
                }
                if let Some(tail) = self.stderr_tail.as_ref().and_then(StderrTail::describe) {
                    reason.push_str(&format!("; {tail}"));
                }
                InvokeError::gone(label.clone(), reason).caused_by(error)
            }
            // rmcp reads results by their type: a result it cannot read (a content block of a type
            // MCP does not define, a field of the wrong type) is no result at all to it.
            ServiceError::UnexpectedResponse => InvokeError::Unreadable(format!(
                "{label}: the server's {method} result could not be read (a content block of a type MCP does \
                 not define, or a field of the wrong type?)"
            )),
            other => InvokeError::Broken(format!("{label}: {method} failed: {other}")),
        }
    }
}
