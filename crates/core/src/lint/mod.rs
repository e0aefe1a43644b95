//! Rules over the catalog: PIE's tool-parameter guidance on writing tools, definitions that contradict
//! themselves, what each model provider would refuse, and what the tools cost in a model's
//! context. Findings name a place inside a tool (a JSON pointer); [`locate`] turns that into a
//! line and column of the file it came from.

pub mod apps;
mod consistency;
pub mod cost;
mod gemini;
mod grouped;
pub mod locate;
pub mod o200k;
mod providers;
mod refusals;
pub mod rules;
pub mod sarif;
mod strict;
mod summary;
mod text;
mod tips;
mod walk;

use std::fmt;

use serde::Serialize;

use crate::catalog::{Catalog, Tool};
pub use cost::Cost;
pub use rules::{RULES, Rule};
pub use tips::shown_pointer;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which part of a tool a finding is about; `pointer` in [`Finding`] goes further inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// The definition as a whole.
    Tool,
    Name,
    Description,
    Input,
    Output,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    /// The tool's id in the catalog.
    pub tool: String,
    pub part: Part,
    /// JSON pointer into the part's schema ("" for the part itself).
    pub pointer: String,
    pub message: String,
    /// One line: what to change.
    pub fix: String,
}

/// The providers whose limits `--target` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Target {
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "openai-strict")]
    OpenAiStrict,
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "gemini")]
    Gemini,
    #[serde(rename = "mcp")]
    Mcp,
}

impl Target {
    pub const ALL: [Target; 5] = [Target::OpenAi, Target::OpenAiStrict, Target::Anthropic, Target::Gemini, Target::Mcp];

    pub fn name(self) -> &'static str {
        match self {
            Target::OpenAi => "openai",
            Target::OpenAiStrict => "openai-strict",
            Target::Anthropic => "anthropic",
            Target::Gemini => "gemini",
            Target::Mcp => "mcp",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// [`Target::from_name`], with a message listing the names it knows.
    pub fn parse(name: &str) -> Result<Target, OptionsError> {
        Target::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
            OptionsError::UnknownTarget { name: name.to_string(), known: names.join(", ") }
        })
    }
}

/// Why the rules cannot be set as asked (the config file's `[lint]`, `--allow`, `--target`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A pattern that names no rule is a typo the user wants to hear about.
    #[error("no lint rule matches \"{0}\" (see `tooldeck lint --rules`)")]
    NoRule(String),
    #[error("unknown target \"{name}\"; expected one of {known}")]
    UnknownTarget { name: String, known: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub targets: Vec<Target>,
    /// The user named the targets (`--target` or the config file): what those providers would
    /// refuse is then an error, not a warning.
    pub targets_chosen: bool,
    /// Rule patterns switched off (`group/name`, `group/*`, `group`).
    pub off: Vec<String>,
    /// Rule patterns raised to errors.
    pub error: Vec<String>,
    /// `cost/large-tool` reports tools over this many tokens.
    pub max_tool_tokens: usize,
    /// Over a catalog, findings that only matter to some clients (strict mode, Gemini's
    /// `parameters` field) become one note per rule instead of one finding per tool.
    pub summarise: bool,
}

/// A tool's definition past this many tokens is worth a note: a few such tools fill a
/// small model's context before the conversation starts. Our own threshold, not a provider's.
pub const DEFAULT_MAX_TOOL_TOKENS: usize = 1_500;

impl Default for Options {
    fn default() -> Self {
        Options {
            targets: Target::ALL.to_vec(),
            targets_chosen: false,
            off: Vec::new(),
            error: Vec::new(),
            max_tool_tokens: DEFAULT_MAX_TOOL_TOKENS,
            summarise: false,
        }
    }
}

impl Options {
    /// The rules as the config file's `[lint]` sets them (the app's detail pane uses this;
    /// `tooldeck lint` lays its command line on top).
    pub fn from_config(config: &crate::config::LintConfig) -> Result<Options, OptionsError> {
        let mut options = Options::default();
        for pattern in config.off.iter().chain(&config.error) {
            rules::check_pattern(pattern)?;
        }
        if let Some(names) = &config.targets {
            options.targets = names.iter().map(|n| Target::parse(n)).collect::<Result<_, _>>()?;
            options.targets_chosen = true;
        }
        options.off.clone_from(&config.off);
        options.error.clone_from(&config.error);
        options.max_tool_tokens = config.max_tool_tokens.unwrap_or(options.max_tool_tokens);
        Ok(options)
    }

