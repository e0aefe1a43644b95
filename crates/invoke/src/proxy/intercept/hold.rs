//! Breakpoints, the proxy's side: set and cleared by the watchers of the live feed (`tooldeck
//! attach`), shared by all of them; a message matching one is held until a watcher sends it (as
//! it was, or edited) or drops it, or until no watcher is left. docs/proxy.md has the lines.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::proxy::live::{Controller, LiveHub};
use crate::wire::{Frame, Side};

/// A breakpoint: every later message with this method (and, for `tools/call`, this tool) from
/// this side is held. An answer is matched by the method of the request it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakpoint {
    pub method: String,
    pub tool: Option<String>,
    pub from: Side,
}

impl Breakpoint {
    fn matches(&self, from: Side, method: &str, tool: Option<&str>) -> bool {
        self.from == from && self.method == method && self.tool.as_deref().is_none_or(|t| tool == Some(t))
    }

    fn read(line: &Value) -> Option<Breakpoint> {
        let from = match line.get("from")?.as_str()? {
            "client" => Side::Client,
            "server" => Side::Server,
            _ => return None,
        };
        let method = line.get("method")?.as_str()?.to_string();
        let tool = line.get("tool").and_then(Value::as_str).map(str::to_string);
        Some(Breakpoint { method, tool, from })
    }

    fn shown(&self) -> Value {
        json!({"method": self.method, "tool": self.tool, "from": self.from.name()})
    }
}

/// How a held message left the hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Release {
    /// Sent as it was.
    Sent(Bytes),
    /// Sent as a watcher edited it.
    Edited(Bytes),
    /// Dropped by a watcher: a request is answered with an error, anything else is not delivered.
    Dropped,
    /// No watcher is left: sent as it was.
    Unattached(Bytes),
}

impl Release {
    fn said(&self) -> &'static str {
        match self {
            Release::Sent(_) => "sent",
            Release::Edited(_) => "edited",
            Release::Dropped => "dropped",
            Release::Unattached(_) => "unattached",
        }
    }
}

struct Held {
    /// Its feed line (`held`: its id), said again to a watcher who comes while it is held.
    line: Value,
    raw: Bytes,
    message: Value,
    /// The message as the watchers saw it (secrets masked), to tell an edit from a masked value.
    masked: Value,
    release: oneshot::Sender<Release>,
}

#[derive(Default)]
struct State {
    breakpoints: Vec<Breakpoint>,
    held: BTreeMap<u64, Held>,
    next: u64,
}

/// The breakpoints of a proxy run and the messages they hold.
///
/// Locks, always in this order: `speaking` (so that what is said to the watchers comes in the
/// order it happened), then `state`, let go before anything is said (the feed takes its own
/// lock, and asks [`Controller::greeting`] under it).
#[derive(Default)]
pub struct Holds {
    /// True while any breakpoint is set: the one thing the wire looks at per message.
    armed: AtomicBool,
    speaking: Mutex<()>,
    state: Mutex<State>,
    hub: OnceLock<LiveHub>,
}

impl Holds {
    /// The live feed whose watchers set the breakpoints and hear of what is held.
    pub fn attach(&self, hub: LiveHub) {
        let _ = self.hub.set(hub);
    }

    /// True while any breakpoint is set.
    pub fn armed(&self) -> bool {
        self.armed.load(Ordering::Relaxed)
    }

