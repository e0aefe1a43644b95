//! `eval compare OLD NEW`: two reports side by side. Per case, the score change; for each case
//! that dropped, the changes to its tools' definitions between the runs, from the diff engine:
//! `to_kelvin: description changed, not breaking · kelvin 0.9 → 0.2`.

use serde::Serialize;
use serde_json::{Value, json};

use crate::catalog::Tool;
use crate::diff::Class;

/// Why two reports cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("the {which} report has no `cases` list: is it an `eval --report` file?")]
    NotAReport { which: &'static str },
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseChange {
    pub name: String,
    /// `None`: the case is not in that report.
    pub old: Option<f64>,
    pub new: Option<f64>,
    pub dropped: bool,
    /// For a case that dropped: each change to a tool it expects, as a line.
    pub causes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub cases: Vec<CaseChange>,
}

impl Comparison {
    pub fn dropped(&self) -> bool {
        self.cases.iter().any(|c| c.dropped)
    }

    pub fn lines(&self) -> Vec<String> {
        let rate = |r: Option<f64>| r.map_or("—".to_string(), |r| format!("{}", crate::score::round(r)));
        let mut lines = Vec::new();
        for case in &self.cases {
            let scores = format!("{} {} → {}", case.name, rate(case.old), rate(case.new));
            if case.causes.is_empty() {
                let word = match (case.dropped, case.old.zip(case.new)) {
                    (true, _) => {
                        " (dropped; no definition of its tools changed: the model or the server's answers did)"
                    }
                    (false, Some((old, new))) if new > old => " (rose)",
                    (false, Some(_)) => "",
                    (false, None) => " (in one report only)",
                };
                lines.push(format!("{scores}{word}"));
            }
            for cause in &case.causes {
                lines.push(format!("{cause} · {scores}"));
            }
        }
        let dropped = self.cases.iter().filter(|c| c.dropped).count();
        lines.push(format!("{dropped} of {} cases dropped", self.cases.len()));
        lines
    }
}

/// Compares two `eval --report` documents.
pub fn compare(old: &Value, new: &Value) -> Result<Comparison, CompareError> {
    let cases = |report: &Value, which| {
        report.get("cases").and_then(Value::as_array).cloned().ok_or(CompareError::NotAReport { which })
    };
    let (old_cases, new_cases) = (cases(old, "old")?, cases(new, "new")?);
    let (old_tools, new_tools) = (tools(old), tools(new));
    let mut changes = Vec::new();
    for case in &new_cases {
        let name = case.get("name").and_then(Value::as_str).unwrap_or_default();
        let before = old_cases.iter().find(|c| c.get("name").and_then(Value::as_str) == Some(name));
        let old_rate = before.and_then(|c| c.get("pass_rate")).and_then(Value::as_f64);
        let new_rate = case.get("pass_rate").and_then(Value::as_f64);
        let dropped = matches!((old_rate, new_rate), (Some(o), Some(n)) if n + 1e-9 < o);
        let causes = if dropped {
            let expected = case.get("expected_tools").and_then(Value::as_array).cloned().unwrap_or_default();
            let names: Vec<&str> = expected.iter().filter_map(Value::as_str).collect();
            causes(&names, &old_tools, &new_tools)
        } else {
            Vec::new()
        };
        changes.push(CaseChange { name: name.to_string(), old: old_rate, new: new_rate, dropped, causes });
    }
    for case in &old_cases {
        let name = case.get("name").and_then(Value::as_str).unwrap_or_default();
        if !changes.iter().any(|c| c.name == name) {
            let old = case.get("pass_rate").and_then(Value::as_f64);
            changes.push(CaseChange { name: name.to_string(), old, new: None, dropped: false, causes: Vec::new() });
        }
    }
    Ok(Comparison { cases: changes })
}

fn tools(report: &Value) -> Vec<Tool> {
    let listed = report.get("tools").cloned().unwrap_or_else(|| json!([]));
    crate::invoke::endpoint::server_tools("report", &json!({"tools": listed}).to_string())
}

/// Each change to the tools `names` between the two listings, a line each.
fn causes(names: &[&str], old: &[Tool], new: &[Tool]) -> Vec<String> {
    let mut lines = Vec::new();
    for name in names {
        let (before, after) = (old.iter().find(|t| t.name == *name), new.iter().find(|t| t.name == *name));
        match (before, after) {
            (Some(before), Some(after)) => {
                for change in crate::diff::diff_tools(before, after) {
                    let breaking = if change.class == Class::Breaking { "breaking" } else { "not breaking" };
                    let what = change.message.strip_prefix("the tool's ").unwrap_or(&change.message);
                    lines.push(format!("{name}: {what}, {breaking}"));
                }
            }
            (Some(_), None) => lines.push(format!("{name}: removed, breaking")),
            (None, Some(_)) => lines.push(format!("{name}: added")),
            (None, None) => {}
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(description: &str, rate: f64) -> Value {
        json!({
            "cases": [{"name": "kelvin", "pass_rate": rate, "expected_tools": ["to_kelvin"]},
                      {"name": "other", "pass_rate": 1.0, "expected_tools": []}],
            "tools": [{"name": "to_kelvin", "description": description,
                       "inputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}}}]
        })
    }

    #[test]
    fn a_drop_is_tied_to_the_definition_change_behind_it() {
        let comparison = compare(&report("Converts Celsius to Kelvin", 0.9), &report("Converts", 0.2)).unwrap();
        assert!(comparison.dropped());
        let lines = comparison.lines();
        assert!(lines[0].starts_with("to_kelvin: "), "{lines:?}");
        assert!(lines[0].contains("not breaking · kelvin 0.9 → 0.2"), "{lines:?}");
        assert!(lines[0].contains("description"), "{lines:?}");
        assert_eq!(lines[1], "other 1 → 1");
        assert_eq!(lines.last().unwrap(), "1 of 2 cases dropped");
    }

    #[test]
    fn a_drop_with_no_definition_change_says_so() {
        let comparison = compare(&report("same", 0.9), &report("same", 0.5)).unwrap();
        assert!(comparison.lines()[0].contains("no definition of its tools changed"), "{:?}", comparison.lines());
        assert!(compare(&json!({}), &report("same", 1.0)).is_err());
    }
}
