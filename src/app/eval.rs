//! The eval pane: what an eval run came to, read in three levels. Its cases (passed of
//! iterations, the pass rate and its interval, ok or below `min_pass_rate`); a case's iterations
//! (passed or why not); an iteration's trajectory (the model's messages, each call with its
//! verdict and the result the model was given), which scrolls. What it shows is a run of the
//! selected tool's cases (`eval_run.rs`: the run key, `ServerEffect::Eval`) or a report read
//! from a file at start (`--eval-report`). No I/O here.

use std::sync::Arc;

use tooldeck_evals::file::EvalFile;
use tooldeck_evals::report::{CaseReport, EvalReport, IterationReport};
use tooldeck_evals::run::Progress;

use super::keymap::{Action, Context};
use super::{Effect, EffectError, Reply, TaskEffect};

/// The eval pane. Its fields are private: read through getters, changed through its methods.
#[derive(Debug, Default)]
pub struct EvalPane {
    /// The eval file given with `--evals`: the model, and the cases the run key picks from.
    file: Option<Arc<EvalFile>>,
    /// What the pane shows: a run (going on or ended), or a report read from a file.
    shown: Option<Shown>,
    /// How deep the person has opened it.
    view: View,
    /// Index into the report's cases, and into the chosen case's iterations.
    case: usize,
    iteration: usize,
    /// The first row of the trajectory on screen.
    scroll: usize,
    /// The id the next run gets; answers of older runs are dropped.
    next_id: u64,
}

/// How deep the pane is opened: each Enter goes one level down, each Back one up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Cases,
    Iterations,
    Trajectory,
}

/// What the pane shows, and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    origin: Origin,
    state: EvalState,
    /// The last iteration finished, while a run goes on.
    progress: Option<Progress>,
    /// Per case, while a run goes on: (name, iterations done, passed).
    tally: Vec<(String, usize, usize)>,
    report: Option<EvalReport>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A report file read at start (`--eval-report FILE`), by the path given.
    File(String),
    /// Run `id` of the cases that expect a call to the tool `tool` (its list id).
    Run { id: u64, tool: String, cases: Vec<String>, iterations: usize },
}

#[derive(Debug, Clone, PartialEq)]
pub enum EvalState {
    /// A report read from a file.
    Read,
    Running,
    /// Asked to stop: the iterations going on end as stopped, the report still comes.
    Stopping,
    /// The run ended (`stopped`: the person stopped it, so its last iterations say so).
    Done {
        stopped: bool,
    },
    /// Nothing was run: the model's key is not set, the server's tools could not be listed...
    Failed(String),
}

impl Shown {
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    pub fn state(&self) -> &EvalState {
        &self.state
    }

    pub fn progress(&self) -> Option<&Progress> {
        self.progress.as_ref()
    }

    /// Per case, while a run goes on: (name, iterations done, passed).
    pub fn tally(&self) -> &[(String, usize, usize)] {
        &self.tally
    }

    pub fn report(&self) -> Option<&EvalReport> {
        self.report.as_ref()
    }

    pub fn running(&self) -> bool {
        matches!(self.state, EvalState::Running | EvalState::Stopping)
    }

    fn run_id(&self) -> Option<u64> {
        match &self.origin {
            Origin::Run { id, .. } => Some(*id),
            Origin::File(_) => None,
        }
    }

    /// The tool whose cases this run ran (`None`: a report read from a file).
    pub fn tool(&self) -> Option<&str> {
        match &self.origin {
            Origin::Run { tool, .. } => Some(tool),
            Origin::File(_) => None,
        }
    }
}

impl EvalPane {
    /// The eval file given with `--evals`.
    pub fn file(&self) -> Option<&EvalFile> {
        self.file.as_deref()
    }

    pub fn shown(&self) -> Option<&Shown> {
        self.shown.as_ref()
    }

    pub fn view(&self) -> View {
        self.view
    }