    /// Holds `message` (`raw` as it came, from `from`) when a breakpoint matches it (`method`,
    /// `tool`: its own, or for an answer its request's) and someone watches: the receiver
    /// hears how it leaves the hold. `None`: it passes.
    pub fn hold(
        &self,
        from: Side,
        method: &str,
        tool: Option<&str>,
        message: &Value,
        raw: &Bytes,
    ) -> Option<oneshot::Receiver<Release>> {
        if !self.armed() {
            return None;
        }
        let hub = self.hub.get()?;
        let _speaking = crate::sync::lock(&self.speaking);
        if hub.watchers() == 0 {
            return None;
        }
        let (line, receiver) = {
            let mut state = crate::sync::lock(&self.state);
            if !state.breakpoints.iter().any(|b| b.matches(from, method, tool)) {
                return None;
            }
            let id = state.next;
            state.next += 1;
            let frame = Frame::new(from, SystemTime::now(), raw.clone(), None);
            let mut line = crate::wire::record_line(&frame);
            line.held = Some(id);
            let masked = line.message.as_deref().cloned().unwrap_or(Value::Null);
            let line = serde_json::to_value(&line).unwrap_or(Value::Null);
            let (release, receiver) = oneshot::channel();
            let held = Held { line: line.clone(), raw: raw.clone(), message: message.clone(), masked, release };
            state.held.insert(id, held);
            (line, receiver)
        };
        hub.say(&line);
        Some(receiver)
    }

    /// A watcher's line carried out (under `state`), what it makes the proxy say to every
    /// watcher gathered in `said`; the answer to that watcher alone.
    fn obey(&self, line: &[u8], said: &mut Vec<Value>) -> Option<Value> {
        let Ok(line) = serde_json::from_slice::<Value>(line) else {
            return Some(error(
                "not a JSON line: {\"break\": ...}, {\"clear\": \"breakpoints\"}, {\"send\": ID} or {\"drop\": ID}"
                    .into(),
            ));
        };
        let mut state = crate::sync::lock(&self.state);
        if let Some(wanted) = line.get("break") {
            let Some(breakpoint) = Breakpoint::read(wanted) else {
                return Some(error(
                    "a break is {\"method\": M, \"tool\": T or null, \"from\": \"client\" or \"server\"}".into(),
                ));
            };
            if !state.breakpoints.contains(&breakpoint) {
                state.breakpoints.push(breakpoint);
            }
            self.armed.store(true, Ordering::Relaxed);
            said.push(breakpoints_line(&state));
            return None;
        }
        if line.get("clear").and_then(Value::as_str) == Some("breakpoints") {
            state.breakpoints.clear();
            self.armed.store(false, Ordering::Relaxed);
            said.push(breakpoints_line(&state));
            return None;
        }
        if let Some(id) = line.get("send").and_then(Value::as_u64) {
            let edited = line.get("message").cloned();
            return Holds::release(&mut state, id, said, |held| match edited {
                None => Ok(Release::Sent(held.raw.clone())),
                Some(edited) => {
                    let unmasked = unmask(edited, &held.masked, &held.message);
                    let line = crate::json_out::to_line(&unmasked)?;
                    Ok(Release::Edited(Bytes::from(line)))
                }
            });
        }
        if let Some(id) = line.get("drop").and_then(Value::as_u64) {
            return Holds::release(&mut state, id, said, |_| Ok(Release::Dropped));
        }
        Some(error(
            "unknown line: {\"break\": ...}, {\"clear\": \"breakpoints\"}, {\"send\": ID} or {\"drop\": ID}".into(),
        ))
    }

    fn release(
        state: &mut State,
        id: u64,
        said: &mut Vec<Value>,
        how: impl FnOnce(&Held) -> serde_json::Result<Release>,
    ) -> Option<Value> {
        let Some(held) = state.held.get(&id) else {
            return Some(error(format!("no message is held as {id}")));
        };
        let release = match how(held) {
            Ok(release) => release,
            Err(why) => return Some(error(format!("the edited message cannot be written: {why}"))),
        };
        let held = state.held.remove(&id)?;
        said.push(json!({"released": id, "as": release.said()}));
        // A hold whose waiter is gone (the proxy ending) has nothing to release.
        let _ = held.release.send(release);
        None
    }
}

fn error(why: String) -> Value {
    json!({"error": why})
}

fn breakpoints_line(state: &State) -> Value {
    json!({"breakpoints": state.breakpoints.iter().map(Breakpoint::shown).collect::<Vec<_>>()})
}

