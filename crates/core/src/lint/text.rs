//! Reading descriptions the way the rules need: words, a name's own words, whether the text says
//! what happens when a value is left out, and a "default: X" written into it.

use serde_json::{Map, Value};

/// The words of a text, lower-cased (letters and digits; everything else separates).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// The words a name is made of: `maxResults`, `max_results` and `max-results` are "max", "results".
pub fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            previous_lower = false;
            if !word.is_empty() {
                out.push(std::mem::take(&mut word).to_lowercase());
            }
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word).to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word.to_lowercase());
    }
    out
}

/// Words that carry no information about a value on their own.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "for",
    "to",
    "in",
    "on",
    "by",
    "and",
    "or",
    "is",
    "be",
    "this",
    "that",
    "it",
    "its",
    "with",
    "value",
    "parameter",
    "param",
    "field",
    "argument",
    "input",
    "optional",
    "required",
    "id",
    "name",
    "string",
];

/// The description's words that neither repeat the name nor are filler.
pub fn informative_words(description: &str, name: &str) -> usize {
    let own = name_words(name);
    words(description).iter().filter(|w| !FILLER.contains(&w.as_str()) && !own.contains(w)).count()
}

/// Phrases that say what happens when an optional value is left out. Matched on lower-cased
/// text, as substrings, so "defaults", "omitted", "unspecified" are covered.
const ABSENCE: &[&str] = &[
    "default",
    "omit",
    "absent",
    "not provided",
    "not specified",
    "unspecified",
    "not given",
    "not set",
    "not supplied",
    "not passed",
    "not included",
    "unset",
    "if not",
    "when not",
    "if no ",
    "if none",
    "if empty",
    "when empty",
    "leave empty",
    "leave blank",
    "left empty",
    "left blank",
    "left out",
    "unless",
    "otherwise",
    "falls back",
    "fall back",
    "fallback",
    "automatically",
    "inferred",
    "if missing",
    "when missing",
    "if left",
    "null",
    // Conditional parameters say when they matter, which is what a model needs.
    "required for",
    "required when",
    "required if",
    "only used",
    "used only",
    "only for",
    "only when",
    "ignored",
];

pub fn says_what_absence_means(description: &str) -> bool {
    let lower = description.to_lowercase();
    ABSENCE.iter().any(|phrase| lower.contains(phrase))
}

/// A schema's own text: its description, else its title (either non-blank).
pub fn own_text(schema: &Map<String, Value>) -> Option<&str> {
    ["description", "title"]
        .iter()
        .find_map(|k| schema.get(*k).and_then(Value::as_str).filter(|s| !s.trim().is_empty()))
}

/// The text of a schema or, failing that, of its `anyOf`/`oneOf` branches (generators often put
/// a nullable property's description on the non-null branch).
pub fn text_of(schema: &Map<String, Value>) -> Option<&str> {
    own_text(schema).or_else(|| {
        ["anyOf", "oneOf", "allOf"]
            .iter()
            .filter_map(|k| schema.get(*k).and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_object)
            .find_map(own_text)
    })
}

/// Whether `needle` occurs in `text` as a whole token (not inside a longer word or number).
pub fn mentions(text: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(found) = text[from..].find(needle) {
        let start = from + found;
        let end = start + needle.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return true;
        }
        from = start + needle.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// A default stated in a description ("(default: 20)", "Defaults to 'json'.", "default is
/// false"), as written. Only values that read as literals count: a quoted or back-ticked text, a
/// number, true/false/null, or a word after "default:" that `accepts` (one of the enum's
/// members); "defaults to the current user" states no literal and is left alone.
pub fn stated_default(description: &str, accepts: &dyn Fn(&str) -> bool) -> Option<String> {
    let lower = description.to_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find("default") {
        let start = from + found;
        from = start + "default".len();
        // "default" inside a longer word ("defaultValue") is a name, not the phrase.
        if lower[..start].chars().next_back().is_some_and(char::is_alphanumeric) {
            continue;
        }
        let mut rest = &description[from..];
        for lead in ["s to", "s", " value is", " value", " is", " to", " of"] {
            if rest.get(..lead.len()).is_some_and(|r| r.eq_ignore_ascii_case(lead)) {
                rest = &rest[lead.len()..];
                break;
            }
        }
        let rest = rest.trim_start();
        let rest = [":", "=", "→"].iter().find_map(|sep| rest.strip_prefix(sep)).unwrap_or(rest).trim_start();
        if let Some(value) = literal(rest, accepts) {
            return Some(value);
        }
    }
    None
}

fn literal(text: &str, accepts: &dyn Fn(&str) -> bool) -> Option<String> {
    let first = text.chars().next()?;
    if let Some(close) = match first {
        '"' => Some('"'),
        '\'' => Some('\''),
        '`' => Some('`'),
        '“' => Some('”'),
        '‘' => Some('’'),
        _ => None,
    } {
        let inner = &text[first.len_utf8()..];
        let end = inner.find(close)?;
        return Some(format!("\"{}\"", &inner[..end]));
    }
    let token: String =
        text.chars().take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ';' | ')' | ']' | '}')).collect();
    let token = token.trim_end_matches(['.', ':']);
    if token.is_empty() {
        return None;
    }
    let lower = token.to_lowercase();
    if matches!(lower.as_str(), "true" | "false" | "null") || token.parse::<f64>().is_ok() {
        return Some(lower);
    }
    accepts(token).then(|| token.to_string())
}

