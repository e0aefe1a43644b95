//! Each cause of a tool shrunk to its smallest input that still fails for the same cause and on
//! the same side of the schema (a cause met with valid input shrinks only to valid input).

use std::sync::atomic::Ordering;

use serde_json::Value;

use super::{Caller, MAX_SHRINK_HANGS, State};
use crate::catalog::Tool;
use crate::fuzz::causes::Cause;
use crate::fuzz::judge::{CallResult, Judge};
use crate::fuzz::{Finding, FuzzError, Kind, Phase, shrink};
use crate::invoke::{InvokeError, Status};

impl<C: Caller> State<'_, C> {
    pub(super) async fn shrink_all(
        &mut self,
        tool: &Tool,
        judge: &Judge,
        found: Vec<Cause>,
        success: Option<Status>,
        server_lost: bool,
    ) -> Result<(), FuzzError> {
        self.phase = Phase::Shrink;
        let mut lost = server_lost.then(|| FuzzError::Restart { after: "crashed", reason: String::new() });
        for cause in found {
            let original = cause.arguments.clone();
            // Without a server, a finding is kept as it was found; so is one of two calls (a
            // smaller first call would need the second again to be judged).
            let shrunk = match lost {
                _ if cause.kind == Kind::BreaksState => Ok((original.clone(), cause.message.clone(), cause.valid, 0)),
                Some(_) => Ok((original.clone(), cause.message.clone(), cause.valid, 0)),
                None => self.shrink_one(tool, judge, &cause).await,
            };
            let (arguments, message, valid, shrink_calls) = match shrunk {
                Ok(shrunk) => shrunk,
                Err(e) => {
                    lost = Some(e);
                    (original.clone(), cause.message.clone(), cause.valid, 0)
                }
            };
            self.report.findings.push(Finding {
                tool: tool.id.clone(),
                kind: cause.kind,
                severity: cause.kind.severity(),
                arguments,
                message,
                valid,
                phase: cause.phase,
                original,
                shrink_calls,
                count: cause.count,
                success_status: success,
                then: cause.then,
            });
            self.pending = self.pending.saturating_sub(1);
            self.progress();
        }
        match lost {
            Some(e) if !server_lost => Err(e),
            _ => Ok(()),
        }
    }

    /// One shrinking try; a hang's waits `shrink_timeout` only (a try that answers within it
    /// does not hang), so shrinking a hang costs seconds, not minutes.
    async fn try_candidate(&self, tool: &Tool, kind: Kind, candidate: &Value) -> CallResult {
        let call = self.caller.call(&tool.id, candidate);
        if kind != Kind::Hang {
            return call.await;
        }
        let limit = self.settings.shrink_timeout;
        match tokio::time::timeout(limit, call).await {
            Ok(answer) => answer,
            Err(_) => Err(InvokeError::timeout(tool.id.clone(), format!("{} s (shrinking)", limit.as_secs_f64()))),
        }
    }

    /// The smallest input that still fails for the same cause (kind and normalised message):
    /// the first smaller candidate that does is kept, and simplified in turn, until none does or
    /// the calls run out. Only candidates smaller than the input so far are tried, so the
    /// budget is spent while it still shrinks.
    async fn shrink_one(
        &mut self,
        tool: &Tool,
        judge: &Judge,
        cause: &Cause,
    ) -> Result<(Value, String, bool, usize), FuzzError> {
        let (mut current, mut message, mut valid) = (cause.arguments.clone(), cause.message.clone(), cause.valid);
        let budget = self.settings.shrink_calls;
        let (mut spent, mut hangs) = (0, 0);
        'rounds: while spent < budget && self.out_of_time().is_none() {
            let size = shrink::size(&current);
            for candidate in shrink::candidates(&current) {
                let candidate = self.pins.apply(candidate);
                if shrink::size(&candidate) >= size {
                    continue;
                }
                if spent >= budget || hangs >= MAX_SHRINK_HANGS {
                    break 'rounds;
                }
                // A finding found with valid input stays one of valid input: a smaller input
                // the schema refuses would be another finding, reproduced only past validation.
                let candidate_valid = judge.is_valid(&candidate);
                if cause.valid && !candidate_valid {
                    continue;
                }
                spent += 1;
                self.report.calls += 1;
                let answer = self.try_candidate(tool, cause.kind, &candidate).await;
                if self.stop.load(Ordering::Relaxed) {
                    break 'rounds;
                }
                let verdict = judge.judge(&candidate, candidate_valid, &answer);
                self.after(&answer, verdict.as_ref().map(|v| v.kind)).await?;
                self.progress();
                if verdict.as_ref().is_some_and(|v| v.kind == Kind::Hang) {
                    hangs += 1;
                }
                // The same cause, not only the same kind: a shrink that turns "invalid
                // timezone" into "missing argument" found another bug, not this one.
                if let Some(verdict) = verdict.filter(|v| v.kind == cause.kind && v.cause == cause.cause) {
                    current = candidate;
                    message = verdict.message;
                    valid = candidate_valid;
                    continue 'rounds;
                }
            }
            break;
        }
        Ok((current, message, valid, spent))
    }
}
