//! What the app records: past calls (read from the history file after the first frame, plus
//! this session's), and calls saved as test cases for `tooldeck test` with `expect` filled from
//! what came back. The case file is asked for once per run of the app; the runtime appends to
//! it.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::result::{Run, RunState};
use super::{Effect, EffectError, Popup, Reply, ServerEffect};
use crate::catalog::Catalog;
use crate::form::TextInput;
use crate::form::validate::Checker;
use crate::history::PastCall;

/// Where cases go unless the user names another file.
pub const DEFAULT_CASE_FILE: &str = "tooldeck-cases.yaml";

/// The history of calls and the test cases saved from them.
/// Its fields are private: read through getters, changed only through its methods.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Past calls, oldest first.
    history: Vec<PastCall>,
    /// The file `S` appends test cases to, once chosen.
    case_file: Option<String>,
    /// A case waiting for its file to be chosen, and its key in `saved_cases`.
    pending_case: Option<Value>,
    pending_key: Option<String>,
    /// Calls saved as cases in this run of the app (the run, the tool, the arguments and the
    /// answers), so `S` twice on the same call does not write it twice.
    saved_cases: HashSet<String>,
    /// The variables the last saved case reads its tokens from.
    tokens_asked: Vec<String>,
    /// Secret headers a case file cannot name (they came from nowhere in the environment).
    headers_left_out: Vec<String>,
    /// Variables a case file names for the secrets of the server's URL or command.
    env_to_set: Vec<String>,
    /// Variables the last saved case names for the secrets of its own arguments and answers
    /// (the file writes them as `${VAR}`, never in clear).
    args_to_set: Vec<String>,
    /// Each saved tool's compiled checker and the schema it was compiled from: compiling is the
    /// slow part of a save, done once per tool (again only when its schema changed).
    checkers: HashMap<String, (Value, Checker)>,
}

impl Recorder {
    /// Past calls, oldest first.
    pub fn history(&self) -> &[PastCall] {
        &self.history
    }

    /// The file `S` appends test cases to, once chosen.
    pub fn case_file(&self) -> Option<&str> {
        self.case_file.as_deref()
    }

    /// What cases saved from now on cannot carry of the server's secrets (said when one is saved).
    pub fn case_secrets(&mut self, secrets: super::CaseSecrets) {
        self.headers_left_out = secrets.headers_left_out;
        self.env_to_set = secrets.env_to_set;
    }

    /// The history file was read: its calls go before this session's.
    pub fn history_read(&mut self, mut entries: Vec<PastCall>) {
        // Calls made before the file was read stay the newest.
        entries.append(&mut self.history);
        self.history = entries;
    }

    /// A call came back.
    pub fn record(&mut self, entry: PastCall) {
        self.history.push(entry);
    }

    /// Past call `n`, newest first.
    pub fn past_call(&self, newest_first: usize) -> Option<&PastCall> {
        self.history.iter().rev().nth(newest_first)
    }

    /// `S` on a result: the call and its outcome as a case.
    pub fn save_run(&mut self, run: Option<&Run>, catalog: &Catalog, roots: &[String]) -> Reply {
        let Some(run) = run else {
            return Reply::status("{key:save_case} saves a call as a test case: run one first ({key:run})");
        };
        let RunState::Done { outcome, .. } = run.state() else {
            return Reply::status("{key:save_case} saves a call that has come back; this one has no outcome");
        };
        let arguments = &run.request().arguments;
        // The case names the tool as its server knows it (the request's id), which the list's
        // id may not be (`name #2` for a second server's).
        let tool = run.request().tool_id.as_str();
        let mut case = crate::cases::record::case_from_outcome(&case_name(tool, arguments), tool, arguments, outcome);
        if !self.arguments_valid(catalog, run.tool_id(), arguments) {
            // It was sent anyway; the case must be too, or `tooldeck test` would refuse it.
            case["validate"] = json!(false);
        }
        replayed_answers(&mut case, run.answers(), roots);
        self.tokens_asked = token_placeholders(&mut case, &run.request().tokens);
        // The same call (this run) with the same answers is saved once; another run of the same
        // arguments is another case.
        self.save(case, format!("run {}", run.id()))
    }

    /// `S` in the history list: a past call as a case expecting the same status (the history
    /// keeps no values). `Err` when it cannot be: the list stays open.
    pub fn save_past_call(&mut self, newest_first: usize, catalog: &Catalog) -> Result<Reply, PastCallError> {
        let Some(entry) = self.past_call(newest_first).cloned() else { return Err(PastCallError::NoCall) };
        let expectable = ["value", "error", "requires_authorization", "artifact", "null"];
        if !expectable.contains(&entry.outcome.as_str()) {
            return Err(PastCallError::NoOutcome(entry.outcome));
        }
        let mut case = json!({
            "name": case_name(&entry.tool, &entry.arguments),
            "tool": entry.tool,
            "args": entry.arguments,
            "expect": {"status": entry.outcome},
        });
        if !self.arguments_valid(catalog, &entry.tool, &entry.arguments) {
            case["validate"] = json!(false);
        }
        self.tokens_asked.clear();
        let identity = format!("call {}", entry.call_id);
        Ok(self.save(case, identity))
    }

