//! The state a tool left behind: a store that saves an item without its required fields answers
//! the call that saved it well, and fails every later read. After the first call a tool (one
//! that may write) accepted with invalid input of each kind (each rule broken), its read-only
//! siblings are called once, as they were before its phases; one that now fails inside (a crash,
//! an internal error) and did not before is a finding of the call that caused it, with both
//! calls in its reproducer. A sibling found broken is not called again: what follows would
//! only meet the state the first call left.

use serde_json::Value;

use super::{Caller, State, ToolRun};
use crate::catalog::Tool;
use crate::fuzz::judge::{Evidence, Judge, Verdict};
use crate::fuzz::valid::Generator;
use crate::fuzz::{FuzzError, Kind, LaterCall, Phase, Settings, coverage, skip_reason};

/// Read-only siblings called after a tool accepted invalid input, at most.
const MAX_SIBLINGS: usize = 4;

/// A read-only sibling: its smallest valid input, and whether it failed inside before.
pub(super) struct Sibling {
    id: String,
    arguments: Value,
    judge: Judge,
    failed_before: bool,
}

/// The siblings of the tool being fuzzed, and the causes of accepted invalid input they were
/// called after (once each).
pub(super) struct StateCheck {
    siblings: Vec<Sibling>,
    checked: std::collections::HashSet<String>,
}

impl StateCheck {
    /// Whether the siblings are still to be called after an accepted input of this cause.
    pub(super) fn wants(&self, cause: &str) -> bool {
        !self.checked.contains(cause) && self.siblings.iter().any(|s| !s.failed_before)
    }
}

/// The tools marked read-only, other than `tool`, that the run calls; none for a tool marked
/// read-only itself (it leaves nothing behind).
pub(super) fn siblings_of<'t>(tool: &Tool, tools: &'t [Tool], settings: &Settings) -> Vec<&'t Tool> {
    if tool.hints().read_only == Some(true) {
        return Vec::new();
    }
    tools
        .iter()
        .filter(|t| t.id != tool.id && t.hints().read_only == Some(true) && skip_reason(t, settings).is_none())
        .take(MAX_SIBLINGS)
        .collect()
}

/// A failure inside the server, as opposed to an answer: what a broken state causes.
fn fails_inside(verdict: &Verdict) -> bool {
    match verdict.kind {
        Kind::Crash | Kind::ProtocolError | Kind::MalformedResult => true,
        Kind::RefusesValid => verdict.evidence == Evidence::Strong,
        _ => false,
    }
}

impl<C: Caller> State<'_, C> {
    /// Each sibling called once with its smallest valid input, before the tool's phases: how it
    /// answers while the tool has left nothing behind.
    pub(super) async fn baseline(&mut self, siblings: &[&Tool]) -> Result<Option<StateCheck>, FuzzError> {
        let mut checked = Vec::new();
        for sibling in siblings {
            let Some(judge) = Judge::new(&sibling.input_schema, sibling.output_schema.as_ref(), self.settings.slow)
            else {
                continue;
            };
            let arguments = coverage::minimal(&Generator::new(&sibling.input_schema), &sibling.input_schema, 0);
            let answer = self.caller.call(&sibling.id, &arguments).await;
            self.report.calls += 1;
            let verdict = judge.judge(&arguments, judge.is_valid(&arguments), &answer);
            self.after(&answer, verdict.as_ref().map(|v| v.kind)).await?;
            let failed_before = verdict.as_ref().is_some_and(fails_inside);
            checked.push(Sibling { id: sibling.id.clone(), arguments, judge, failed_before });
        }
        Ok((!checked.is_empty()).then_some(StateCheck { siblings: checked, checked: Default::default() }))
    }

    /// After `tool` accepted the invalid `arguments`: each sibling that answered well before is
    /// called again; one that now fails inside is a finding of this call.
    pub(super) async fn check_state(
        &mut self,
        tool: &Tool,
        arguments: &Value,
        accepted: &str,
        run: &mut ToolRun,
        phase: Phase,
    ) -> Result<(), FuzzError> {
        let Some(mut check) = run.state.take() else { return Ok(()) };
        check.checked.insert(accepted.to_string());
        for sibling in check.siblings.iter_mut().filter(|s| !s.failed_before) {
            let answer = self.caller.call(&sibling.id, &sibling.arguments).await;
            self.report.calls += 1;
            let verdict = sibling.judge.judge(&sibling.arguments, true, &answer);
            self.after(&answer, verdict.as_ref().map(|v| v.kind)).await?;
            let Some(verdict) = verdict.filter(fails_inside) else { continue };
            sibling.failed_before = true;
            let later = LaterCall { tool: sibling.id.clone(), arguments: sibling.arguments.clone() };
            let shown = crate::text::truncate(&sibling.arguments.to_string(), 200).into_owned();
            let message = format!(
                "after {} accepted this invalid input, {} {shown} fails where it did not before: {}",
                tool.id, sibling.id, verdict.message
            );
            let cause = format!("breaks-state {} {}", sibling.id, verdict.cause);
            let breaks = Verdict { kind: Kind::BreaksState, message, cause, evidence: Evidence::Strong };
            run.causes.record_later(arguments.clone(), breaks, phase, later);
        }
        run.state = Some(check);
        Ok(())
    }
}