/// Whether a default written in a description (as [`stated_default`] gives it) is the value
/// `default` holds: numbers by value, text without quotes and case.
pub fn same_default(stated: &str, default: &Value) -> bool {
    let stated_text = stated.trim_matches('"');
    match default {
        Value::Number(n) => stated.parse::<f64>().ok().zip(n.as_f64()).is_some_and(|(a, b)| a == b),
        Value::Bool(b) => stated.eq_ignore_ascii_case(if *b { "true" } else { "false" }),
        Value::Null => stated == "null",
        Value::String(s) => s.eq_ignore_ascii_case(stated_text) || s.trim() == stated_text.trim(),
        other => serde_json::from_str::<Value>(stated).is_ok_and(|v| &v == other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn name_words_split_case_and_separators() {
        assert_eq!(name_words("maxResults"), ["max", "results"]);
        assert_eq!(name_words("max_results"), ["max", "results"]);
        assert_eq!(name_words("HTTPPort"), ["httpport"]);
        assert_eq!(name_words("page2Size"), ["page2", "size"]);
    }

    #[test]
    fn informative() {
        assert_eq!(informative_words("Max results", "maxResults"), 0);
        assert_eq!(informative_words("Search query", "query"), 1);
        assert_eq!(informative_words("The owner of the repository", "owner"), 1);
    }

    #[test]
    fn stated_defaults() {
        let none = |_: &str| false;
        assert_eq!(stated_default("Maximum number of results (default: 20)", &none).as_deref(), Some("20"));
        assert_eq!(stated_default("Sort order. Defaults to 'desc'.", &none).as_deref(), Some("\"desc\""));
        assert_eq!(stated_default("Include archived; default is false", &none).as_deref(), Some("false"));
        assert_eq!(stated_default("Defaults to the current user", &none), None);
        assert_eq!(stated_default("The default branch name", &none), None);
        assert_eq!(stated_default("Uses defaultValue when set", &none), None);
        let json = |t: &str| t == "json";
        assert_eq!(stated_default("Output format (default: json)", &json).as_deref(), Some("json"));
        assert_eq!(stated_default("Output format (default: current)", &json), None);
        assert_eq!(stated_default("Page size, default 30", &none).as_deref(), Some("30"));
    }

    #[test]
    fn same_defaults() {
        assert!(same_default("20", &json!(20)));
        assert!(same_default("20", &json!(20.0)));
        assert!(same_default("\"desc\"", &json!("desc")));
        assert!(same_default("JSON", &json!("json")));
        assert!(!same_default("30", &json!(20)));
        assert!(!same_default("true", &json!(false)));
    }

    #[test]
    fn mentions_whole_tokens() {
        assert!(mentions("1 = low, 2 = high", "1"));
        assert!(!mentions("10 = low", "1"));
        assert!(mentions("use 'D' for daily", "D"));
        assert!(!mentions("Daily", "D"));
    }

    #[test]
    fn absence() {
        assert!(says_what_absence_means("Page size (defaults to 30)"));
        assert!(says_what_absence_means("If omitted, all repositories"));
        assert!(!says_what_absence_means("The repository owner"));
    }
}
