use std::collections::HashMap;

use serde_json::json;

use super::*;

struct Tools(HashMap<String, (Value, Checker)>);

impl Tools {
    fn new(tools: &[(&str, Value)]) -> Tools {
        Tools(tools.iter().map(|(name, schema)| (name.to_string(), (schema.clone(), Checker::new(schema)))).collect())
    }
}

impl Schemas for Tools {
    fn schema(&self, tool: &str) -> Option<&Value> {
        self.0.get(tool).map(|(schema, _)| schema)
    }
    fn checker(&self, tool: &str) -> Option<&Checker> {
        self.0.get(tool).map(|(_, checker)| checker)
    }
}

fn tools() -> Tools {
    Tools::new(&[
        (
            "to_kelvin",
            json!({"type": "object", "properties": {
                "celsius": {"type": "number"},
                "precision": {"type": "integer", "default": 2}
            }, "required": ["celsius"]}),
        ),
        ("delete_all", json!({"type": "object"})),
        ("tag", json!({"type": "object", "properties": {"labels": {"type": "array", "items": {"type": "string"}}}})),
    ])
}

fn expected(tool: &str, args: Value) -> ExpectedCall {
    let args = args.as_object().unwrap().iter().map(|(k, v)| (k.clone(), vec![v.clone()])).collect();
    ExpectedCall { tool: tool.into(), args, exact: false }
}

fn made(tool: &str, args: Value) -> MadeCall {
    MadeCall { tool: tool.into(), arguments: args, not_json: false }
}

fn one(call: ExpectedCall) -> CallExpect {
    CallExpect { calls: vec![call], ..CallExpect::default() }
}

#[test]
fn numbers_compare_by_value() {
    let verdicts = judge(
        &one(expected("to_kelvin", json!({"celsius": 25}))),
        &[made("to_kelvin", json!({"celsius": 25.0}))],
        &tools(),
    );
    assert_eq!(verdicts, [CallVerdict::Right { tool: "to_kelvin".into(), index: 0 }]);
}

#[test]
fn an_argument_at_its_default_counts_as_omitted() {
    let tools = tools();
    let mut exact = expected("to_kelvin", json!({"celsius": 25}));
    exact.exact = true;
    // Given at the default, beyond an exact expectation: still right.
    let given = judge(&one(exact.clone()), &[made("to_kelvin", json!({"celsius": 25, "precision": 2}))], &tools);
    assert!(given[0].is_right(), "{given:?}");
    // Expected at the default and omitted: right.
    let at_default = expected("to_kelvin", json!({"celsius": 25, "precision": 2}));
    let omitted = judge(&one(at_default), &[made("to_kelvin", json!({"celsius": 25}))], &tools);
    assert!(omitted[0].is_right(), "{omitted:?}");
    // Another value beyond an exact expectation: wrong, and where.
    let other = judge(&one(exact), &[made("to_kelvin", json!({"celsius": 25, "precision": 4}))], &tools);
    assert_eq!(other[0].line(), "call 1 to to_kelvin: wrong: /precision: not expected (exact), got 4");
}

#[test]
fn unnamed_arguments_are_allowed_unless_exact() {
    let verdicts = judge(
        &one(expected("to_kelvin", json!({"celsius": 25}))),
        &[made("to_kelvin", json!({"celsius": 25, "precision": 5}))],
        &tools(),
    );
    assert!(verdicts[0].is_right());
}

#[test]
fn invalid_wrong_and_missing_are_told_apart() {
    let tools = tools();
    let expect = one(expected("to_kelvin", json!({"celsius": 25})));
    let invalid = judge(&expect, &[made("to_kelvin", json!({"celsius": "25"}))], &tools);
    assert!(
        matches!(&invalid[0], CallVerdict::Invalid { problems, .. } if problems[0].starts_with("/celsius")),
        "{invalid:?}"
    );
    let wrong = judge(&expect, &[made("to_kelvin", json!({"celsius": 30}))], &tools);
    assert_eq!(wrong[0].line(), "call 1 to to_kelvin: wrong: /celsius: expected 25, got 30");
    let missing = judge(&expect, &[], &tools);
    assert_eq!(missing, [CallVerdict::Missing { tool: "to_kelvin".into() }]);
    let not_json =
        judge(&expect, &[MadeCall { tool: "to_kelvin".into(), arguments: json!("{celsius:"), not_json: true }], &tools);
    assert_eq!(not_json[0].line(), "call 1 to to_kelvin: invalid: the arguments are not JSON: {celsius:");
}

#[test]
fn a_list_is_the_accepted_values_unless_the_argument_is_a_list() {
    let schema = json!({"type": "number"});
    assert_eq!(accepted_values(&json!([25, 77]), Some(&schema)), [json!(25), json!(77)]);
    let list = json!({"type": "array"});
    assert_eq!(accepted_values(&json!(["a", "b"]), Some(&list)), [json!(["a", "b"])]);
    assert_eq!(accepted_values(&json!([["a"], ["b"]]), Some(&list)), [json!(["a"]), json!(["b"])]);
    let call = ExpectedCall {
        tool: "to_kelvin".into(),
        args: vec![("celsius".into(), vec![json!(25), json!(77)])],
        exact: false,
    };
    let verdicts = judge(&one(call), &[made("to_kelvin", json!({"celsius": 77}))], &tools());
    assert!(verdicts[0].is_right());
}

#[test]
fn null_among_the_accepted_values_lets_the_argument_be_left_out() {
    let call = ExpectedCall {
        tool: "tag".into(),
        args: vec![("labels".into(), vec![json!(["x"]), Value::Null])],
        exact: false,
    };
    assert!(judge(&one(call), &[made("tag", json!({}))], &tools())[0].is_right());
}

#[test]
fn order_never_and_extra_calls() {
    let tools = tools();
    let a = expected("to_kelvin", json!({"celsius": 1}));
    let b = expected("to_kelvin", json!({"celsius": 2}));
    let calls = [made("to_kelvin", json!({"celsius": 2})), made("to_kelvin", json!({"celsius": 1}))];
    let any = CallExpect { calls: vec![a.clone(), b.clone()], order: Order::Any, never: vec![] };
    assert!(judge(&any, &calls, &tools).iter().all(CallVerdict::is_right));
    let strict = CallExpect { order: Order::Strict, ..any.clone() };
    assert!(judge(&strict, &calls, &tools).iter().all(|v| matches!(v, CallVerdict::OutOfOrder { .. })));
    let with_extra = [calls[0].clone(), calls[1].clone(), made("to_kelvin", json!({"celsius": 3}))];
    let verdicts = judge(&any, &with_extra, &tools);
    assert_eq!(verdicts.last().unwrap(), &CallVerdict::Extra { tool: "to_kelvin".into(), index: 2 });
    let superset = CallExpect { order: Order::Superset, never: vec!["delete_all".into()], ..any };
    assert!(judge(&superset, &with_extra, &tools).iter().all(CallVerdict::is_right));
    let forbidden = [calls[0].clone(), calls[1].clone(), made("delete_all", json!({}))];
    let verdicts = judge(&superset, &forbidden, &tools);
    assert_eq!(verdicts.last().unwrap().line(), "call 3 to delete_all: a tool the case says is never called");
}

#[test]
fn same_compares_numbers_by_value_at_any_depth() {
    assert!(same(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
    assert!(!same(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
}