    /// The severity a rule has in this run, or `None` when it is off.
    pub fn severity(&self, id: &str) -> Option<Severity> {
        let rule = rules::find(id)?;
        if self.off.iter().any(|p| rules::matches(p, id)) {
            return None;
        }
        if self.error.iter().any(|p| rules::matches(p, id)) {
            return Some(Severity::Error);
        }
        if self.targets_chosen && rules::is_provider_rule(id) {
            return Some(Severity::Error);
        }
        Some(rule.severity)
    }

    pub fn is_on(&self, id: &str) -> bool {
        self.severity(id).is_some()
    }

    pub fn targets(&self, target: Target) -> bool {
        self.targets.contains(&target)
    }
}

/// What one run found over a catalog.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub cost: Cost,
}

impl Report {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }
}

/// Collects one tool's findings, dropping the rules that are off.
pub(crate) struct Sink<'a> {
    pub tool: &'a Tool,
    pub options: &'a Options,
    pub findings: Vec<Finding>,
    /// Findings per rule so far, and those past [`MAX_FINDINGS_PER_RULE`] left out.
    counts: std::collections::BTreeMap<&'static str, (usize, usize)>,
}

/// A schema that fans out (a `$ref` bomb expanded up to its budget) would otherwise make one
/// finding per node: past this many, a rule's findings for a tool are counted, not listed.
pub const MAX_FINDINGS_PER_RULE: usize = 50;

impl<'a> Sink<'a> {
    fn new(tool: &'a Tool, options: &'a Options) -> Self {
        Sink { tool, options, findings: Vec::new(), counts: Default::default() }
    }

    pub fn on(&self, rule: &str) -> bool {
        self.options.is_on(rule)
    }

    pub fn push(&mut self, rule: &'static str, part: Part, pointer: &str, message: String, fix: String) {
        let Some(mut severity) = self.options.severity(rule) else { return };
        // A tool that asks for strict mode is refused by OpenAI over any of these.
        if rule.starts_with("openai-strict/") && self.tool.asks_strict() {
            severity = Severity::Error;
        }
        let (listed, left_out) = self.counts.entry(rule).or_default();
        if *listed >= MAX_FINDINGS_PER_RULE {
            *left_out += 1;
            return;
        }
        *listed += 1;
        self.findings.push(Finding {
            rule,
            severity,
            tool: self.tool.id.clone(),
            part,
            pointer: pointer.to_string(),
            message,
            fix,
        });
    }
}

/// Every rule about one tool on its own (not the ones that compare tools, nor cost).
pub fn lint_tool(tool: &Tool, options: &Options) -> Vec<Finding> {
    let mut sink = Sink::new(tool, options);
    // A tool only apps may call is never in a model's context: advice and limits for models
    // do not apply to it.
    if apps::offered_to_model(tool) {
        tips::check(&mut sink);
    }
    consistency::check(&mut sink);
    if apps::offered_to_model(tool) {
        providers::check(&mut sink);
    }
    apps::check(&mut sink);
    sink.close()
}

impl Sink<'_> {
    /// The findings, with one more per rule that had too many to list.
    fn close(mut self) -> Vec<Finding> {
        for (rule, (_, left_out)) in std::mem::take(&mut self.counts) {
            let Some(last) = self.findings.iter().rev().find(|f| f.rule == rule).cloned() else { continue };
            if left_out > 0 {
                self.findings.push(Finding {
                    pointer: String::new(),
                    message: format!("{left_out} more findings of this rule in this tool are not listed"),
                    fix: last.fix.clone(),
                    ..last
                });
            }
        }
        self.findings
    }
}

/// Every rule over a whole catalog: each tool's own, the ones across tools, and the cost.
pub fn lint_catalog(catalog: &Catalog, options: &Options) -> Report {
    let all = catalog.tools();
    // The rules across tools and the cost count what a model is offered: not app-only tools.
    let model_tools: Vec<Tool>;
    let tools = if all.iter().all(apps::offered_to_model) {
        all
    } else {
        model_tools = all.iter().filter(|t| apps::offered_to_model(t)).cloned().collect();
        &model_tools
    };
    let mut findings: Vec<Finding> =
        crate::sync::in_parallel(all.iter().collect(), |tool| lint_tool(tool, options)).into_iter().flatten().collect();
    findings.extend(providers::check_catalog(tools, options));
    summary::alphabetical(all, &mut findings);
    if options.summarise {
        summary::summarise(&mut findings);
    }
    let cost = cost::measure(tools);
    if options.is_on("cost/large-tool") {
        findings.extend(cost::large_tools(tools, &cost, options));
    }
    Report { findings, cost }
}