    /// True when `arguments` pass `tool`'s schema (a tool no longer listed is not judged).
    fn arguments_valid(&mut self, catalog: &Catalog, tool: &str, arguments: &Value) -> bool {
        let Some(tool) = catalog.get(tool) else { return true };
        let cached = self.checkers.get(&tool.id).filter(|(schema, _)| *schema == tool.input_schema);
        let checker = match cached {
            Some((_, checker)) => checker.clone(),
            None => {
                let checker = Checker::new(&tool.input_schema);
                self.checkers.insert(tool.id.clone(), (tool.input_schema.clone(), checker.clone()));
                checker
            }
        };
        checker.check_value(arguments).is_empty()
    }

    /// Enter in the case-file prompt: that file from now on, and the case waiting for it.
    pub fn file_chosen(&mut self, path: String) -> Reply {
        let path = path.trim().to_string();
        if path.is_empty() {
            self.pending_case = None;
            return Reply::status("no case file given: not saved");
        }
        self.case_file = Some(path.clone());
        match self.pending_case.take() {
            Some(case) => Reply::effect(Effect::Server(ServerEffect::SaveCase { path, case })),
            None => Reply::default(),
        }
    }

    /// The runtime appended the case (or could not).
    pub fn saved(&self, result: Result<String, EffectError>) -> String {
        let saved = result.is_ok();
        let mut said = self.saved_without_notes(result);
        if saved && !self.args_to_set.is_empty() {
            let vars: Vec<String> = self.args_to_set.iter().map(|v| format!("${{{v}}}")).collect();
            said.push_str(&format!(" · its secrets are written as {}: set them before running it", vars.join(", ")));
        }
        if saved && !self.env_to_set.is_empty() {
            let vars: Vec<String> = self.env_to_set.iter().map(|v| format!("${{{v}}}")).collect();
            said.push_str(&format!(
                " · the server's secrets are written as {}: set them before running it",
                vars.join(", ")
            ));
        }
        said
    }

    fn saved_without_notes(&self, result: Result<String, EffectError>) -> String {
        match result {
            Ok(path) if !self.tokens_asked.is_empty() => format!(
                "case saved to {path} · `{} tooldeck test {path}` runs it (the token is read from there, never saved)",
                self.tokens_asked.iter().map(|v| format!("{v}=…")).collect::<Vec<_>>().join(" ")
            ),
            Ok(path) if self.headers_left_out.is_empty() => {
                format!("case saved to {path} · `tooldeck test {path}` runs it")
            }
            Ok(path) => format!(
                "case saved to {path}, without the header{} {} (not from the environment: add it as ${{VAR}})",
                if self.headers_left_out.len() == 1 { "" } else { "s" },
                self.headers_left_out.join(", ")
            ),
            Err(e) => format!("case not saved: {e}"),
        }
    }

    /// Esc in the case-file prompt: the waiting case is not saved (and can be, later).
    pub fn no_file(&mut self) {
        if self.pending_case.take().is_some()
            && let Some(key) = self.pending_key.take()
        {
            self.saved_cases.remove(&key);
        }
    }

    fn save(&mut self, case: Value, identity: String) -> Reply {
        let key = format!("{identity}\n{}", saved_key(&case));
        if !self.saved_cases.insert(key.clone()) {
            return Reply::status("this call, with these answers, is already saved as a case");
        }
        self.pending_key = Some(key);
        // What the case file will write as placeholders, said once it is saved.
        self.args_to_set = crate::redact::placeholders(&case).1;
        match self.case_file.clone() {
            Some(path) => Reply::effect(Effect::Server(ServerEffect::SaveCase { path, case })),
            None => {
                self.pending_case = Some(case);
                Reply::popup(Popup::CaseFile { input: TextInput::prefilled(DEFAULT_CASE_FILE.to_string()) })
            }
        }
    }
}

/// Why a past call cannot be saved as a case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PastCallError {
    /// No call at that place in the history (an empty list): nothing to say.
    #[error("no past call there")]
    NoCall,
    /// The call ended in a way a case cannot expect (cancelled, say).
    #[error("a call that ended as \"{0}\" has no outcome to expect")]
    NoOutcome(String),
}

fn saved_key(case: &Value) -> String {
    format!("{}\n{}\n{}\n{}\n{}", case["tool"], case["args"], case["elicit"], case["sample"], case["roots"])
}

/// The answers given during the call, as a case's `elicit:`, `sample:` and `roots:`, so that
/// `tooldeck test` answers the server as the person did.
fn replayed_answers(case: &mut Value, answers: &[crate::invoke::mcp::asks::AskReply], roots: &[String]) {
    use crate::invoke::mcp::asks::AskReply as Answered;
    for answer in answers {
        let (key, value) = match answer {
            Answered::Accept(Some(content)) => ("elicit", content.clone()),
            Answered::Accept(None) => ("elicit", json!({})),
            Answered::Decline => ("elicit", json!("decline")),
            Answered::Cancel => ("elicit", json!("cancel")),
            Answered::Sampled { text, .. } => ("sample", json!(text)),
            Answered::Rejected(_) => continue,
        };
        // A case holds one answer of each kind: the first one given.
        if case.get(key).is_none() {
            case[key] = value;
        }
    }
    if !roots.is_empty() {
        case["roots"] = json!(roots);
    }
}

