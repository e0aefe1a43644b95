//! A run's report as people and machines read it: text grouped by tool and kind with a one-line
//! reproducer each, JSON, JUnit, and each finding as a case that `tooldeck test` runs (and that
//! fails while the bug is there). Every string from a server is shown with control characters
//! made visible; every server option goes through the one redaction rule.

use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{Finding, Kind, Report, Severity};
use crate::catalog::Tool;
use crate::invoke::endpoint::EndpointOptions;
use crate::text::visible;

/// Arguments longer than this are cut in the text report (the JSON has them whole).
const MAX_SHOWN: usize = 400;

/// `tooldeck call` options that reach the same server, secrets masked.
pub fn server_options(options: &EndpointOptions) -> Vec<String> {
    let mut words = Vec::new();
    if let Some(command) = &options.mcp {
        words.extend(["--mcp".to_string(), crate::redact::command(command)]);
    } else if let Some(url) = &options.mcp_url {
        words.extend(["--mcp-url".to_string(), crate::redact::url(url)]);
    } else if let Some(url) = &options.endpoint {
        words.extend(["--endpoint".to_string(), crate::redact::url(url)]);
        if let Some(path) = &options.call_path {
            words.extend(["--call-path".to_string(), path.clone()]);
        }
    }
    for line in &options.headers {
        let shown = match line.split_once(':') {
            Some((name, value)) => format!("{name}: {}", crate::redact::header_value(name.trim(), value.trim())),
            None => line.clone(),
        };
        words.extend(["--header".to_string(), shown]);
    }
    if let Some(timeout) = options.timeout {
        words.extend(["--timeout".to_string(), timeout.to_string()]);
    }
    words
}

/// The one-line `tooldeck call` that sends a finding's input again.
pub fn reproducer(finding: &Finding, options: &EndpointOptions) -> String {
    let mut words = vec!["tooldeck".to_string(), "call".to_string(), finding.tool.clone()];
    words.extend(server_options(options));
    words.extend(["--args-json".to_string(), finding.arguments.to_string()]);
    if !finding.valid {
        words.push("--no-validate".to_string());
    }
    let quoted: Vec<String> = words.iter().map(|w| crate::text::shell_quote(w)).collect();
    let first = quoted.join(" ");
    let Some(later) = &finding.then else { return first };
    // The call that fails after it (on a server that keeps its state between processes, as
    // a store on disk does; an in-memory one needs both calls in one session).
    let mut words = vec!["tooldeck".to_string(), "call".to_string(), later.tool.clone()];
    words.extend(server_options(options));
    words.extend(["--args-json".to_string(), later.arguments.to_string()]);
    let quoted: Vec<String> = words.iter().map(|w| crate::text::shell_quote(w)).collect();
    format!("{first} && {}", quoted.join(" "))
}

/// The report for a person: the bugs grouped by tool and kind, then the notes (findings that
/// are not bugs, and each tool's note), then the totals.
pub fn text(report: &Report, options: &EndpointOptions) -> String {
    let mut out = String::new();
    let bugs: Vec<&Finding> = report.findings.iter().filter(|f| f.severity == Severity::Bug).collect();
    let notes: Vec<&Finding> = report.findings.iter().filter(|f| f.severity == Severity::Note).collect();
    write_findings(&mut out, &bugs, options);
    if !notes.is_empty() {
        let _ = writeln!(out, "notes (not bugs):");
        write_findings(&mut out, &notes, options);
    }
    for summary in &report.tools {
        if let Some(note) = &summary.note {
            let _ = writeln!(out, "note {}: {}", visible(&summary.tool), visible(note));
        }
    }
    for summary in report.tools.iter().filter(|t| t.skipped.is_some()) {
        let why = summary.skipped.as_deref().unwrap_or_default();
        let _ = writeln!(out, "skipped {}: {}", visible(&summary.tool), visible(why));
    }
    let fuzzed = report.tools.iter().filter(|t| t.skipped.is_none()).count();
    let per_second = report.calls as f64 / (report.elapsed_ms.max(1) as f64 / 1000.0);
    let noted = match notes.len() {
        0 => String::new(),
        n => format!(" and {}", crate::text::plural(n, "note")),
    };
    let _ = writeln!(
        out,
        "{}{noted} in {} tool{}: {} calls in {:.1} s ({per_second:.0}/s), {} restart{}, seed {}",
        crate::text::plural(bugs.len(), "bug"),
        fuzzed,
        if fuzzed == 1 { "" } else { "s" },
        report.calls,
        report.elapsed_ms as f64 / 1000.0,
        report.restarts,
        if report.restarts == 1 { "" } else { "s" },
        report.seed
    );
    if let Some(why) = &report.stopped {
        let _ = writeln!(out, "stopped early: {why}");
    }
    out
}

