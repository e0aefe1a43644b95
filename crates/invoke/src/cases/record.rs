//! Writing cases: a call and its outcome as a case whose `expect` is what came back, appended to
//! a YAML case file. Every scalar is written as JSON, which YAML reads as the same value, so no
//! string (quotes, colons, newlines, `#`, unicode) can change meaning on the way.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::invoke::{Outcome, Status};

/// A case for `tool_id` called with `arguments`, expecting what `outcome` was.
pub fn case_from_outcome(name: &str, tool_id: &str, arguments: &Value, outcome: &Outcome) -> Value {
    let mut expect = Map::new();
    expect.insert("status".into(), json!(outcome.status.name()));
    match outcome.status {
        Status::Value => {
            if let Some(value) = &outcome.value {
                expect.insert("value".into(), value.clone());
            }
        }
        Status::Error => {
            if let Some(error) = outcome.error.as_ref().filter(|e| !e.message.is_empty()) {
                expect.insert("error_contains".into(), json!(error.message));
            }
        }
        Status::RequiresAuthorization | Status::Artifact | Status::Null => {}
    }
    json!({"name": name, "tool": tool_id, "args": arguments, "expect": expect})
}

/// Appends `case` to the case file at `path`, creating it (with a `cases:` list) when missing.
/// Its secrets are written as `${VAR}` placeholders: the variables returned must be set before
/// `tooldeck test` runs it.
pub fn append_case(path: &Path, case: &Value) -> io::Result<Vec<String>> {
    append_case_for(path, case, &Map::new())
}

/// [`append_case`] for a case made against the server `server` names (a case file's top-level
/// keys, [`super::server_keys::case_server`]): a new file starts with them; a file that names no
/// server gets them at its top; a file for another server is left alone, with why.
///
/// No secret is written: every one the redaction rule finds (a secret argument, a `${VAR}`'s
/// value, a credential echoed in the expected value) becomes a `${VAR}` placeholder
/// ([`crate::redact::placeholders`]); the variables it names are returned, to be said.
pub fn append_case_for(path: &Path, case: &Value, server: &Map<String, Value>) -> io::Result<Vec<String>> {
    let existing = match crate::files::read_text(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let server_text: String =
        server.iter().map(|(key, value)| format!("{}: {}\n", yaml_key(key), yaml_json(value))).collect();
    if let Some(old) = existing.as_deref().filter(|_| !server.is_empty()) {
        let top: Value = serde_saphyr::from_str(old).unwrap_or(Value::Null);
        let names = |map: &Value| -> Vec<Value> {
            ["endpoint", "mcp", "mcp_url"].iter().map(|k| map.get(*k).cloned().unwrap_or(Value::Null)).collect()
        };
        let theirs = names(&top);
        if theirs.iter().any(|v| !v.is_null()) && theirs != names(&Value::Object(server.clone())) {
            return Err(io::Error::other(format!(
                "{} holds cases for another server; save cases of this one to another file",
                path.display()
            )));
        }
        if theirs.iter().all(Value::is_null) {
            // The server goes on top, so the cases already there run against it too.
            let mut file = crate::files::write_private(path)?;
            file.write_all(format!("{server_text}{old}").as_bytes())?;
            drop(file);
            return append_case_for(path, case, &Map::new());
        }
    }
    let mut text = String::new();
    match &existing {
        None => {
            text.push_str("# tooldeck test cases: `tooldeck test FILE` runs them.\n");
            text.push_str(&server_text);
            text.push_str("cases:\n");
        }
        // Items can only be added at the end when the `cases:` block list is the last key.
        Some(old) if last_top_level_line(old) != Some("cases:") => {
            return Err(io::Error::other(format!(
                "{} does not end with a `cases:` list to append to (add cases by hand there)",
                path.display()
            )));
        }
        Some(old) if !old.is_empty() && !old.ends_with('\n') => text.push('\n'),
        Some(_) => {}
    }
    // Escaped first: the placeholders put in after it are the only `${` that expand.
    let (case, variables) = crate::redact::placeholders(&escaped(case));
    text.push_str(&yaml_item(&case));
    // Private to the user: cases hold a call's arguments and where it went.
    let mut file = crate::files::append_private(path)?;
    file.write_all(text.as_bytes())?;
    Ok(variables)
}

/// `case` with every `${` in its strings written `$${`, which the loader reads back as `${`
/// instead of expanding an environment variable (keys are never expanded).
fn escaped(value: &Value) -> Value {
    match value {
        Value::String(text) if text.contains("${") => Value::String(text.replace("${", super::file::ESCAPED)),
        Value::Array(items) => Value::Array(items.iter().map(escaped).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), escaped(v))).collect()),
        other => other.clone(),
    }
}

fn last_top_level_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim_end).rfind(|l| !l.is_empty() && !l.starts_with([' ', '\t', '#', '-']))
}

/// A key as it is when YAML reads it as that plain string, else quoted.
fn yaml_key(key: &str) -> String {
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-./@".contains(c))
        && !["true", "false", "null", "yes", "no", "on", "off", "y", "n"].contains(&key.to_ascii_lowercase().as_str());
    if plain { key.to_string() } else { yaml_json(&Value::String(key.to_string())) }
}

