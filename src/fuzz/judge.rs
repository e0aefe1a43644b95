//! One answer judged: is it a finding, and of which kind. Whether the input was valid is the
//! input schema's say, not the generator's intent.

use std::time::Duration;

use serde_json::Value;

use super::Kind;
use crate::invoke::{InvokeError, Outcome, Status};

/// What a call came to: the server's outcome, or why there was none.
pub type Answer = Result<Outcome, InvokeError>;

/// A tool's schemas, compiled once for the whole run.
pub struct Judge {
    input: Option<jsonschema::Validator>,
    output: Option<jsonschema::Validator>,
    slow: Duration,
}

impl Judge {
    /// `None` when the input schema cannot be compiled: such a tool cannot be fuzzed.
    pub fn new(input_schema: &Value, output_schema: Option<&Value>, slow: Duration) -> Option<Judge> {
        let build = |schema: &Value| jsonschema::options().should_validate_formats(true).build(schema).ok();
        let input = build(input_schema)?;
        Some(Judge { input: Some(input), output: output_schema.and_then(build), slow })
    }

    /// Whether `arguments` meet the input schema.
    pub fn is_valid(&self, arguments: &Value) -> bool {
        self.input.as_ref().is_none_or(|v| v.is_valid(arguments))
    }

    /// The finding `answer` is, if any: its kind and what was wrong, in words.
    pub fn judge(&self, valid: bool, answer: &Answer) -> Option<(Kind, String)> {
        let outcome = match answer {
            Ok(outcome) => outcome,
            Err(error) => return judge_error(valid, error),
        };
        let found = self.judge_outcome(valid, outcome);
        if found.is_some() {
            return found;
        }
        let took = Duration::from_millis(outcome.duration_ms);
        (took > self.slow).then(|| (Kind::Slow, format!("answered in {} ms", outcome.duration_ms)))
    }

    fn judge_outcome(&self, valid: bool, outcome: &Outcome) -> Option<(Kind, String)> {
        // Warnings about what was asked during the call are not the result's shape.
        if outcome.asked.is_empty()
            && let Some(warning) = outcome.warnings.iter().find(|w| !w.starts_with("output schema:"))
        {
            return Some((Kind::MalformedResult, warning.clone()));
        }
        match outcome.status {
            Status::RequiresAuthorization => None,
            // The server asked (sampling, elicitation) and the fuzz run's client declined: a
            // tool error then is the server taking no for an answer, not refusing the input.
            Status::Error if valid && !outcome.asked.is_empty() => None,
            Status::Error if valid => {
                let message = outcome.error.as_ref().map_or_else(String::new, |e| e.message.clone());
                Some((Kind::RefusesValid, format!("refused valid input: {}", first_line(&message))))
            }
            Status::Error => None,
            _ if !valid => Some((
                Kind::AcceptsInvalid,
                format!("answered input the schema refuses as a success ({})", outcome.status.name()),
            )),
            _ => self.judge_output(outcome),
        }
    }

    fn judge_output(&self, outcome: &Outcome) -> Option<(Kind, String)> {
        let validator = self.output.as_ref()?;
        if !outcome.content.is_empty() && !outcome.structured {
            return Some((
                Kind::OutputSchema,
                "the tool declares an output schema, but the result has no structuredContent".into(),
            ));
        }
        let value = outcome.value.as_ref()?;
        let error = validator.iter_errors(value).next()?;
        let at = error.instance_path().as_str().to_string();
        Some((
            Kind::OutputSchema,
            format!("the result breaks the output schema at {}: {error}", if at.is_empty() { "/" } else { &at }),
        ))
    }
}

/// MCP's JSON-RPC code for "this request needs a URL elicitation first".
const URL_ELICITATION_REQUIRED: i64 = -32042;

