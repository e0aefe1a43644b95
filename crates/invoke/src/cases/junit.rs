//! JUnit XML, the report format CI servers read: a suite per case file, a test case per case,
//! `<failure>` with what was expected and what came back, `<skipped/>` for filtered cases, and a
//! case file's own problems as an `<error>`. quick-junit writes the XML and keeps the counts.

use std::fmt::Write;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, SerializeError, TestCase, TestCaseStatus, TestSuite};

use super::file::Problem;
use super::report::{CaseResult, Verdict, failure_lines};

/// The whole report. `results` in any order; they are grouped by file, in file order.
pub fn write(files: &[(String, Vec<Problem>)], results: &[CaseResult]) -> Result<String, SerializeError> {
    let mut report = Report::new("tooldeck test");
    for (file, problems) in files {
        let mut cases: Vec<&CaseResult> = results.iter().filter(|r| &r.file == file).collect();
        cases.sort_by_key(|r| r.index);
        let mut suite = TestSuite::new(readable(file));
        suite.set_time(Duration::from_millis(cases.iter().map(|r| r.duration_ms).sum()));
        if !problems.is_empty() {
            let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(readable(&text[0])).set_description(readable(&text.join("\n")));
            let mut case = TestCase::new("case file", status);
            case.set_classname(readable(file));
            suite.add_test_case(case);
        }
        for result in cases {
            let status = match &result.verdict {
                Verdict::Passed => TestCaseStatus::success(),
                Verdict::Skipped => TestCaseStatus::skipped(),
                Verdict::Failed(failures) => {
                    // The first failure on one line: what a CI server shows before the details.
                    let first = failures
                        .first()
                        .map_or("failed".to_string(), |f| f.lines().map(str::trim).collect::<Vec<_>>().join(" "));
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status.set_message(readable(&first)).set_description(readable(&failure_lines(result).join("\n")));
                    status
                }
            };
            let mut case = TestCase::new(readable(&result.name), status);
            case.set_classname(readable(&result.tool)).set_time(Duration::from_millis(result.duration_ms));
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}

/// Characters XML 1.0 forbids (most control characters) cannot be escaped, and quick-junit drops
/// them (and whole ANSI sequences) silently; written as `\u{..}` they stay readable instead.
fn readable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, index: usize, verdict: Verdict) -> CaseResult {
        CaseResult {
            file: "c.yaml".into(),
            index,
            name: name.into(),
            tool: "Math.Add".into(),
            location: format!("c.yaml:{}:5", index + 2),
            verdict,
            call_id: Some("call-1".into()),
            duration_ms: 1234,
        }
    }

    #[test]
    fn suites_cases_failures_and_skips() {
        let results = [
            result("fails <&>", 1, Verdict::Failed(vec!["status: expected value, got error (\"x\")".into()])),
            result("passes", 0, Verdict::Passed),
            result("skipped", 2, Verdict::Skipped),
        ];
        let xml = write(&[("c.yaml".into(), Vec::new())], &results).unwrap();
        assert!(
            xml.contains(
                "<testsuite name=\"c.yaml\" tests=\"3\" skipped=\"1\" errors=\"0\" failures=\"1\" time=\"3.702\">"
            ),
            "{xml}"
        );
        let passes = xml.find("name=\"passes\"").unwrap();
        let fails = xml.find("name=\"fails &lt;&amp;&gt;\"").unwrap();
        assert!(passes < fails, "file order: {xml}");
        assert!(xml.contains("<failure message=\"status: expected value, got error (&quot;x&quot;)\">"), "{xml}");
        assert!(xml.contains("call call-1"), "the call id is in the failure: {xml}");
        assert!(xml.contains("<skipped/>"));
    }

    #[test]
    fn problems_are_errors_and_control_characters_cannot_break_the_xml() {
        let problem = Problem { path: "bad.yaml".into(), line: 3, column: 7, message: "a case has no key `x`".into() };
        let results = [result("esc \u{1b}[2J \u{0}", 0, Verdict::Passed)];
        let xml = write(&[("bad.yaml".into(), vec![problem]), ("c.yaml".into(), Vec::new())], &results).unwrap();
        assert!(xml.contains("<error message=\"bad.yaml:3:7: a case has no key `x`\">"), "{xml}");
        assert!(xml.contains("errors=\"1\""));
        assert!(!xml.contains('\u{1b}') && !xml.contains('\u{0}'), "{xml}");
        assert!(xml.contains("esc \\u{1b}[2J \\u{0}"), "{xml}");
    }
}
