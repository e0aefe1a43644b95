//! "Run this tool's eval cases" in the app: with an eval file given (`--evals FILE`), the run key
//! picks the file's cases whose expected calls name the selected tool and asks the runtime for
//! `ServerEffect::Eval` on the tool's server (the app's, over its session's connection; the
//! model and its `${VAR}` key are the file's). Each iteration's end comes back as
//! `EvalMsg::Progress`, the report as `EvalMsg::Done`; the eval pane shows both. No I/O here.

use super::eval::{EvalState, Origin};
use super::{App, Effect, EvalMsg, Overlay, ServerEffect};
use crate::catalog::Tool;

impl App {
    /// `E` / F12: the eval pane. A run going on (of any tool) is shown; a finished run of this
    /// tool is shown again (`r` in the pane runs it again, `E` closes it); otherwise a run of
    /// the selected tool's cases starts. Without an eval file, a report read at start is shown,
    /// or the status line says how to give one.
    pub(super) fn eval_selected(&mut self) -> Vec<Effect> {
        let shows_something = self.eval.shown().is_some();
        if self.eval.running() {
            self.open_overlay(Overlay::Eval);
            let same = self.eval.shown().and_then(|s| s.tool()) == self.selected_tool().map(|t| t.id.as_str());
            if !same {
                self.tell(self.say("an eval run is going on: {key:back} in the eval pane stops it"));
            }
            return Vec::new();
        }
        let Some(file) = self.eval.file() else {
            match shows_something {
                true => self.open_overlay(Overlay::Eval),
                false => self.tell(
                    "no eval file: start tooldeck with --evals FILE to run a tool's eval cases (or --eval-report FILE to read a report)",
                ),
            }
            return Vec::new();
        };
        let path = crate::text::visible(&file.path.display().to_string()).into_owned();
        let Some(tool) = self.selected_tool().cloned() else {
            self.tell("select a tool first: its eval cases run");
            return Vec::new();
        };
        if !tool.written.face.is_tool() {
            self.tell("eval cases expect calls of tools; a resource, template or prompt has none");
            return Vec::new();
        }
        let finished_here = self
            .eval
            .shown()
            .is_some_and(|s| s.tool() == Some(tool.id.as_str()) && matches!(s.state(), EvalState::Done { .. }));
        if finished_here && !self.shows(Overlay::Eval) {
            self.open_overlay(Overlay::Eval);
            return Vec::new();
        }
        let cases = cases_of(file, &tool);
        if cases.is_empty() {
            let name = crate::text::visible(&tool.name).into_owned();
            self.tell(format!("no case in {path} expects a call to {name}"));
            if shows_something {
                self.open_overlay(Overlay::Eval);
            }
            return Vec::new();
        }
        self.start_eval(&tool, cases)
    }

    /// A run of `cases` of `tool`, the eval pane open on it.
    fn start_eval(&mut self, tool: &Tool, cases: Vec<String>) -> Vec<Effect> {
        let Some(file) = self.eval.file() else { return Vec::new() };
        let mut narrowed = file.clone();
        narrowed.cases.retain(|c| cases.contains(&c.name));
        let iterations = narrowed.iterations.max(1) as usize;
        self.stop_typing();
        let count = cases.len();
        let id = self.eval.start(&tool.id, cases, iterations);
        self.open_overlay(Overlay::Eval);
        self.tell(format!(
            "running {count} eval case{} of {} ({} iterations in all) with {}…",
            if count == 1 { "" } else { "s" },
            crate::text::visible(&tool.id),
            count * iterations,
            crate::text::visible(&narrowed.model.name),
        ));
        vec![Effect::Server(ServerEffect::Eval { id, file: Box::new(narrowed) })]
    }

    /// `r` in the eval pane: the cases of the tool last run (or, under a report read from a
    /// file, of the selected tool) run again, once the run has ended.
    pub(super) fn eval_again(&mut self) -> Vec<Effect> {
        if self.eval.running() {
            self.tell(self.say("an eval run is going on: {key:back} stops it first"));
            return Vec::new();
        }
        let last = match self.eval.shown().map(|s| s.origin()) {
            Some(Origin::Run { tool, .. }) => self.catalog.get(tool).cloned(),
            Some(Origin::File(_)) | None => None,
        };
        let Some(tool) = last.or_else(|| self.selected_tool().cloned()) else {
            self.tell("select a tool first: its eval cases run");
            return Vec::new();
        };
        let Some(file) = self.eval.file() else {
            self.tell("no eval file: start tooldeck with --evals FILE to run a tool's eval cases");
            return Vec::new();
        };
        let cases = cases_of(file, &tool);
        if cases.is_empty() {
            let name = crate::text::visible(&tool.name).into_owned();
            self.tell(format!("no case in {} expects a call to {name}", file.path.display()));
            return Vec::new();
        }
        self.start_eval(&tool, cases)
    }

    /// An eval run's progress or end (`ServerEffect::Eval`); an older run's is dropped.
    pub(super) fn eval_msg(&mut self, msg: EvalMsg) {
        match msg {
            EvalMsg::Progress { id, progress } => self.eval.progressed(id, progress),
            EvalMsg::Done { id, result } => {
                if let Some(said) = self.eval.done(id, result) {
                    self.tell(said);
                }
            }
        }
    }
}

/// The names of the cases of `file` whose expected calls name `tool` (by the name the model
/// sees it under).
fn cases_of(file: &tooldeck_evals::file::EvalFile, tool: &Tool) -> Vec<String> {
    file.cases
        .iter()
        .filter(|c| c.expect.calls.iter().any(|call| call.tool == tool.name))
        .map(|c| c.name.clone())
        .collect()
}
