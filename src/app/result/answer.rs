//! A call's answer as the result pane takes it: checked against the output schema and its value
//! laid out once, off the UI thread.

use serde_json::Value;

use super::value_view::ValueLines;
use crate::invoke::{Exchange, Outcome};

/// A call's answer, made ready for the screen where it arrives (a large value is formatted and
/// checked there, not on the UI thread).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub(super) outcome: Outcome,
    pub(super) exchange: Exchange,
    /// The value pretty-printed, line by line, with its brackets paired for folding.
    pub(super) value_lines: ValueLines,
    /// When it came back (RFC 3339, set by the runtime), for the history.
    pub(super) at: String,
}

impl Answer {
    pub fn new(mut outcome: Outcome, exchange: Exchange, output_schema: Option<&Value>) -> Answer {
        if let Some(schema) = output_schema {
            crate::invoke::envelope::check_output(&mut outcome, schema);
        }
        let value_lines =
            outcome.value.as_ref().map(|v| ValueLines::new(&crate::form::value::pretty(v))).unwrap_or_default();
        Answer { outcome, exchange, value_lines, at: String::new() }
    }
}