    /// The first row of the trajectory on screen.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    pub fn running(&self) -> bool {
        self.shown.as_ref().is_some_and(Shown::running)
    }

    /// Index into the report's cases.
    pub fn case_index(&self) -> usize {
        self.case
    }

    /// Index into the chosen case's iterations.
    pub fn iteration_index(&self) -> usize {
        self.iteration
    }

    pub fn selected_case(&self) -> Option<&CaseReport> {
        self.shown.as_ref()?.report.as_ref()?.cases.get(self.case)
    }

    pub fn selected_iteration(&self) -> Option<&IterationReport> {
        self.selected_case()?.verdicts.get(self.iteration)
    }

    /// The eval file the run key takes its model and cases from (`--evals`).
    pub(super) fn set_file(&mut self, file: EvalFile) {
        self.file = Some(Arc::new(file));
    }

    /// A report read from `path` (`--eval-report`), shown from its cases.
    pub(super) fn open_report(&mut self, path: String, report: EvalReport) {
        self.shown = Some(Shown {
            origin: Origin::File(path),
            state: EvalState::Read,
            progress: None,
            tally: Vec::new(),
            report: Some(report),
        });
        self.at_top();
    }

    /// A new run of `cases` (each `iterations` times) of tool `tool`; its id.
    pub(super) fn start(&mut self, tool: &str, cases: Vec<String>, iterations: usize) -> u64 {
        self.next_id += 1;
        let tally = cases.iter().map(|c| (c.clone(), 0, 0)).collect();
        self.shown = Some(Shown {
            origin: Origin::Run { id: self.next_id, tool: tool.to_string(), cases, iterations },
            state: EvalState::Running,
            progress: None,
            tally,
            report: None,
        });
        self.at_top();
        self.next_id
    }

    fn at_top(&mut self) {
        (self.view, self.case, self.iteration, self.scroll) = (View::Cases, 0, 0, 0);
    }

    /// The run `id`, if it is the one shown.
    fn current(&mut self, id: u64) -> Option<&mut Shown> {
        self.shown.as_mut().filter(|s| s.run_id() == Some(id))
    }

    /// Run `id` finished an iteration.
    pub(super) fn progressed(&mut self, id: u64, progress: Progress) {
        let Some(shown) = self.current(id).filter(|s| s.running()) else { return };
        if let Some((_, done, passed)) = shown.tally.iter_mut().find(|(name, _, _)| *name == progress.case) {
            *done += 1;
            *passed += usize::from(progress.passed);
        }
        shown.progress = Some(progress);
    }

    /// Run `id` ended; what to say in the status bar (`None`: an older run's answer, dropped).
    pub(super) fn done(&mut self, id: u64, result: Result<Box<EvalReport>, EffectError>) -> Option<String> {
        let shown = self.current(id)?;
        let tool = crate::text::visible(shown.tool().unwrap_or_default()).into_owned();
        let stopped = shown.state == EvalState::Stopping;
        let said = match result {
            Ok(report) => {
                let ok = report.cases.iter().filter(|c| c.ok).count();
                let said = format!(
                    "the eval cases of {tool}{}: {ok} of {} at or above their min_pass_rate",
                    if stopped { " stopped" } else { " ended" },
                    report.cases.len()
                );
                shown.state = EvalState::Done { stopped };
                shown.report = Some(*report);
                said
            }
            Err(why) => {
                let why = crate::redact::text(&why.to_string()).into_owned();
                shown.state = EvalState::Failed(why.clone());
                format!("the eval cases of {tool} did not run: {why}")
            }
        };
        self.at_top();
        Some(said)
    }

    /// How many entries the current level lists.
    fn entries(&self) -> usize {
        let Some(report) = self.shown.as_ref().and_then(|s| s.report.as_ref()) else { return 0 };
        match self.view {
            View::Cases => report.cases.len(),
            View::Iterations | View::Trajectory => self.selected_case().map_or(0, |c| c.verdicts.len()),
        }
    }

    /// Moves the choice (or, in a trajectory, the scroll) by `delta`, clamped; `rows` is how
    /// many rows the trajectory has and `page` how many show at once.
    fn choose(&mut self, delta: isize, rows: usize, page: usize) {
        let clamp = |at: usize, last: usize| (at as isize).saturating_add(delta).clamp(0, last as isize) as usize;
        match self.view {
            View::Cases => self.case = clamp(self.case, self.entries().saturating_sub(1)),
            View::Iterations => self.iteration = clamp(self.iteration, self.entries().saturating_sub(1)),
            View::Trajectory => self.scroll = clamp(self.scroll, rows.saturating_sub(page)),
        }
    }

    /// Enter: a case opens on its iterations, an iteration on its trajectory.
    fn open(&mut self) -> Reply {
        match self.view {
            View::Cases if self.selected_case().is_some() => {
                (self.view, self.iteration) = (View::Iterations, 0);
                Reply::default()
            }
            View::Iterations if self.selected_iteration().is_some() => {
                (self.view, self.scroll) = (View::Trajectory, 0);
                Reply::default()
            }
            View::Trajectory => Reply::default(),
            View::Cases | View::Iterations if self.running() => {
                Reply::status("the results show here once the run ends; {key:back} stops it")
            }
            View::Cases | View::Iterations => Reply::status("nothing to open"),
        }
    }

    /// Back: a run going on stops; otherwise one level up, and from the cases the pane closes.
    fn back(&mut self) -> Reply {
        let view = self.view;
        match self.shown.as_mut() {
            Some(shown) if shown.state == EvalState::Running => {
                shown.state = EvalState::Stopping;
                let id = shown.run_id().unwrap_or_default();
                Reply::effect(Effect::Task(TaskEffect::StopEval { id }))
                    .with_status("stopping the eval run: the iterations going on end as stopped")
            }
            _ => match view {
                View::Trajectory => {
                    self.view = View::Iterations;
                    Reply::default()
                }
                View::Iterations => {
                    self.view = View::Cases;
                    Reply::default()
                }
                View::Cases => Reply::close(),
            },
        }
    }

    /// The trajectory's rows at the pane's width, and how many show at once, on a `size` screen.
    fn trajectory_rows(&self, size: (u16, u16)) -> (usize, usize) {
        let (columns, page) = super::eval_view::trajectory_area(size);
        let rows = self.selected_iteration().map_or(0, |it| super::eval_view::trajectory(it, columns).len());
        (rows, page)
    }
}

