//! What a run came to: per case, passed of iterations, the pass rate and its interval, pass^k and
//! each iteration's verdict and trajectory; per tool, how often it was chosen right; the tools as
//! listed (so `eval compare` can name what changed). Said as lines, JSON, or JUnit XML.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tooldeck_core::call_match::CallVerdict;

use crate::agent::Trajectory;
use crate::score::{PassK, ToolScore};

/// One iteration of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationReport {
    /// From 1.
    pub iteration: usize,
    pub passed: bool,
    /// Why it failed, one line each (empty when it passed).
    pub failures: Vec<String>,
    /// Each expected call's verdict, then the calls nobody expected.
    pub calls_judged: Vec<CallVerdict>,
    #[serde(flatten)]
    pub trajectory: Trajectory,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    pub name: String,
    pub location: String,
    pub passed: usize,
    pub iterations: usize,
    pub pass_rate: f64,
    /// The Wilson interval of the pass rate, 95%.
    pub interval: [f64; 2],
    pub pass_k: Vec<PassK>,
    pub min_pass_rate: f64,
    /// At or above `min_pass_rate`.
    pub ok: bool,
    /// The tools this case expects calls to.
    pub expected_tools: Vec<String>,
    /// Calls refused (destructive tools), over every iteration.
    pub refused: usize,
    pub verdicts: Vec<IterationReport>,
}

impl CaseReport {
    /// Its score as said in the report and the app: `2/3 passed (67%, 95% interval 21–94%) ·
    /// pass^3 0.30 · needs 80%`.
    pub fn score(&self) -> String {
        let pass_k = self.pass_k.last().map(|p| format!(" · pass^{} {:.2}", p.k, p.value)).unwrap_or_default();
        format!(
            "{}/{} passed ({:.0}%, 95% interval {:.0}–{:.0}%){pass_k} · needs {:.0}%",
            self.passed,
            self.iterations,
            self.pass_rate * 100.0,
            self.interval[0] * 100.0,
            self.interval[1] * 100.0,
            self.min_pass_rate * 100.0,
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelShown {
    pub api: crate::file::Api,
    /// The base URL, any secret in it masked.
    pub url: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    pub file: String,
    pub model: ModelShown,
    pub cases: Vec<CaseReport>,
    pub per_tool: Vec<ToolScore>,
    /// The server's tools as listed, definitions as sent.
    pub tools: Vec<Value>,
    /// Replays that no longer match their recording: the run proves nothing (exit 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replay_mismatches: Vec<String>,
}

impl EvalReport {
    /// 0 when every case is at or above its `min_pass_rate`, 1 when one is below, 2 when a
    /// replay no longer matches its recording.
    pub fn exit_code(&self) -> u8 {
        if !self.replay_mismatches.is_empty() {
            2
        } else if self.cases.iter().all(|c| c.ok) {
            0
        } else {
            1
        }
    }

    /// The report as a person reads it: a line per case, each failed iteration's reasons under it.
    pub fn lines(&self) -> Vec<String> {
        if !self.replay_mismatches.is_empty() {
            // The run proves nothing: say why, not the scores it came to.
            let mut lines: Vec<String> = self.replay_mismatches.iter().map(|m| format!("replay: {m}")).collect();
            lines.push("nothing scored: the cassettes no longer match what the model would be asked".into());
            return lines;
        }
        let mut lines = Vec::new();
        for case in &self.cases {
            let mark = if case.ok { "ok  " } else { "FAIL" };
            let refused = if case.refused > 0 {
                format!(" · {} destructive calls refused", case.refused)
            } else {
                String::new()
            };
            lines.push(format!("{mark} {}: {}{refused}", case.name, case.score()));
            for verdict in case.verdicts.iter().filter(|v| !v.passed) {
                for failure in &verdict.failures {
                    lines.push(format!("       iteration {}: {failure}", verdict.iteration));
                }
            }
        }
        for tool in &self.per_tool {
            lines.push(format!(
                "tool {}: chosen {}/{} times expected, right {}{}{}",
                tool.tool,
                tool.chosen,
                tool.expected,
                tool.right,
                if tool.unexpected > 0 { format!(", {} calls not expected", tool.unexpected) } else { String::new() },
                if tool.refused > 0 { format!(", {} refused", tool.refused) } else { String::new() },
            ));
        }
        let ok = self.cases.iter().filter(|c| c.ok).count();
        lines.push(format!("{ok} of {} cases at or above their min_pass_rate", self.cases.len()));
        lines
    }

    /// JUnit XML: one test case per eval case, failed when below its `min_pass_rate`.
    pub fn junit(&self) -> Result<String, quick_junit::SerializeError> {
        use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
        let mut report = Report::new("tooldeck eval");
        let mut suite = TestSuite::new(self.file.clone());
        for case in &self.cases {
            let status = if case.ok {
                TestCaseStatus::success()
            } else {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                let failures: Vec<String> = case
                    .verdicts
                    .iter()
                    .flat_map(|v| v.failures.iter().map(move |f| format!("iteration {}: {f}", v.iteration)))
                    .collect();
                status
                    .set_message(format!(
                        "{}/{} passed ({:.0}%), below min_pass_rate {:.0}%",
                        case.passed,
                        case.iterations,
                        case.pass_rate * 100.0,
                        case.min_pass_rate * 100.0
                    ))
                    .set_description(readable(&failures.join("\n")));
                status
            };
            let mut test = TestCase::new(readable(&case.name), status);
            test.set_classname(readable(&case.location));
            suite.add_test_case(test);
        }
        report.add_test_suite(suite);
        report.to_string()
    }
}

/// Control characters XML cannot hold, written as `\u{..}`.
fn readable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if (c as u32) < 0x20 => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}
