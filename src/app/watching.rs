//! `--watch` in the app: a change under a watched path restarts every server; when a restarted
//! server has listed its tools again, one line from the diff engine says how its tools changed
//! (every change goes to its pane), what the person typed into a changed tool's form is carried
//! to the new schema where it still fits, and with `--watch-run` the last call runs again and
//! the status line says how its result changed.

use serde_json::Value;

use super::keymap::{Action, Context};
use super::result::RunState;
use super::{App, Effect, ServerEffect};
use crate::catalog::{Catalog, SessionId, Tool};
use crate::invoke::Outcome;

/// What the app keeps of `--watch` between a change and the new tool lists.
#[derive(Debug, Default)]
pub struct Watching {
    /// `--watch` was given: changes restart the servers.
    watched: bool,
    /// Sessions restarted by the last change whose tools have not been listed again yet.
    restarting: Vec<SessionId>,
    /// `--watch-run` (or its key): the last call runs again after each restart.
    run_after: bool,
    /// The call run again after a restart, and the outcome of the call before it (`None`:
    /// that one got no answer).
    rerun: Option<(u64, Option<Outcome>)>,
    /// The person ran a call while the servers were restarting: it is sent once they are back
    /// (sent at once, it would reach the old server, still up until the new one is).
    run_when_back: bool,
}

impl Watching {
    /// Whether the last call runs again after each restart.
    pub fn run_after(&self) -> bool {
        self.run_after
    }

    pub(super) fn set_watched(&mut self, on: bool) {
        self.watched = on;
    }

    pub(super) fn set_run_after(&mut self, on: bool) {
        self.run_after = on;
    }
}

/// The outcome of the run on screen, if it got one.
fn outcome_of(state: &RunState) -> Option<Outcome> {
    match state {
        RunState::Done { outcome, .. } => Some((**outcome).clone()),
        _ => None,
    }
}

impl App {
    /// `--watch`: files changed, so every server starts again (a stdio server is restarted, an
    /// HTTP one gets a new session) and lists its tools again; each pane keeps its log above a
    /// restart line.
    pub(super) fn files_changed(&mut self, summary: &str, at: &str) -> Vec<Effect> {
        let ids: Vec<_> = self.sessions.all().iter().map(|s| s.id()).collect();
        let summary = crate::text::visible(summary);
        for id in &ids {
            self.sessions.server_mut(*id).start_listing();
            self.sessions.pane_mut(*id).note(format!("── restarted {at} after {summary} changed ──"));
        }
        self.watching.restarting.clone_from(&ids);
        self.watching.run_when_back = false;
        self.tell(format!(
            "{summary} changed: restarting {}",
            match ids.len() {
                1 => "the server".to_string(),
                n => format!("{n} servers"),
            }
        ));
        ids.into_iter().map(|id| Effect::Session { id, effect: ServerEffect::Reconnect }).collect()
    }

    /// Session `session` listed its tools after a restart a change made (`before`: what it
    /// listed until then): its pane gets every change, the status line the first; the forms of
    /// changed tools keep what still fits; once every server is back, `--watch-run` runs the
    /// last call again.
    pub(super) fn relisted_after_change(&mut self, session: SessionId, label: &str, before: &[Tool]) -> Vec<Effect> {
        let Some(at) = self.watching.restarting.iter().position(|s| *s == session) else { return Vec::new() };
        self.watching.restarting.remove(at);
        // Its tools only: its resources and prompts from before are listed again after this.
        let now: Vec<Tool> = self
            .catalog
            .tools()
            .iter()
            .filter(|t| t.source.session == Some(session) && t.written.face.is_tool())
            .cloned()
            .collect();
        let lines = crate::diff::lines(&crate::diff::diff_catalogs(&catalog_of(before), &catalog_of(&now)));
        let pane = self.sessions.pane_mut(session);
        for line in &lines {
            pane.note(line.clone());
        }
        let dropped = self.carry_forms(session, before, &now);
        let label = crate::text::visible(label);
        let mut status = match crate::diff::first_and_more(&lines) {
            None => format!("reconnected to {label}: the same tools"),
            Some(line) if lines.len() > 1 => {
                let key = self.key_name(Context::Main, Action::ServerPane);
                format!("reconnected to {label}: {line}, {key} lists them")
            }
            Some(line) => format!("reconnected to {label}: {line}"),
        };
        if let Some(first) = dropped.first() {
            status.push_str(&format!(" · {first}"));
        }
        self.tell(status);
        match (self.watching.restarting.is_empty(), self.watching.run_after) {
            (false, _) => Vec::new(),
            (true, true) => {
                self.watching.run_when_back = false;
                self.run_again_after_change()
            }
            (true, false) if std::mem::take(&mut self.watching.run_when_back) => self.start_run(false),
            (true, false) => Vec::new(),
        }
    }

