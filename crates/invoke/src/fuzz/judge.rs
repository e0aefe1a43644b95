//! One answer judged: is it a finding, and of which kind. Whether the input was valid is the
//! input schema's say, not the generator's intent.

use std::time::Duration;

use serde_json::Value;

use super::Kind;
use super::as_success::{error_as_success, error_text, stack_trace};
use super::message::{normalise, shape};
use super::rules::Field;
use crate::invoke::{InvokeError, Outcome, Status};

/// What a call came to: the server's outcome, or why there was none.
pub type CallResult = Result<Outcome, InvokeError>;

/// How sure a refusal of valid input is the server's fault, not the world's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Evidence {
    /// The protocol's -32602, an internal error or stack trace: a finding as it stands.
    Strong,
    /// An error naming an argument as invalid for a value the schema allows: a finding unless
    /// no input of the tool gets past it.
    Named,
    /// A plain tool error: a finding only when a neighbouring input (one field apart) succeeds
    /// and the tool does not refuse most inputs.
    Weak,
    /// An error that reads as the domain's (not found, not allowed, ENOENT...): no schema can
    /// say "must exist", so never a finding, only part of the tool's note.
    Domain,
}

/// One answer's finding: its kind, what was wrong in words, its cause (the message with
/// numbers, paths and quoted values made alike, for grouping) and, for a refusal, how sure.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub kind: Kind,
    pub message: String,
    pub cause: String,
    pub evidence: Evidence,
}

impl Verdict {
    fn new(kind: Kind, message: String) -> Verdict {
        Verdict { kind, cause: normalise(&message), message, evidence: Evidence::Strong }
    }
}

/// A tool's schemas, compiled once for the whole run.
pub struct Judge {
    input: Option<jsonschema::Validator>,
    output: Option<jsonschema::Validator>,
    slow: Duration,
    /// The input schema's property names (any depth), for an error that names one.
    fields: Vec<String>,
    /// The top-level fields and whether each is required, for a rule an error states.
    top: Vec<Field>,
}

impl Judge {
    /// `None` when the input schema cannot be compiled: such a tool cannot be fuzzed.
    pub fn new(input_schema: &Value, output_schema: Option<&Value>, slow: Duration) -> Option<Judge> {
        let build = |schema: &Value| jsonschema::options().should_validate_formats(true).build(schema).ok();
        let input = build(input_schema)?;
        let mut fields = Vec::new();
        field_names(input_schema, &mut fields, 0);
        let root = super::schema::resolve(input_schema, input_schema);
        let top = super::schema::properties(&root)
            .into_iter()
            .map(|(name, _, required)| Field { name: name.to_string(), required })
            .collect();
        Some(Judge { input: Some(input), output: output_schema.and_then(build), slow, fields, top })
    }

    /// Whether `arguments` meet the input schema.
    pub fn is_valid(&self, arguments: &Value) -> bool {
        self.input.as_ref().is_none_or(|v| v.is_valid(arguments))
    }

    /// The rule of the input schema `arguments` break first: its JSON pointer and keyword.
    pub fn broken_rule(&self, arguments: &Value) -> Option<(String, String)> {
        let error = self.input.as_ref()?.iter_errors(arguments).next()?;
        let at = error.instance_path().as_str().to_string();
        Some((if at.is_empty() { "/".into() } else { at }, error.kind().keyword().to_string()))
    }

