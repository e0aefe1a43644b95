//! The one seam `--fault` rules and breakpoints go through, whatever the transport: each message
//! is judged ([`Interceptor::judge`]) and the verdict carried out ([`Interceptor::carry_out`])
//! through the transport's [`Deliver`]. Cheap when nothing is set: the wire asks
//! [`Interceptor::armed`] (two relaxed loads) and passes bytes as it always did; only an armed
//! proxy reads each message, and then only its head (`wire::jsonrpc::Head`): the whole message is
//! read only when a verdict needs it (held, or replaced).
//!
//! Nothing judged waits in line: a delayed or held message is taken out of the stream and the
//! messages behind it pass (a delay stalls no other answer; a breakpoint pauses one message,
//! not the session).

pub mod fault;
mod hold;
pub mod over_http;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::oneshot;

pub use fault::{BadRule, FaultAction, FaultRule, Faults};
pub use hold::{Breakpoint, Holds, Release};

use crate::wire::{HttpDetails, Side, TapHandle, jsonrpc};

/// Requests remembered per conversation (to know what an answer answers); the oldest go first.
const REMEMBERED: usize = 4096;

/// What the proxy says of itself on stderr (its warner, shareable).
pub type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// What a judged message comes to.
#[derive(Debug)]
pub enum Verdict {
    /// It passes as it came (and is told to the tap as usual, by the wire).
    Pass,
    /// It passes this much later (told to the tap now).
    Delay(Duration, Bytes),
    /// It is not delivered.
    Drop,
    /// It is not delivered; the sender is answered with this line instead.
    Answer(Bytes),
    /// In its place, this line (not JSON) is delivered; `original` routes it.
    Replace { line: Bytes, original: Value },
    /// Held at a breakpoint until a watcher sends or drops it, or none is left.
    Hold(Held),
}

/// A held message: how it leaves the hold comes through `release`.
#[derive(Debug)]
pub struct Held {
    pub release: oneshot::Receiver<Release>,
    pub from: Side,
    pub message: Value,
    /// The request's id, when it is one (a dropped request is answered).
    request: Option<Value>,
}

/// Where a transport writes what a verdict delivers.
pub trait Deliver: Send + Sync + 'static {
    /// `line` (one message, no newline) on to the end the judged message was going to;
    /// `original` is the message it stands for (an answer routes by its id).
    fn forward(&self, line: Bytes, original: &Value);
    /// `line` back to the end that sent the judged message.
    fn answer(&self, line: Bytes);
}

/// A request seen on one wire: what its answer will be matched by.
struct Asked {
    method: String,
    tool: Option<String>,
    /// A rule that fired on the request and acts on its answer (delay, drop, corrupt).
    answer_rule: Option<FaultRule>,
}

/// One wire's requests in flight (a stdio session; a session behind `--listen`): ids are a
/// conversation's own.
#[derive(Default)]
pub struct Conversation {
    asked: Mutex<InFlight>,
}

/// A request's key: who sent it, its id as JSON text.
type RequestKey = (Side, String);

/// The requests in flight, and the order they came in (the oldest forgotten first).
type InFlight = (HashMap<RequestKey, Asked>, VecDeque<RequestKey>);

impl Conversation {
    fn remember(&self, from: Side, id: &Value, asked: Asked) {
        let mut guard = crate::sync::lock(&self.asked);
        let (map, order) = &mut *guard;
        let key = (from, id.to_string());
        if map.insert(key.clone(), asked).is_none() {
            order.push_back(key);
        }
        while order.len() > REMEMBERED {
            if let Some(old) = order.pop_front() {
                map.remove(&old);
            }
        }
    }

    fn answered(&self, from: Side, id: &Value) -> Option<Asked> {
        let mut guard = crate::sync::lock(&self.asked);
        guard.0.remove(&(from.other(), id.to_string()))
    }
}

