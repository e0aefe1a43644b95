//! What a case expects of its outcome, and every way an outcome falls short, each said so a
//! person can see what came back instead.

use std::sync::Arc;

use serde_json::Value;

use crate::invoke::{Outcome, Status};

const KEYS: &[&str] = &["elicited", "status", "value", "contains", "pointer", "schema", "max_ms", "error_contains"];
const STATUSES: &[&str] = &["value", "error", "requires_authorization", "artifact", "null"];
/// A failure lists at most this many differing places; the rest are counted.
const MAX_DIFFERENCES: usize = 5;
/// Values in failure messages are cut to this many characters.
const MAX_SHOWN: usize = 120;

#[derive(Debug, Clone, Default)]
pub struct Expect {
    pub status: Option<Status>,
    /// Deep equality (numbers by value: 3 equals 3.0).
    pub value: Option<Value>,
    /// Subset: object keys recursively, every expected array element matched by some element.
    pub contains: Option<Value>,
    /// JSON pointer → expected value.
    pub pointer: Vec<(String, Value)>,
    pub schema: Option<Arc<jsonschema::Validator>>,
    pub max_ms: Option<u64>,
    /// Found in the error's message, developer message or parameter errors (a 422's).
    pub error_contains: Option<String>,
    /// What an MCP server asked during the call (elicitation or sampling): a subset of one
    /// request (`{message: ..., requestedSchema: {...}}`, `{mode: url}`, ...).
    pub elicited: Option<Value>,
}

impl Expect {
    /// The `expect` object of a case; an error names the key it is about.
    pub fn parse(value: &Value) -> Result<Expect, (Option<String>, String)> {
        Expect::parse_sharing(value, &mut Schemas::default())
    }

    /// Like [`Expect::parse`], compiling each distinct `schema` once across the cases of a file
    /// (a compiled schema is far larger than its text; thousands of cases share a few).
    pub fn parse_sharing(value: &Value, schemas: &mut Schemas) -> Result<Expect, (Option<String>, String)> {
        let Value::Object(map) = value else {
            return Err((None, "`expect` is an object (status, value, contains, pointer, schema, ...)".into()));
        };
        let mut expect = Expect::default();
        for (key, value) in map {
            let at = || Some(key.clone());
            match key.as_str() {
                "status" => {
                    // `status: null` in YAML is the null value, not the string: both mean null.
                    let name = if value.is_null() { "null" } else { value.as_str().unwrap_or_default() };
                    let status = STATUSES.iter().position(|s| *s == name).map(|i| STATUS_VALUES[i]);
                    expect.status =
                        Some(status.ok_or_else(|| {
                            (at(), format!("`status` is one of {}, not {value}", STATUSES.join(", ")))
                        })?);
                }
                "value" => expect.value = Some(value.clone()),
                "contains" => expect.contains = Some(value.clone()),
                "elicited" => expect.elicited = Some(value.clone()),
                "pointer" => {
                    let Value::Object(pointers) = value else {
                        return Err((at(), "`pointer` maps JSON pointers (\"/a/0/b\") to values".into()));
                    };
                    for (pointer, expected) in pointers {
                        if !(pointer.is_empty() || pointer.starts_with('/')) {
                            return Err((at(), format!("\"{pointer}\" is not a JSON pointer (they start with /)")));
                        }
                        expect.pointer.push((pointer.clone(), expected.clone()));
                    }
                }
                "schema" => {
                    let text = value.to_string();
                    let validator = match schemas.0.get(&text) {
                        Some(validator) => Arc::clone(validator),
                        None => {
                            let validator = Arc::new(
                                jsonschema::validator_for(value)
                                    .map_err(|e| (at(), format!("`schema` is not a usable JSON Schema: {e}")))?,
                            );
                            schemas.0.insert(text, Arc::clone(&validator));
                            validator
                        }
                    };
                    expect.schema = Some(validator);
                }
                "max_ms" => {
                    expect.max_ms = Some(
                        value
                            .as_u64()
                            .ok_or_else(|| (at(), format!("`max_ms` is a number of milliseconds, not {value}")))?,
                    )
                }
                "error_contains" => {
                    expect.error_contains = Some(
                        value.as_str().ok_or_else(|| (at(), "`error_contains` is a string".to_string()))?.to_string(),
                    )
                }
                other => return Err((at(), super::file::unknown_key("`expect`", other, KEYS))),
            }
        }
        Ok(expect)
    }

