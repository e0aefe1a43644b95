//! `--fault METHOD[@TOOL]:ACTION[:p=P]`: what a rule says, read once (a rule that does not read is
//! refused, naming what is wrong), and the seeded dice that decide whether it fires.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{RngExt as _, SeedableRng as _};

use crate::wire::jsonrpc;

/// What a rule does to a message it fires on.
#[derive(Debug, Clone, PartialEq)]
pub enum FaultAction {
    /// The request is answered by the proxy with this JSON-RPC error, never forwarded.
    Error(i64),
    /// The answer (or the notification) is held this long, the messages behind it passing.
    Delay(Duration),
    /// The answer (or the notification) is never delivered.
    Drop,
    /// In place of the answer (or the notification), a line that is not JSON.
    Corrupt,
}

/// One `--fault` rule, as read; [`fmt::Display`] gives it back as it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultRule {
    pub method: String,
    /// For `tools/call`: only calls of this tool.
    pub tool: Option<String>,
    pub action: FaultAction,
    /// The chance it fires on a matching message, 0..=1.
    pub probability: f64,
    /// The rule as written (what the record and stderr name).
    written: Arc<str>,
}

impl FaultRule {
    /// The rule as written.
    pub fn written(&self) -> &Arc<str> {
        &self.written
    }

    /// True when it applies to a message of `method` (and `tool`, for `tools/call`).
    pub fn matches(&self, method: &str, tool: Option<&str>) -> bool {
        self.method == method && self.tool.as_deref().is_none_or(|wanted| tool == Some(wanted))
    }
}

impl fmt::Display for FaultRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

/// Why a rule does not read: said after the rule itself (`--fault 'RULE': WHY`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadRule(String);

fn bad(why: impl Into<String>) -> BadRule {
    BadRule(why.into())
}

impl std::str::FromStr for FaultRule {
    type Err = BadRule;

    fn from_str(text: &str) -> Result<FaultRule, BadRule> {
        const FORM: &str = "a rule is METHOD[@TOOL]:ACTION[:p=P], e.g. tools/call@echo:error=-32000";
        let (target, rest) = text.split_once(':').ok_or_else(|| bad(format!("no action: {FORM}")))?;
        let (method, tool) = match target.split_once('@') {
            Some((method, tool)) => (method, Some(tool)),
            None => (target, None),
        };
        check_method(method)?;
        if let Some(tool) = tool {
            if tool.is_empty() {
                return Err(bad("no tool after @"));
            }
            if method != "tools/call" {
                return Err(bad(format!("@TOOL names a tool of tools/call, not of {method}")));
            }
        }
        let mut parts = rest.split(':');
        let action = action(parts.next().unwrap_or_default())?;
        if method.starts_with("notifications/") && matches!(action, FaultAction::Error(_)) {
            return Err(bad(format!(
                "{method} is a notification: it gets no answer, so no error= (drop, delay or corrupt it)"
            )));
        }
        let mut probability = 1.0;
        for option in parts {
            let value = option.strip_prefix("p=").ok_or_else(|| bad(format!("unknown option {option:?}: only p=P")))?;
            probability = value
                .parse::<f64>()
                .ok()
                .filter(|p| (0.0..=1.0).contains(p))
                .ok_or_else(|| bad(format!("p={value}: a probability is a number from 0 to 1")))?;
        }
        Ok(FaultRule {
            method: method.into(),
            tool: tool.map(str::to_string),
            action,
            probability,
            written: text.into(),
        })
    }
}

/// A JSON-RPC method name: not empty, no spaces or control characters.
fn check_method(method: &str) -> Result<(), BadRule> {
    if method.is_empty() {
        return Err(bad("no method before the action (tools/call, resources/read, notifications/progress...)"));
    }
    if method.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad(format!("{method:?} is not a JSON-RPC method name")));
    }
    Ok(())
}

fn action(text: &str) -> Result<FaultAction, BadRule> {
    const ACTIONS: &str = "error=CODE, delay=DURATION, drop or corrupt";
    match text.split_once('=') {
        Some(("error", code)) => {
            let code: i64 = code
                .parse()
                .map_err(|_| bad(format!("error={code}: a JSON-RPC error code is a whole number (-32000)")))?;
            if code == 0 {
                return Err(bad("error=0: an error code is not 0"));
            }
            Ok(FaultAction::Error(code))
        }
        Some(("delay", duration)) => parse_duration(duration).map(FaultAction::Delay),
        None if text == "drop" => Ok(FaultAction::Drop),
        None if text == "corrupt" => Ok(FaultAction::Corrupt),
        _ if text.is_empty() => Err(bad(format!("no action: {ACTIONS}"))),
        _ => Err(bad(format!("unknown action {text:?}: {ACTIONS}"))),
    }
}

