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
/// Distinct refusals that read as the domain's kept for the note, apart from [`MAX_CAUSES`]:
/// a memory server's "Entity with name X not found" is a cause per name, and they must not
/// take the places of causes that may be findings, found later in the run.
const MAX_DOMAIN_CAUSES: usize = 8;
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
    /// The later call that fails because of this one (`breaks-state`).
    pub then: Option<super::LaterCall>,
    size: usize,
    samples: Vec<Value>,
}

/// A tool's causes and its successes, while its phases run.
#[derive(Debug, Default)]
pub struct Causes {
    map: BTreeMap<(Kind, String), Cause>,
    /// Failures of causes past [`MAX_CAUSES`].
    pub unkept: usize,
    /// Causes kept that read as the domain's (never findings).
    domain_kept: usize,
    /// Refusals that read as the domain's, of causes past [`MAX_DOMAIN_CAUSES`]: counted in the
    /// note only.
    domain_unkept: usize,
    successes: Vec<Value>,
    valid_calls: usize,
    valid_ok: usize,
    refused: usize,
    /// Answers that were no error, valid input or not.
    answered: usize,
    /// Calls still reporting progress when their time ran out, and the smallest such input.
    still_working: usize,
    still_working_example: Option<Value>,
}

impl Causes {
    /// One answer: `verdict` is the finding it is (if any); `succeeded` says it was no error.
    pub fn record(&mut self, arguments: Value, valid: bool, succeeded: bool, verdict: Option<Verdict>, phase: Phase) {
        self.answered += usize::from(succeeded);
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
            // The smallest valid input when there is one: a cause found with valid input is
            // kept, and shrunk, as one of valid input (a smaller invalid input that fails the
            // same way would be reproduced only past validation).
            if (!valid, size) < (!cause.valid, cause.size) {
                (cause.arguments, cause.size, cause.message, cause.valid) = (arguments, size, verdict.message, valid);
            }
            return;
        }
        let domain = verdict.kind == Kind::RefusesValid && verdict.evidence == Evidence::Domain;
        if domain && self.domain_kept >= MAX_DOMAIN_CAUSES {
            self.domain_unkept += 1;
            return;
        }
        if !domain && self.map.len() - self.domain_kept >= MAX_CAUSES {
            self.unkept += 1;
            return;
        }
        self.domain_kept += usize::from(domain);
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
            then: None,
            size,
        };
        self.map.insert(key, cause);
    }

    /// A call of the tool (with invalid input) after which `later` fails: counted as any
    /// failure, with the later call kept beside its first input.
    pub fn record_later(&mut self, arguments: Value, verdict: Verdict, phase: Phase, later: super::LaterCall) {
        let key = (verdict.kind, verdict.cause.clone());
        self.record(arguments, false, true, Some(verdict), phase);
        if let Some(cause) = self.map.get_mut(&key) {
            cause.then.get_or_insert(later);
        }
    }

    /// A call still reporting progress when its time ran out: not judged, said in the note.
    pub fn record_still_working(&mut self, arguments: Value) {
        self.still_working += 1;
        let smaller = |kept: &Value| arguments.to_string().len() < kept.to_string().len();
        if self.still_working_example.as_ref().is_none_or(smaller) {
            self.still_working_example = Some(arguments);
        }
    }

    /// Causes that will be findings as things stand (for the progress line).
    pub fn likely_findings(&self) -> usize {
        self.map.values().filter(|c| c.kind != Kind::RefusesValid || c.evidence == Evidence::Strong).count()
    }

    /// The causes that are findings, in a stable order, and the note for the refusals that are
    /// not (if any).
    pub fn settle(self) -> (Vec<Cause>, Option<String>) {
        let most = self.valid_calls > 0 && (self.valid_ok == 0 || self.refused * 2 > self.valid_calls);
        // A tool slow for most inputs is slow by its nature (a task of stages, a search that
        // takes seconds): a note. Slow for a few inputs among fast ones is a finding.
        let slow: usize = self.map.values().filter(|c| c.kind == Kind::Slow).map(|c| c.count).sum();
        let slow_alike = slow * 2 > self.answered;
        let mut slow_note = None;
        let mut findings = Vec::new();
        let mut noted: Vec<Cause> = Vec::new();
        for cause in self.map.into_values() {
            if cause.kind == Kind::Slow && slow_alike {
                let shown = crate::text::truncate(&cause.arguments.to_string(), 200).into_owned();
                let answers = self.answered.max(slow);
                slow_note = Some(format!(
                    "the tool answers slowly for most inputs ({slow} of {answers} answers past --slow); e.g. {shown}: {}",
                    cause.message
                ));
                continue;
            }
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
        let note = note(&noted, self.domain_unkept, most, self.refused, self.valid_calls);
        let still_working_note = self.still_working_example.map(|example| {
            let shown = crate::text::truncate(&example.to_string(), 200).into_owned();
            format!(
                "{} ran out of --timeout while still reporting progress: not judged (--max-time allows a call longer); e.g. {shown}",
                crate::text::plural(self.still_working, "call")
            )
        });
        let notes: Vec<String> = note.into_iter().chain(slow_note).chain(still_working_note).collect();
        (findings, (!notes.is_empty()).then(|| notes.join("; ")))
    }
}

