//! "Fuzz this tool" in the app: the fuzz engine runs on the selected tool in the background (the
//! runtime carries out `ServerEffect::Fuzz` over a connection of its own), its progress comes back as
//! `FuzzMsg::Progress`, its findings as `FuzzMsg::Done`. The fuzz pane shows both; Enter on a
//! finding puts its arguments in the tool's form, to be sent with the usual key. No I/O here.

use super::keymap::{Action, Context};
use super::{App, Effect, EffectError, Focus, Overlay, Reply, ServerEffect, TaskEffect};
use crate::fuzz::{Finding, Progress, Report};

/// The fuzz pane: the last run (or the one going on) and the finding chosen in it.
/// Its fields are private: read through getters, changed only through its methods.
#[derive(Debug, Default)]
pub struct FuzzPane {
    run: Option<FuzzRun>,
    /// Index into the run's findings.
    selected: usize,
    /// The id the next run gets; answers of older runs are dropped.
    next_id: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FuzzRun {
    id: u64,
    tool_id: String,
    state: FuzzState,
    progress: Option<Progress>,
    findings: Vec<Finding>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FuzzState {
    Running,
    /// Asked to stop: the call in flight is cut short, the findings so far are kept.
    Stopping,
    /// The run ended: its calls, how long it took, the seed, and why it ended early if it did.
    Done {
        calls: usize,
        elapsed_ms: u64,
        seed: u64,
        restarts: usize,
        stopped: Option<String>,
        /// What is not a finding but worth knowing (the tool refuses most inputs...), as
        /// `tooldeck fuzz` says it.
        note: Option<String>,
    },
    /// Not fuzzed: the tool was left out (destructive), or the server could not be reached.
    Failed(String),
}

impl FuzzRun {
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn tool_id(&self) -> &str {
        &self.tool_id
    }

    pub fn state(&self) -> &FuzzState {
        &self.state
    }

    /// How far the run has come, once it has reported.
    pub fn progress(&self) -> Option<&Progress> {
        self.progress.as_ref()
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    pub fn running(&self) -> bool {
        matches!(self.state, FuzzState::Running | FuzzState::Stopping)
    }
}

impl FuzzPane {
    /// The last run, or the one going on.
    pub fn run(&self) -> Option<&FuzzRun> {
        self.run.as_ref()
    }

    /// Index into the run's findings.
    pub fn selected(&self) -> usize {
        self.selected
    }

    pub fn running(&self) -> bool {
        self.run.as_ref().is_some_and(FuzzRun::running)
    }

    pub fn selected_finding(&self) -> Option<&Finding> {
        self.run.as_ref().and_then(|r| r.findings.get(self.selected))
    }

    /// A new run of `tool_id`; the effect that starts it.
    fn start(&mut self, tool_id: &str) -> u64 {
        self.next_id += 1;
        self.run = Some(FuzzRun {
            id: self.next_id,
            tool_id: tool_id.to_string(),
            state: FuzzState::Running,
            progress: None,
            findings: Vec::new(),
        });
        self.selected = 0;
        self.next_id
    }

    fn current(&mut self, id: u64) -> Option<&mut FuzzRun> {
        self.run.as_mut().filter(|r| r.id == id)
    }

    pub fn progressed(&mut self, id: u64, progress: Progress) {
        if let Some(run) = self.current(id).filter(|r| r.running()) {
            run.progress = Some(progress);
        }
    }

    /// The run ended; what to say in the status bar.
    pub fn done(&mut self, id: u64, result: Result<Box<Report>, EffectError>) -> Option<String> {
        let run = self.current(id)?;
        let tool = crate::text::visible(&run.tool_id).into_owned();
        let said = match result {
            Ok(report) => {
                let report = *report;
                let skipped = report.tools.iter().find_map(|t| t.skipped.clone());
                match skipped {
                    Some(why) => {
                        run.state = FuzzState::Failed(format!("not fuzzed: {why}"));
                        format!("{tool} was not fuzzed: {why}")
                    }
                    None => {
                        let found = report.findings.len();
                        run.state = FuzzState::Done {
                            calls: report.calls,
                            elapsed_ms: report.elapsed_ms,
                            seed: report.seed,
                            restarts: report.restarts,
                            stopped: report.stopped,
                            note: report.tools.iter().find_map(|t| t.note.clone()),
                        };
                        run.findings = report.findings;
                        format!("fuzzing {tool} ended: {found} finding{}", if found == 1 { "" } else { "s" })
                    }
                }
            }
            Err(why) => {
                let said = format!("fuzzing {tool} failed: {why}");
                run.state = FuzzState::Failed(why.to_string());
                said
            }
        };
        self.selected = 0;
        Some(said)
    }

    /// Moves the choice among the findings by `delta` (clamped).
    fn choose(&mut self, delta: isize) {
        let count = self.run.as_ref().map_or(0, |r| r.findings.len());
        let last = count.saturating_sub(1) as isize;
        self.selected = (self.selected as isize).saturating_add(delta).clamp(0, last.max(0)) as usize;
    }
}

impl App {
    /// `Z`: the fuzz pane of the selected tool. A run going on (of any tool) is shown; a
    /// finished run of this tool is shown again (`r` in the pane runs it again, `Z` closes it);
    /// otherwise a new run of it starts.
    pub(super) fn fuzz_selected(&mut self) -> Vec<Effect> {
        let Some(tool) = self.selected_tool().cloned() else {
            self.tell("select a tool first: the fuzz run calls it");
            return Vec::new();
        };
        if !tool.written.face.is_tool() {
            self.tell("a fuzz run calls a tool; a resource, template or prompt is read, not called");
            return Vec::new();
        }
        let same_tool = self.fuzz.run.as_ref().is_some_and(|r| r.tool_id == tool.id);
        // A run that never started has nothing to show again.
        let findings_kept = self.fuzz.run.as_ref().is_some_and(|r| matches!(r.state, FuzzState::Done { .. }));
        if self.fuzz.running() || (same_tool && findings_kept && !self.shows(Overlay::Fuzz)) {
            self.open_overlay(Overlay::Fuzz);
            if !same_tool {
                self.tell(self.say("a fuzz run is going on: {key:back} in the fuzz pane stops it"));
            }
            return Vec::new();
        }
        self.start_fuzz(tool)
    }

    fn start_fuzz(&mut self, tool: crate::catalog::Tool) -> Vec<Effect> {
        self.stop_typing();
        let id = self.fuzz.start(&tool.id);
        self.open_overlay(Overlay::Fuzz);
        self.tell(format!("fuzzing {} on a connection of its own…", crate::text::visible(&tool.id)));
        vec![Effect::Server(ServerEffect::Fuzz { id, tool: Box::new(tool) })]
    }

    /// `r` in the fuzz pane: the tool fuzzed again, once the run has ended (the fuzz pane's
    /// Enter is `finding_to_form`; both are the app's, `actions::perform`, as they span panes).
    pub(super) fn fuzz_again(&mut self) -> Vec<Effect> {
        if self.fuzz.running() {
            self.tell(self.say("a fuzz run is going on: {key:back} stops it first"));
            return Vec::new();
        }
        let tool = self.fuzz.run.as_ref().and_then(|r| self.catalog.get(&r.tool_id)).cloned();
        match tool {
            Some(tool) => self.start_fuzz(tool),
            None => Vec::new(),
        }
    }

    /// Enter on a finding: its tool selected, its (shrunk) arguments in the form.
    pub(super) fn finding_to_form(&mut self) {
        let Some(finding) = self.fuzz.selected_finding().cloned() else {
            self.tell("no finding to put in the form");
            return;
        };
        if finding.kind == crate::fuzz::Kind::StdoutNotJsonRpc {
            self.tell("the server's own note, of no tool: no arguments to put in the form");
            return;
        }
        let Some(position) = self.catalog.tools().iter().position(|t| t.id == finding.tool) else {
            self.tell(format!("{} is no longer in the catalog", crate::text::visible(&finding.tool)));
            return;
        };
        self.list.select_tool(&self.catalog, position);
        self.tool_changed();
        let held = self.form_mut().map(|form| {
            form.set_arguments(&finding.arguments);
            form.arguments() == &finding.arguments
        });
        self.sync_json();
        self.close_overlay();
        self.focus = Focus::Form;
        let kind = finding.kind.name();
        self.tell(self.say(&match (held, finding.valid) {
            (Some(false), _) => format!(
                "the {kind} finding's arguments in the form, as far as it can hold them (the schema refuses them); {{key:toggle_json}} shows the JSON"
            ),
            (_, false) => format!(
                "the {kind} finding's arguments in the form: the schema refuses them, so {{key:run}} twice sends them"
            ),
            _ => format!("the {kind} finding's arguments in the form: {{key:run}} sends them"),
        }));
    }

    /// A fuzz run's progress or end (`ServerEffect::Fuzz`).
    pub(super) fn fuzz_msg(&mut self, msg: super::FuzzMsg) {
        match msg {
            super::FuzzMsg::Progress { id, progress } => self.fuzz.progressed(id, progress),
            super::FuzzMsg::Done { id, result } => {
                if let Some(said) = self.fuzz.done(id, result) {
                    self.tell(said);
                }
            }
        }
    }
}

/// The fuzz pane's keys: moving among the findings, and Back (stops a run going on, else
/// closes). What involves other panes is the app's (`actions::perform`).
impl super::Component for FuzzPane {
    fn context(&self) -> Option<Context> {
        Some(Context::Fuzz)
    }

    fn handle(&mut self, input: super::Input, cx: &super::Cx) -> Option<Reply> {
        let action = match input {
            super::Input::Action(action) => action,
            super::Input::Key(key) => {
                let help = cx.keymap.key_name(Context::Fuzz, Action::Help);
                let key = super::keymap::Key::of(key);
                return Some(Reply::status(format!("{key} does nothing in the fuzz pane · {help} lists its keys")));
            }
            super::Input::Paste(_) => return None,
        };
        match action {
            Action::Up => self.choose(-1),
            Action::Down => self.choose(1),
            Action::PageUp => self.choose(-10),
            Action::PageDown => self.choose(10),
            Action::Top => self.choose(isize::MIN / 2),
            Action::Bottom => self.choose(isize::MAX / 2),
            Action::Back => return Some(self.stop_or_close()),
            // The key that opened the pane closes it; a run going on goes on behind.
            Action::Fuzz => return Some(Reply::close()),
            Action::Activate | Action::Retry | Action::Help | Action::Quit => return None,
            _ => {}
        }
        Some(Reply::default())
    }
}

impl FuzzPane {
    /// Back: a run going on stops (its findings so far are kept); a finished one's pane closes.
    fn stop_or_close(&mut self) -> Reply {
        match self.run.as_mut() {
            Some(run) if run.state == FuzzState::Running => {
                run.state = FuzzState::Stopping;
                Reply::effect(Effect::Task(TaskEffect::StopFuzz { id: run.id }))
                    .with_status("stopping the fuzz run: the findings so far are kept")
            }
            _ => Reply::close(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::update;
    use crate::app::{FuzzMsg, InputMsg, Msg};
    use crate::catalog::{LoadOptions, load_samples};
    use crate::fuzz::{Kind, Phase, ToolSummary};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use serde_json::json;

    /// A run that ended with the server's error `why`.
    fn protocol(why: &str) -> EffectError {
        crate::invoke::InvokeError::Broken(why.into()).into()
    }

    fn app() -> App {
        let loaded = load_samples(&LoadOptions::default());
        App::new(loaded.catalog, &loaded.diagnostics, (120, 40))
    }

    fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
        update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))))
    }

    fn finding(tool: &str, kind: Kind, arguments: serde_json::Value, valid: bool) -> Finding {
        Finding {
            tool: tool.into(),
            kind,
            severity: kind.severity(),
            original: arguments.clone(),
            arguments,
            message: "refused valid input: out of range".into(),
            valid,
            phase: Phase::Coverage,
            shrink_calls: 4,
            count: 1,
            success_status: None,
            then: None,
        }
    }

    fn report(tool: &str, findings: Vec<Finding>) -> Box<Report> {
        let tools = vec![ToolSummary { tool: tool.into(), calls: 120, ..ToolSummary::default() }];
        Box::new(Report { seed: 9, calls: 120, findings, tools, elapsed_ms: 800, ..Report::default() })
    }

    /// Selects `id` in the list and starts fuzzing it with `Z`; the run's id.
    fn fuzz(app: &mut App, id: &str) -> u64 {
        while app.selected_tool().map(|t| t.id.as_str()) != Some(id) {
            press(app, KeyCode::Down);
        }
        let effects = press(app, KeyCode::Char('Z'));
        let [Effect::Server(ServerEffect::Fuzz { id: run, tool })] = effects.as_slice() else { panic!("{effects:?}") };
        assert_eq!(tool.id, id);
        *run
    }

    #[test]
    fn enter_on_a_finding_puts_its_arguments_in_the_form() {
        let mut app = app();
        let tool = "convert_currency";
        let id = fuzz(&mut app, tool);
        assert!(app.shows(Overlay::Fuzz) && app.fuzz.running());
        let progress = Progress {
            tool: tool.into(),
            phase: Phase::Valid,
            calls: 40,
            findings: 1,
            elapsed: std::time::Duration::from_millis(20),
        };
        update(&mut app, Msg::Fuzz(FuzzMsg::Progress { id, progress: progress.clone() }));
        assert_eq!(app.fuzz.run.as_ref().unwrap().progress, Some(progress));
        let shrunk = json!({"amount": 1, "from": "USD", "to": "EUR"});
        let findings = vec![
            finding(tool, Kind::Slow, json!({"amount": 1, "from": "EUR", "to": "USD"}), true),
            finding(tool, Kind::RefusesValid, shrunk.clone(), true),
        ];
        update(&mut app, Msg::Fuzz(FuzzMsg::Done { id, result: Ok(report(tool, findings)) }));
        assert!(!app.fuzz.running());
        assert!(app.status().unwrap().contains("2 findings"), "{:?}", app.status());
        // Closed, away from the tool and back: Z shows the finished run again.
        press(&mut app, KeyCode::Esc);
        assert!(!app.shows(Overlay::Fuzz), "Esc closes a finished run's pane");
        press(&mut app, KeyCode::Up);
        assert_ne!(app.selected_tool().map(|t| t.id.as_str()), Some(tool));
        press(&mut app, KeyCode::Down);
        assert!(press(&mut app, KeyCode::Char('Z')).is_empty(), "Z shows the finished run again");
        assert!(app.shows(Overlay::Fuzz));
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        assert!(!app.shows(Overlay::Fuzz));
        assert_eq!(app.focus, Focus::Form);
        assert_eq!(app.selected_tool().map(|t| t.id.as_str()), Some(tool));
        assert_eq!(app.form().unwrap().arguments(), &shrunk);
        assert!(app.status().unwrap().contains("Ctrl-R sends them"), "{:?}", app.status());
    }

    #[test]
    fn esc_stops_a_run_and_a_late_answer_of_an_older_run_is_dropped() {
        let mut app = app();
        let first = fuzz(&mut app, "convert_currency");
        assert_eq!(press(&mut app, KeyCode::Esc), vec![Effect::Task(TaskEffect::StopFuzz { id: first })]);
        assert_eq!(app.fuzz.run.as_ref().unwrap().state, FuzzState::Stopping);
        assert!(app.shows(Overlay::Fuzz), "the pane stays to show what was found");
        let mut stopped = report("convert_currency", Vec::new());
        stopped.stopped = Some("stopped".into());
        update(&mut app, Msg::Fuzz(FuzzMsg::Done { id: first, result: Ok(stopped) }));
        // r in the pane runs the same tool again; the first run's answers no longer count.
        let effects = press(&mut app, KeyCode::Char('r'));
        let [Effect::Server(ServerEffect::Fuzz { id: second, .. })] = effects.as_slice() else { panic!("{effects:?}") };
        assert_ne!(*second, first);
        update(&mut app, Msg::Fuzz(FuzzMsg::Done { id: first, result: Err(protocol("late")) }));
        assert!(app.fuzz.running(), "{:?}", app.fuzz.run);
        update(&mut app, Msg::Fuzz(FuzzMsg::Done { id: *second, result: Err(protocol("cannot connect")) }));
        assert_eq!(app.fuzz.run.as_ref().unwrap().state, FuzzState::Failed("cannot connect".into()));
    }

    #[test]
    fn a_destructive_tool_left_out_says_why() {
        let mut app = app();
        let id = fuzz(&mut app, "convert_currency");
        let mut skipped = report("convert_currency", Vec::new());
        skipped.tools[0].skipped = Some("marked destructive".into());
        update(&mut app, Msg::Fuzz(FuzzMsg::Done { id, result: Ok(skipped) }));
        assert_eq!(app.fuzz.run.as_ref().unwrap().state, FuzzState::Failed("not fuzzed: marked destructive".into()));
    }
}

#[cfg(test)]
mod note_tests {
    use super::*;
    use crate::fuzz::ToolSummary;

    /// A run with no findings whose tool refused most inputs keeps that note, so the pane says
    /// what `tooldeck fuzz` says instead of "every answer was what its schemas promise".
    #[test]
    fn a_run_with_no_findings_keeps_the_tools_note() {
        let mut pane = FuzzPane::default();
        let id = pane.start("files.read");
        let note = "the tool refuses most inputs (103 of 103 valid ones)".to_string();
        let tool = ToolSummary { tool: "files.read".into(), note: Some(note.clone()), ..ToolSummary::default() };
        let report = Report { tools: vec![tool], ..Report::default() };
        pane.done(id, Ok(Box::new(report)));
        let state = pane.run().map(|r| r.state().clone());
        assert!(matches!(&state, Some(FuzzState::Done { note: Some(n), .. }) if *n == note), "{state:?}");
    }
}