    /// The finding `answer` to `arguments` is, if any. Its cause is the message's shape, less
    /// what the input held: a message that repeats a value of the input is one cause whatever
    /// that value is.
    /// (Only what the server said is shaped so: never the server's label, a command line that
    /// may hold any word.)
    pub fn judge(&self, arguments: &Value, valid: bool, answer: &CallResult) -> Option<Verdict> {
        let outcome = match answer {
            Err(InvokeError::Protocol { code: INVALID_PARAMS, message, .. }) if valid => {
                return self
                    .unstated_rule(message, arguments)
                    .or_else(|| judge_error(arguments, valid, answer.as_ref().err()?));
            }
            Ok(outcome) => outcome,
            Err(error) => return judge_error(arguments, valid, error),
        };
        let found = self.judge_outcome(arguments, valid, outcome);
        if found.is_some() {
            return found;
        }
        let took = Duration::from_millis(outcome.duration_ms);
        (took > self.slow).then(|| Verdict::new(Kind::Slow, format!("answered in {} ms", outcome.duration_ms)))
    }

    /// A refusal of valid input for a rule between fields the schema does not express (a note),
    /// unless the refusal is an internal error (a bug whatever it says).
    fn unstated_rule(&self, message: &str, arguments: &Value) -> Option<Verdict> {
        if internal(message) {
            return None;
        }
        let rule = super::rules::unstated(message, arguments, &self.top)?;
        let said = format!(
            "valid input refused for a rule the schema does not express: {}; the schema could say it: {rule}",
            first_line(message)
        );
        let mut verdict = Verdict::new(Kind::UnstatedRule, said);
        verdict.cause = format!("unstated-rule {}", shape(message, arguments));
        Some(verdict)
    }

    fn judge_outcome(&self, arguments: &Value, valid: bool, outcome: &Outcome) -> Option<Verdict> {
        // Warnings about what was asked during the call are not the result's shape.
        if outcome.asked.is_empty()
            && let Some(warning) = outcome.warnings.iter().find(|w| !w.starts_with("output schema:"))
        {
            return Some(Verdict::new(Kind::MalformedResult, warning.clone()));
        }
        match outcome.status {
            Status::RequiresAuthorization => None,
            // The server asked (sampling, elicitation) and the fuzz run's client declined: a
            // tool error then is the server taking no for an answer, not refusing the input.
            Status::Error if valid && !outcome.asked.is_empty() => None,
            Status::Error if valid => {
                let message = outcome.error.as_ref().map_or_else(String::new, |e| e.message.clone());
                if let Some(verdict) = self.unstated_rule(&message, arguments) {
                    return Some(verdict);
                }
                let evidence = self.evidence(&message);
                let said = match evidence {
                    Evidence::Strong if internal(&message) => "refused valid input with an internal error",
                    _ => "refused valid input",
                };
                let mut verdict = Verdict::new(Kind::RefusesValid, format!("{said}: {}", first_line(&message)));
                verdict.cause = format!("{said}: {}", shape(&message, arguments));
                verdict.evidence = evidence;
                Some(verdict)
            }
            Status::Error => None,
            _ if error_text(outcome).is_some() => {
                error_text(outcome).map(|text| error_as_success(text, arguments, valid))
            }
            _ if !valid => {
                let rule = self.broken_rule(arguments);
                let broke = rule
                    .as_ref()
                    .map_or_else(String::new, |(at, keyword)| format!(" (it breaks \"{keyword}\" at {at})"));
                let message =
                    format!("answered input the schema refuses as a success ({}){broke}", outcome.status.name());
                // Grouped by the rule broken, not by where: one cause per kind of check missing.
                let cause = format!("accepts-invalid {}", rule.map_or_else(String::new, |(_, k)| k));
                Some(Verdict { kind: Kind::AcceptsInvalid, message, cause, evidence: Evidence::Strong })
            }
            _ => self.judge_output(outcome),
        }
    }

    /// How sure a tool error on valid input is the server's fault.
    fn evidence(&self, message: &str) -> Evidence {
        let lower = message.to_lowercase();
        if internal(message) {
            return Evidence::Strong;
        }
        if WORLD.iter().any(|w| lower.contains(w)) {
            return Evidence::Domain;
        }
        let names_field = self.fields.iter().any(|f| names(&lower, &f.to_lowercase()));
        if names_field && VALIDATION.iter().any(|w| lower.contains(w)) {
            return Evidence::Named;
        }
        if UNKNOWN.iter().any(|w| lower.contains(w)) {
            return Evidence::Domain;
        }
        Evidence::Weak
    }

