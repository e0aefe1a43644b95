//! Tests of `file.rs`: reading case files, placing each problem, `${ENV}` expansion.

use super::*;
use serde_json::json;

fn parse(label: &str, text: &str) -> CaseFile {
    let mut file = CaseFile { path: PathBuf::from(label), ..CaseFile::default() };
    parse_into(&mut file, label, text);
    file
}

#[test]
fn the_issue_example_reads() {
    let text = r#"
endpoint: http://127.0.0.1:8765
defs: [./tools]
cases:
  - name: adds two numbers
    tool: Math.Add@1.0.0
    args: {a: 1, b: 2}
    expect:
      status: value
      value: 3
  - name: rejects bad input
    tool: weather
    args: {city: ""}
    validate: false
    expect: {status: error, error_contains: "city"}
"#;
    let file = parse("dir/cases.yaml", text);
    assert_eq!(file.target.endpoint.as_deref(), Some("http://127.0.0.1:8765"));
    assert!(file.defs.is_empty(), "dir/tools does not exist");
    assert_eq!(file.problems[0].to_string(), "dir/cases.yaml:3:8: `defs`: no file or folder dir/./tools");
    assert_eq!(file.case_count(), 2);
    assert!(file.cases.is_empty(), "a block list is read a case at a time");
    let (cases, problems) = file.read_all();
    assert_eq!(problems, file.problems, "only the missing defs");
    assert_eq!(cases[0].args, json!({"a": 1, "b": 2}));
    assert_eq!(cases[0].location, "dir/cases.yaml:5:5");
    assert!(!cases[1].validate);
}

#[test]
fn problems_name_their_line_and_a_bad_case_does_not_hide_the_others() {
    let text = "cases:\n  - tool: a\n    expect: {status: value}\n  - tool: b\n    expcet: {status: value}\n  - tool: c\n    expect: {status: maybe}\n  - tool: d\n    expect: {max_ms: soon}\n";
    // Read a case at a time, and read whole (an alias makes it so): the same answers.
    let with_alias = text.replace("  - tool: a\n", "  - tool: a\n    args: {p: &v 1, q: *v}\n");
    for file in [parse("c.yaml", text), parse("c.yaml", &with_alias)] {
        let (cases, problems) = file.read_all();
        assert_eq!(cases.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), ["a"]);
        let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(shown.iter().any(|p| p.contains("a case has no key `expcet`; did you mean `expect`?")), "{shown:?}");
        assert!(shown.iter().any(|p| p.contains("maybe")), "{shown:?}");
        assert!(shown.iter().any(|p| p.contains("max_ms")), "{shown:?}");
    }
    let (_, problems) = parse("c.yaml", text).read_all();
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(shown[0].starts_with("c.yaml:5:5: a case has no key `expcet`; did you mean `expect`?"), "{shown:?}");
    assert!(shown.iter().any(|p| p.starts_with("c.yaml:7:") && p.contains("maybe")), "{shown:?}");
    assert!(shown.iter().any(|p| p.starts_with("c.yaml:9:") && p.contains("max_ms")), "{shown:?}");
}

#[test]
fn read_whole_or_a_case_at_a_time_the_same() {
    let text = "cases:\n  - tool: a\n    expect: {status: value}\n  - tool: b\n    expcet: {status: value}\n";
    let lazy = parse("c.yaml", text);
    let whole = parse("c.yaml", &text.replace("  - tool: a\n", "  - tool: a\n    args: {p: &v 1, q: *v}\n"));
    assert!(whole.cases.len() == 1 && lazy.cases.is_empty());
    assert_eq!(lazy.case_count(), 2);
    assert_eq!(lazy.read_all().0[0].location, "c.yaml:2:5");
    assert_eq!(whole.read_all().0.len(), 1, "read whole, the same good case");
    assert_eq!(lazy.read_all().1[0].to_string(), "c.yaml:5:5: a case has no key `expcet`; did you mean `expect`?");
}

