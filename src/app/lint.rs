//! What `tooldeck lint` says of each tool whose form was opened, for the detail pane. The rules
//! run off the UI thread (`Effect::Lint`) the first time a tool is opened; a tool loaded again
//! (files read, a server's list) is linted again.

use std::collections::HashMap;

use super::Effect;
use crate::catalog::Tool;
use crate::lint::{Finding, Options};

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
        Some(Effect::Lint { tool: Box::new(tool.clone()), options })
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
        assert!(matches!(notes.lint(&weather), Some(Effect::Lint { .. })));
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