/// `500ms`, `2s`, `1.5s`, `1m`: at most an hour.
fn parse_duration(text: &str) -> Result<Duration, BadRule> {
    let wrong = || bad(format!("delay={text}: a duration is a number with ms, s or m (500ms, 2s)"));
    let digits = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(wrong)?;
    let (number, unit) = text.split_at(digits);
    let number: f64 = number.parse().map_err(|_| wrong())?;
    let seconds = match unit {
        "ms" => number / 1000.0,
        "s" => number,
        "m" => number * 60.0,
        _ => return Err(wrong()),
    };
    if !(0.0..=3600.0).contains(&seconds) {
        return Err(bad(format!("delay={text}: at most an hour")));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// The rules of a run and their dice: one seeded generator, rolled in the order messages come,
/// so a seed repeats a run's choices.
pub struct Faults {
    rules: Vec<FaultRule>,
    dice: std::sync::Mutex<StdRng>,
}

impl Faults {
    pub fn new(rules: Vec<FaultRule>, seed: u64) -> Faults {
        Faults { rules, dice: std::sync::Mutex::new(StdRng::seed_from_u64(seed)) }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The first rule matching `method` (and `tool`) whose dice say it fires. A rule of `p=1`
    /// or `p=0` rolls no dice: the sequence is the same with or without them.
    pub fn fire(&self, method: &str, tool: Option<&str>) -> Option<&FaultRule> {
        self.rules.iter().filter(|rule| rule.matches(method, tool)).find(|rule| match rule.probability {
            p if p >= 1.0 => true,
            p if p <= 0.0 => false,
            p => crate::sync::lock(&self.dice).random_bool(p),
        })
    }
}

/// The error an `error=CODE` rule answers a request with.
pub fn injected_error(id: &serde_json::Value, code: i64, rule: &FaultRule) -> serde_json::Value {
    let message = format!("injected by tooldeck proxy --fault {rule}");
    jsonrpc::error_answer(id, code, &message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<FaultRule, String> {
        text.parse::<FaultRule>().map_err(|e| e.to_string())
    }

    #[test]
    fn rules_read_with_their_tool_action_and_chance() {
        let rule = read("tools/call@echo:error=-32000").unwrap();
        assert_eq!((rule.method.as_str(), rule.tool.as_deref()), ("tools/call", Some("echo")));
        assert_eq!((rule.action.clone(), rule.probability), (FaultAction::Error(-32000), 1.0));
        assert_eq!(rule.to_string(), "tools/call@echo:error=-32000");
        assert_eq!(read("tools/list:delay=500ms").unwrap().action, FaultAction::Delay(Duration::from_millis(500)));
        assert_eq!(read("ping:delay=1.5s").unwrap().action, FaultAction::Delay(Duration::from_millis(1500)));
        assert_eq!(read("notifications/progress:drop:p=0.25").unwrap().probability, 0.25);
        assert_eq!(read("resources/read:corrupt:p=0").unwrap().action, FaultAction::Corrupt);
        assert!(rule.matches("tools/call", Some("echo")) && !rule.matches("tools/call", Some("add")));
        assert!(read("tools/call:drop").unwrap().matches("tools/call", Some("add")));
    }

    #[test]
    fn a_rule_that_does_not_read_says_what_is_wrong() {
        let said = |text: &str| read(text).unwrap_err();
        assert!(said("tools/call").contains("no action"), "{}", said("tools/call"));
        assert!(said(":drop").contains("no method"));
        assert!(said("tools call:drop").contains("not a JSON-RPC method name"));
        assert!(said("tools/call:explode").contains("unknown action \"explode\""));
        assert!(said("tools/call:error=oops").contains("whole number"));
        assert!(said("tools/call:drop:p=1.5").contains("from 0 to 1"));
        assert!(said("tools/call:drop:p=-0.1").contains("from 0 to 1"));
        assert!(said("tools/call:drop:q=1").contains("only p=P"));
        assert!(said("notifications/progress:error=-32000").contains("is a notification"));
        assert!(said("tools/list@echo:drop").contains("tool of tools/call"));
        assert!(said("tools/call@:drop").contains("no tool"));
        assert!(said("tools/call:delay=soon").contains("a duration"));
        assert!(said("tools/call:delay=5h").contains("a duration"));
        assert_eq!(read("tools/call:delay=2m").unwrap().action, FaultAction::Delay(Duration::from_secs(120)));
        assert!(said("tools/call:delay=61m").contains("at most an hour"));
    }

    #[test]
    fn a_seed_repeats_the_same_choices_and_p_0_never_fires() {
        let rules = || vec![read("tools/call:drop:p=0.5").unwrap(), read("ping:drop:p=0").unwrap()];
        let run = |seed| {
            let faults = Faults::new(rules(), seed);
            (0..64).map(|_| faults.fire("tools/call", None).is_some()).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert!(run(7).contains(&true) && run(7).contains(&false));
        let faults = Faults::new(rules(), 1);
        assert!((0..100).all(|_| faults.fire("ping", None).is_none()));
    }
}
