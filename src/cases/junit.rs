//! JUnit XML, the report format CI servers read: a suite per case file, a test case per case,
//! `<failure>` with what was expected and what came back, `<skipped/>` for filtered cases, and a
//! case file's own problems as an `<error>`.

use std::fmt::Write;

use super::file::Problem;
use super::report::{CaseResult, Verdict, failure_lines};

/// The whole report. `results` in any order; they are grouped by file, in file order.
pub fn write(files: &[(String, Vec<Problem>)], results: &[CaseResult]) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tooldeck test\">\n");
    for (file, problems) in files {
        let mut cases: Vec<&CaseResult> = results.iter().filter(|r| &r.file == file).collect();
        cases.sort_by_key(|r| r.index);
        let failures = cases.iter().filter(|r| matches!(r.verdict, Verdict::Failed(_))).count();
        let skipped = cases.iter().filter(|r| r.verdict == Verdict::Skipped).count();
        let errors = usize::from(!problems.is_empty());
        let seconds: u64 = cases.iter().map(|r| r.duration_ms).sum();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{}\">",
            escape(file),
            cases.len() + errors,
            seconds_text(seconds)
        );
        if !problems.is_empty() {
            let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                xml,
                "    <testcase name=\"case file\" classname=\"{}\">\n      <error message=\"{}\">{}</error>\n    </testcase>",
                escape(file),
                escape(&text[0]),
                escape(&text.join("\n"))
            );
        }
        for case in cases {
            let _ = write!(
                xml,
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
                escape(&case.name),
                escape(&case.tool),
                seconds_text(case.duration_ms)
            );
            match &case.verdict {
                Verdict::Passed => xml.push_str("/>\n"),
                Verdict::Skipped => xml.push_str(">\n      <skipped/>\n    </testcase>\n"),
                Verdict::Failed(failures) => {
                    // The first failure on one line: what a CI server shows before the details.
                    let first = failures
                        .first()
                        .map_or("failed".to_string(), |f| f.lines().map(str::trim).collect::<Vec<_>>().join(" "));
                    let _ = writeln!(
                        xml,
                        ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                        escape(&first),
                        escape(&failure_lines(case).join("\n"))
                    );
                }
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn seconds_text(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Text for an XML attribute or element. Characters XML 1.0 forbids (most control characters)
/// cannot be escaped at all, so they are written as `\u{..}`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("&#13;"),
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
        let xml = write(&[("c.yaml".into(), Vec::new())], &results);
        assert!(
            xml.contains(
                "<testsuite name=\"c.yaml\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"3.702\">"
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
        let xml = write(&[("bad.yaml".into(), vec![problem]), ("c.yaml".into(), Vec::new())], &results);
        assert!(xml.contains("<error message=\"bad.yaml:3:7: a case has no key `x`\">"), "{xml}");
        assert!(xml.contains("errors=\"1\""));
        assert!(!xml.contains('\u{1b}') && !xml.contains('\u{0}'), "{xml}");
        assert!(xml.contains("esc \\u{1b}[2J \\u{0}"), "{xml}");
    }
}
