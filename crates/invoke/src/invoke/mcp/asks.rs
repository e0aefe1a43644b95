//! What an MCP server asks the client while a call runs: `elicitation/create`
//! (a form, or a URL to visit), `sampling/createMessage` and `roots/list`. A person answers them
//! in the app (each ask goes down a channel with a oneshot for the reply); `call` and `test`
//! answer at once from their flags or the case ([`Headless`]). Every ask is logged, so a call's
//! outcome can say what was asked and how it was answered.

// rmcp marks sampling and roots deprecated (SEP-2577, 2026-07-28); servers of every earlier
// revision still ask for them, and a tool tester must answer what servers really send.
#![allow(deprecated)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::sync::lock;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, ListRootsResult, Role, RootsCapabilities,
    SamplingMessage, UrlElicitationCapability,
};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

pub use super::negotiate::{ClientSetup, KNOWN_PROTOCOLS};

/// How many asks one call may make before the rest are refused (a server asking in a loop).
pub use super::roots::root;

pub const MAX_ASKS_PER_CALL: usize = 25;
/// How long a person has to answer one ask.
pub const PERSON_WAIT: Duration = Duration::from_secs(600);
/// How much of a sampling request is kept to show (a 10 MB request is cut, and said so).
pub const MAX_SHOWN_BYTES: usize = 64 * 1024;

/// One thing the server asked, as plain data for a screen or a log.
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// `elicitation/create` in form mode: fill `schema` (a flat object of primitives).
    Form { message: String, schema: Value },
    /// `elicitation/create` in URL mode (or a -32042 error): visit `url`, then accept or decline.
    Url { message: String, url: String, elicitation_id: String },
    /// `sampling/createMessage`: write the model's reply. `request` is the params (cut to
    /// [`MAX_SHOWN_BYTES`] when larger, with `cut` saying so).
    Sample { request: Value, cut: bool },
}

impl Ask {
    pub fn method(&self) -> &'static str {
        match self {
            Ask::Form { .. } | Ask::Url { .. } => "elicitation/create",
            Ask::Sample { .. } => "sampling/createMessage",
        }
    }

    /// The ask as JSON: what `expect.elicited` matches and what warnings name.
    pub fn to_json(&self) -> Value {
        match self {
            Ask::Form { message, schema } => json!({"mode": "form", "message": message, "requestedSchema": schema}),
            Ask::Url { message, url, elicitation_id } => {
                json!({"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id})
            }
            Ask::Sample { request, .. } => request.clone(),
        }
    }
}

/// How an ask was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum AskReply {
    /// Elicitation accepted, with the form's content (none for URL mode).
    Accept(Option<Value>),
    Decline,
    Cancel,
    /// A sampling reply: the text, the model that "wrote" it, the stop reason.
    Sampled {
        text: String,
        model: String,
        stop_reason: Option<String>,
    },
    /// A sampling request refused (sent to the server as an error).
    Rejected(String),
}

impl AskReply {
    pub fn describe(&self) -> String {
        match self {
            AskReply::Accept(_) => "accepted".into(),
            AskReply::Decline => "declined".into(),
            AskReply::Cancel => "cancelled".into(),
            AskReply::Sampled { .. } => "answered".into(),
            AskReply::Rejected(why) => format!("rejected ({why})"),
        }
    }
}

/// An ask waiting for a person, and where the reply goes.
#[derive(Debug)]
pub struct PendingAsk {
    pub ask: Ask,
    pub reply: oneshot::Sender<AskReply>,
}

/// Answers given on the command line or in a case: `--elicit-json`, `--elicit decline|cancel`,
/// `--sample-text`. Nothing given declines (and the outcome's warnings say so).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headless {
    pub elicit: Option<ElicitAnswer>,
    pub sample_text: Option<String>,
    /// The roots offered while these answers hold (a case's `roots:`); `None` keeps them.
    pub roots: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElicitAnswer {
    Accept(Value),
    Decline,
    Cancel,
}

impl ElicitAnswer {
    /// `decline`, `cancel` or `accept` (`--elicit`).
    pub fn parse(word: &str) -> Result<ElicitAnswer, UnknownAnswer> {
        match word {
            "decline" => Ok(ElicitAnswer::Decline),
            "cancel" => Ok(ElicitAnswer::Cancel),
            "accept" => Ok(ElicitAnswer::Accept(json!({}))),
            other => Err(UnknownAnswer(other.to_string())),
        }
    }
}