    /// Every way `outcome` falls short; empty when it is as expected.
    pub fn check(&self, outcome: &Outcome, duration_ms: u64) -> Vec<String> {
        let mut failures = Vec::new();
        if let Some(elicited) = &self.elicited
            && !outcome.asked.iter().any(|asked| contains(elicited, &asked["request"]))
        {
            let asked: Vec<String> = outcome.asked.iter().map(|a| a["request"].to_string()).collect();
            let what =
                if asked.is_empty() { "nothing was asked".to_string() } else { format!("asked: {}", asked.join("; ")) };
            failures.push(format!("elicited: no request the server made has {elicited} ({what})"));
        }
        if let Some(status) = self.status
            && status != outcome.status
        {
            failures.push(format!("status: expected {}, got {}{}", status.name(), outcome.status.name(), why(outcome)));
        }
        let value = outcome.value.as_ref().unwrap_or(&Value::Null);
        // A check of the value fails at once when no value came back: it says what did.
        let came_back = if outcome.status == Status::Value {
            String::new()
        } else {
            format!(" (it came back {}{})", outcome.status.name(), why(outcome))
        };
        if let Some(expected) = &self.value {
            let mut differences = Vec::new();
            differ(expected, value, String::new(), &mut differences);
            if !differences.is_empty() {
                failures.push(format!("value differs{came_back}:{}", list(&differences)));
            }
        }
        if let Some(expected) = &self.contains {
            let mut missing = Vec::new();
            lacks(expected, value, String::new(), &mut missing);
            if !missing.is_empty() {
                failures.push(format!("value does not contain what was expected{came_back}:{}", list(&missing)));
            }
        }
        for (pointer, expected) in &self.pointer {
            match value.pointer(pointer) {
                None => failures.push(format!(
                    "{pointer}: expected {}, but the value has nothing there{came_back}",
                    shown(expected)
                )),
                Some(found) if !same(expected, found) => {
                    failures.push(format!("{pointer}: expected {}, got {}", shown(expected), shown(found)))
                }
                Some(_) => {}
            }
        }
        if let Some(schema) = &self.schema {
            let errors: Vec<String> = schema
                .iter_errors(value)
                .map(|e| {
                    let at = e.instance_path().as_str().to_string();
                    format!("{}: {e}", if at.is_empty() { "/" } else { &at })
                })
                .collect();
            if !errors.is_empty() {
                failures.push(format!("value does not match the schema:{}", list(&errors)));
            }
        }
        if let Some(limit) = self.max_ms
            && duration_ms > limit
        {
            failures.push(format!("took {duration_ms} ms, more than max_ms {limit}"));
        }
        if let Some(needle) = &self.error_contains {
            let error = outcome.error.as_ref();
            let texts = [error.map(|e| e.message.as_str()), error.and_then(|e| e.developer_message.as_deref())];
            let parameter_errors = error.into_iter().flat_map(|e| &e.parameter_errors).flat_map(|(k, v)| [k, v]);
            let found = texts
                .iter()
                .flatten()
                .copied()
                .chain(parameter_errors.map(String::as_str))
                .any(|t| t.contains(needle.as_str()));
            if !found {
                failures.push(match error {
                    Some(e) => {
                        format!("the error does not contain \"{needle}\": {}", shown(&Value::String(e.message.clone())))
                    }
                    None => format!("expected an error containing \"{needle}\", got {}", outcome.status.name()),
                });
            }
        }
        failures
    }
}

/// Compiled `schema` expectations by their text.
#[derive(Default)]
pub struct Schemas(std::collections::HashMap<String, Arc<jsonschema::Validator>>);

const STATUS_VALUES: [Status; 5] =
    [Status::Value, Status::Error, Status::RequiresAuthorization, Status::Artifact, Status::Null];

/// What explains an unexpected status: the error's message or the authorization prompt's.
fn why(outcome: &Outcome) -> String {
    let message = outcome
        .error
        .as_ref()
        .map(|e| e.message.as_str())
        .or(outcome.authorization.as_ref().map(|a| a.message.as_str()));
    message.map(|m| format!(" ({})", crate::text::truncate(&crate::text::visible(m), MAX_SHOWN))).unwrap_or_default()
}

fn list(items: &[String]) -> String {
    let mut text: String = items.iter().take(MAX_DIFFERENCES).map(|d| format!("\n    {d}")).collect();
    if items.len() > MAX_DIFFERENCES {
        text.push_str(&format!("\n    … and {} more", items.len() - MAX_DIFFERENCES));
    }
    text
}

/// A value in a message: compact JSON, control characters visible, cut short.
fn shown(value: &Value) -> String {
    crate::text::truncate(&crate::text::visible(&value.to_string()), MAX_SHOWN).into_owned()
}

