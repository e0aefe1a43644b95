//! A success that reads as an error: its text says "Error: ...", holds a stack trace, or is a
//! JSON object that says it failed, while `isError` is false. MCP asks a tool's errors to be
//! results with `isError: true` so that the model knows the call failed; such an answer is a
//! note once per tool (or, for valid input with an internal error in it, a bug).

use serde_json::Value;

use super::Kind;
use super::judge::{Evidence, Verdict, first_line, internal};
use super::message::shape;
use crate::invoke::Outcome;

/// The text of a success that reads as an error: its only content is text, the first of which
/// opens with a label naming an error ("Error:", "Database error:", "Error reading file:"), or
/// holds a stack trace or a Traceback.
pub(super) fn error_text(outcome: &Outcome) -> Option<&str> {
    use crate::invoke::ContentItem;
    if outcome.structured || outcome.content.is_empty() {
        return None;
    }
    let mut texts = outcome.content.iter().map(|item| match item {
        ContentItem::Text(text) => Some(text.text.as_str()),
        _ => None,
    });
    let first = texts.next()??;
    if texts.any(|t| t.is_none()) {
        return None;
    }
    reads_as_error(first).then_some(first)
}

fn reads_as_error(text: &str) -> bool {
    let opening = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let line = first_line(opening);
    // A label of a few words before a colon that names an error: "Error:", "Database error:",
    // "Error reading file:", "ValueError:".
    let labelled = line.split_once(':').is_some_and(|(label, _)| {
        let label = label.trim().to_lowercase();
        let first_word = label.split_whitespace().next();
        let names_error = first_word == Some("error") || label.ends_with("error") || label.ends_with("exception");
        names_error && label.split_whitespace().count() <= 6
    });
    labelled
        || line.to_lowercase().starts_with("error -")
        || text.contains("Traceback (most recent call last)")
        || stack_trace(text)
        || json_error(text)
}

/// A JSON object in words that says it failed: `{"status": "error", ...}`, `{"success": false}`,
/// `{"error": "..."}` (a store that answers every failure so, with `isError` false).
fn json_error(text: &str) -> bool {
    let text = text.trim();
    if !text.starts_with('{') || text.len() > 64 * 1024 {
        return false;
    }
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else { return false };
    let status = map.get("status").and_then(Value::as_str).map(str::to_lowercase);
    matches!(status.as_deref(), Some("error" | "failed" | "failure"))
        || map.get("success") == Some(&Value::Bool(false))
        || map.get("ok") == Some(&Value::Bool(false))
        || map
            .get("error")
            .is_some_and(|e| !e.is_null() && *e != Value::Bool(false) && *e != Value::String(String::new()))
}

/// An error answered as a success: a note with the rule of MCP it breaks (once per tool: the
/// cause is the same whatever the text), unless valid input hit an internal error (a bug).
pub(super) fn error_as_success(text: &str, arguments: &Value, valid: bool) -> Verdict {
    // A JSON object written over several lines is shown on one.
    let one_line = match serde_json::from_str::<Value>(text.trim()) {
        Ok(value @ Value::Object(_)) => value.to_string(),
        _ => first_line(text.trim_start()).to_string(),
    };
    let shown = crate::text::truncate(&one_line, 200).into_owned();
    if valid && internal(text) {
        let message = format!("answered valid input with an internal error, as a success: {shown}");
        let cause = format!("internal-as-success {}", shape(text, arguments));
        return Verdict { kind: Kind::RefusesValid, message, cause, evidence: Evidence::Strong };
    }
    let message = format!(
        "answered with an error as a success (isError false): \"{shown}\"; MCP asks a tool's errors to be results with isError true, so the model knows the call failed"
    );
    Verdict { kind: Kind::ErrorAsSuccess, message, cause: "error-as-success".into(), evidence: Evidence::Strong }
}

/// Two or more lines of a JavaScript-style stack trace ("    at f (file.js:1:2)").
pub(super) fn stack_trace(message: &str) -> bool {
    message.lines().filter(|l| l.trim_start().starts_with("at ") && l.contains('(')).count() >= 2
}
