//! Findings that matter first: what only some clients care about is one note for the catalog,
//! and advice that one habit of a whole catalog explains is said once.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Finding, Part, Severity};
use crate::catalog::Tool;

/// Rules whose findings matter only to clients that use the feature: strict mode, and Gemini's
/// `parameters` field where `parametersJsonSchema` would take the schema as it is.
fn only_some_clients(rule: &str) -> bool {
    rule.starts_with("openai-strict/") || rule == "gemini/json-schema-only"
}

/// Replaces the findings of [`only_some_clients`] rules that are not errors (a tool that asks
/// for strict mode, or a provider the user named, keeps its own) by one note per rule.
pub fn summarise(findings: &mut Vec<Finding>) {
    let mut by_rule: BTreeMap<&'static str, (Finding, BTreeSet<String>)> = BTreeMap::new();
    findings.retain(|f| {
        if !only_some_clients(f.rule) || f.severity == Severity::Error {
            return true;
        }
        by_rule.entry(f.rule).or_insert_with(|| (f.clone(), BTreeSet::new())).1.insert(f.tool.clone());
        false
    });
    for (rule, (first, tools)) in by_rule {
        let tools = if tools.len() == 1 {
            "1 tool of the catalog has".to_string()
        } else {
            format!("{} tools of the catalog have", tools.len())
        };
        let (who, fix) = if rule == "gemini/json-schema-only" {
            ("clients that send Gemini `parameters` (not `parametersJsonSchema`)", "send `parametersJsonSchema`")
        } else {
            (
                "OpenAI strict mode only (no tool here asks for it)",
                "follow the fixes listed by --all before turning strict on",
            )
        };
        findings.push(Finding {
            rule,
            severity: Severity::Note,
            tool: first.tool.clone(),
            part: Part::Tool,
            pointer: String::new(),
            message: format!("{tools} this finding, which matters to {who}; the first: {}", first.message),
            fix: format!("{fix}; `tooldeck lint --all` lists each one"),
        });
    }
}

/// A file or server whose every tool lists its properties in alphabetical order was sorted by a
/// generator, not by its author: `tips/required-after-optional` is then one note for that
/// source, not a finding per tool.
pub fn alphabetical(tools: &[Tool], findings: &mut Vec<Finding>) {
    let mut sources: BTreeMap<&str, Vec<&Tool>> = BTreeMap::new();
    for tool in tools {
        sources.entry(tool.source.path.as_str()).or_default().push(tool);
    }
    for source_tools in sources.values() {
        if sorted_by_name(source_tools) {
            one_note(source_tools, findings);
        }
    }
}

fn sorted_by_name(tools: &[&Tool]) -> bool {
    let names = |t: &Tool| -> Vec<String> {
        t.input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map_or_else(Vec::new, |p| p.keys().cloned().collect())
    };
    let listing: Vec<Vec<String>> = tools.iter().map(|t| names(t)).filter(|n| n.len() > 1).collect();
    let sorted = |n: &Vec<String>| n.windows(2).all(|w| w[0].to_lowercase() <= w[1].to_lowercase());
    listing.len() >= 3 && listing.iter().all(sorted)
}

fn one_note(tools: &[&Tool], findings: &mut Vec<Finding>) {
    const RULE: &str = "tips/required-after-optional";
    let ids: BTreeSet<&str> = tools.iter().map(|t| t.id.as_str()).collect();
    let ours = |f: &Finding| f.rule == RULE && ids.contains(f.tool.as_str());
    let Some(first) = findings.iter().find(|f| ours(f)).cloned() else { return };
    let count = findings.iter().filter(|f| ours(f)).count();
    findings.retain(|f| !ours(f));
    findings.push(Finding {
        severity: Severity::Note,
        part: Part::Tool,
        pointer: String::new(),
        message: format!(
            "every tool here lists its parameters in alphabetical order, so {count} of {} {} required parameters after optional ones",
            tools.len(),
            if count == 1 { "tool puts" } else { "tools put" }
        ),
        fix: "if the order comes from a generator, have it list required parameters first".into(),
        ..first
    });
}