/// A message being judged: who sent it, its bytes, the HTTP around it.
#[derive(Clone, Copy)]
struct Seen<'a> {
    from: Side,
    raw: &'a Bytes,
    http: Option<&'a HttpDetails>,
}

impl Seen<'_> {
    /// The whole message, read when a verdict needs it (held, or replaced).
    fn message(&self) -> Value {
        crate::wire::parse_json(self.raw).unwrap_or(Value::Null)
    }
}

/// The faults and breakpoints of one proxy run.
pub struct Interceptor {
    faults: Faults,
    holds: Arc<Holds>,
    tap: TapHandle,
    say: Say,
}

impl Interceptor {
    pub fn new(faults: Faults, holds: Arc<Holds>, tap: TapHandle, say: Say) -> Interceptor {
        Interceptor { faults, holds, tap, say }
    }

    /// True when a message must be judged: a `--fault` rule is set, or a breakpoint.
    pub fn armed(&self) -> bool {
        !self.faults.is_empty() || self.holds.armed()
    }

    /// What becomes of `raw` from `from`. A line that is not one JSON-RPC message (junk, a
    /// batch) passes. Every verdict but `Pass` and `Hold` is told to the tap here.
    pub fn judge(&self, conversation: &Conversation, from: Side, raw: &Bytes, http: Option<&HttpDetails>) -> Verdict {
        // Its head alone: the body (a call's arguments, a result) is not built to be judged.
        let Some(head) = jsonrpc::Head::read(raw) else { return Verdict::Pass };
        let seen = Seen { from, raw, http };
        match (head.method, head.id) {
            (Some(method), Some(id)) => self.request(conversation, seen, &method, head.tool, id),
            (Some(method), None) => {
                if let Some(held) = self.hold(&seen, &method, None, None) {
                    return held;
                }
                let rule = self.faults.fire(&method, None).cloned();
                self.on_its_way(seen, rule, || format!("{method} from the {}", from.name()))
            }
            (None, Some(id)) if head.kind == jsonrpc::Kind::Response => {
                let Some(asked) = conversation.answered(from, &id) else { return Verdict::Pass };
                if let Some(held) = self.hold(&seen, &asked.method, asked.tool.as_deref(), None) {
                    return held;
                }
                let what = || format!("the answer to {} (id {id})", shown(&asked.method, asked.tool.as_deref()));
                self.on_its_way(seen, asked.answer_rule, what)
            }
            _ => Verdict::Pass,
        }
    }

    fn request(
        &self,
        conversation: &Conversation,
        seen: Seen,
        method: &str,
        tool: Option<String>,
        id: Value,
    ) -> Verdict {
        let asked = |answer_rule| Asked { method: method.to_string(), tool: tool.clone(), answer_rule };
        if let Some(held) = self.hold(&seen, method, tool.as_deref(), Some(id.clone())) {
            conversation.remember(seen.from, &id, asked(None));
            return held;
        }
        let Some(rule) = self.faults.fire(method, tool.as_deref()).cloned() else {
            conversation.remember(seen.from, &id, asked(None));
            return Verdict::Pass;
        };
        let FaultAction::Error(code) = rule.action else {
            // Delay, drop and corrupt act on the answer.
            conversation.remember(seen.from, &id, asked(Some(rule)));
            return Verdict::Pass;
        };
        let answer = to_line(&fault::injected_error(&id, code, &rule));
        self.tap.send_injected(seen.from, seen.raw.clone(), seen.http.cloned(), Arc::clone(rule.written()));
        self.tap.send_injected(Side::Proxy, answer.clone(), None, Arc::clone(rule.written()));
        (self.say)(&format!("injected error {code} for {} (id {id})", shown(method, tool.as_deref())));
        Verdict::Answer(answer)
    }