fn judge_error(valid: bool, error: &InvokeError) -> Option<(Kind, String)> {
    let message = error.to_string();
    let kind = match error {
        InvokeError::Timeout { .. } => Kind::Hang,
        InvokeError::Gone { .. } | InvokeError::Transport { .. } | InvokeError::Connect { .. } => Kind::Crash,
        // Not the server's fault (our client, or a token wanted): the engine stops on these.
        InvokeError::Setup(_) | InvokeError::Unauthorized { .. } | InvokeError::SignIn { .. } => return None,
        InvokeError::Protocol(text) => match json_rpc_code(text) {
            Some(-32602) if valid => Kind::RefusesValid,
            // The protocol's own "invalid params" for invalid input is the right answer.
            Some(-32602) => return None,
            // MCP's "URL elicitation required": the server asks the person to visit a page
            // first, an answer the protocol defines, not a failure of the server.
            Some(URL_ELICITATION_REQUIRED) => return None,
            Some(_) => Kind::ProtocolError,
            None if text.contains("could not be read") || text.contains("is not valid JSON") => Kind::MalformedResult,
            None => Kind::ProtocolError,
        },
    };
    Some((kind, first_line(&message).to_string()))
}

/// The code of a JSON-RPC error as the invoke layer words it ("JSON-RPC error -32603: ...").
fn json_rpc_code(text: &str) -> Option<i64> {
    let rest = &text[text.find("JSON-RPC error ")? + "JSON-RPC error ".len()..];
    let end = rest.find(|c: char| !(c == '-' || c.is_ascii_digit())).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn judge() -> Judge {
        let input = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let output = json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]});
        Judge::new(&input, Some(&output), Duration::from_secs(1)).unwrap()
    }

    fn value(v: Value) -> Answer {
        let mut outcome = Outcome::new(Status::Value, "1");
        outcome.value = Some(v);
        Ok(outcome)
    }

    #[test]
    fn each_answer_is_judged_by_the_inputs_validity() {
        let judge = judge();
        assert_eq!(judge.judge(true, &value(json!({"sum": 1}))), None);
        assert_eq!(judge.judge(true, &value(json!({"sum": "x"}))).map(|f| f.0), Some(Kind::OutputSchema));
        assert_eq!(judge.judge(false, &value(json!({"sum": 1}))).map(|f| f.0), Some(Kind::AcceptsInvalid));
        let refused = Ok(Outcome::new(Status::Error, "1"));
        assert_eq!(judge.judge(true, &refused).map(|f| f.0), Some(Kind::RefusesValid));
        assert_eq!(judge.judge(false, &refused), None);
        let rpc = |code: i64| Err(InvokeError::Protocol(format!("s: tools/call failed with JSON-RPC error {code}: x")));
        assert_eq!(judge.judge(false, &rpc(-32602)), None);
        assert_eq!(judge.judge(true, &rpc(-32602)).map(|f| f.0), Some(Kind::RefusesValid));
        assert_eq!(judge.judge(false, &rpc(-32603)).map(|f| f.0), Some(Kind::ProtocolError));
        assert_eq!(judge.judge(true, &rpc(-32042)), None, "a URL elicitation asked for is an answer");
        let mut declined = Outcome::new(Status::Error, "1");
        declined.asked = vec![json!({"kind": "sampling", "answer": "declined"})];
        assert_eq!(judge.judge(true, &Ok(declined)), None, "an error after the client said no to a question");
        let gone = Err(InvokeError::Gone { url: "s".into(), reason: "exited".into() });
        assert_eq!(judge.judge(false, &gone).map(|f| f.0), Some(Kind::Crash));
        assert_eq!(
            judge
                .judge(true, &Err(InvokeError::Timeout { url: "s".into(), limit: "1 s (--timeout)".into() }))
                .map(|f| f.0),
            Some(Kind::Hang)
        );
        let mut slow = Outcome::new(Status::Value, "1");
        slow.value = Some(json!({"sum": 1}));
        slow.duration_ms = 1500;
        assert_eq!(judge.judge(true, &Ok(slow)).map(|f| f.0), Some(Kind::Slow));
    }
}