    /// Run, while the servers restart after a change: the call waits for them (`true`), and
    /// the status line says so.
    pub(super) fn run_waits_for_restart(&mut self) -> bool {
        if self.watching.restarting.is_empty() {
            return false;
        }
        self.watching.run_when_back = true;
        self.tell("the server is restarting after a change: the call is sent once it is back");
        true
    }

    /// Session `session` could not be started again after a change: a call waiting for it is
    /// not sent (the next change tries again).
    pub(super) fn restart_failed(&mut self, session: SessionId) {
        self.watching.restarting.retain(|s| *s != session);
        if std::mem::take(&mut self.watching.run_when_back) {
            self.sessions.pane_mut(session).note("the call waiting for the restart was not sent");
        }
    }

    /// The forms of session `session`'s tools whose input schema changed are built anew from
    /// what the person typed into them, where the new schema takes it; what it does not take
    /// is said in the server pane (and returned, for the status line).
    fn carry_forms(&mut self, session: SessionId, before: &[Tool], now: &[Tool]) -> Vec<String> {
        let mut said = Vec::new();
        for tool in now {
            let Some(old) = before.iter().find(|t| t.id == tool.id) else { continue };
            if old.input_schema == tool.input_schema {
                continue;
            }
            let Some(edits) = self.form_pane.take_edits(&tool.id) else { continue };
            let (kept, dropped) = crate::form::carry::carry(&edits, &tool.input_schema);
            let form = self.form_pane.open(tool);
            let mut arguments = form.arguments().clone();
            if let (Value::Object(all), Value::Object(kept)) = (&mut arguments, kept) {
                all.extend(kept);
            }
            form.set_arguments(&arguments);
            for why in dropped {
                said.push(format!("{}: {why}", crate::text::visible(&tool.id)));
            }
        }
        let pane = self.sessions.pane_mut(session);
        for line in &said {
            pane.note(line.clone());
        }
        self.sync_json();
        said
    }

    /// `--watch-run`: the last call again, on the restarted server; its outcome is held
    /// against the one before when it comes back ([`App::rerun_done`]).
    fn run_again_after_change(&mut self) -> Vec<Effect> {
        let before = self.result.run().map(|run| (run.id(), outcome_of(run.state())));
        let Some((before_id, before_outcome)) = before else { return Vec::new() };
        if self.result.running() {
            return Vec::new();
        }
        let effects = self.retry();
        match self.result.run().map(|run| run.id()) {
            Some(id) if id != before_id => self.watching.rerun = Some((id, before_outcome)),
            _ => {}
        }
        effects
    }

    /// A call came back: when it is the one run again after a change, the status line says
    /// how its result differs from the one before.
    pub(super) fn rerun_done(&mut self, id: u64) {
        if self.watching.rerun.as_ref().is_none_or(|(rerun, _)| *rerun != id) {
            return;
        }
        let Some((_, before)) = self.watching.rerun.take() else { return };
        let now = self.result.run().map(|run| outcome_of(run.state()));
        let Some(now) = now else { return };
        let what = match (&before, &now) {
            (Some(before), Some(now)) => {
                let differences = crate::cases::compare::differences(now, before);
                let lines: Vec<String> = differences.iter().map(|d| as_before_and_now(d)).collect();
                match crate::diff::first_and_more(&lines) {
                    None => "the same result".to_string(),
                    Some(line) => format!("result changed: {line}"),
                }
            }
            (None, None) => "no answer, as before".to_string(),
            (None, Some(_)) => "result changed: an answer now, none before".to_string(),
            (Some(_), None) => "result changed: no answer now".to_string(),
        };
        self.tell(format!("run again after the change: {what}"));
    }

    /// The watch-run key: the last call runs again after each restart, or no longer.
    pub(super) fn toggle_watch_run(&mut self) {
        // Without --watch nothing restarts the servers, so there is no "after" to run again in.
        if !self.watching.watched {
            self.tell("running again after each restart needs --watch PATH: nothing is watched now");
            return;
        }
        self.watching.run_after = !self.watching.run_after;
        self.tell(match self.watching.run_after {
            true => "after each restart --watch makes, the last call runs again",
            false => "after a restart the last call no longer runs again",
        });
    }
}

fn catalog_of(tools: &[Tool]) -> Catalog {
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool.clone());
    }
    catalog
}

/// A line of [`crate::cases::compare::differences`] (`X here, Y from the compared server`),
/// worded for a result held against the one before it (`X now, Y before`).
fn as_before_and_now(line: &str) -> String {
    line.replace(" here, ", " now, ").replace(" from the compared server", " before")
}