impl Controller for Holds {
    fn control(&self, line: &[u8]) -> Option<Value> {
        let _speaking = crate::sync::lock(&self.speaking);
        let mut said = Vec::new();
        let answer = self.obey(line, &mut said);
        if let Some(hub) = self.hub.get() {
            for line in &said {
                hub.say(line);
            }
        }
        answer
    }

    fn greeting(&self) -> Vec<Value> {
        let state = crate::sync::lock(&self.state);
        std::iter::once(breakpoints_line(&state)).chain(state.held.values().map(|held| held.line.clone())).collect()
    }

    fn unwatched(&self) {
        let mut state = crate::sync::lock(&self.state);
        state.breakpoints.clear();
        self.armed.store(false, Ordering::Relaxed);
        for (_, held) in std::mem::take(&mut state.held) {
            let _ = held.release.send(Release::Unattached(held.raw));
        }
    }
}

/// `edited` with every string still spelt as the watcher saw it masked (at the same place in
/// `masked`) given back its original value from `original`: the watcher never saw the secret,
/// so it cannot have meant to send the mask.
fn unmask(edited: Value, masked: &Value, original: &Value) -> Value {
    match edited {
        Value::String(text) => match (masked, original) {
            (Value::String(seen), Value::String(_)) if *seen == text => original.clone(),
            (Value::String(seen), _) if *seen == text && seen.contains(crate::redact::MASK) => original.clone(),
            _ => Value::String(text),
        },
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(key, value)| {
                    let value = match (masked.get(&key), original.get(&key)) {
                        (Some(masked), Some(original)) => unmask(value, masked, original),
                        _ => value,
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(at, value)| match (masked.get(at), original.get(at)) {
                    (Some(masked), Some(original)) => unmask(value, masked, original),
                    _ => value,
                })
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_keeps_the_secrets_it_only_saw_masked() {
        let original = json!({"params": {"arguments": {"api_key": "s3cret", "n": 1, "list": ["a", "b"]}}});
        let masked = crate::redact::json_message(&original).unwrap_or_else(|| original.clone());
        assert_eq!(masked["params"]["arguments"]["api_key"], crate::redact::MASK);
        let mut edited = masked.clone();
        edited["params"]["arguments"]["n"] = json!(2);
        edited["params"]["arguments"]["list"][1] = json!("c");
        let sent = unmask(edited, &masked, &original);
        assert_eq!(sent, json!({"params": {"arguments": {"api_key": "s3cret", "n": 2, "list": ["a", "c"]}}}));
        let mut retyped = masked.clone();
        retyped["params"]["arguments"]["api_key"] = json!("new-key");
        assert_eq!(unmask(retyped, &masked, &original)["params"]["arguments"]["api_key"], "new-key");
    }

    #[test]
    fn watcher_lines_set_clear_and_refuse() {
        let holds = Holds::default();
        assert!(
            holds
                .control(b"{\"break\": {\"method\": \"tools/call\", \"tool\": \"echo\", \"from\": \"client\"}}")
                .is_none()
        );
        assert!(holds.armed());
        assert_eq!(
            holds.greeting()[0]["breakpoints"][0],
            json!({"method": "tools/call", "tool": "echo", "from": "client"})
        );
        assert!(holds.control(b"not json").unwrap()["error"].as_str().unwrap().contains("not a JSON line"));
        assert!(
            holds.control(b"{\"send\": 9}").unwrap()["error"].as_str().unwrap().contains("no message is held as 9")
        );
        assert!(holds.control(b"{\"break\": {\"method\": \"x\"}}").is_some());
        // No watcher attached (no feed): nothing is held, whatever matches.
        let raw = Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#);
        let message: Value = serde_json::from_slice(&raw).unwrap();
        assert!(holds.hold(Side::Client, "tools/call", Some("echo"), &message, &raw).is_none());
        assert!(holds.control(b"{\"clear\": \"breakpoints\"}").is_none());
        assert!(!holds.armed() && holds.greeting() == vec![json!({"breakpoints": []})]);
    }
}
