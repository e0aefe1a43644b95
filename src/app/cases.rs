//! `S`: the call on screen (or one from the history pane) saved as a test case for
//! `tooldeck test`, with `expect` filled from what came back. The case file is asked for once per
//! run of the app; the runtime appends to it.

use serde_json::{Value, json};

use super::{App, Effect, Popup, RunState};
use crate::form::TextInput;
use crate::form::validate::Checker;

/// Where cases go unless the user names another file.
pub const DEFAULT_CASE_FILE: &str = "tooldeck-cases.yaml";

/// `S` on a result: the current call and its outcome as a case.
pub fn save_current(app: &mut App) -> Vec<Effect> {
    let Some(run) = &app.run else {
        app.status = Some("S saves a call as a test case: run one first (Ctrl-R)".into());
        return Vec::new();
    };
    let RunState::Done { outcome, .. } = &run.state else {
        app.status = Some("S saves a call that has come back; this one has no outcome".into());
        return Vec::new();
    };
    let arguments = &run.request.arguments;
    let mut case =
        crate::cases::record::case_from_outcome(&case_name(&run.tool_id, arguments), &run.tool_id, arguments, outcome);
    if !arguments_valid(app, &run.tool_id, arguments) {
        // It was sent anyway; the case must be too, or `tooldeck test` would refuse it.
        case["validate"] = json!(false);
    }
    save(app, case)
}

/// `S` in the history pane: a past call as a case expecting the same status (the history keeps
/// no values).
pub fn save_from_history(app: &mut App, newest_first_index: usize) -> Vec<Effect> {
    let Some(entry) = app.history.iter().rev().nth(newest_first_index).cloned() else { return Vec::new() };
    let expectable = ["value", "error", "requires_authorization", "artifact", "null"];
    if !expectable.contains(&entry.outcome.as_str()) {
        app.status = Some(format!("a call that ended as \"{}\" has no outcome to expect", entry.outcome));
        return Vec::new();
    }
    let mut case = json!({
        "name": case_name(&entry.tool, &entry.arguments),
        "tool": entry.tool,
        "args": entry.arguments,
        "expect": {"status": entry.outcome},
    });
    if !arguments_valid(app, &entry.tool, &entry.arguments) {
        case["validate"] = json!(false);
    }
    app.popup = None;
    save(app, case)
}

/// Enter in the case-file prompt: that file from now on, and the case waiting for it.
pub fn file_chosen(app: &mut App, path: String) -> Vec<Effect> {
    app.popup = None;
    let path = path.trim().to_string();
    if path.is_empty() {
        app.pending_case = None;
        app.status = Some("no case file given: not saved".into());
        return Vec::new();
    }
    app.case_file = Some(path.clone());
    match app.pending_case.take() {
        Some(case) => vec![Effect::SaveCase { path, case }],
        None => Vec::new(),
    }
}

/// The runtime appended the case (or could not).
pub fn saved(app: &mut App, result: Result<String, String>) {
    app.status = Some(match result {
        Ok(path) => format!("case saved to {path} · `tooldeck test {path}` runs it"),
        Err(e) => format!("case not saved: {e}"),
    });
}

/// Esc in the case-file prompt: the waiting case is not saved (and can be, later).
pub fn cancel(app: &mut App) {
    app.popup = None;
    if let Some(case) = app.pending_case.take() {
        app.saved_cases.remove(&saved_key(&case));
    }
}

fn saved_key(case: &Value) -> String {
    format!("{}\n{}", case["tool"], case["args"])
}

fn save(app: &mut App, case: Value) -> Vec<Effect> {
    if !app.saved_cases.insert(saved_key(&case)) {
        app.status = Some("this call is already saved as a case".into());
        return Vec::new();
    }
    match app.case_file.clone() {
        Some(path) => vec![Effect::SaveCase { path, case }],
        None => {
            app.pending_case = Some(case);
            app.popup = Some(Popup::CaseFile { input: TextInput::new(DEFAULT_CASE_FILE.to_string()) });
            Vec::new()
        }
    }
}

/// "tool {args}" cut short: enough to tell cases apart in a report; the user can rename it.
fn case_name(tool: &str, arguments: &Value) -> String {
    let arguments = match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| match value {
                Value::String(text) => format!(" {key}={text}"),
                other => format!(" {key}={other}"),
            })
            .collect(),
        Value::Null => String::new(),
        other => format!(" {other}"),
    };
    let name = format!("{tool}{arguments}");
    crate::text::truncate(&crate::text::visible(&name), 72).into_owned()
}

fn arguments_valid(app: &App, tool: &str, arguments: &Value) -> bool {
    app.catalog.get(tool).is_none_or(|t| Checker::new(&t.input_schema).check_value(arguments).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_and_plain() {
        assert_eq!(
            case_name("Math.Add", &json!({"a": 1, "s": "x y", "o": {"k": 1}})),
            "Math.Add a=1 s=x y o={\"k\":1}"
        );
        assert_eq!(case_name("ping", &json!({})), "ping");
        let long = case_name("t", &json!({"text": "x".repeat(200)}));
        assert!(crate::text::width(&long) <= 72, "{long}");
        assert_eq!(case_name("t\u{1b}[2J", &json!(null)), "t␛[2J");
    }
}