/// An `--elicit` word that is not one of the answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--elicit takes decline, cancel or accept, not {0:?}")]
pub struct UnknownAnswer(String);

impl Headless {
    fn answer(&self, ask: &Ask) -> (AskReply, bool, Option<String>) {
        if let (Ask::Form { schema, .. }, Some(ElicitAnswer::Accept(content))) = (ask, &self.elicit) {
            let answer = crate::form::defaults::elicitation_answer(schema, content);
            return match mismatch(schema, &answer) {
                // Not sent as it is: the server would act on an answer its own form refuses.
                Some(why) => (AskReply::Cancel, true, Some(why)),
                None => (AskReply::Accept(Some(answer)), false, None),
            };
        }
        let (reply, by_default) = self.answer_plainly(ask);
        (reply, by_default, None)
    }

    fn answer_plainly(&self, ask: &Ask) -> (AskReply, bool) {
        match ask {
            Ask::Form { .. } | Ask::Url { .. } => match &self.elicit {
                Some(ElicitAnswer::Accept(_)) => (AskReply::Accept(None), false),
                Some(ElicitAnswer::Decline) => (AskReply::Decline, false),
                Some(ElicitAnswer::Cancel) => (AskReply::Cancel, false),
                None => (AskReply::Decline, true),
            },
            Ask::Sample { .. } => match &self.sample_text {
                Some(text) => (
                    AskReply::Sampled {
                        text: text.clone(),
                        model: "tooldeck".into(),
                        stop_reason: Some("endTurn".into()),
                    },
                    false,
                ),
                None => (AskReply::Rejected("no --sample-text was given".into()), true),
            },
        }
    }
}

/// The start of the note on an elicitation answer (`--elicit-json`, a case's `elicit:`) that
/// does not match the form the server asked for.
pub const MISMATCH: &str = "--elicit-json does not match the form the server asked for";

/// Why `answer` does not fit the requested `schema`, each field named; `None` when it fits.
fn mismatch(schema: &Value, answer: &Value) -> Option<String> {
    let problems = crate::form::validate::Checker::new(schema).check_value(answer);
    if problems.is_empty() {
        return None;
    }
    let said: Vec<String> = problems
        .iter()
        .map(|(pointer, message)| {
            let field = pointer.trim_start_matches('/').replace("~1", "/").replace("~0", "~");
            if field.is_empty() { message.clone() } else { format!("{field}: {message}") }
        })
        .collect();
    Some(format!("{MISMATCH} ({}); it was cancelled, not sent", said.join("; ")))
}

/// One ask and its answer, for the outcome's warnings and `expect.elicited`.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub ask: Ask,
    pub reply: AskReply,
    /// True when nobody answered it (declined by default, refused by the loop guard, timed out).
    pub by_default: bool,
    pub note: Option<String>,
}

impl Asked {
    /// The warning a call's outcome carries for an ask nobody answered.
    pub fn warning(&self) -> Option<String> {
        if !self.by_default {
            return None;
        }
        let what = match &self.ask {
            Ask::Form { message, .. } => format!("the server asked for input ({message:?})"),
            Ask::Url { message, url, .. } => {
                format!("the server asked to visit {} ({:?})", crate::redact::url(url), crate::redact::urls_in(message))
            }
            Ask::Sample { .. } => "the server asked for a sampling reply".to_string(),
        };
        let how = self.note.clone().unwrap_or_else(|| match &self.ask {
            Ask::Sample { .. } => "it was rejected: give --sample-text (or sample: in a case) to answer".into(),
            _ => "it was declined: give --elicit-json (or elicit: in a case) to answer".into(),
        });
        Some(format!("{what}; {how}"))
    }
}

/// Who answers.
#[derive(Debug, Clone)]
enum Answerer {
    Headless(Headless),
    Person(mpsc::UnboundedSender<PendingAsk>),
}

/// The client side's state for what servers ask: who answers, the roots, the log of asks and
/// the loop guard. Cheap to clone (all clones share one state).
#[derive(Clone)]
pub struct Asks {
    inner: Arc<Inner>,
}

struct Inner {
    answerer: Mutex<Answerer>,
    roots: Mutex<Vec<String>>,
    asked: Mutex<Vec<Asked>>,
    /// Asks since the current call began.
    count: AtomicUsize,
}

impl std::fmt::Debug for Asks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asks").field("roots", &*lock(&self.inner.roots)).finish()
    }
}

impl Default for Asks {
    fn default() -> Asks {
        Asks::headless(Headless::default(), Vec::new())
    }
}