fn at(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

/// Equal as JSON values, numbers compared by value (the one rule, shared with `tooldeck eval`).
pub fn same(a: &Value, b: &Value) -> bool {
    tooldeck_core::call_match::same(a, b)
}

/// The places where `actual` differs from `expected`, as "path: expected X, got Y".
fn differ(expected: &Value, actual: &Value, path: String, out: &mut Vec<String>) {
    if out.len() > MAX_DIFFERENCES {
        return;
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                let here = format!("{path}/{key}");
                match a.get(key) {
                    Some(found) => differ(value, found, here, out),
                    None => out.push(format!("{here}: expected {}, missing", shown(value))),
                }
            }
            for key in a.keys().filter(|k| !e.contains_key(*k)) {
                out.push(format!("{path}/{key}: not expected, got {}", shown(&a[key])));
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (x, y)) in e.iter().zip(a).enumerate() {
                differ(x, y, format!("{path}/{i}"), out);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            out.push(format!("{}: expected {} items, got {}: {}", at(&path), e.len(), a.len(), shown(actual)))
        }
        _ if same(expected, actual) => {}
        _ => out.push(format!("{}: expected {}, got {}", at(&path), shown(expected), shown(actual))),
    }
}

/// Whether `actual` contains `expected`, recording what is missing.
fn lacks(expected: &Value, actual: &Value, path: String, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                let here = format!("{path}/{key}");
                match a.get(key) {
                    Some(found) => lacks(value, found, here, out),
                    None => out.push(format!("{here}: expected {}, missing", shown(value))),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for item in e {
                if !a.iter().any(|candidate| contains(item, candidate)) {
                    out.push(format!("{}: no element matches {}", at(&path), shown(item)));
                }
            }
        }
        _ if same(expected, actual) => {}
        _ => out.push(format!("{}: expected {}, got {}", at(&path), shown(expected), shown(actual))),
    }
}

