//! Tool definitions in every supported format → one [`Catalog`] of [`Tool`]s, with a
//! [`Diagnostic`] for every problem found on the way. No terminal or async code lives here.

pub mod app_ui;
pub mod budget;
pub mod document;
pub mod formats;
pub mod infer;
mod json5;
pub mod load;
pub mod paths;
pub mod record;
mod refs;
pub mod samples;
pub mod schema;
pub mod tool;
mod yaml;

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

pub use document::Segment;
pub use load::{LoadOptions, Syntax, load_bytes, load_text};
pub use paths::{LoadProgress, load_paths, load_paths_reporting};
pub use samples::load_samples;
pub use tool::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// A problem found inside one document, at a path into it; the loader turns the path into a line
/// and column.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub at: Vec<Segment>,
    pub severity: Severity,
    pub message: String,
}

impl Issue {
    pub fn error(at: Vec<Segment>, message: impl Into<String>) -> Self {
        Issue { at, severity: Severity::Error, message: message.into() }
    }

    pub fn warning(at: Vec<Segment>, message: impl Into<String>) -> Self {
        Issue { at, severity: Severity::Warning, message: message.into() }
    }
}

/// `path:line:column: error|warning: message`, as compilers print them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub path: String,
    pub line: usize,
    pub column: usize,
    #[serde(skip)]
    pub severity: Severity,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if self.line == 0 {
            write!(f, "{}: {}: {}", self.path, severity, self.message)
        } else {
            write!(f, "{}:{}:{}: {}: {}", self.path, self.line, self.column, severity, self.message)
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Catalog {
    tools: Vec<Tool>,
    by_id: HashMap<String, usize>,
    /// The next `#N` suffix to try for a clashing id: 100,000 entries of one id each counting
    /// up from `#2` again was a quadratic scan.
    next_suffix: HashMap<String, usize>,
}

impl Catalog {
    pub fn into_tools(self) -> Vec<Tool> {
        self.tools
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn get(&self, id: &str) -> Option<&Tool> {
        self.by_id.get(id).map(|&i| &self.tools[i])
    }

    /// Finds a tool by id, or failing that by its name when only one tool has it.
    pub fn find(&self, id_or_name: &str) -> Option<&Tool> {
        self.get(id_or_name).or_else(|| {
            let mut named = self.tools.iter().filter(|t| t.name == id_or_name);
            match (named.next(), named.next()) {
                (Some(tool), None) => Some(tool),
                _ => None,
            }
        })
    }

    /// Takes `tools` as the (empty) catalog's own list, up to the first whose id is already
    /// taken; those that are left go through [`Catalog::add`].
    fn adopt(&mut self, mut tools: Vec<Tool>) -> Vec<Tool> {
        self.by_id.reserve(tools.len());
        let mut taken = tools.len();
        for (index, tool) in tools.iter().enumerate() {
            if self.by_id.contains_key(&tool.id) {
                taken = index;
                break;
            }
            self.by_id.insert(tool.id.clone(), index);
        }
        let rest = tools.split_off(taken);
        self.tools = tools;
        rest
    }

    /// Room for `more` tools, so a file of many is added without regrowing the list.
    pub fn reserve(&mut self, more: usize) {
        self.tools.reserve(more);
        self.by_id.reserve(more);
    }

    /// Adds a tool; a clashing id gets a `#2`, `#3`... suffix so both stay reachable, and the
    /// returned message says so.
    pub fn add(&mut self, mut tool: Tool) -> Option<String> {
        let mut clash = None;
        if let Some(&first) = self.by_id.get(&tool.id) {
            let original = tool.id.clone();
            let mut n = self.next_suffix.get(&original).copied().unwrap_or(2);
            while self.by_id.contains_key(&format!("{original}#{n}")) {
                n += 1;
            }
            self.next_suffix.insert(original.clone(), n + 1);
            tool.id = format!("{original}#{n}");
            clash = Some(format!(
                "tool id \"{original}\" is already defined at {}; this one is reachable as \"{}\"",
                self.tools[first].source, tool.id
            ));
        }
        self.by_id.insert(tool.id.clone(), self.tools.len());
        self.tools.push(tool);
        clash
    }
}

/// What loading produced: the tools that loaded and every problem, in file order.
#[derive(Debug, Default)]
pub struct Loaded {
    pub catalog: Catalog,
    pub diagnostics: Vec<Diagnostic>,
    pub files: usize,
}

impl Loaded {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }

    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }
}