/// `findings` grouped by tool (in the order the tools first come), each with its input and
/// reproducer.
fn write_findings(out: &mut String, findings: &[&Finding], options: &EndpointOptions) {
    let mut tools: Vec<&str> = Vec::new();
    for finding in findings {
        if !tools.contains(&finding.tool.as_str()) {
            tools.push(&finding.tool);
        }
    }
    for tool in tools {
        let _ = writeln!(out, "{}", visible(tool));
        for finding in findings.iter().filter(|f| f.tool == tool) {
            let _ = writeln!(out, "  {:<17} {}", finding.kind.name(), visible(&finding.message));
            if finding.kind == Kind::StdoutNotJsonRpc {
                continue;
            }
            let shown = crate::text::truncate(&finding.arguments.to_string(), MAX_SHOWN).into_owned();
            let validity = if finding.valid { "valid" } else { "invalid" };
            let _ = writeln!(
                out,
                "    arguments ({validity}, {}, found in {}, shrunk in {} calls): {}",
                crate::text::plural(finding.count, "input"),
                finding.phase.name(),
                finding.shrink_calls,
                visible(&shown)
            );
            let _ = writeln!(out, "    reproduce: {}", visible(&reproducer(finding, options)));
        }
    }
}

/// `--json`: the report with each finding's reproducer.
pub fn json(report: &Report, options: &EndpointOptions) -> Value {
    let mut value = serde_json::to_value(report).unwrap_or_else(|_| json!({}));
    if let Some(Value::Array(findings)) = value.get_mut("findings") {
        for (item, finding) in findings.iter_mut().zip(&report.findings) {
            // The server's own note has no call to make again.
            if let Value::Object(map) = item
                && finding.kind != Kind::StdoutNotJsonRpc
            {
                map.insert("reproducer".into(), json!(reproducer(finding, options)));
            }
        }
    }
    value
}

/// `--junit`: a test case per finding (failed), and one per tool with none (passed).
pub fn junit(report: &Report, options: &EndpointOptions) -> Result<String, quick_junit::SerializeError> {
    use quick_junit::{NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestSuite};
    let mut junit = Junit::new("tooldeck fuzz");
    let mut suite = TestSuite::new("fuzz");
    suite.set_time(Duration::from_millis(report.elapsed_ms));
    for summary in &report.tools {
        let findings: Vec<&Finding> = report.findings.iter().filter(|f| f.tool == summary.tool).collect();
        if summary.skipped.is_some() {
            let mut case = TestCase::new(xml_text(&summary.tool), TestCaseStatus::skipped());
            case.set_classname(xml_text(&summary.tool));
            suite.add_test_case(case);
            continue;
        }
        if findings.iter().all(|f| f.severity == Severity::Note) {
            let mut case = TestCase::new(xml_text(&summary.tool), TestCaseStatus::success());
            case.set_classname(xml_text(&summary.tool));
            suite.add_test_case(case);
        }
        for finding in findings {
            // A note is no failure: said beside the tool's passed case.
            if finding.severity == Severity::Note {
                let name = format!("{} {} (note)", finding.tool, finding.kind.name());
                let mut case = TestCase::new(xml_text(&name), TestCaseStatus::success());
                case.set_classname(xml_text(&finding.tool)).set_system_out(xml_text(&finding.message));
                suite.add_test_case(case);
                continue;
            }
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let description = format!("arguments: {}\nreproduce: {}", finding.arguments, reproducer(finding, options));
            status.set_message(xml_text(&finding.message)).set_description(xml_text(&description));
            let mut case = TestCase::new(xml_text(&format!("{} {}", finding.tool, finding.kind.name())), status);
            case.set_classname(xml_text(&finding.tool));
            suite.add_test_case(case);
        }
    }
    junit.add_test_suite(suite);
    junit.to_string()
}

/// Text XML can hold: control characters written out, as the screen shows them.
fn xml_text(text: &str) -> String {
    visible(text).into_owned()
}

/// A finding as a case for `tooldeck test`: the input, and what a fixed server answers (a
/// success for valid input, meeting the output schema; a tool error for invalid input; within
/// the threshold for a slow one). It fails while the bug is there.
pub fn case(finding: &Finding, tool: Option<&Tool>, slow: Duration) -> Value {
    let mut expect = Map::new();
    if finding.valid {
        let status = finding.success_status.map_or("value", |s| s.name());
        expect.insert("status".into(), json!(status));
        if let Some(schema) = tool.and_then(|t| t.output_schema.as_ref()).filter(|_| status == "value") {
            expect.insert("schema".into(), schema.clone());
        }
    } else {
        expect.insert("status".into(), json!("error"));
    }
    if finding.kind == Kind::Slow {
        expect.insert("max_ms".into(), json!(slow.as_millis() as u64));
    }
    json!({
        "name": format!("fuzz: {} {}", finding.tool, finding.kind.name()),
        "tool": finding.tool,
        "args": finding.arguments,
        "validate": finding.valid,
        "expect": expect,
    })
}
