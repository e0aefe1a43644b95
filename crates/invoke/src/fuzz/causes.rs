//! A tool's failures grouped by cause (kind and normalised message), each with its count and
//! smallest input; and the evidence weighed at the end of its phases: a refusal of valid input
//! is kept as a finding only when the evidence says the server, not the world, is wrong. The
//! rest is one note ("the tool refuses most inputs"), with an example.

use std::collections::BTreeMap;

use serde_json::Value;

use super::judge::{Evidence, Verdict};
use super::{Kind, Phase};

/// Distinct causes kept for one tool; more are counted, not kept (memory stays flat).
const MAX_CAUSES: usize = 32;
/// Inputs kept per cause to look for a neighbouring success.
const SAMPLES: usize = 4;
/// Successful valid inputs kept to be neighbours.
const SUCCESSES: usize = 64;

/// One cause: every input that failed this way, counted; the smallest kept.
#[derive(Debug, Clone)]
pub struct Cause {
    pub kind: Kind,
    /// The cause's key: the message with numbers, paths and quoted values made alike.
    pub cause: String,
    /// What was said for the smallest input.
    pub message: String,
    pub evidence: Evidence,
    pub arguments: Value,
    pub valid: bool,
    pub phase: Phase,
    pub count: usize,
    size: usize,
    samples: Vec<Value>,
}

/// A tool's causes and its successes, while its phases run.
#[derive(Debug, Default)]
pub struct Causes {
    map: BTreeMap<(Kind, String), Cause>,
    /// Failures of causes past [`MAX_CAUSES`].
    pub unkept: usize,
    successes: Vec<Value>,
    valid_calls: usize,
    valid_ok: usize,
    refused: usize,
}

impl Causes {
    /// One answer: `verdict` is the finding it is (if any); `succeeded` says it was no error.
    pub fn record(&mut self, arguments: Value, valid: bool, succeeded: bool, verdict: Option<Verdict>, phase: Phase) {
        if valid {
            self.valid_calls += 1;
            if succeeded {
                self.valid_ok += 1;
                if self.successes.len() < SUCCESSES {
                    self.successes.push(arguments.clone());
                }
            }
        }
        let Some(verdict) = verdict else { return };
        if verdict.kind == Kind::RefusesValid {
            self.refused += 1;
        }
        let key = (verdict.kind, verdict.cause.clone());
        let size = arguments.to_string().len();
        if let Some(cause) = self.map.get_mut(&key) {
            cause.count += 1;
            if cause.samples.len() < SAMPLES {
                cause.samples.push(arguments.clone());
            }
            if size < cause.size {
                (cause.arguments, cause.size, cause.message, cause.valid) = (arguments, size, verdict.message, valid);
            }
            return;
        }
        if self.map.len() >= MAX_CAUSES {
            self.unkept += 1;
            return;
        }
        let cause = Cause {
            kind: verdict.kind,
            cause: verdict.cause,
            message: verdict.message,
            evidence: verdict.evidence,
            samples: vec![arguments.clone()],
            arguments,
            valid,
            phase,
            count: 1,
            size,
        };
        self.map.insert(key, cause);
    }

    /// Causes that will be findings as things stand (for the progress line).
    pub fn likely_findings(&self) -> usize {
        self.map.values().filter(|c| c.kind != Kind::RefusesValid || c.evidence == Evidence::Strong).count()
    }

    /// The causes that are findings, in a stable order, and the note for the refusals that are
    /// not (if any).
    pub fn settle(self) -> (Vec<Cause>, Option<String>) {
        let most = self.valid_calls > 0 && (self.valid_ok == 0 || self.refused * 2 > self.valid_calls);
        let mut findings = Vec::new();
        let mut noted: Vec<Cause> = Vec::new();
        for cause in self.map.into_values() {
            let finding = cause.kind != Kind::RefusesValid
                || match cause.evidence {
                    Evidence::Strong => true,
                    // An input check naming an argument, unless no input at all gets past it
                    // (then it is the tool's state, not a bound: a repository not served...).
                    Evidence::Named => self.valid_ok > 0,
                    Evidence::Weak => {
                        !most
                            && cause
                                .samples
                                .iter()
                                .any(|refused| self.successes.iter().any(|ok| one_apart(refused, ok)))
                    }
                    Evidence::Domain => false,
                };
            if finding { findings.push(cause) } else { noted.push(cause) }
        }
        let note = note(&noted, most, self.refused, self.valid_calls);
        (findings, note)
    }
}