    /// A message on its way (a notification, or an answer) that `rule` may delay, drop or
    /// corrupt; `what` names it on stderr.
    fn on_its_way(&self, seen: Seen, rule: Option<FaultRule>, what: impl FnOnce() -> String) -> Verdict {
        let Some(rule) = rule else { return Verdict::Pass };
        let written = Arc::clone(rule.written());
        let Seen { from, raw, http } = seen;
        let (verdict, said) = match rule.action {
            // A notification gets no answer: an error rule on one (a method not spelt
            // notifications/...) leaves it be.
            FaultAction::Error(_) => return Verdict::Pass,
            FaultAction::Delay(by) => (Verdict::Delay(by, raw.clone()), format!("delay {}", spelt(by))),
            FaultAction::Drop => (Verdict::Drop, "drop".to_string()),
            FaultAction::Corrupt => {
                let line = corrupted(raw);
                self.tap.send_injected(from, raw.clone(), http.cloned(), Arc::clone(&written));
                self.tap.send_injected(Side::Proxy, line.clone(), None, Arc::clone(&written));
                (self.say)(&format!("injected corrupt for {}", what()));
                return Verdict::Replace { line, original: seen.message() };
            }
        };
        self.tap.send_injected(from, raw.clone(), http.cloned(), written);
        (self.say)(&format!("injected {said} for {}", what()));
        verdict
    }

    /// Held when a breakpoint matches `method` (and `tool`: the message's own, or for an
    /// answer its request's); `request` is the id of a request, answered if it is dropped.
    fn hold(&self, seen: &Seen, method: &str, tool: Option<&str>, request: Option<Value>) -> Option<Verdict> {
        if !self.holds.armed() {
            return None;
        }
        let message = seen.message();
        let release = self.holds.hold(seen.from, method, tool, &message, seen.raw)?;
        Some(Verdict::Hold(Held { release, from: seen.from, message, request }))
    }

    /// Carries out `verdict` (not `Pass`: the wire passes those itself) through `deliver`; a
    /// delay and a hold wait on `runtime`, never on the wire.
    pub fn carry_out(&self, verdict: Verdict, deliver: Arc<dyn Deliver>, runtime: &tokio::runtime::Handle) {
        match verdict {
            Verdict::Pass => {}
            Verdict::Drop => {}
            Verdict::Answer(line) => deliver.answer(line),
            Verdict::Replace { line, original } => deliver.forward(line, &original),
            Verdict::Delay(by, line) => {
                runtime.spawn(async move {
                    tokio::time::sleep(by).await;
                    let original = crate::wire::parse_json(&line).unwrap_or(Value::Null);
                    deliver.forward(line, &original);
                });
            }
            Verdict::Hold(held) => {
                let tap = self.tap.clone();
                runtime.spawn(async move { released(held, &tap, deliver.as_ref()).await });
            }
        }
    }
}

/// What a watcher (or the last one leaving) decided for a held message, carried out.
async fn released(held: Held, tap: &TapHandle, deliver: &dyn Deliver) {
    // The proxy ending drops the hold's sender: the message goes on as it was.
    let release = held.release.await.unwrap_or_else(|_| Release::Unattached(to_line(&held.message)));
    match release {
        Release::Sent(line) | Release::Unattached(line) => {
            tap.send(held.from, line.clone(), None);
            deliver.forward(line, &held.message);
        }
        Release::Edited(line) => {
            tap.send_injected(held.from, line.clone(), None, Arc::from(EDITED));
            let original = crate::wire::parse_json(&line).unwrap_or(Value::Null);
            deliver.forward(line, &original);
        }
        Release::Dropped => {
            tap.send_injected(held.from, to_line(&held.message), None, Arc::from(DROPPED));
            if let Some(id) = &held.request {
                let answer = jsonrpc::error_answer(id, jsonrpc::DROPPED_AT_BREAKPOINT, DROPPED_SAID);
                let answer = to_line(&answer);
                tap.send_injected(Side::Proxy, answer.clone(), None, Arc::from(DROPPED));
                deliver.answer(answer);
            }
        }
    }
}

