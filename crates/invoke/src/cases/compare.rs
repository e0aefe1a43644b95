//! `tooldeck test --compare-with`: each case's outcome from one server held against another's.
//! Outcomes are compared by meaning: the status, the value as JSON (key order and `1` vs `1.0`
//! do not count), the error's messages, and which artifacts and content items came back (by
//! type: their URLs name each server's own host).

use serde_json::Value;

use crate::invoke::Outcome;
use crate::text::{truncate, visible};

/// How many differing places one case lists before it says how many more there are.
const MAX_DIFFERENCES: usize = 8;
const MAX_SHOWN: usize = 80;

/// Where `ours` and `theirs` (the compared server's) differ, one line each; empty when they agree.
pub fn differences(ours: &Outcome, theirs: &Outcome) -> Vec<String> {
    if ours.status != theirs.status {
        return vec![format!(
            "status: {}{} here, {}{} from the compared server",
            ours.status.name(),
            why(ours),
            theirs.status.name(),
            why(theirs)
        )];
    }
    let mut out = Vec::new();
    match (&ours.value, &theirs.value) {
        (Some(a), Some(b)) => value_differences(a, b, String::new(), &mut out),
        (Some(a), None) => out.push(format!("value: {} here, none from the compared server", shown(a))),
        (None, Some(b)) => out.push(format!("value: none here, {} from the compared server", shown(b))),
        (None, None) => {}
    }
    let error = |o: &Outcome| o.error.as_ref().map(|e| (e.message.clone(), e.developer_message.clone()));
    if let (Some((message, developer)), Some((their_message, their_developer))) = (error(ours), error(theirs)) {
        if message != their_message {
            out.push(format!(
                "error message: {} here, {} from the compared server",
                quoted(&message),
                quoted(&their_message)
            ));
        }
        if developer != their_developer {
            let show = |d: &Option<String>| d.as_deref().map_or("none".to_string(), quoted);
            out.push(format!(
                "developer message: {} here, {} from the compared server",
                show(&developer),
                show(&their_developer)
            ));
        }
    }
    let artifacts = |o: &Outcome| -> Vec<String> {
        o.artifacts.iter().map(|a| a.content_type.clone().unwrap_or_else(|| "no type".into())).collect()
    };
    if artifacts(ours) != artifacts(theirs) {
        out.push(format!(
            "artifacts: [{}] here, [{}] from the compared server",
            artifacts(ours).join(", "),
            artifacts(theirs).join(", ")
        ));
    }
    let kinds = |o: &Outcome| -> Vec<String> { o.content.iter().map(|c| c.kind().to_string()).collect() };
    if kinds(ours) != kinds(theirs) {
        out.push(format!(
            "content items: [{}] here, [{}] from the compared server",
            kinds(ours).join(", "),
            kinds(theirs).join(", ")
        ));
    }
    if out.len() > MAX_DIFFERENCES {
        let more = out.len() - MAX_DIFFERENCES;
        out.truncate(MAX_DIFFERENCES);
        out.push(format!("… and {more} more"));
    }
    out
}

/// The places where two values differ, as "value /path: X here, Y from the compared server".
fn value_differences(ours: &Value, theirs: &Value, path: String, out: &mut Vec<String>) {
    if out.len() > MAX_DIFFERENCES {
        return;
    }
    let at = if path.is_empty() { "/" } else { &path };
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let here = format!("{path}/{key}");
                match b.get(key) {
                    Some(other) => value_differences(value, other, here, out),
                    None => out.push(format!("value {here}: {} here, missing from the compared server", shown(value))),
                }
            }
            for key in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(format!("value {path}/{key}: missing here, {} from the compared server", shown(&b[key])));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                value_differences(x, y, format!("{path}/{i}"), out);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            out.push(format!("value {at}: {} items here, {} from the compared server", a.len(), b.len()))
        }
        _ if super::expect::same(ours, theirs) => {}
        _ => out.push(format!("value {at}: {} here, {} from the compared server", shown(ours), shown(theirs))),
    }
}

/// The message behind an error or authorization status, for a status line.
fn why(outcome: &Outcome) -> String {
    let message = outcome.error.as_ref().map(|e| &e.message).or(outcome.authorization.as_ref().map(|a| &a.message));
    message.map(|m| format!(" ({})", truncate(&visible(m), MAX_SHOWN))).unwrap_or_default()
}

fn shown(value: &Value) -> String {
    truncate(&visible(&value.to_string()), MAX_SHOWN).into_owned()
}

fn quoted(text: &str) -> String {
    format!("\"{}\"", truncate(&visible(text), MAX_SHOWN))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoke::{Status, ToolError};
    use serde_json::json;

    fn value(v: Value) -> Outcome {
        let mut outcome = Outcome::new(Status::Value, "c1");
        outcome.value = Some(v);
        outcome
    }

    fn error(message: &str) -> Outcome {
        let mut outcome = Outcome::new(Status::Error, "c1");
        outcome.error = Some(ToolError { message: message.into(), ..ToolError::default() });
        outcome
    }

    #[test]
    fn equal_by_meaning_is_no_difference() {
        let ours = value(json!({"a": 1, "b": [1.0, "x"]}));
        let theirs = value(json!({"b": [1, "x"], "a": 1.0}));
        assert_eq!(differences(&ours, &theirs), Vec::<String>::new());
        // The call id and the time taken are not part of the outcome's meaning.
        let mut later = ours.clone();
        later.call_id = "c2".into();
        later.duration_ms = 900;
        assert!(differences(&ours, &later).is_empty());
    }

    #[test]
    fn each_differing_place_is_named() {
        let ours = value(json!({"temp": 21, "unit": "C", "hourly": [1, 2]}));
        let theirs = value(json!({"temp": 23, "hourly": [1, 2, 3], "wind": 4}));
        assert_eq!(
            differences(&ours, &theirs),
            [
                "value /temp: 21 here, 23 from the compared server",
                "value /unit: \"C\" here, missing from the compared server",
                "value /hourly: 2 items here, 3 from the compared server",
                "value /wind: missing here, 4 from the compared server",
            ]
        );
    }

    #[test]
    fn a_different_status_says_why() {
        let differences = differences(&value(json!(1)), &error("city not found"));
        assert_eq!(differences, ["status: value here, error (city not found) from the compared server"]);
    }

    #[test]
    fn error_messages_are_compared() {
        assert!(differences(&error("no such city"), &error("no such city")).is_empty());
        assert_eq!(
            differences(&error("no such city"), &error("unknown city")),
            ["error message: \"no such city\" here, \"unknown city\" from the compared server"]
        );
    }
}
