//! Rules between fields that a tool states in its errors and its schema does not: "name is
//! required for create", "min must be at most max", "either url or path is required", "query
//! cannot be used with id". The input met the schema and the tool answered with a clear error,
//! so it is not a bug beside the crashes; it is worth a note with the rule the schema could
//! carry, because a model reading the schema trips on it.

use serde_json::{Value, json};

/// Words of a requirement: the field is wanted.
const REQUIRED: &[&str] = &[
    "required",
    "must be provided",
    "must be specified",
    "must be given",
    "is needed",
    "missing",
    "must provide",
    "must specify",
    "must include",
    "needs",
];
/// Words that make a requirement depend on something else.
const CONDITION: &[&str] = &[" for ", " when ", " if ", " with ", " using ", " unless "];
/// Words of two fields that cannot be given together.
const EXCLUSIVE: &[&str] = &[
    "mutually exclusive",
    "cannot be used with",
    "cannot be used together",
    "can't be used with",
    "cannot both",
    "not both",
    "only one of",
    "cannot be combined",
    "cannot specify both",
    "not allowed with",
    "cannot be provided together",
];
/// Words of two fields that must be in order.
const ORDER: &[&str] = &[
    "less than",
    "greater than",
    "at most",
    "at least",
    "before",
    "after",
    "exceed",
    "smaller than",
    "larger than",
    "earlier than",
    "later than",
    "<=",
    ">=",
    " < ",
    " > ",
];
/// Words of "one or the other".
const EITHER: &[&str] = &["either", "one of", " or "];

/// A top-level field of a tool's input: its name and whether the schema requires it.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub required: bool,
}

/// The rule `message` states between fields of `arguments` that the schema (its `fields`) does
/// not express, as the words and schema to suggest; `None` when the message states no such rule.
pub fn unstated(message: &str, arguments: &Value, fields: &[Field]) -> Option<String> {
    let lower = message.lines().next().unwrap_or_default().to_lowercase();
    let named: Vec<&Field> = fields.iter().filter(|f| spoken(&lower, &f.name)).collect();
    let present = |f: &Field| arguments.get(&f.name).is_some_and(|v| !v.is_null());
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let given: Vec<&&Field> = named.iter().filter(|f| present(f)).collect();
    if given.len() >= 2 && has(EXCLUSIVE) {
        let (a, b) = (&given[0].name, &given[1].name);
        return Some(format!("{a} and {b} cannot be given together: {}", json!({"not": {"required": [a, b]}})));
    }
    if given.len() >= 2 && has(ORDER) {
        let (a, b) = (&given[0].name, &given[1].name);
        return Some(format!(
            "{a} and {b} must be in order: JSON Schema cannot compare two fields, so say it in both descriptions"
        ));
    }
    let wanted: Vec<&&Field> = named.iter().filter(|f| !f.required && !present(f)).collect();
    if !has(REQUIRED) || wanted.is_empty() {
        return None;
    }
    if wanted.len() >= 2 && has(EITHER) {
        let options: Vec<Value> = wanted.iter().map(|f| json!({"required": [f.name]})).collect();
        let names: Vec<&str> = wanted.iter().map(|f| f.name.as_str()).collect();
        return Some(format!("one of {} is required: {}", names.join(", "), json!({"anyOf": options})));
    }
    let field = &wanted[0].name;
    if let Some((selector, value)) = selecting_value(&lower, arguments, fields, field) {
        let rule = json!({
            "if": {"properties": {selector: {"const": value}}, "required": [selector]},
            "then": {"required": [field]}
        });
        return Some(format!("{field} is required when {selector} is {value}: {rule}"));
    }
    if let Some(other) = given.first() {
        let rule = json!({"dependentRequired": {&other.name: [field]}});
        return Some(format!("{field} is required with {}: {rule}", other.name));
    }
    has(CONDITION).then(|| {
        format!(
            "{field} is required in some cases: an \"if\"/\"then\" on the field that decides (or a \"oneOf\" of the cases) can say when"
        )
    })
}

