//! Judging a model's tool calls against the calls expected of it, by the tool's schema: `25` and
//! `25.0` are one number, an argument given at its schema default counts as omitted, arguments
//! the expectation does not name are allowed (unless it is `exact`), and a call the schema
//! refuses is *invalid*, apart from a *wrong* one (right shape, other values) and a *missing*
//! one. No I/O: `tooldeck eval` judges with it, and values compare the way `tooldeck test`
//! compares them ([`same`]).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::form::validate::Checker;

/// Equal as JSON values, numbers compared by value (`3` is `3.0`).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// In what order the model's calls must come.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Exactly the expected calls, in their order, and no others.
    Strict,
    /// Exactly the expected calls, in any order (parallel calls come in any order).
    #[default]
    Any,
    /// Every expected call among the model's, in any order; other calls allowed.
    Superset,
}

impl Order {
    pub fn parse(word: &str) -> Option<Order> {
        match word {
            "strict" => Some(Order::Strict),
            "any" => Some(Order::Any),
            "superset" => Some(Order::Superset),
            _ => None,
        }
    }
}

/// One call the model is expected to make.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedCall {
    pub tool: String,
    /// Argument name → the values accepted for it (one or several).
    pub args: Vec<(String, Vec<Value>)>,
    /// No argument beyond those named (one given at its schema default still counts as omitted).
    pub exact: bool,
}

/// What a case expects of the model's calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallExpect {
    pub calls: Vec<ExpectedCall>,
    pub order: Order,
    /// Tools the model must not call.
    pub never: Vec<String>,
}

/// A call the model made: its arguments parsed, or (`not_json`) the text it sent instead.
#[derive(Debug, Clone, PartialEq)]
pub struct MadeCall {
    pub tool: String,
    pub arguments: Value,
    pub not_json: bool,
}

/// What became of one expected call, or of a call nobody expected.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum CallVerdict {
    /// Made as expected, by the model's call at `index`.
    Right { tool: String, index: usize },
    /// Made with the right shape and other values: each place that differs.
    Wrong { tool: String, index: usize, differences: Vec<String> },
    /// Made, but its schema refuses the arguments (or they were not JSON).
    Invalid { tool: String, index: usize, problems: Vec<String> },
    /// Never made.
    Missing { tool: String },
    /// Made but not expected (`order: strict` or `any`).
    Extra { tool: String, index: usize },
    /// A tool the case says is never to be called.
    Forbidden { tool: String, index: usize },
    /// Made in another order than expected (`order: strict`).
    OutOfOrder { tool: String, index: usize },
}

impl CallVerdict {
    pub fn is_right(&self) -> bool {
        matches!(self, CallVerdict::Right { .. })
    }

    /// The tool the verdict is about.
    pub fn tool(&self) -> &str {
        match self {
            CallVerdict::Right { tool, .. }
            | CallVerdict::Wrong { tool, .. }
            | CallVerdict::Invalid { tool, .. }
            | CallVerdict::Missing { tool }
            | CallVerdict::Extra { tool, .. }
            | CallVerdict::Forbidden { tool, .. }
            | CallVerdict::OutOfOrder { tool, .. } => tool,
        }
    }

    /// One line a person reads: which, and where.
    pub fn line(&self) -> String {
        let nth = |index: &usize| index + 1;
        match self {
            CallVerdict::Right { tool, index } => format!("call {} to {tool}: right", nth(index)),
            CallVerdict::Wrong { tool, index, differences } => {
                format!("call {} to {tool}: wrong: {}", nth(index), differences.join("; "))
            }
            CallVerdict::Invalid { tool, index, problems } => {
                format!("call {} to {tool}: invalid: {}", nth(index), problems.join("; "))
            }
            CallVerdict::Missing { tool } => format!("missing: no call to {tool}"),
            CallVerdict::Extra { tool, index } => format!("call {} to {tool}: not expected", nth(index)),
            CallVerdict::Forbidden { tool, index } => {
                format!("call {} to {tool}: a tool the case says is never called", nth(index))
            }
            CallVerdict::OutOfOrder { tool, index } => {
                format!("call {} to {tool}: right, but out of the expected order", nth(index))
            }
        }
    }
}

/// How to look up a tool's input schema (and its compiled checker) by name.
pub trait Schemas {
    fn schema(&self, tool: &str) -> Option<&Value>;
    fn checker(&self, tool: &str) -> Option<&Checker>;
}

