//! What `tooldeck test` says about each case: plain lines, or a progress bar on a terminal with
//! failures above it, and the counts for the closing line. Strings from servers and case files
//! are shown with control characters made visible.

use std::io::{self, Write};

use serde::Serialize;

use super::file::{Case, CaseFile, Problem};
use crate::text::visible;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "result", content = "failures", rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed(Vec<String>),
    Skipped,
}

/// One case's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    pub file: String,
    /// Position of the case in its file, to report in file order.
    #[serde(skip)]
    pub index: usize,
    pub name: String,
    pub tool: String,
    pub location: String,
    #[serde(flatten)]
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    pub duration_ms: u64,
}

impl CaseResult {
    pub fn new(file: &CaseFile, index: usize, case: &Case, verdict: Verdict) -> CaseResult {
        CaseResult {
            file: file.path.display().to_string(),
            index,
            name: case.name.clone(),
            tool: case.tool.clone(),
            location: case.location.clone(),
            verdict,
            call_id: None,
            duration_ms: 0,
        }
    }
}

/// Where results go as they come.
pub trait Report {
    fn case(&mut self, result: CaseResult);
    /// A case that could not be read (its file is read a case at a time, as the cases run).
    fn problems(&mut self, problems: Vec<Problem>);
    /// Errors in a case file's `defs` (a tool that did not load): shown, since its cases will
    /// fail for it, but not a problem of the case file.
    fn definition_errors(&mut self, _errors: Vec<String>) {}
    /// Something the run did that the reader should know (it reconnected to the server).
    fn note(&mut self, _note: String) {}
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Counts {
    pub fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed(_) => self.failed += 1,
            Verdict::Skipped => self.skipped += 1,
        }
    }

    /// `N passed, N failed` and `, N skipped` when some were.
    pub fn summary(&self) -> String {
        let mut line = format!("{} passed, {} failed", self.passed, self.failed);
        if self.skipped > 0 {
            line.push_str(&format!(", {} skipped", self.skipped));
        }
        line
    }
}

/// A failed case as lines: what it is, where, its call id, then each failure.
pub fn failure_lines(result: &CaseResult) -> Vec<String> {
    let Verdict::Failed(failures) = &result.verdict else { return Vec::new() };
    let call = result.call_id.as_deref().map(|id| format!(", call {id}")).unwrap_or_default();
    let mut lines = vec![format!("FAIL  {}  ({}{call})", visible(&result.name), visible(&result.location))];
    lines.extend(failures.iter().flat_map(|f| f.lines().map(|l| format!("      {}", visible(l))).collect::<Vec<_>>()));
    lines
}

/// Lines on stdout; on a terminal, a progress bar on stderr instead of a line per passing case.
pub struct Lines {
    pub counts: Counts,
    total: usize,
    bar: bool,
    /// Keep every result (for --junit), not just the counts.
    pub kept: Option<Vec<CaseResult>>,
    /// When the bar was last drawn: thousands of cases a second need not mean thousands of draws.
    drawn: Option<std::time::Instant>,
    /// Cases that could not be read.
    pub problems: Vec<Problem>,
}

impl Lines {
    pub fn new(total: usize, bar: bool, keep: bool) -> Lines {
        Lines { counts: Counts::default(), total, bar, kept: keep.then(Vec::new), drawn: None, problems: Vec::new() }
    }

    fn draw_bar(&self) {
        let done = self.counts.passed + self.counts.failed + self.counts.skipped;
        let width = 30;
        let filled = (done * width).checked_div(self.total).unwrap_or(width);
        let failed = if self.counts.failed > 0 { format!(" · {} failed", self.counts.failed) } else { String::new() };
        let _ = write!(
            io::stderr(),
            "\r\x1b[2K[{}{}] {done}/{}{failed}",
            "█".repeat(filled),
            "░".repeat(width - filled),
            self.total
        );
    }

    /// Clears the progress bar before the closing line.
    pub fn finish(&self) {
        if self.bar {
            let _ = write!(io::stderr(), "\r\x1b[2K");
        }
    }
}