impl Asks {
    /// Answers from `answers` at once; `roots` are paths or `file://` URIs.
    pub fn headless(answers: Headless, roots: Vec<String>) -> Asks {
        Asks {
            inner: Arc::new(Inner {
                answerer: Mutex::new(Answerer::Headless(answers)),
                roots: Mutex::new(roots),
                asked: Mutex::new(Vec::new()),
                count: AtomicUsize::new(0),
            }),
        }
    }

    /// From now on asks are answered from `answers` (a test case's own).
    pub fn answer_with(&self, answers: Headless) {
        if let Some(roots) = &answers.roots {
            self.set_roots(roots.clone());
        }
        *lock(&self.inner.answerer) = Answerer::Headless(answers);
    }

    /// From now on each ask goes to a person through `to`.
    pub fn ask_person(&self, to: mpsc::UnboundedSender<PendingAsk>) {
        *lock(&self.inner.answerer) = Answerer::Person(to);
    }

    /// The capabilities tooldeck declares: elicitation (form and URL), sampling, roots with
    /// `listChanged`, and tasks (the `io.modelcontextprotocol/tasks` extension; a 2025-11-25 server
    /// needs no client capability to run a tool as a task).
    pub fn capabilities() -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        let mut extensions = rmcp::model::ExtensionCapabilities::new();
        extensions.insert(rmcp::model::TASKS_EXTENSION_ID.to_string(), Default::default());
        capabilities.extensions = Some(extensions);
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::new());
        elicitation.url = Some(UrlElicitationCapability::new());
        capabilities.elicitation = Some(elicitation);
        capabilities.sampling = Some(Default::default());
        let mut roots = RootsCapabilities::default();
        roots.list_changed = Some(true);
        capabilities.roots = Some(roots);
        capabilities
    }

    /// The roots as given (paths or URIs).
    pub fn roots(&self) -> Vec<String> {
        lock(&self.inner.roots).clone()
    }

    /// Replaces the roots; true when they changed (the caller then tells the server).
    pub fn set_roots(&self, roots: Vec<String>) -> bool {
        let mut held = lock(&self.inner.roots);
        let changed = *held != roots;
        *held = roots;
        changed
    }

    /// A call begins: the loop guard starts again.
    pub fn call_started(&self) {
        self.inner.count.store(0, Ordering::Relaxed);
        lock(&self.inner.asked).clear();
    }

    /// Everything asked since the last `take_asked`.
    pub fn take_asked(&self) -> Vec<Asked> {
        std::mem::take(&mut *lock(&self.inner.asked))
    }

    /// Asks `ask` of whoever answers, within the loop guard and the person's time limit.
    pub async fn ask(&self, ask: Ask) -> AskReply {
        let count = self.inner.count.fetch_add(1, Ordering::Relaxed) + 1;
        let answerer = lock(&self.inner.answerer).clone();
        let (reply, by_default, note) = if count > MAX_ASKS_PER_CALL {
            let note = format!("refused: the server asked more than {MAX_ASKS_PER_CALL} times in one call");
            (refusal(&ask, &note), true, Some(note))
        } else {
            match answerer {
                Answerer::Headless(answers) => answers.answer(&ask),
                Answerer::Person(to) => {
                    let (tx, rx) = oneshot::channel();
                    if to.send(PendingAsk { ask: ask.clone(), reply: tx }).is_err() {
                        let note = "declined: nobody is there to answer".to_string();
                        (refusal(&ask, &note), true, Some(note))
                    } else {
                        match tokio::time::timeout(PERSON_WAIT, rx).await {
                            Ok(Ok(reply)) => (reply, false, None),
                            Ok(Err(_)) => {
                                let note = "declined: the question was closed unanswered".to_string();
                                (refusal(&ask, &note), true, Some(note))
                            }
                            Err(_) => {
                                let note = format!("declined: no answer within {} s", PERSON_WAIT.as_secs());
                                (refusal(&ask, &note), true, Some(note))
                            }
                        }
                    }
                }
            }
        };
        // Past the first refusal, asks are counted, not kept: a flood of large asks must not
        // pile up in memory or in the outcome.
        if count <= MAX_ASKS_PER_CALL + 1 {
            lock(&self.inner.asked).push(Asked { ask, reply: reply.clone(), by_default, note });
        }
        reply
    }

    /// Waits (a second at most) until `arrived` asks of the current call have been taken up:
    /// the call's answer can be read before the tasks that answer the questions sent ahead of
    /// it have run, and the outcome must count them all.
    pub async fn take_up(&self, arrived: usize) {
        for _ in 0..200 {
            if self.inner.count.load(Ordering::Relaxed) >= arrived {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        // The ask that was counted last may still be writing down what it was told.
        tokio::task::yield_now().await;
    }

    /// Asks of the current call refused past the cap and not kept (the first refusal is kept).
    pub fn refused_unkept(&self) -> usize {
        self.inner.count.load(Ordering::Relaxed).saturating_sub(MAX_ASKS_PER_CALL + 1)
    }

    /// The outcome's note for asks refused and not kept, if there were any.
    pub fn unkept_warning(&self) -> Option<String> {
        let unkept = self.refused_unkept();
        (unkept > 0).then(|| {
            format!("{unkept} more asks were refused and not kept (more than {MAX_ASKS_PER_CALL} in one call)")
        })
    }

    /// `elicitation/create`, answered.
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, McpError> {
        let ask = match params {
            ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => {
                let schema = serde_json::to_value(&requested_schema)
                    .map_err(|e| McpError::invalid_params(format!("the requested schema cannot be read: {e}"), None))?;
                if let Some(why) = not_flat(&schema) {
                    return Err(McpError::invalid_params(format!("tooldeck cannot show this form: {why}"), None));
                }
                Ask::Form { message, schema }
            }
            ElicitRequestParams::UrlElicitationParams { message, url, elicitation_id, .. } => {
                Ask::Url { message, url, elicitation_id }
            }
            _ => return Err(McpError::invalid_params("tooldeck does not know this elicitation mode", None)),
        };
        let is_form = matches!(ask, Ask::Form { .. });
        Ok(match self.ask(ask).await {
            AskReply::Accept(content) => {
                let result = ElicitResult::new(ElicitationAction::Accept);
                match content.filter(|_| is_form) {
                    Some(content) => result.with_content(content),
                    None => result,
                }
            }
            AskReply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
            _ => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    /// `sampling/createMessage`, answered with the person's text (or refused).
    pub async fn sample(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, McpError> {
        let mut request = serde_json::to_value(&params).unwrap_or(Value::Null);
        drop(params);
        let cut = serde_json::to_string(&request).map_or(0, |s| s.len()) > MAX_SHOWN_BYTES;
        if cut {
            request = cut_request(request);
        }
        match self.ask(Ask::Sample { request, cut }).await {
            AskReply::Sampled { text, model, stop_reason } => {
                let mut result =
                    CreateMessageResult::new(SamplingMessage::new(Role::Assistant, text_block(text)), model);
                result.stop_reason = stop_reason;
                Ok(result)
            }
            AskReply::Rejected(why) => {
                Err(McpError::invalid_request(format!("the user rejected the request: {why}"), None))
            }
            _ => Err(McpError::invalid_request("the user rejected the request", None)),
        }
    }

    /// A request of a method tooldeck answers (`sampling/createMessage`, `elicitation/create`)
    /// whose parameters it cannot read (`maxTokens` of -1, 1.5 or 1e20...): rmcp hands it over as
    /// an unknown method. It is refused at once with -32602 (invalid params), not -32601 (method
    /// not found), and logged as an ask refused, so the call neither waits for it to be taken up
    /// nor blames the server's resulting tool error on the server. Other methods: -32601.
    pub fn refuse_unreadable(&self, method: &str, params: Option<Value>) -> McpError {
        let params = params.unwrap_or_else(|| json!({}));
        let unreadable = match method {
            "sampling/createMessage" => serde_json::from_value::<CreateMessageRequestParams>(params.clone()).err(),
            "elicitation/create" => serde_json::from_value::<ElicitRequestParams>(params.clone()).err(),
            _ => return McpError::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, method.to_string(), None),
        };
        let why = unreadable.map_or_else(|| "they do not match what MCP defines".to_string(), |e| e.to_string());
        let note = format!("refused: its parameters are invalid ({why})");
        let ask = match method {
            "sampling/createMessage" => {
                let cut = serde_json::to_string(&params).map_or(0, |s| s.len()) > MAX_SHOWN_BYTES;
                Ask::Sample { request: if cut { cut_request(params) } else { params }, cut }
            }
            _ => Ask::Form {
                message: params.get("message").and_then(Value::as_str).unwrap_or_default().to_string(),
                schema: params.get("requestedSchema").cloned().unwrap_or(Value::Null),
            },
        };
        let count = self.inner.count.fetch_add(1, Ordering::Relaxed) + 1;
        if count <= MAX_ASKS_PER_CALL + 1 {
            let reply = refusal(&ask, &note);
            lock(&self.inner.asked).push(Asked { ask, reply, by_default: true, note: Some(note) });
        }
        McpError::invalid_params(format!("tooldeck cannot read this {method} request: {why}"), None)
    }

    /// `roots/list`: each root as a `file://` URI named after its last component.
    pub fn list_roots(&self) -> ListRootsResult {
        ListRootsResult::new(self.roots().iter().map(|r| root(r)).collect())
    }
}

/// One ask and its answer as the outcome carries it (`asked` in `call`'s JSON).
pub fn asked_json(asked: &Asked) -> Value {
    let mut value =
        json!({"method": asked.ask.method(), "request": asked.ask.to_json(), "answer": asked.reply.describe()});
    if asked.by_default {
        value["by_default"] = json!(true);
    }
    if let Some(note) = asked.note.as_deref().filter(|n| n.starts_with(MISMATCH)) {
        value["mismatch"] = json!(note);
    }
    value
}

fn text_block(text: String) -> rmcp::model::SamplingMessageContentBlock {
    rmcp::model::SamplingMessageContentBlock::text(text)
}

/// The refusal for an ask nobody answered: decline an elicitation, reject a sampling request.
fn refusal(ask: &Ask, why: &str) -> AskReply {
    match ask {
        Ask::Sample { .. } => AskReply::Rejected(why.to_string()),
        _ => AskReply::Decline,
    }
}

/// Why `schema` is not a flat object of primitives (what elicitation allows), if it is not.
pub fn not_flat(schema: &Value) -> Option<String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return (schema.get("type").and_then(Value::as_str) != Some("object"))
            .then(|| "the requested schema is not an object".to_string());
    };
    for (name, property) in properties {
        let kind = property.get("type").and_then(Value::as_str).unwrap_or("");
        let items_primitive = property.get("items").is_none_or(|items| {
            items.get("type").and_then(Value::as_str).is_none_or(|t| t == "string")
                || items.get("anyOf").is_some()
                || items.get("enum").is_some()
        });
        if kind == "object" || (kind == "array" && !items_primitive) {
            return Some(format!("property {name:?} is {kind}, and an elicitation form holds only primitives"));
        }
    }
    None
}

/// A sampling request too large to show: each message's text cut to a few KiB.
fn cut_request(mut request: Value) -> Value {
    const KEEP: usize = 4096;
    if let Some(messages) = request.get_mut("messages").and_then(Value::as_array_mut) {
        let total = messages.len();
        messages.truncate(20);
        for message in messages.iter_mut() {
            if let Some(text) = message.pointer_mut("/content/text")
                && let Some(s) = text.as_str()
                && s.len() > KEEP
            {
                let end = s.char_indices().map(|(i, _)| i).take_while(|i| *i <= KEEP).last().unwrap_or(0);
                *text = Value::String(format!("{}… ({} bytes in all)", &s[..end], s.len()));
            }
        }
        if total > 20 {
            messages.push(
                json!({"role": "note", "content": {"type": "text", "text": format!("… {} more messages", total - 20)}}),
            );
        }
    }
    let cut = serde_json::to_string(&request).map_or(0, |s| s.len());
    if cut > MAX_SHOWN_BYTES {
        // Still too large (a huge system prompt, tools...): keep only what is small.
        let keep = |key: &str| request.get(key).filter(|v| v.to_string().len() < KEEP).cloned();
        let mut small = serde_json::Map::new();
        for key in ["maxTokens", "modelPreferences", "temperature", "stopSequences"] {
            if let Some(v) = keep(key) {
                small.insert(key.into(), v);
            }
        }
        small.insert(
            "messages".into(),
            json!([{"role": "note", "content": {"type": "text", "text": "(too large to show)"}}]),
        );
        return Value::Object(small);
    }
    request
}

/// The error data of a -32042 "URL elicitation required" error as asks, one per URL.
pub fn url_elicitations(data: &Value) -> Vec<Ask> {
    data.get("elicitations")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|e| {
                    Some(Ask::Url {
                        message: e.get("message").and_then(Value::as_str).unwrap_or_default().to_string(),
                        url: e.get("url").and_then(Value::as_str)?.to_string(),
                        elicitation_id: e.get("elicitationId").and_then(Value::as_str).unwrap_or_default().to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "asks_tests.rs"]
mod tests;