#[test]
fn yaml_that_does_not_parse_is_one_problem_where_it_breaks() {
    let text = "cases:\n  - tool: a\n    expect: {status: value}\n  - tool: b\n    args: {a: [1, 2}\n    expect: {status: value}\n";
    let (cases, problems) = parse("c.yaml", text).read_all();
    assert!(cases.is_empty());
    assert_eq!(problems.len(), 1);
    assert!(problems[0].to_string().starts_with("c.yaml:5:15: invalid YAML"), "{problems:?}");
}

#[test]
fn json_files_and_syntax_errors() {
    let file = parse("c.json", r#"{"cases": [{"tool": "t", "expect": {"status": "null"}}]}"#);
    assert!(file.problems.is_empty() && file.cases.len() == 1, "JSON is read whole");
    let file = parse("c.json", "{\"cases\": [\n  {\"tool\": }\n]}");
    assert_eq!(file.problems.len(), 1);
    assert!(file.problems[0].to_string().starts_with("c.json:2:"), "{}", file.problems[0]);
    let file = parse("c.yaml", "cases:\n  - tool: [unclosed\n");
    assert!(file.problems[0].message.starts_with("invalid YAML"), "{:?}", file.problems);
    let file = parse("c.yaml", "- just a list\n");
    assert!(file.problems[0].message.contains("`cases` list"), "{:?}", file.problems);
}

/// A variable this process has, with a value that reads back plainly in YAML (setting one
/// would need `unsafe`).
fn some_variable() -> (String, String) {
    std::env::vars()
        .find(|(name, value)| {
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !value.is_empty()
                && value.chars().all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
        })
        .expect("the environment has a plain variable")
}

#[test]
fn environment_variables_expand_in_strings() {
    let (name, value) = some_variable();
    let text = format!(
        "tokens: {{google: \"${{{name}}}\"}}\ncases:\n  - tool: t\n    args: {{q: \"x ${{{name}}}\"}}\n    expect: {{status: value}}\n  - tool: u\n    args: {{q: \"${{TOOLDECK_SURELY_UNSET}}\"}}\n    expect: {{status: value}}\n"
    );
    let file = parse("c.yaml", &text);
    assert_eq!(file.tokens, [("google".to_string(), value.clone())]);
    let (cases, problems) = file.read_all();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].args, json!({"q": format!("x {value}")}));
    assert!(problems[0].to_string().starts_with("c.yaml:7:"), "{problems:?}");
    assert!(problems[0].message.contains("TOOLDECK_SURELY_UNSET"));
}

#[test]
fn defs_are_relative_to_the_case_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tools")).unwrap();
    let label = dir.path().join("c.yaml").display().to_string();
    let file = parse(&label, "defs: tools\ncases:\n  - tool: t\n    expect: {status: null}\n");
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    assert_eq!(file.defs, [dir.path().join("tools")]);
}

#[test]
fn a_doubled_dollar_is_a_literal() {
    let (name, value) = some_variable();
    assert_eq!(expand_text(&format!("${{{name}}}")).unwrap(), value);
    assert_eq!(expand_text(&format!("$${{{name}}}")).unwrap(), format!("${{{name}}}"));
    assert_eq!(expand_text(&format!("$$${{x}} $${{{name}}}")).unwrap(), format!("$${{x}} ${{{name}}}"));
    assert_eq!(expand_text(&format!("$${{a}} ${{{name}}}")).unwrap(), format!("${{a}} {value}"));
    assert_eq!(expand_text("$ {x} $$ plain").unwrap(), "$ {x} $$ plain");
    assert!(expand_text("$${a} ${TOOLDECK_SURELY_UNSET}").unwrap_err().to_string().contains("TOOLDECK_SURELY_UNSET"));
}

#[test]
fn close_keys_are_suggested() {
    assert!(unknown_key("a case", "too", CASE_KEYS).contains("did you mean `tool`"));
    assert!(unknown_key("a case", "zzzzzz", CASE_KEYS).contains("known: name, tool"));
}
