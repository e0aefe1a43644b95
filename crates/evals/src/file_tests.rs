use super::*;

fn read(text: &str) -> EvalFile {
    parse(Path::new("evals.yaml"), "evals.yaml", text)
}

const GOOD: &str = r#"
mcp: "node build/index.js"
model:
  url: http://127.0.0.1:11434/v1
  name: qwen3:4b
  key: ${TOOLDECK_EVAL_TEST_KEY_NEVER_SET}
iterations: 10
cases:
  - name: kelvin
    prompt: "What is 25 degrees Celsius in Kelvin?"
    expect:
      calls:
        - tool: to_kelvin
          args: {celsius: 25}
      order: any
      never: [delete_all]
    min_pass_rate: 0.8
"#;

#[test]
fn the_issue_example_reads_whole() {
    let file = read(GOOD);
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    assert_eq!(file.target.mcp.as_deref(), Some("node build/index.js"));
    assert_eq!(file.model.name, "qwen3:4b");
    // The key stays the variable: a replay needs no key, and nothing holds it expanded.
    assert_eq!(file.model.key.as_deref(), Some("${TOOLDECK_EVAL_TEST_KEY_NEVER_SET}"));
    assert_eq!(file.iterations, 10);
    let case = &file.cases[0];
    assert_eq!((case.name.as_str(), case.min_pass_rate), ("kelvin", 0.8));
    assert_eq!(case.expect.calls[0].tool, "to_kelvin");
    assert_eq!(case.expect.never, ["delete_all"]);
    assert_eq!(case.location, "evals.yaml:9:5");
}

#[test]
fn unknown_keys_are_named_where_they_are_with_the_closest_known_one() {
    let file = read(&GOOD.replace("    min_pass_rate: 0.8", "    min_pass_rat: 0.8"));
    let said: Vec<String> = file.problems.iter().map(ToString::to_string).collect();
    assert_eq!(said, ["evals.yaml:17:5: a case has no key `min_pass_rat`; did you mean `min_pass_rate`?"]);
    let model = read(&GOOD.replace("  name: qwen3:4b", "  name: qwen3:4b\n  temprature: 0"));
    assert!(model.problems[0].message.contains("did you mean `temperature`"), "{:?}", model.problems);
}

#[test]
fn a_missing_variable_is_a_problem_and_a_literal_key_is_refused() {
    let file = read(&GOOD.replace("node build/index.js", "node ${TOOLDECK_EVAL_UNSET_VARIABLE}/index.js"));
    assert_eq!(file.problems.len(), 1, "{:?}", file.problems);
    assert!(file.problems[0].message.contains("TOOLDECK_EVAL_UNSET_VARIABLE"), "{}", file.problems[0]);
    let literal = read(&GOOD.replace("${TOOLDECK_EVAL_TEST_KEY_NEVER_SET}", "sk-live-123"));
    assert!(literal.problems[0].message.contains("environment only"), "{:?}", literal.problems);
    assert!(!literal.problems[0].to_string().contains("sk-live-123"));
}

#[test]
fn json_files_read_the_same() {
    let text = r#"{"mcp_url": "http://127.0.0.1:1/mcp", "model": {"url": "http://m/v1", "name": "m", "api": "anthropic"},
        "cases": [{"name": "a", "prompt": "p", "expect": {"calls": [{"tool": "t", "args": {"x": [1, 2]}, "exact": true}], "order": "strict"}}]}"#;
    let file = parse(Path::new("e.json"), "e.json", text);
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    assert_eq!(file.model.api, Api::Anthropic);
    assert!(file.cases[0].expect.calls[0].exact);
    assert_eq!(file.cases[0].expect.order, tooldeck_core::call_match::Order::Strict);
    assert_eq!(file.cases[0].min_pass_rate, 1.0);
}

#[test]
fn what_a_file_lacks_is_said() {
    let file = read("cases:\n  - name: a\n    prompt: p\n  - prompt: q\n    expect: {order: sideways}\n");
    let said: Vec<&str> = file.problems.iter().map(|p| p.message.as_str()).collect();
    assert!(said.contains(&"no `model` (its `url` and `name`)"), "{said:?}");
    assert!(said.contains(&"the case has no `expect` (the `calls` the model should make)"), "{said:?}");
    assert!(said.contains(&"the case has no `name`"), "{said:?}");
    assert!(said.contains(&"`order` is strict, any or superset"), "{said:?}");
}

#[test]
fn two_cases_of_one_name_are_refused() {
    let file = read(&format!("{GOOD}  - name: kelvin\n    prompt: again\n    expect: {{calls: []}}\n"));
    assert!(file.problems.iter().any(|p| p.message.contains("two cases are named \"kelvin\"")), "{:?}", file.problems);
}
