//! The arguments checked against the tool's schema (compiled once per tool, formats on), with
//! every error moved to the field it belongs to.

use std::collections::{BTreeMap, HashSet};

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
}

impl std::fmt::Debug for Checker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checker").field("compiled", &self.validator.is_some()).field("problem", &self.problem).finish()
    }
}

impl Checker {
    pub fn new(schema: &Value) -> Checker {
        match jsonschema::options().should_validate_formats(true).build(schema) {
            Ok(v) => Checker { validator: Some(std::sync::Arc::new(v)), problem: None },
            Err(e) => {
                Checker { validator: None, problem: Some(format!("the schema cannot be used to check input: {e}")) }
            }
        }
    }

    /// Validates built arguments; each error lands on the nearest row (or the form as a whole).
    pub fn check(&self, built: Built, rows: &[Row]) -> Validation {
        let known: HashSet<&str> = rows.iter().map(|r| r.pointer.as_str()).collect();
        let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut parsed_badly = HashSet::new();
        for (pointer, message) in built.parse_errors {
            parsed_badly.insert(pointer.clone());
            errors.entry(nearest(&pointer, &known)).or_default().push(message);
        }
        if let Some(problem) = &self.problem {
            errors.entry(String::new()).or_default().push(problem.clone());
        }
        if let Some(validator) = &self.validator {
            for error in validator.iter_errors(&built.arguments) {
                let mut pointer = error.instance_path().as_str().to_string();
                let message = match error.kind() {
                    ValidationErrorKind::Required { property } => {
                        let name = property.as_str().map_or_else(|| property.to_string(), str::to_string);
                        pointer = format!("{pointer}/{}", escape_pointer(&name));
                        "required".to_string()
                    }
                    _ => error.to_string(),
                };
                // The parse error already says what is wrong with a number typed badly.
                if parsed_badly.contains(&pointer) {
                    continue;
                }
                let messages = errors.entry(nearest(&pointer, &known)).or_default();
                if !messages.contains(&message) {
                    messages.push(message);
                }
            }
        }
        let error_count = errors.values().map(Vec::len).sum();
        Validation { arguments: built.arguments, errors, error_count }
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