fn contains(expected: &Value, actual: &Value) -> bool {
    let mut missing = Vec::new();
    lacks(expected, actual, String::new(), &mut missing);
    missing.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoke::ToolError;
    use serde_json::json;

    fn value_outcome(value: Value) -> Outcome {
        let mut outcome = Outcome::new(Status::Value, "call-1");
        outcome.value = Some(value);
        outcome
    }

    fn check(expect: Value, outcome: &Outcome) -> Vec<String> {
        Expect::parse(&expect).expect("a valid expect").check(outcome, 10)
    }

    #[test]
    fn status() {
        let outcome = value_outcome(json!(3));
        assert!(check(json!({"status": "value"}), &outcome).is_empty());
        let nothing = Outcome::new(Status::Null, "c");
        assert!(check(json!({"status": null}), &nothing).is_empty(), "YAML's `status: null`");
        assert!(check(json!({"status": "null"}), &nothing).is_empty());
        assert_eq!(check(json!({"status": null}), &outcome), ["status: expected null, got value"]);
        let mut artifact = Outcome::new(Status::Artifact, "c");
        artifact.value = Some(json!({"url": "http://x/a.csv"}));
        assert!(check(json!({"status": "artifact"}), &artifact).is_empty());
        assert_eq!(check(json!({"status": "artifact"}), &nothing), ["status: expected artifact, got null"]);
        let authorization = Outcome::new(Status::RequiresAuthorization, "c");
        assert!(check(json!({"status": "requires_authorization"}), &authorization).is_empty());
        assert_eq!(
            check(json!({"status": "error"}), &authorization),
            ["status: expected error, got requires_authorization"]
        );
        let mut error = Outcome::new(Status::Error, "c");
        error.error = Some(ToolError { message: "city is required".into(), ..ToolError::default() });
        let failures = check(json!({"status": "value"}), &error);
        assert_eq!(failures, ["status: expected value, got error (city is required)"]);
    }

    #[test]
    fn value_equality_by_number_value_with_a_short_diff() {
        assert!(check(json!({"value": 3}), &value_outcome(json!(3.0))).is_empty());
        let outcome = value_outcome(json!({"temp": 20, "unit": "celsius", "extra": true, "list": [1, 2]}));
        let failures = check(json!({"value": {"temp": 21, "unit": "celsius", "list": [1, 2, 3]}}), &outcome);
        assert_eq!(failures.len(), 1);
        let failure = &failures[0];
        assert!(failure.contains("/temp: expected 21, got 20"), "{failure}");
        assert!(failure.contains("/list: expected 3 items, got 2"), "{failure}");
        assert!(failure.contains("/extra: not expected, got true"), "{failure}");
        assert!(!failure.contains("unit"), "equal parts are not listed: {failure}");
    }

    #[test]
    fn contains_is_a_subset_match() {
        let outcome =
            value_outcome(json!({"unit": "celsius", "temp": 20, "days": [{"d": "mon", "t": 1}, {"d": "tue"}]}));
        assert!(check(json!({"contains": {"unit": "celsius", "days": [{"d": "tue"}]}}), &outcome).is_empty());
        let failures = check(json!({"contains": {"unit": "kelvin", "days": [{"d": "sun"}], "wind": 3}}), &outcome);
        let failure = &failures[0];
        assert!(failure.contains("/unit: expected \"kelvin\", got \"celsius\""), "{failure}");
        assert!(failure.contains("/days: no element matches {\"d\":\"sun\"}"), "{failure}");
        assert!(failure.contains("/wind: expected 3, missing"), "{failure}");
    }

    #[test]
    fn pointers() {
        let outcome = value_outcome(json!({"forecast": [{"day": "mon"}]}));
        assert!(check(json!({"pointer": {"/forecast/0/day": "mon"}}), &outcome).is_empty());
        let failures = check(json!({"pointer": {"/forecast/0/day": "tue", "/forecast/3": 1}}), &outcome);
        assert_eq!(failures[0], "/forecast/0/day: expected \"tue\", got \"mon\"");
        assert_eq!(failures[1], "/forecast/3: expected 1, but the value has nothing there");
        assert!(Expect::parse(&json!({"pointer": {"no-slash": 1}})).is_err());
        // No value came back at all: the failure says what did.
        let mut error = Outcome::new(Status::Error, "c");
        error.error = Some(crate::invoke::ToolError { message: "boom".into(), ..Default::default() });
        let failures = check(json!({"pointer": {"/forecast/0/day": "mon"}}), &error);
        assert!(failures[0].contains("nothing there (it came back error (boom))"), "{failures:?}");
    }

    #[test]
    fn schema() {
        let expect = json!({"schema": {"type": "object", "required": ["temp"]}});
        assert!(check(expect.clone(), &value_outcome(json!({"temp": 1}))).is_empty());
        let failures = check(expect, &value_outcome(json!({"unit": "c"})));
        assert!(failures[0].starts_with("value does not match the schema:"), "{failures:?}");
        assert!(failures[0].contains("temp"), "{failures:?}");
        let (key, message) = Expect::parse(&json!({"schema": {"type": 12}})).unwrap_err();
        assert_eq!(key.as_deref(), Some("schema"));
        assert!(message.contains("not a usable JSON Schema"), "{message}");
    }

    #[test]
    fn max_ms() {
        let outcome = value_outcome(json!(1));
        let expect = Expect::parse(&json!({"max_ms": 50})).unwrap();
        assert!(expect.check(&outcome, 50).is_empty());
        assert_eq!(expect.check(&outcome, 51), ["took 51 ms, more than max_ms 50"]);
    }

    #[test]
    fn error_contains_searches_both_messages() {
        let mut outcome = Outcome::new(Status::Error, "c");
        outcome.error = Some(ToolError {
            message: "bad input".into(),
            developer_message: Some("city must not be empty".into()),
            ..ToolError::default()
        });
        assert!(check(json!({"status": "error", "error_contains": "city"}), &outcome).is_empty());
        assert!(check(json!({"error_contains": "bad"}), &outcome).is_empty());
        let mut invalid = Outcome::new(Status::Error, "c");
        invalid.error = Some(ToolError {
            message: "invalid input".into(),
            parameter_errors: [("a".to_string(), "\"one\" is not of type \"number\"".to_string())].into(),
            ..ToolError::default()
        });
        assert!(check(json!({"error_contains": "number"}), &invalid).is_empty(), "parameter errors count");
        let failures = check(json!({"error_contains": "zip"}), &outcome);
        assert_eq!(failures, ["the error does not contain \"zip\": \"bad input\""]);
        let failures = check(json!({"error_contains": "zip"}), &value_outcome(json!(1)));
        assert_eq!(failures, ["expected an error containing \"zip\", got value"]);
    }

    #[test]
    fn bad_expectations_name_their_key() {
        let (key, message) = Expect::parse(&json!({"status": "maybe"})).unwrap_err();
        assert_eq!(key.as_deref(), Some("status"));
        assert!(message.contains("value, error, requires_authorization, artifact, null"), "{message}");
        let (key, message) = Expect::parse(&json!({"valeu": 1})).unwrap_err();
        assert_eq!(key.as_deref(), Some("valeu"));
        assert!(message.contains("did you mean `value`"), "{message}");
        assert!(Expect::parse(&json!({"max_ms": "soon"})).is_err());
        assert!(Expect::parse(&json!([1])).is_err());
    }

    #[test]
    fn long_values_and_control_characters_are_shown_safely() {
        let outcome = value_outcome(json!("\u{1b}[2J".repeat(100)));
        let failures = check(json!({"value": "x"}), &outcome);
        assert!(!failures[0].contains('\u{1b}'), "{failures:?}");
        assert!(failures[0].chars().count() < 300, "{failures:?}");
    }
}
