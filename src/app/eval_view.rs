//! An iteration's trajectory as rows a person reads, worked out here (no drawing, no I/O) so the
//! eval pane's scrolling and the screen that draws it agree: why it failed, then the
//! conversation as sent (the prompt, the model's text, each call with its arguments, its
//! verdict and the result the model was given, a refused call and why), then the closing text.
//! Messages are read in either provider's shape (OpenAI's `tool_calls`, Anthropic's `tool_use`
//! blocks). Every string went through the one rule for secrets and `text::visible`.

use serde_json::Value;
use tooldeck_core::call_match::CallVerdict;
use tooldeck_evals::agent::CallMade;
use tooldeck_evals::report::IterationReport;

use crate::text::{visible, wrap_whole};

/// What a row is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Heading,
    /// The system prompt and the case's prompt.
    Prompt,
    /// The model's own text.
    Model,
    /// A call the model made: its tool and arguments.
    Call,
    /// A call judged right.
    Right,
    /// A call judged otherwise, a refused call, a reason the iteration failed.
    Failure,
    /// What the model was given back.
    Result,
    Muted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub kind: RowKind,
    pub text: String,
}

/// Indent of what belongs to a call (its verdict, its result).
const UNDER: &str = "    ";

/// The columns and rows a trajectory has on a screen of `size`: the pane over the others takes
/// all but the status line, less its borders and the two header rows above the trajectory.
pub fn trajectory_area(size: (u16, u16)) -> (usize, usize) {
    let columns = usize::from(size.0.saturating_sub(2));
    let rows = usize::from(size.1.saturating_sub(1 + 2 + 2));
    (columns.max(1), rows.max(1))
}

/// Iteration `it` as rows of at most `columns` cells.
pub fn trajectory(it: &IterationReport, columns: usize) -> Vec<Row> {
    let mut doc = Doc { rows: Vec::new(), columns: columns.max(8) };
    let turns = if it.trajectory.turns == 1 { "1 turn".to_string() } else { format!("{} turns", it.trajectory.turns) };
    let verdict = if it.passed { "passed" } else { "failed" };
    doc.push(RowKind::Heading, "", &format!("iteration {} · {verdict} · {turns}", it.iteration));
    if !it.failures.is_empty() {
        doc.push(RowKind::Heading, "", "why it failed");
        for failure in &it.failures {
            doc.push(RowKind::Failure, "  ✗ ", failure);
        }
    }
    doc.blank();
    doc.push(RowKind::Heading, "", "the conversation");
    let mut shown = 0;
    let mut last_text = None;
    for message in &it.trajectory.messages {
        doc.message(message, it, &mut shown, &mut last_text);
    }
    // Calls the messages did not show (a shape not read here): each still with its verdict.
    for (index, call) in it.trajectory.calls.iter().enumerate().skip(shown) {
        doc.call(index, call, it);
    }
    match &it.trajectory.text {
        Some(text) if last_text.as_deref() != Some(text.as_str()) => doc.push(RowKind::Model, "answer: ", text),
        Some(_) => {}
        None if it.trajectory.error.is_none() => doc.push(RowKind::Muted, "", "(no closing text)"),
        None => {}
    }
    doc.rows
}

struct Doc {
    rows: Vec<Row>,
    columns: usize,
}

impl Doc {
    fn blank(&mut self) {
        self.rows.push(Row { kind: RowKind::Muted, text: String::new() });
    }

    /// `text` (secrets masked, made visible) after `label`, each of its lines wrapped under the
    /// label's indent.
    fn push(&mut self, kind: RowKind, label: &str, text: &str) {
        let masked = crate::redact::text(text);
        let indent = " ".repeat(crate::text::width(label));
        let room = self.columns.saturating_sub(indent.len()).max(4);
        let mut first = true;
        for line in masked.split('\n') {
            let line = visible(line.trim_end_matches('\r'));
            let wrapped = wrap_whole(&line, room);
            for piece in if wrapped.is_empty() { vec![String::new()] } else { wrapped } {
                let lead = if first { label } else { indent.as_str() };
                self.rows.push(Row { kind, text: format!("{lead}{piece}") });
                first = false;
            }
        }
    }