impl Report for Lines {
    fn definition_errors(&mut self, errors: Vec<String>) {
        if self.bar {
            let _ = write!(io::stderr(), "\r\x1b[2K");
        }
        for error in &errors {
            let _ = writeln!(io::stderr(), "{}", visible(error));
        }
    }

    fn note(&mut self, note: String) {
        if self.bar {
            let _ = write!(io::stderr(), "\r\x1b[2K");
        }
        let _ = writeln!(io::stdout(), "note  {}", visible(&note));
    }

    fn problems(&mut self, problems: Vec<Problem>) {
        if self.bar {
            let _ = write!(io::stderr(), "\r\x1b[2K");
        }
        for problem in &problems {
            let _ = writeln!(io::stderr(), "{}", visible(&problem.to_string()));
        }
        self.problems.extend(problems);
    }

    fn case(&mut self, result: CaseResult) {
        self.counts.add(&result.verdict);
        let mut out = io::stdout().lock();
        let failed = matches!(result.verdict, Verdict::Failed(_));
        let due = self.drawn.is_none_or(|at| at.elapsed() >= std::time::Duration::from_millis(50));
        if self.bar && failed {
            // The bar's line is cleared so a failure prints on a line of its own.
            let _ = write!(io::stderr(), "\r\x1b[2K");
        }
        match &result.verdict {
            Verdict::Failed(_) => {
                for line in failure_lines(&result) {
                    let _ = writeln!(out, "{line}");
                }
            }
            Verdict::Passed if !self.bar => {
                let _ = writeln!(out, "ok    {}  ({} ms)", visible(&result.name), result.duration_ms);
            }
            Verdict::Skipped if !self.bar => {
                let _ = writeln!(out, "skip  {}", visible(&result.name));
            }
            _ => {}
        }
        let _ = out.flush();
        if self.bar && (due || failed) {
            self.draw_bar();
            self.drawn = Some(std::time::Instant::now());
        }
        if let Some(kept) = &mut self.kept {
            kept.push(result);
        }
    }
}

/// Every result kept, for `--json` (and `--junit`).
#[derive(Default)]
pub struct Collect {
    pub counts: Counts,
    pub results: Vec<CaseResult>,
    pub problems: Vec<Problem>,
    pub definition_errors: Vec<String>,
    pub notes: Vec<String>,
}

impl Report for Collect {
    fn definition_errors(&mut self, mut errors: Vec<String>) {
        self.definition_errors.append(&mut errors);
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    fn problems(&mut self, mut problems: Vec<Problem>) {
        self.problems.append(&mut problems);
    }

    fn case(&mut self, result: CaseResult) {
        self.counts.add(&result.verdict);
        self.results.push(result);
    }
}

/// Counts only: for benchmarks and whoever needs no output.
#[derive(Default)]
pub struct Quiet {
    pub counts: Counts,
    pub problems: usize,
}

impl Report for Quiet {
    fn problems(&mut self, problems: Vec<Problem>) {
        self.problems += problems.len();
    }

    fn case(&mut self, result: CaseResult) {
        self.counts.add(&result.verdict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_mentions_skipped_only_when_some_were() {
        let mut counts = Counts::default();
        counts.add(&Verdict::Passed);
        counts.add(&Verdict::Failed(vec![]));
        assert_eq!(counts.summary(), "1 passed, 1 failed");
        counts.add(&Verdict::Skipped);
        assert_eq!(counts.summary(), "1 passed, 1 failed, 1 skipped");
    }

    #[test]
    fn a_failure_says_where_and_which_call() {
        let result = CaseResult {
            file: "c.yaml".into(),
            index: 0,
            name: "adds \u{1b}[31m".into(),
            tool: "Math.Add".into(),
            location: "c.yaml:3:5".into(),
            verdict: Verdict::Failed(vec!["value differs:\n    /: expected 3, got 4".into()]),
            call_id: Some("abc".into()),
            duration_ms: 2,
        };
        let lines = failure_lines(&result);
        assert_eq!(lines[0], "FAIL  adds ␛[31m  (c.yaml:3:5, call abc)");
        assert_eq!(lines[1], "      value differs:");
        assert_eq!(lines[2], "          /: expected 3, got 4");
    }
}