/// A token the call carried becomes a `${TOOLDECK_TOKEN_<PROVIDER>}` placeholder in the case
/// file's `tokens:` (the token itself is never written); the variables to set are returned.
fn token_placeholders(case: &mut Value, tokens: &[(String, String)]) -> Vec<String> {
    let mut variables = Vec::new();
    let mut placeholders = serde_json::Map::new();
    for (provider, _) in tokens {
        let name: String =
            provider.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
        let variable = format!("TOOLDECK_TOKEN_{name}");
        placeholders.insert(provider.clone(), json!(format!("${{{variable}}}")));
        variables.push(variable);
    }
    if !placeholders.is_empty() {
        case["tokens"] = Value::Object(placeholders);
    }
    variables
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

    #[test]
    fn a_case_keeps_the_answers_the_roots_and_a_placeholder_for_the_token() {
        use crate::invoke::mcp::asks::AskReply as Answered;
        let mut case = json!({"tool": "t", "args": {}});
        let answers = [
            Answered::Accept(Some(json!({"name": "Ada"}))),
            Answered::Sampled { text: "4".into(), model: "m".into(), stop_reason: None },
        ];
        replayed_answers(&mut case, &answers, &["/tmp/project".to_string()]);
        assert_eq!(case["elicit"], json!({"name": "Ada"}));
        assert_eq!(case["sample"], json!("4"));
        assert_eq!(case["roots"], json!(["/tmp/project"]));
        let variables = token_placeholders(&mut case, &[("google".into(), "s3cret".into())]);
        assert_eq!(variables, ["TOOLDECK_TOKEN_GOOGLE"]);
        assert_eq!(case["tokens"], json!({"google": "${TOOLDECK_TOKEN_GOOGLE}"}));
        assert!(!case.to_string().contains("s3cret"), "the token is never written");
        let mut declined = json!({"tool": "t", "args": {}});
        replayed_answers(&mut declined, &[Answered::Decline], &[]);
        assert_ne!(saved_key(&case), saved_key(&declined), "other answers, another case");
    }

    fn entry(tool: &str) -> PastCall {
        PastCall {
            at: String::new(),
            tool: tool.into(),
            arguments: json!({}),
            endpoint: String::new(),
            outcome: "value".into(),
            duration_ms: 0,
            call_id: String::new(),
            http_status: None,
        }
    }

    #[test]
    fn past_calls_come_before_this_sessions() {
        let mut recorder = Recorder::default();
        recorder.record(entry("now"));
        recorder.history_read(vec![entry("before")]);
        assert_eq!(recorder.past_call(0).map(|e| e.tool.as_str()), Some("now"));
        assert_eq!(recorder.past_call(1).map(|e| e.tool.as_str()), Some("before"));
    }

    #[test]
    fn a_past_call_with_no_outcome_to_expect_is_not_saved_and_says_why() {
        let catalog = Catalog::default();
        let mut recorder = Recorder::default();
        assert_eq!(recorder.save_past_call(0, &catalog), Err(PastCallError::NoCall));
        recorder.record(PastCall { outcome: "cancelled".into(), ..entry("slow") });
        let why = recorder.save_past_call(0, &catalog).expect_err("a cancelled call expects nothing");
        assert_eq!(why, PastCallError::NoOutcome("cancelled".into()));
        assert_eq!(why.to_string(), "a call that ended as \"cancelled\" has no outcome to expect");
        recorder.record(entry("fine"));
        assert!(recorder.save_past_call(0, &catalog).is_ok(), "a call with a value is saved");
    }

    #[test]
    fn a_tools_checker_is_compiled_once_and_again_when_its_schema_changes() {
        let catalog = crate::catalog::load_samples(&crate::catalog::LoadOptions::default()).catalog;
        let tool = catalog.tools().iter().find(|t| !t.input_schema["required"].as_array().is_none_or(Vec::is_empty));
        let tool = tool.expect("a sample tool with a required parameter");
        let mut recorder = Recorder::default();
        assert!(!recorder.arguments_valid(&catalog, &tool.id, &json!({})), "a required parameter is missing");
        let first = recorder.checkers[&tool.id].1.clone();
        recorder.arguments_valid(&catalog, &tool.id, &json!({}));
        assert_eq!(recorder.checkers.len(), 1);
        assert_eq!(recorder.checkers[&tool.id].1, first, "the same compiled checker, not a new one");
        // The tool was listed again with another schema: compiled again.
        recorder.checkers.get_mut(&tool.id).expect("cached").0 = json!({"type": "object"});
        recorder.arguments_valid(&catalog, &tool.id, &json!({}));
        assert_ne!(recorder.checkers[&tool.id].1, first, "a changed schema is compiled again");
        assert!(recorder.arguments_valid(&catalog, "no such tool", &json!(1)), "a tool gone is not judged");
    }
}