    /// One message of the conversation; its calls shown with what became of them.
    fn message(&mut self, message: &Value, it: &IterationReport, shown: &mut usize, last_text: &mut Option<String>) {
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        let content = message.get("content");
        match role {
            "system" => self.push(RowKind::Prompt, "system: ", &plain_text(content)),
            // OpenAI's tool results: shown under their calls.
            "tool" => {}
            "user" => {
                let text = plain_text(content);
                if !text.is_empty() {
                    self.push(RowKind::Prompt, "prompt: ", &text);
                }
            }
            "assistant" => {
                let text = plain_text(content);
                if !text.is_empty() {
                    self.push(RowKind::Model, "model: ", &text);
                    *last_text = Some(text);
                }
                let openai = message.get("tool_calls").and_then(Value::as_array).map_or(0, Vec::len);
                let anthropic = content
                    .and_then(Value::as_array)
                    .map_or(0, |blocks| blocks.iter().filter(|b| b["type"] == "tool_use").count());
                for _ in 0..openai + anthropic {
                    if let Some(call) = it.trajectory.calls.get(*shown) {
                        self.call(*shown, call, it);
                    }
                    *shown += 1;
                }
            }
            other => self.push(RowKind::Muted, &format!("{}: ", visible(other)), &plain_text(content)),
        }
    }

    /// Call `index`: its tool and arguments, its verdict, and the result the model was given.
    fn call(&mut self, index: usize, call: &CallMade, it: &IterationReport) {
        let arguments = match (&call.arguments, call.not_json) {
            (Value::String(text), true) => format!("{text} (not JSON)"),
            (value, _) => crate::redact::json_body(value).to_string(),
        };
        self.push(RowKind::Call, &format!("  → call {} ", index + 1), &format!("{} {arguments}", call.tool));
        let verdict = it.calls_judged.iter().find(|v| verdict_index(v) == Some(index));
        match verdict {
            Some(verdict) => {
                let kind = if verdict.is_right() { RowKind::Right } else { RowKind::Failure };
                let mark = if verdict.is_right() { "✓ " } else { "✗ " };
                self.push(kind, &format!("{UNDER}{mark}"), &verdict_words(verdict));
            }
            None => self.push(RowKind::Muted, UNDER, "no verdict: calls besides the expected ones are allowed here"),
        }
        if let Some(why) = &call.refused {
            self.push(RowKind::Failure, &format!("{UNDER}⊘ not run: "), why);
        }
        let label = if call.is_error || call.refused.is_some() { "← error: " } else { "← " };
        self.push(RowKind::Result, &format!("{UNDER}{label}"), &call.result);
    }
}

/// The made call a verdict is about.
fn verdict_index(verdict: &CallVerdict) -> Option<usize> {
    match verdict {
        CallVerdict::Right { index, .. }
        | CallVerdict::Wrong { index, .. }
        | CallVerdict::Invalid { index, .. }
        | CallVerdict::Extra { index, .. }
        | CallVerdict::Forbidden { index, .. }
        | CallVerdict::OutOfOrder { index, .. } => Some(*index),
        CallVerdict::Missing { .. } => None,
    }
}

/// A verdict in words, without the call's number (the row above names it).
fn verdict_words(verdict: &CallVerdict) -> String {
    match verdict {
        CallVerdict::Right { tool, .. } => format!("right: the expected call to {tool}"),
        CallVerdict::Wrong { differences, .. } => format!("wrong: {}", differences.join("; ")),
        CallVerdict::Invalid { problems, .. } => format!("invalid (the schema refuses it): {}", problems.join("; ")),
        CallVerdict::Missing { tool } => format!("missing: no call to {tool}"),
        CallVerdict::Extra { .. } => "not expected: no expected call left for it".to_string(),
        CallVerdict::Forbidden { .. } => "a tool the case says is never called".to_string(),
        CallVerdict::OutOfOrder { .. } => "right, but out of the expected order".to_string(),
    }
}