    fn judge_output(&self, outcome: &Outcome) -> Option<Verdict> {
        let validator = self.output.as_ref()?;
        if !outcome.content.is_empty() && !outcome.structured {
            return Some(Verdict::new(
                Kind::OutputSchema,
                "the tool declares an output schema, but the result has no structuredContent".into(),
            ));
        }
        let value = outcome.value.as_ref()?;
        let error = validator.iter_errors(value).next()?;
        let at = error.instance_path().as_str().to_string();
        let at = if at.is_empty() { "/".to_string() } else { at };
        let message = format!("the result breaks the output schema at {at}: {error}");
        let cause = format!("output-schema {} {}", normalise(&at), error.kind().keyword());
        Some(Verdict { kind: Kind::OutputSchema, message, cause, evidence: Evidence::Strong })
    }
}

/// Errors that say the world is not as the input supposes (a file, a record, a right missing):
/// correct answers no schema can rule out.
const WORLD: &[&str] = &[
    "not found",
    "no such",
    "does not exist",
    "doesn't exist",
    "not exist",
    "enoent",
    "eisdir",
    "enotdir",
    "eacces",
    "eperm",
    "is a directory",
    // The file system's own limits on a name (255 bytes a component): a schema without
    // `maxLength` cannot promise that a longer name can be a file.
    "enametoolong",
    "file name too long",
    "enotempty",
    "not a directory",
    "not allowed",
    "permission",
    "denied",
    "forbidden",
    "outside",
    "already exists",
    "not a git repository",
    "unauthori",
];

/// Words of a value the domain does not know ("invalid timezone", "unknown colour"): after an
/// input check naming an argument, these read as the domain's answer.
const UNKNOWN: &[&str] = &["invalid ", "unknown ", "unsupported ", "unrecognized ", "unrecognised "];

/// Words of an input check: with an argument's name, the server says the input is wrong.
const VALIDATION: &[&str] = &[
    "must be",
    "must not",
    "should be",
    "out of range",
    "is required",
    "expected",
    "too long",
    "too short",
    "too large",
    "too small",
    "too big",
    "exceeds",
    "at most",
    "at least",
    "greater than",
    "less than",
    "validation error",
    "invalid type",
    "invalid value for",
    "not a valid",
    "cannot be",
];

/// Signs of an internal error: a stack trace or an exception's name.
pub(super) fn internal(message: &str) -> bool {
    const SIGNS: &[&str] = &[
        "Traceback (most recent call last)",
        "panicked at",
        "Internal error",
        "internal error",
        "Internal Server Error",
        "TypeError:",
        "AttributeError",
        "KeyError",
        "IndexError",
        "NullPointerException",
        "Cannot read propert",
        "is not a function",
        "undefined is not",
        "RecursionError",
        "ZeroDivisionError",
        "stack overflow",
    ];
    SIGNS.iter().any(|s| message.contains(s)) || stack_trace(message)
}