/// The field of the input (other than `wanted`) whose value the message repeats: "name is
/// required for create" with `action: "create"`.
fn selecting_value<'a>(
    lower: &str,
    arguments: &'a Value,
    fields: &'a [Field],
    wanted: &str,
) -> Option<(&'a str, &'a Value)> {
    fields.iter().filter(|f| f.name != wanted).find_map(|f| {
        let value = arguments.get(&f.name)?;
        let text = match value {
            Value::String(s) if !s.trim().is_empty() => s.to_lowercase(),
            Value::Bool(b) => b.to_string(),
            _ => return None,
        };
        spoken(lower, &text).then_some((f.name.as_str(), value))
    })
}

/// Whether `text` (lower case) names `name` as a word of its own, as written or split into words
/// (`endDate` and `end_date` as "end date").
fn spoken(text: &str, name: &str) -> bool {
    let lower = name.to_lowercase();
    if is_word_in(text, &lower) {
        return true;
    }
    let mut split = String::new();
    for (i, c) in name.chars().enumerate() {
        if c == '_' || c == '-' {
            split.push(' ');
        } else {
            if c.is_uppercase() && i > 0 {
                split.push(' ');
            }
            split.extend(c.to_lowercase());
        }
    }
    split != lower && is_word_in(text, &split)
}

fn is_word_in(text: &str, name: &str) -> bool {
    if name.chars().count() < 2 {
        return false;
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(name)
        .any(|(at, _)| !word(text[..at].chars().next_back()) && !word(text[at + name.len()..].chars().next()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(list: &[(&str, bool)]) -> Vec<Field> {
        list.iter().map(|(name, required)| Field { name: name.to_string(), required: *required }).collect()
    }

    #[test]
    fn a_field_required_for_one_action_is_an_if_then() {
        let store = fields(&[("action", true), ("name", false), ("id", false)]);
        let said = unstated("name is required for create", &json!({"action": "create"}), &store).unwrap();
        assert!(said.starts_with("name is required when action is \"create\""), "{said}");
        assert!(said.contains(r#""then":{"required":["name"]}"#), "{said}");
        let camel = fields(&[("action", true), ("taskTitle", false)]);
        let said = unstated("Task title must be provided when action=add", &json!({"action": "add"}), &camel).unwrap();
        assert!(said.starts_with("taskTitle is required when action is \"add\""), "{said}");
    }

    #[test]
    fn cross_field_rules_are_named_with_what_could_say_them() {
        let f =
            fields(&[("min", false), ("max", false), ("url", false), ("path", false), ("query", false), ("id", false)]);
        let order = unstated("min must be at most max", &json!({"min": 5, "max": 1}), &f).unwrap();
        assert!(order.starts_with("min and max must be in order"), "{order}");
        let either = unstated("Either url or path is required", &json!({}), &f).unwrap();
        assert!(either.contains(r#"{"anyOf":[{"required":["url"]},{"required":["path"]}]}"#), "{either}");
        let both = unstated("query cannot be used with id", &json!({"query": "a", "id": "b"}), &f).unwrap();
        assert!(both.contains(r#"{"not":{"required":["query","id"]}}"#), "{both}");
    }

    #[test]
    fn plain_refusals_and_required_fields_state_no_rule() {
        let f = fields(&[("n", true), ("name", false)]);
        assert_eq!(unstated("n must be at most 99", &json!({"n": 100}), &f), None);
        // Required already by the schema: the input was not valid; the schema says it.
        assert_eq!(unstated("n is required", &json!({}), &f), None);
        // An optional field wanted always: the schema is wrong, a bug, not a conditional rule.
        assert_eq!(unstated("name is required", &json!({"n": 1}), &f), None);
        assert_eq!(unstated("cannot do that", &json!({"n": 1}), &f), None);
    }
}