/// `value` as JSON that YAML reads as the same value. It is written by [`crate::json_out`] (C1
/// controls and bidi marks escaped, as in every file tooldeck writes); JSON leaves a few more
/// characters raw that a YAML stream may not hold (DEL, U+FFFE/U+FFFF) or that YAML 1.1 reads as
/// line breaks (U+2028, U+2029), plus the BOM: those are written as `\uXXXX` too, which both read
/// alike. serde_json writes no raw character outside a string, so the escapes land inside strings.
fn yaml_json(value: &Value) -> String {
    // Serializing a `Value` cannot fail; the fallback is only for the type's sake.
    let json = crate::json_out::to_line(value).unwrap_or_else(|_| value.to_string());
    let unsafe_in_yaml =
        |c: char| matches!(c, '\u{7F}'..='\u{9F}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}');
    if !json.contains(unsafe_in_yaml) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if unsafe_in_yaml(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// One `  - key: value` list item, keys on their own lines, values as JSON.
fn yaml_item(case: &Value) -> String {
    let mut out = String::new();
    let Value::Object(map) = case else {
        return format!("  - {}\n", yaml_json(case));
    };
    for (i, (key, value)) in map.iter().enumerate() {
        let lead = if i == 0 { "  - " } else { "    " };
        match value {
            Value::Object(inner) if !inner.is_empty() => {
                out.push_str(&format!("{lead}{}:\n", yaml_key(key)));
                for (k, v) in inner {
                    out.push_str(&format!("      {}: {}\n", yaml_key(k), yaml_json(v)));
                }
            }
            _ => out.push_str(&format!("{lead}{}: {}\n", yaml_key(key), yaml_json(value))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_back(text: &str) -> Value {
        serde_saphyr::from_str::<Value>(text).expect("valid YAML")
    }

    #[test]
    fn a_value_outcome_expects_that_value() {
        let mut outcome = Outcome::new(Status::Value, "c");
        outcome.value = Some(json!({"sum": 3}));
        let case = case_from_outcome("adds", "Math.Add", &json!({"a": 1, "b": 2}), &outcome);
        assert_eq!(case["expect"], json!({"status": "value", "value": {"sum": 3}}));
        assert_eq!(case["args"], json!({"a": 1, "b": 2}));
    }

    #[test]
    fn appended_cases_read_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.yaml");
        let tricky = json!({
            "name": "quotes \" and 'single', colon: here # not a comment\nnew line, ünïcödé, - dash",
            "tool": "t",
            "args": {"text": "a: b", "list": [1, "two", null], "nested": {"x": {"y": true}}, "on": 1, "a key": 2, "-x": 3},
            "expect": {"status": "value", "value": {"k": "v: w"}},
        });
        append_case(&path, &tricky).unwrap();
        append_case(&path, &json!({"name": "second", "tool": "u", "args": {}, "expect": {"status": "null"}})).unwrap();
        let read = read_back(&std::fs::read_to_string(&path).unwrap());
        assert_eq!(read["cases"][0], tricky);
        assert_eq!(read["cases"][1]["name"], "second");
        assert_eq!(read["cases"][1]["args"], json!({}));
    }

    /// Found by the property tests: JSON leaves DEL and U+FFFF raw, which no YAML stream may hold,
    /// so a server answer holding one made a case file that no longer read at all.
    #[test]
    fn characters_yaml_refuses_are_escaped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.yaml");
        let odd = "del \u{7f} c1 \u{85}\u{9f} ls \u{2028} bom \u{feff} nc \u{ffff}";
        let case = json!({"name": odd, "tool": "t", "args": {odd: odd}, "expect": {"status": "value", "value": [odd]}});
        append_case(&path, &case).unwrap();
        assert_eq!(read_back(&std::fs::read_to_string(&path).unwrap())["cases"][0], case);
    }

    /// What `tooldeck test` reads back is what was saved: through the case file loader itself,
    /// `${...}` in a server's answer included (it is not an environment variable there).
    #[test]
    fn saved_cases_run_as_saved() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.yaml");
        let mut outcome = Outcome::new(Status::Value, "c");
        let value = json!({
            "template": "Hello ${TOOLDECK_SURELY_UNSET_VAR}, $${x} $$${y} $ {z} ${",
            "quote": "say \"hi\": 'ok' # not a comment\n\tnext line",
            "unicode": "ünïcödé 漢字 🙂",
            "number": 3.5, "list": [null, true, {"a: b": "c"}], "empty": {},
        });
        outcome.value = Some(value.clone());
        let args = json!({"q": "${HOME} and $${HOME}", "yes": "no", "n": -1e300});
        let case = case_from_outcome("tricky: ${name} \"q\"", "Tool.X@1.0.0", &args, &outcome);
        append_case(&path, &case).unwrap();
        let mut error = Outcome::new(Status::Error, "c");
        error.error = Some(crate::invoke::ToolError { message: "bad ${city}".into(), ..Default::default() });
        append_case(&path, &case_from_outcome("err", "T", &json!({}), &error)).unwrap();
        let mut artifact = Outcome::new(Status::Artifact, "c");
        artifact.value = Some(json!({"url": "x"}));
        append_case(&path, &case_from_outcome("art", "T", &json!({}), &artifact)).unwrap();

        let (cases, problems) = crate::cases::file::load(&path).read_all();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(cases.len(), 3);
        assert_eq!(cases[0].name, "tricky: ${name} \"q\"");
        assert_eq!(cases[0].args, args);
        assert_eq!(cases[0].expect.value.as_ref(), Some(&value));
        assert!(cases[0].expect.check(&outcome, 1).is_empty(), "the recorded outcome passes its own case");
        assert_eq!(cases[1].expect.error_contains.as_deref(), Some("bad ${city}"));
        assert!(cases[1].expect.check(&error, 1).is_empty());
        assert_eq!(cases[2].expect.value, None, "an artifact is expected by its status only");
        assert!(cases[2].expect.check(&artifact, 1).is_empty());
    }

    #[test]
    fn a_file_without_a_cases_list_is_not_touched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.yaml");
        for text in ["endpoint: x\n", "cases:\n  - name: a\nendpoint: x\n", "{\"cases\": []}"] {
            std::fs::write(&path, text).unwrap();
            assert!(append_case(&path, &json!({"name": "n"})).is_err(), "{text}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}