/// Whether `text` has `name` as a word of its own (not inside a longer one).
fn names(text: &str, name: &str) -> bool {
    if name.len() < 2 {
        return false;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// Every property name of a schema, to some depth.
fn field_names(schema: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 8 || out.len() > 256 {
        return;
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            out.push(name.clone());
            field_names(property, out, depth + 1);
        }
    }
    if let Some(items) = schema.get("items") {
        field_names(items, out, depth + 1);
    }
}

/// JSON-RPC's "invalid params": the server's own word that the arguments are wrong.
const INVALID_PARAMS: i64 = -32602;
/// MCP's JSON-RPC code for "this request needs a URL elicitation first".
const URL_ELICITATION_REQUIRED: i64 = -32042;

fn judge_error(arguments: &Value, valid: bool, error: &InvokeError) -> Option<Verdict> {
    // What the server said, without the label (which may hold any word of the input): its
    // cause is shaped as the server's words are, the input's values taken out.
    if let InvokeError::Protocol { method, code, message, .. } = error
        && (*code != INVALID_PARAMS || valid)
        && *code != URL_ELICITATION_REQUIRED
    {
        let kind = if *code == INVALID_PARAMS { Kind::RefusesValid } else { Kind::ProtocolError };
        let said = format!("{method} failed with JSON-RPC error {code}: {}", first_line(message));
        let cause = format!("{} {code} {}", kind.name(), shape(message, arguments));
        return Some(Verdict { kind, message: said, cause, evidence: Evidence::Strong });
    }
    let message = error.to_string();
    let kind = match error {
        // Progress kept coming until the limit: the tool works for as long as it is asked to
        // (a duration, a big count), which is no fault; the tool's note counts these.
        InvokeError::Timeout { still_working: true, .. } => return None,
        InvokeError::Timeout { .. } => Kind::Hang,
        InvokeError::Gone { .. } | InvokeError::Transport { .. } | InvokeError::Connect { .. } => {
            return Some(crashed(&message));
        }
        // Not the server's fault (our client, or a token wanted): the engine stops on these.
        InvokeError::Setup { .. } | InvokeError::Unauthorized { .. } | InvokeError::SignIn { .. } => return None,
        InvokeError::Protocol { code: INVALID_PARAMS, .. } if valid => Kind::RefusesValid,
        // The protocol's own "invalid params" for invalid input is the right answer.
        InvokeError::Protocol { code: INVALID_PARAMS, .. } => return None,
        // MCP's "URL elicitation required": the server asks the person to visit a page
        // first, an answer the protocol defines, not a failure of the server.
        InvokeError::Protocol { code: URL_ELICITATION_REQUIRED, .. } => return None,
        InvokeError::Protocol { .. } => Kind::ProtocolError,
        InvokeError::Unreadable(_) => Kind::MalformedResult,
        InvokeError::Broken(_) | InvokeError::NotSent(_) | InvokeError::Http { .. } => Kind::ProtocolError,
    };
    Some(Verdict::new(kind, first_line(&message).to_string()))
}

/// A crash in words with the server's last stderr lines (three at most), or "none": the
/// invoke layer puts them on lines of their own under "its last stderr lines:".
fn crashed(message: &str) -> Verdict {
    const HEADING: &str = "its last stderr lines:";
    let first = first_line(message).trim_end_matches(HEADING).trim_end_matches([';', ' ']);
    let lines: Vec<&str> = message.lines().skip(1).map(str::trim).filter(|l| !l.is_empty()).collect();
    let tail = match lines.len() {
        0 => "none".to_string(),
        n => lines[n.saturating_sub(3)..].join(" | "),
    };
    let mut verdict = Verdict::new(Kind::Crash, format!("{first}; its last stderr lines: {tail}"));
    // The stderr lines vary with the input (a value in a traceback): the cause is the exit.
    verdict.cause = normalise(first);
    verdict
}

pub(super) fn first_line(text: &str) -> &str {
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

    fn value(v: Value) -> CallResult {
        let mut outcome = Outcome::new(Status::Value, "1");
        outcome.value = Some(v);
        Ok(outcome)
    }

    #[test]
    fn each_answer_is_judged_by_the_inputs_validity() {
        let judge = judge();
        assert_eq!(judge.judge(&Value::Null, true, &value(json!({"sum": 1}))), None);
        assert_eq!(
            judge.judge(&Value::Null, true, &value(json!({"sum": "x"}))).map(|f| f.kind),
            Some(Kind::OutputSchema)
        );
        assert_eq!(
            judge.judge(&Value::Null, false, &value(json!({"sum": 1}))).map(|f| f.kind),
            Some(Kind::AcceptsInvalid)
        );
        let refused = Ok(Outcome::new(Status::Error, "1"));
        assert_eq!(judge.judge(&Value::Null, true, &refused).map(|f| f.kind), Some(Kind::RefusesValid));
        assert_eq!(judge.judge(&Value::Null, false, &refused), None);
        let rpc = |code: i64| Err(InvokeError::protocol("s", "tools/call", code, "x", None));
        assert_eq!(judge.judge(&Value::Null, false, &rpc(-32602)), None);
        assert_eq!(judge.judge(&Value::Null, true, &rpc(-32602)).map(|f| f.kind), Some(Kind::RefusesValid));
        assert_eq!(judge.judge(&Value::Null, false, &rpc(-32603)).map(|f| f.kind), Some(Kind::ProtocolError));
        assert_eq!(judge.judge(&Value::Null, true, &rpc(-32042)), None, "a URL elicitation asked for is an answer");
        // The code is the variant's, never read back out of words that look like one.
        let lookalike = Err(InvokeError::Broken("s: tools/call failed with JSON-RPC error -32602: x".into()));
        assert_eq!(judge.judge(&Value::Null, false, &lookalike).map(|f| f.kind), Some(Kind::ProtocolError));
        let unreadable = Err(InvokeError::Unreadable("s: the server's tools/call result could not be read".into()));
        assert_eq!(judge.judge(&Value::Null, true, &unreadable).map(|f| f.kind), Some(Kind::MalformedResult));
        let mut declined = Outcome::new(Status::Error, "1");
        declined.asked = vec![json!({"kind": "sampling", "answer": "declined"})];
        assert_eq!(
            judge.judge(&Value::Null, true, &Ok(declined)),
            None,
            "an error after the client said no to a question"
        );
        let gone = Err(InvokeError::gone("s", "exited"));
        assert_eq!(judge.judge(&Value::Null, false, &gone).map(|f| f.kind), Some(Kind::Crash));
        assert_eq!(
            judge.judge(&Value::Null, true, &Err(InvokeError::timeout("s", "1 s (--timeout)"))).map(|f| f.kind),
            Some(Kind::Hang)
        );
        for (said, error) in [
            ("Error: no entry for x", true),
            ("❌ Database error: near \"x\": syntax error", true),
            ("Error reading file /a: ENOENT", true),
            ("Traceback (most recent call last):\n  File \"a.py\"", true),
            ("ok: 3 rows", false),
            ("The error rate is 3%: fine", false),
            ("Errors found: none", false),
            (r#"{"status": "error", "message": "Request not found"}"#, true),
            (r#"{"success": false, "reason": "x"}"#, true),
            (r#"{"status": "planned", "error": null}"#, false),
        ] {
            let mut success = Outcome::new(Status::Value, "1");
            success.content = vec![crate::invoke::ContentItem::Text(crate::invoke::mcp::content::Text {
                text: said.into(),
                annotations: None,
            })];
            let input = json!({"n": 1});
            let kind = |valid| judge.judge(&input, valid, &Ok(success.clone())).map(|f| f.kind);
            let expected = error.then_some(Kind::ErrorAsSuccess);
            assert_eq!(kind(false).filter(|k| *k != Kind::AcceptsInvalid), expected, "{said}");
            // An internal error answering valid input is a bug, whatever flag it came with.
            let on_valid = if said.starts_with("Traceback") { Kind::RefusesValid } else { Kind::ErrorAsSuccess };
            if error {
                assert_eq!(kind(true), Some(on_valid), "{said}");
            }
        }
        let mut slow = Outcome::new(Status::Value, "1");
        slow.value = Some(json!({"sum": 1}));
        slow.duration_ms = 1500;
        assert_eq!(judge.judge(&Value::Null, true, &Ok(slow)).map(|f| f.kind), Some(Kind::Slow));
    }
}