/// A message's text: its content when a string, else its text blocks joined.
fn plain_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tooldeck_evals::agent::Trajectory;

    fn made(tool: &str, arguments: Value, result: &str) -> CallMade {
        CallMade {
            turn: 0,
            tool: tool.into(),
            arguments,
            not_json: false,
            result: result.into(),
            is_error: false,
            refused: None,
        }
    }

    /// OpenAI's shape: the prompt, the call with its verdict and result, the closing text once;
    /// a secret in a result is masked.
    #[test]
    fn an_openai_conversation_reads_call_by_call() {
        let messages = vec![
            json!({"role": "user", "content": "What is 25 C in K?"}),
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "to_kelvin", "arguments": "{\"celsius\": 30}"}}]}),
            json!({"role": "tool", "tool_call_id": "a", "content": "303.15"}),
            json!({"role": "assistant", "content": "303.15 K"}),
        ];
        let it = IterationReport {
            iteration: 2,
            passed: false,
            failures: vec!["call 1 to to_kelvin: wrong: /celsius: expected 25, got 30".into()],
            calls_judged: vec![CallVerdict::Wrong {
                tool: "to_kelvin".into(),
                index: 0,
                differences: vec!["/celsius: expected 25, got 30".into()],
            }],
            trajectory: Trajectory {
                messages,
                calls: vec![made("to_kelvin", json!({"celsius": 30}), "303.15 Bearer abcdefghijklmnopqrstuvwxyz0123")],
                text: Some("303.15 K".into()),
                turns: 2,
                ..Trajectory::default()
            },
        };
        let rows: Vec<String> = trajectory(&it, 100).into_iter().map(|r| r.text).collect();
        assert_eq!(
            rows,
            [
                "iteration 2 · failed · 2 turns",
                "why it failed",
                "  ✗ call 1 to to_kelvin: wrong: /celsius: expected 25, got 30",
                "",
                "the conversation",
                "prompt: What is 25 C in K?",
                "  → call 1 to_kelvin {\"celsius\":30}",
                "    ✗ wrong: /celsius: expected 25, got 30",
                "    ← 303.15 Bearer ••••",
                "model: 303.15 K",
            ]
        );
    }

    /// Anthropic's shape: a refused destructive call says why it did not run; long text wraps
    /// under its label.
    #[test]
    fn an_anthropic_conversation_shows_a_refused_call_and_wraps() {
        let messages = vec![
            json!({"role": "user", "content": "Delete everything please, all of it, right now"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Sure."}, {"type": "tool_use", "id": "b", "name": "delete_all", "input": {}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b", "content": "refused"}]}),
        ];
        let mut call = made("delete_all", json!({}), "refused: tooldeck does not run this tool in evals");
        call.refused = Some("marked destructive".into());
        let it = IterationReport {
            iteration: 1,
            passed: false,
            failures: vec!["call 1 to delete_all: a tool the case says is never called".into()],
            calls_judged: vec![CallVerdict::Forbidden { tool: "delete_all".into(), index: 0 }],
            trajectory: Trajectory { messages, calls: vec![call], turns: 1, ..Trajectory::default() },
        };
        let rows = trajectory(&it, 30);
        assert!(rows.iter().all(|r| crate::text::width(&r.text) <= 30), "{rows:#?}");
        let text: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
        assert!(text.contains(&"prompt: Delete everything"), "{text:#?}");
        assert!(text.contains(&"        please, all of it,"), "{text:#?}");
        assert!(text.contains(&"    ⊘ not run: marked"), "{text:#?}");
        assert!(rows.iter().any(|r| r.kind == RowKind::Failure && r.text.contains("never called")), "{rows:#?}");
    }
}
