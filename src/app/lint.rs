//! What `tooldeck lint` says of each tool whose form was opened. The rules run off the UI thread
//! (`WorkEffect::Lint`) the first time a tool is opened; a tool loaded again (files read, a server's
//! list) is linted again. The detail pane gives them one short line (a count and the key that
//! reads them), so they never crowd out a server being debugged; the key shows them whole.

use std::collections::HashMap;

use super::keymap::Action;
use super::{App, Effect, Popup, WorkEffect};
use crate::catalog::Tool;
use crate::lint::{Finding, Options, Severity};

#[derive(Debug, Default)]
pub struct LintNotes {
    /// The config file's `[lint]`; `None` leaves the detail pane without findings.
    options: Option<Options>,
    /// Findings by tool id; an entry with no findings means "linted, nothing to say".
    by_tool: HashMap<String, Vec<Finding>>,
    /// Tools sent to be linted whose findings have not come back.
    pending: Vec<String>,
}

impl LintNotes {
    pub fn new(options: Options) -> LintNotes {
        LintNotes { options: Some(options), ..LintNotes::default() }
    }

    /// `tool`'s findings, once linted.
    pub fn findings(&self, tool_id: &str) -> Option<&[Finding]> {
        self.by_tool.get(tool_id).map(Vec::as_slice)
    }

    /// The effect that lints `tool`, unless it was linted (or is being linted) already.
    pub fn lint(&mut self, tool: &Tool) -> Option<Effect> {
        let options = self.options.clone()?;
        if self.by_tool.contains_key(&tool.id) || self.pending.contains(&tool.id) {
            return None;
        }
        self.pending.push(tool.id.clone());
        Some(Effect::Work(WorkEffect::Lint { tool: Box::new(tool.clone()), options }))
    }

    pub fn linted(&mut self, tool_id: String, findings: Vec<Finding>) {
        self.pending.retain(|id| *id != tool_id);
        self.by_tool.insert(tool_id, findings);
    }

    /// The catalog changed: what was said of its tools may no longer hold.
    pub fn forget(&mut self) {
        self.by_tool.clear();
        self.pending.clear();
    }
}

/// `2 warnings, 1 note`: how many findings of each severity, the most serious first.
pub fn counts(findings: &[Finding]) -> String {
    let mut counts: Vec<String> = Vec::new();
    for severity in [Severity::Error, Severity::Warning, Severity::Note] {
        let n = findings.iter().filter(|f| f.severity == severity).count();
        if n > 0 {
            counts.push(format!("{n} {}{}", severity.name(), if n == 1 { "" } else { "s" }));
        }
    }
    counts.join(", ")
}

/// Every finding whole, the most serious first: its severity and rule, what it says, the fix.
pub fn text(findings: &[Finding]) -> String {
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let mut text = String::new();
    for finding in sorted {
        let mark = match finding.severity {
            Severity::Error => "✗",
            Severity::Warning => "!",
            Severity::Note => "·",
        };
        text.push_str(&format!("{mark} {} {}\n  {}\n", finding.severity, finding.rule, finding.message));
        if !finding.fix.is_empty() {
            text.push_str(&format!("  fix: {}\n", finding.fix));
        }
        text.push('\n');
    }
    text.push_str("(tooldeck lint gives them for every tool, with the line of the file)");
    text
}

impl App {
    /// The selected tool's lint findings in the text popup, or why there are none to show.
    pub(super) fn show_lint_notes(&mut self) {
        let Some(tool) = self.selected_tool() else {
            self.tell("no tool selected");
            return;
        };
        let name = crate::text::visible(&tool.name).into_owned();
        let said = match self.lint.findings(&tool.id) {
            Some([]) => Err(format!("the lint rules find nothing to say of {name}")),
            Some(findings) => Ok((format!("lint: {name} · {}", counts(findings)), text(findings))),
            None if self.lint.options.is_none() => Err("the lint rules are not run here".to_string()),
            None => Err(format!("the lint rules have not read {name} yet: open its form first")),
        };
        match said {
            Ok((title, text)) => self.prompts.open(Popup::Text { title, text, scroll: 0 }),
            Err(why) => self.tell(why),
        }
    }

    /// The one line the detail pane gives a tool's findings: `lint 2 warnings · N reads them`.
    pub fn lint_line(&self, tool_id: &str) -> Option<String> {
        let findings = self.lint.findings(tool_id).filter(|f| !f.is_empty())?;
        Some(format!("lint {} · {} reads them", counts(findings), self.key_here(Action::LintNotes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(id: &str) -> Tool {
        let file = format!(r#"{{"name": "{id}", "parameters": {{"type": "object"}}}}"#);
        let options = crate::catalog::LoadOptions::default();
        crate::catalog::load_text("t.json", &file, &options).0.remove(0)
    }

    #[test]
    fn lints_each_tool_once_until_the_catalog_changes() {
        let mut notes = LintNotes::new(Options::default());
        let weather = tool("weather");
        assert!(matches!(notes.lint(&weather), Some(Effect::Work(WorkEffect::Lint { .. }))));
        assert_eq!(notes.lint(&weather), None, "already being linted");
        notes.linted("weather".into(), Vec::new());
        assert_eq!(notes.findings("weather"), Some(&[][..]));
        assert_eq!(notes.lint(&weather), None, "already linted");
        notes.forget();
        assert_eq!(notes.findings("weather"), None);
        assert!(notes.lint(&weather).is_some());
    }

    #[test]
    fn without_options_nothing_is_linted() {
        assert_eq!(LintNotes::default().lint(&tool("weather")), None);
    }
}