/// What the record's `injected` says of a message a watcher edited, or dropped.
pub const EDITED: &str = "breakpoint: edited";
pub const DROPPED: &str = "breakpoint: dropped";
/// The error a request dropped at a breakpoint is answered with.
pub const DROPPED_SAID: &str = "tooldeck proxy: dropped at a breakpoint";

/// `500ms`, `2s`: a delay as a rule spells it.
fn spelt(by: Duration) -> String {
    match by.as_millis() {
        ms if ms % 1000 == 0 => format!("{}s", ms / 1000),
        ms => format!("{ms}ms"),
    }
}

/// A method as stderr names it: `tools/call echo`.
fn shown(method: &str, tool: Option<&str>) -> String {
    match tool {
        Some(tool) => format!("{method} {}", crate::text::visible(tool)),
        None => method.to_string(),
    }
}

fn to_line(message: &Value) -> Bytes {
    Bytes::from(crate::json_out::to_line(message).unwrap_or_default())
}

/// The message cut in half: what a client gets from a `corrupt` rule (never JSON: an object or
/// array cut inside is left open).
fn corrupted(raw: &Bytes) -> Bytes {
    let half = (raw.len() / 2).max(1).min(raw.len());
    let mut cut = raw.slice(..half).to_vec();
    // Cut inside a UTF-8 character, the line would not even be text.
    while !cut.is_empty() && std::str::from_utf8(&cut).is_err() {
        cut.pop();
    }
    if crate::wire::parse_json(&cut).is_ok() {
        cut.insert(0, b'{');
    }
    Bytes::from(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge_with(rules: &[&str]) -> (Interceptor, Conversation) {
        let rules = rules.iter().map(|r| r.parse().unwrap()).collect();
        let tap = crate::wire::Tap::none();
        let interceptor = Interceptor::new(Faults::new(rules, 1), Arc::default(), tap.handle(), Arc::new(|_| {}));
        (interceptor, Conversation::default())
    }

    fn bytes(value: Value) -> Bytes {
        to_line(&value)
    }

    #[test]
    fn an_error_rule_answers_the_request_and_others_act_on_its_answer() {
        let (judge, talk) = judge_with(&["tools/call@echo:error=-32000", "tools/call@add:corrupt", "ping:drop"]);
        let call = |id: u64, tool: &str| {
            bytes(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}}))
        };
        let Verdict::Answer(answer) = judge.judge(&talk, Side::Client, &call(1, "echo"), None) else { panic!() };
        let answer: Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(answer["error"]["code"], jsonrpc::SERVER_ERROR);
        assert!(answer["error"]["message"].as_str().unwrap().contains("injected"));
        assert!(matches!(judge.judge(&talk, Side::Client, &call(2, "add"), None), Verdict::Pass));
        let reply = bytes(serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
        let Verdict::Replace { line, .. } = judge.judge(&talk, Side::Server, &reply, None) else { panic!() };
        assert!(crate::wire::parse_json(&line).is_err());
        // Answered once: the same id again is not the same call's answer.
        assert!(matches!(judge.judge(&talk, Side::Server, &reply, None), Verdict::Pass));
        let ping = bytes(serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
        assert!(matches!(judge.judge(&talk, Side::Client, &ping, None), Verdict::Pass));
        let pong = bytes(serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
        assert!(matches!(judge.judge(&talk, Side::Server, &pong, None), Verdict::Drop));
        assert!(matches!(judge.judge(&talk, Side::Server, &Bytes::from_static(b"junk"), None), Verdict::Pass));
    }

    #[test]
    fn a_cut_message_is_never_json() {
        for text in ["{}", "[1]", r#"{"a":"é"}"#, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#] {
            let cut = corrupted(&Bytes::from(text));
            assert!(crate::wire::parse_json(&cut).is_err(), "{text}");
            assert!(std::str::from_utf8(&cut).is_ok());
        }
    }
}
