//! The arguments checked against the tool's schema (compiled once per tool, formats on), with
//! every error moved to the field it belongs to.

use std::collections::{BTreeMap, HashMap, HashSet};

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::Row;
use super::value::Built;
use crate::catalog::schema::escape_pointer;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validation {
    pub arguments: Value,
    /// Messages by the JSON pointer of the field they belong to ("" for the whole form).
    pub errors: BTreeMap<String, Vec<String>>,
    pub error_count: usize,
}

impl Validation {
    pub fn is_valid(&self) -> bool {
        self.error_count == 0
    }
}

/// A compiled validator; a schema the crate cannot compile leaves only the form's own checks.
#[derive(Clone)]
pub struct Checker {
    validator: Option<std::sync::Arc<jsonschema::Validator>>,
    problem: Option<String>,
    /// Not compiled yet (it is being compiled off the UI thread).
    pending: bool,
}

impl std::fmt::Debug for Checker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checker")
            .field("compiled", &self.validator.is_some())
            .field("problem", &self.problem)
            .field("pending", &self.pending)
            .finish()
    }
}

/// Two checkers are the same when they share their compiled validator (or both have none).
impl PartialEq for Checker {
    fn eq(&self, other: &Checker) -> bool {
        let same_validator = match (&self.validator, &other.validator) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_validator && self.problem == other.problem && self.pending == other.pending
    }
}

impl Checker {
    pub fn new(schema: &Value) -> Checker {
        match jsonschema::options().should_validate_formats(true).build(schema) {
            Ok(v) => Checker { validator: Some(std::sync::Arc::new(v)), problem: None, pending: false },
            Err(e) => Checker {
                validator: None,
                problem: Some(format!("the schema cannot be used to check input: {e}")),
                pending: false,
            },
        }
    }

    /// A checker still being compiled: only the form's own checks (parse errors) apply.
    pub fn pending() -> Checker {
        Checker { validator: None, problem: None, pending: true }
    }

    pub fn is_pending(&self) -> bool {
        self.pending
    }

    /// Does the one-time work of the first compile, so a command can have it done while it waits
    /// for a server to start.
    pub fn warm_up() {
        let _ = Checker::new(&serde_json::json!({"type": "object"}));
    }

    /// Validates built arguments; each error lands on the nearest row (or the form as a whole).
    pub fn check(&self, built: Built, rows: &[Row]) -> Validation {
        self.check_picked(built, rows, &HashMap::new())
    }

    /// Like [`Checker::check`], knowing which `oneOf`/`anyOf` option the form shows at each
    /// pointer: "valid under none of the options" becomes what is wrong with that option, each
    /// problem at its own field.
    pub fn check_picked(&self, built: Built, rows: &[Row], picked: &HashMap<String, usize>) -> Validation {
        let known: HashSet<&str> = rows.iter().map(|r| r.pointer.as_str()).collect();
        let mut placer = Placer { known, picked, parsed_badly: HashSet::new(), errors: BTreeMap::new() };
        for (pointer, message) in built.parse_errors {
            placer.parsed_badly.insert(pointer.clone());
            placer.errors.entry(nearest(&pointer, &placer.known)).or_default().push(message);
        }
        if let Some(problem) = &self.problem {
            placer.errors.entry(String::new()).or_default().push(problem.clone());
        }
        if let Some(validator) = &self.validator {
            for error in validator.iter_errors(&built.arguments) {
                placer.place(&error);
            }
        }
        let errors = placer.errors;
        let error_count = errors.values().map(Vec::len).sum();
        Validation { arguments: built.arguments, errors, error_count }
    }
}

impl Checker {
    /// Every problem with a whole arguments value, as (JSON pointer, message), for callers without
    /// a form (`tooldeck call`). A missing required property is reported at its own pointer.
    pub fn check_value(&self, arguments: &Value) -> Vec<(String, String)> {
        let mut problems: Vec<(String, String)> = self.problem.iter().map(|p| (String::new(), p.clone())).collect();
        if let Some(validator) = &self.validator {
            for error in validator.iter_errors(arguments) {
                let pointer = error.instance_path().as_str().to_string();
                problems.push(match error.kind() {
                    ValidationErrorKind::Required { property } => {
                        let name = property.as_str().map_or_else(|| property.to_string(), str::to_string);
                        (format!("{pointer}/{}", escape_pointer(&name)), "required".to_string())
                    }
                    _ => (pointer, said(&error)),
                });
            }
        }
        problems
    }
}

/// An error as the person reads it: jsonschema's words, except where they read oddly
/// (`"x" is not a "email"` becomes `"x" is not a valid email`).
fn said(error: &ValidationError<'_>) -> String {
    match error.kind() {
        ValidationErrorKind::Format { format } => format!("{} is not a valid {format}", error.instance()),
        _ => error.to_string(),
    }
}

struct Placer<'a> {
    known: HashSet<&'a str>,
    picked: &'a HashMap<String, usize>,
    /// Pointers whose parse error already says what is wrong with a number typed badly.
    parsed_badly: HashSet<String>,
    errors: BTreeMap<String, Vec<String>>,
}

impl Placer<'_> {
    fn place(&mut self, error: &ValidationError<'_>) {
        let mut pointer = error.instance_path().as_str().to_string();
        let message = match error.kind() {
            ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
                let option = self.picked.get(&pointer).and_then(|&i| context.get(i));
                if let Some(option_errors) = option.filter(|e| !e.is_empty()) {
                    option_errors.iter().for_each(|e| self.place(e));
                    return;
                }
                error.to_string()
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().map_or_else(|| property.to_string(), str::to_string);
                pointer = format!("{pointer}/{}", escape_pointer(&name));
                "required".to_string()
            }
            _ => said(error),
        };
        if self.parsed_badly.contains(&pointer) {
            return;
        }
        let messages = self.errors.entry(nearest(&pointer, &self.known)).or_default();
        if !messages.contains(&message) {
            messages.push(message);
        }
    }
}

/// The pointer itself when a row has it, else its closest ancestor that does, else the root.
fn nearest(pointer: &str, known: &HashSet<&str>) -> String {
    let mut candidate = pointer;
    loop {
        if known.contains(candidate) || candidate.is_empty() {
            return candidate.to_string();
        }
        candidate = candidate.rfind('/').map_or("", |i| &candidate[..i]);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Checker;

    #[test]
    fn a_format_error_reads_as_english() {
        let checker =
            Checker::new(&json!({"type": "object", "properties": {"to": {"type": "string", "format": "email"}}}));
        let problems = checker.check_value(&json!({"to": "bob"}));
        assert_eq!(problems, [("/to".to_string(), "\"bob\" is not a valid email".to_string())]);
    }
}