/// "the tool refuses most inputs", or fewer refusals read as the domain's, with an example.
fn note(noted: &[Cause], unkept: usize, most: bool, refused: usize, valid_calls: usize) -> Option<String> {
    let example = noted.iter().max_by_key(|c| (c.count, std::cmp::Reverse(c.size)))?;
    let count: usize = noted.iter().map(|c| c.count).sum::<usize>() + unkept;
    let message = example.message.strip_prefix("refused valid input: ").unwrap_or(&example.message);
    let head = if most {
        format!("the tool refuses most inputs ({refused} of {valid_calls} valid ones)")
    } else {
        format!("{count} valid inputs refused with errors that read as the domain's, not as bugs")
    };
    let causes = match (noted.len(), unkept) {
        (n, 0) if n > 1 => format!(", {n} causes"),
        (_, 0) => String::new(),
        (n, _) => format!(", more than {n} causes"),
    };
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
            cause: super::super::message::normalise(message),
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
    fn domain_refusals_do_not_take_the_places_of_later_findings() {
        // As server-memory answers: one cause per entity name, none quoted, so none made alike.
        let mut causes = Causes::default();
        for i in 0..50u8 {
            let name: String = [b'a' + i % 26, b'a' + i / 26, b'q'].iter().map(|b| char::from(*b)).collect();
            let message = format!("Entity with name {name} not found");
            let arguments = json!({"name": name});
            causes.record(arguments, true, false, refusal(&message, Evidence::Domain), Phase::Valid);
        }
        causes.record(json!({"ok": 1}), true, true, None, Phase::Valid);
        let crash =
            Verdict { kind: Kind::Crash, message: "exited".into(), cause: "exited".into(), evidence: Evidence::Strong };
        causes.record(json!({"name": "late"}), true, false, Some(crash), Phase::Invalid);
        assert_eq!(causes.unkept, 0);
        let (findings, note) = causes.settle();
        assert_eq!(findings.iter().map(|f| f.kind).collect::<Vec<_>>(), [Kind::Crash]);
        let note = note.unwrap();
        assert!(note.starts_with("the tool refuses most inputs (50 of 52 valid ones), more than 8 causes"), "{note}");
    }

    #[test]
    fn calls_still_working_at_the_limit_are_one_note_with_the_smallest_input() {
        let mut causes = Causes::default();
        causes.record_still_working(json!({"seconds": 100_000}));
        causes.record_still_working(json!({"seconds": 50}));
        causes.record(json!({"seconds": 50}), true, false, None, Phase::Valid);
        causes.record(json!({"seconds": 0}), true, true, None, Phase::Valid);
        let (findings, note) = causes.settle();
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(
            note.as_deref(),
            Some(
                "2 calls ran out of --timeout while still reporting progress: not judged (--max-time allows a call longer); e.g. {\"seconds\":50}"
            )
        );
    }

    #[test]
    fn slow_for_most_inputs_is_a_note_and_slow_for_a_few_a_finding() {
        let slow = || {
            let message = "answered in 4027 ms".to_string();
            Some(Verdict {
                kind: Kind::Slow,
                cause: super::super::message::normalise(&message),
                message,
                evidence: Evidence::Strong,
            })
        };
        let mut always = Causes::default();
        for n in 0..10 {
            always.record(json!({"n": n}), true, true, slow(), Phase::Valid);
        }
        let (findings, note) = always.settle();
        assert!(findings.is_empty(), "{findings:?}");
        let note = note.unwrap();
        assert!(
            note.starts_with("the tool answers slowly for most inputs (10 of 10 answers past --slow); e.g. {\"n\":0}"),
            "{note}"
        );

        let mut once = Causes::default();
        for n in 0..10 {
            once.record(json!({"n": n}), true, true, (n == 7).then(slow).flatten(), Phase::Valid);
        }
        let (findings, note) = once.settle();
        assert_eq!(findings.iter().map(|f| f.kind).collect::<Vec<_>>(), [Kind::Slow]);
        assert_eq!(note, None);
    }

    #[test]
    fn a_cause_found_with_valid_input_keeps_its_smallest_valid_input() {
        let mut causes = Causes::default();
        let crash = || {
            Some(Verdict { kind: Kind::Crash, message: "x".into(), cause: "exit".into(), evidence: Evidence::Strong })
        };
        causes.record(json!({"text": "abcdef"}), false, false, crash(), Phase::Invalid);
        causes.record(json!({"text": "abcd"}), true, false, crash(), Phase::Valid);
        causes.record(json!({}), false, false, crash(), Phase::Invalid);
        let (findings, _) = causes.settle();
        assert_eq!((findings[0].valid, &findings[0].arguments), (true, &json!({"text": "abcd"})));
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