/// The eval pane's keys: moving, opening a level, Back. Running again (`r`) spans panes: the
/// app's (`actions::perform`).
impl super::Component for EvalPane {
    fn context(&self) -> Option<Context> {
        Some(Context::Eval)
    }

    fn handle(&mut self, input: super::Input, cx: &super::Cx) -> Option<Reply> {
        let action = match input {
            super::Input::Action(action) => action,
            super::Input::Key(key) => {
                let help = cx.keymap.key_name(Context::Eval, Action::Help);
                let key = super::keymap::Key::of(key);
                return Some(Reply::status(format!("{key} does nothing in the eval pane · {help} lists its keys")));
            }
            super::Input::Paste(_) => return None,
        };
        let (rows, page) = match self.view {
            View::Trajectory => self.trajectory_rows(cx.size),
            View::Cases | View::Iterations => (0, 1),
        };
        let step = if self.view == View::Trajectory { page.max(1) as isize } else { 10 };
        match action {
            Action::Up => self.choose(-1, rows, page),
            Action::Down => self.choose(1, rows, page),
            Action::PageUp => self.choose(-step, rows, page),
            Action::PageDown => self.choose(step, rows, page),
            Action::Top => self.choose(isize::MIN / 2, rows, page),
            Action::Bottom => self.choose(isize::MAX / 2, rows, page),
            Action::Activate => return Some(self.open()),
            Action::Back => return Some(self.back()),
            // The key that opened the pane closes it; a run going on goes on behind.
            Action::Eval => return Some(Reply::close()),
            Action::Retry | Action::Help | Action::Quit => return None,
            _ => {}
        }
        Some(Reply::default())
    }
}