/// "the tool refuses most inputs", or fewer refusals read as the domain's, with an example.
fn note(noted: &[Cause], most: bool, refused: usize, valid_calls: usize) -> Option<String> {
    let example = noted.iter().max_by_key(|c| (c.count, std::cmp::Reverse(c.size)))?;
    let count: usize = noted.iter().map(|c| c.count).sum();
    let message = example.message.strip_prefix("refused valid input: ").unwrap_or(&example.message);
    let head = if most {
        format!("the tool refuses most inputs ({refused} of {valid_calls} valid ones)")
    } else {
        format!("{count} valid inputs refused with errors that read as the domain's, not as bugs")
    };
    let causes = if noted.len() > 1 { format!(", {} causes", noted.len()) } else { String::new() };
    let shown = crate::text::truncate(&example.arguments.to_string(), 200).into_owned();
    Some(format!("{head}{causes}; e.g. {shown}: {message}"))
}

/// Whether two inputs differ in exactly one field (at any depth of objects): a refused input and
/// a success one field apart mark a boundary the server draws where its schema does not.
pub fn one_apart(a: &Value, b: &Value) -> bool {
    let mut differences = 0;
    count_differences(a, b, &mut differences, 0);
    differences == 1
}

fn count_differences(a: &Value, b: &Value, differences: &mut usize, depth: usize) {
    if *differences > 1 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if depth < 4 => {
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => count_differences(value, other, differences, depth + 1),
                    None => *differences += 1,
                }
            }
            *differences += y.keys().filter(|k| !x.contains_key(*k)).count();
        }
        _ if a == b => {}
        _ => *differences += 1,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refusal(message: &str, evidence: Evidence) -> Option<Verdict> {
        Some(Verdict {
            kind: Kind::RefusesValid,
            message: format!("refused valid input: {message}"),
            cause: super::super::judge::normalise(message),
            evidence,
        })
    }

    #[test]
    fn domain_errors_on_every_input_are_one_note() {
        let mut causes = Causes::default();
        for name in ["a", "b/c", "longer/name"] {
            let message = format!("ENOENT: no such file or directory, open '/srv/{name}'");
            causes.record(json!({"path": name}), true, false, refusal(&message, Evidence::Domain), Phase::Valid);
        }
        let (findings, note) = causes.settle();
        assert!(findings.is_empty(), "{findings:?}");
        let note = note.unwrap();
        assert!(note.starts_with("the tool refuses most inputs (3 of 3 valid ones); e.g. {\"path\":\"a\"}"), "{note}");
    }

    #[test]
    fn a_plain_refusal_one_field_from_a_success_is_a_finding() {
        let mut causes = Causes::default();
        for n in 1..10 {
            causes.record(json!({"n": n, "s": "a"}), true, true, None, Phase::Coverage);
        }
        causes.record(json!({"n": 10, "s": "a"}), true, false, refusal("cannot", Evidence::Weak), Phase::Coverage);
        causes.record(json!({"x": 1}), true, false, refusal("nope", Evidence::Weak), Phase::Valid);
        let (findings, note) = causes.settle();
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].arguments, json!({"n": 10, "s": "a"}));
        assert!(note.is_some_and(|n| n.contains("nope")));
    }

    #[test]
    fn causes_are_counted_with_their_smallest_input() {
        let mut causes = Causes::default();
        for s in ["long text", "t", "mid"] {
            let verdict =
                Verdict { kind: Kind::Crash, message: s.into(), cause: "exit".into(), evidence: Evidence::Strong };
            causes.record(json!({"s": s}), true, false, Some(verdict), Phase::Valid);
        }
        let (findings, _) = causes.settle();
        assert_eq!((findings[0].count, &findings[0].arguments), (3, &json!({"s": "t"})));
    }
}