/// Every verdict for `made` against `expect`, in the order of the expected calls, then the
/// calls nobody expected; the iteration passes when every verdict is right.
pub fn judge(expect: &CallExpect, made: &[MadeCall], schemas: &dyn Schemas) -> Vec<CallVerdict> {
    let mut used = vec![false; made.len()];
    let mut verdicts = Vec::new();
    let mut matched_at = Vec::new();
    for expected in &expect.calls {
        let schema = schemas.schema(&expected.tool).unwrap_or(&Value::Null);
        let right = (0..made.len())
            .find(|&i| !used[i] && made[i].tool == expected.tool && check(expected, &made[i], schema, schemas).is_ok());
        if let Some(index) = right {
            used[index] = true;
            matched_at.push(index);
            verdicts.push(CallVerdict::Right { tool: expected.tool.clone(), index });
            continue;
        }
        // The nearest miss: the first unused call to the same tool, judged for what is wrong.
        let near = (0..made.len()).find(|&i| !used[i] && made[i].tool == expected.tool);
        verdicts.push(match near {
            None => CallVerdict::Missing { tool: expected.tool.clone() },
            Some(index) => {
                used[index] = true;
                match check(expected, &made[index], schema, schemas) {
                    Err(Miss::Invalid(problems)) => {
                        CallVerdict::Invalid { tool: expected.tool.clone(), index, problems }
                    }
                    Err(Miss::Wrong(differences)) => {
                        CallVerdict::Wrong { tool: expected.tool.clone(), index, differences }
                    }
                    Ok(()) => CallVerdict::Right { tool: expected.tool.clone(), index },
                }
            }
        });
    }
    if expect.order == Order::Strict && matched_at.windows(2).any(|w| w[0] > w[1]) {
        for verdict in &mut verdicts {
            if let CallVerdict::Right { tool, index } = verdict {
                *verdict = CallVerdict::OutOfOrder { tool: std::mem::take(tool), index: *index };
            }
        }
    }
    for (index, call) in made.iter().enumerate() {
        if expect.never.contains(&call.tool) {
            verdicts.push(CallVerdict::Forbidden { tool: call.tool.clone(), index });
        } else if !used[index] && expect.order != Order::Superset {
            verdicts.push(CallVerdict::Extra { tool: call.tool.clone(), index });
        }
    }
    verdicts
}

enum Miss {
    Invalid(Vec<String>),
    Wrong(Vec<String>),
}

/// Whether `made` is `expected`: its arguments valid by the tool's schema, and each named
/// argument one of the accepted values (a value at its schema default counting as omitted).
fn check(expected: &ExpectedCall, made: &MadeCall, schema: &Value, schemas: &dyn Schemas) -> Result<(), Miss> {
    let arguments = &made.arguments;
    if made.not_json {
        let text = arguments.as_str().map_or_else(|| arguments.to_string(), str::to_string);
        return Err(Miss::Invalid(vec![format!("the arguments are not JSON: {}", cut(&text))]));
    }
    if let Some(checker) = schemas.checker(&expected.tool) {
        let problems = checker.check_value(arguments);
        if !problems.is_empty() {
            let said = problems.into_iter().map(|(at, message)| format!("{}: {message}", pointer(&at)));
            return Err(Miss::Invalid(said.collect()));
        }
    }
    let empty = Map::new();
    let given = arguments.as_object().unwrap_or(&empty);
    let properties = schema.get("properties");
    let default_of = |name: &str| properties.and_then(|p| p.get(name)).and_then(|p| p.get("default"));
    let mut differences = Vec::new();
    for (name, accepted) in &expected.args {
        // Omitted and at the default are one: the default is what the tool will use.
        let actual = given.get(name).or_else(|| default_of(name));
        match actual {
            Some(actual) if accepted.iter().any(|a| same_by_schema(a, actual)) => {}
            Some(actual) if given.contains_key(name) => {
                differences.push(format!("/{name}: expected {}, got {}", one_of(accepted), cut(&actual.to_string())))
            }
            _ if accepted.iter().any(Value::is_null) => {}
            _ => differences.push(format!("/{name}: expected {}, but it was left out", one_of(accepted))),
        }
    }
    if expected.exact {
        for (name, value) in given {
            let named = expected.args.iter().any(|(n, _)| n == name);
            let at_default = default_of(name).is_some_and(|d| same(d, value));
            if !named && !at_default {
                differences.push(format!("/{name}: not expected (exact), got {}", cut(&value.to_string())));
            }
        }
    }
    if differences.is_empty() { Ok(()) } else { Err(Miss::Wrong(differences)) }
}

/// [`same`], but an expected object is met by an actual one that has at least its keys (nested
/// objects follow the call's own rule: unnamed arguments are allowed).
fn same_by_schema(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e.iter().all(|(k, v)| a.get(k).is_some_and(|w| same_by_schema(v, w))),
        _ => same(expected, actual),
    }
}

fn one_of(accepted: &[Value]) -> String {
    match accepted {
        [one] => cut(&one.to_string()),
        many => format!("one of {}", many.iter().map(|v| cut(&v.to_string())).collect::<Vec<_>>().join(", ")),
    }
}

fn pointer(at: &str) -> &str {
    if at.is_empty() { "/" } else { at }
}

/// A value as a verdict shows it: at most 80 characters.
fn cut(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// The accepted values for an argument as an eval file writes them: a list is a list of
/// accepted values, unless the schema says the argument is itself a list (then a list of lists
/// is the accepted ones, and a plain list the one value).
pub fn accepted_values(written: &Value, property_schema: Option<&Value>) -> Vec<Value> {
    let is_array_type = property_schema
        .and_then(|s| s.get("type"))
        .is_some_and(|t| t == "array" || t.as_array().is_some_and(|types| types.iter().any(|t| t == "array")));
    match written {
        Value::Array(items) if !is_array_type => items.clone(),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_array) => items.clone(),
        other => vec![other.clone()],
    }
}

#[cfg(test)]
#[path = "call_match_tests.rs"]
mod tests;
