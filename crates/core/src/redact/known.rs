//! Values known to be secret, masked wherever they turn up later, text included (the way CI logs
//! mask the secrets registered with them): every value a `${VAR}` expanded to, and every value
//! sent in a secret field or header (an `api_key` argument a server then echoes in its answer).
//!
//! Process-wide: a value is learnt where it is expanded or sent, and then lands in error messages
//! made deep in a transport, the app's lines, the history, cases and records, which all show
//! text through this module. One Aho-Corasick automaton finds them all in one pass over a text;
//! it is built again only when a new value is learnt.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use aho_corasick::{AhoCorasick, MatchKind};

use super::Replace;

/// Values learnt from a field or header shorter than this are not looked for in text: a
/// `password` of `test` would mask every `test` everywhere. They are still masked where they
/// stand (their field, header or option). A `${VAR}`'s value is looked for whatever its length:
/// the person made it a variable, tooldeck does not guess which of those matter.
pub const SHORTEST: usize = 6;

/// Where a known value came from: the name a placeholder gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `${VAR}` expanded to it: a case file writes `${VAR}` again.
    Variable(String),
    /// It was sent in the field or header of this name.
    Field(String),
}

impl Origin {
    fn name(&self) -> &str {
        match self {
            Origin::Variable(name) | Origin::Field(name) => name,
        }
    }
}

struct Known {
    values: Vec<(Origin, String)>,
    /// Built again when a value is learnt; a search takes this out of the lock.
    snapshot: Option<Arc<Snapshot>>,
}

impl Known {
    const fn new() -> Known {
        Known { values: Vec::new(), snapshot: None }
    }
}

/// What a search needs: the automaton and the values' origins by pattern number.
struct Snapshot {
    matcher: AhoCorasick,
    origins: Vec<Origin>,
}

#[cfg(not(test))]
static KNOWN: Mutex<Known> = Mutex::new(Known::new());

// The library's own tests run side by side in one process: each keeps its values to its thread,
// so one test's secret cannot mask another test's text.
#[cfg(test)]
thread_local! {
    static KNOWN: Mutex<Known> = const { Mutex::new(Known::new()) };
}

fn with_known<R>(work: impl FnOnce(&mut Known) -> R) -> R {
    #[cfg(not(test))]
    return work(&mut crate::sync::lock(&KNOWN));
    #[cfg(test)]
    KNOWN.with(|known| work(&mut crate::sync::lock(known)))
}

/// `value`, which `${name}` expanded to, is a secret from now on.
pub fn remember_variable(name: &str, value: &str) {
    remember(Origin::Variable(name.to_string()), value);
}

/// `value` was sent in the secret field or header `name`: a secret from now on.
pub fn learn(name: &str, value: &str) {
    remember(Origin::Field(name.to_string()), value);
}

fn remember(origin: Origin, value: &str) {
    let too_short = match origin {
        Origin::Variable(_) => value.is_empty(),
        Origin::Field(_) => value.chars().count() < SHORTEST,
    };
    if too_short || super::is_mask(value) || super::is_placeholder(value) {
        return;
    }
    with_known(|known| {
        if let Some(at) = known.values.iter().position(|(_, v)| v == value) {
            // A variable's name wins over a field's: a case file then names what the person set.
            if matches!(origin, Origin::Variable(_)) {
                known.values[at].0 = origin;
                rebuild(known);
            }
            return;
        }
        known.values.push((origin, value.to_string()));
        rebuild(known);
    });
}

fn rebuild(known: &mut Known) {
    let matcher =
        AhoCorasick::builder().match_kind(MatchKind::LeftmostLongest).build(known.values.iter().map(|(_, v)| v));
    known.snapshot = matcher.ok().map(|matcher| {
        Arc::new(Snapshot { matcher, origins: known.values.iter().map(|(origin, _)| origin.clone()).collect() })
    });
}

fn snapshot() -> Option<Arc<Snapshot>> {
    with_known(|known| known.snapshot.clone())
}

/// True when `text` holds a known secret.
pub fn holds(text: &str) -> bool {
    snapshot().is_some_and(|s| s.matcher.is_match(text))
}

/// The variable `value` was expanded from, when it was.
pub fn variable_of(value: &str) -> Option<String> {
    with_known(|known| {
        known.values.iter().find_map(|(origin, v)| match origin {
            Origin::Variable(name) if v == value => Some(name.clone()),
            _ => None,
        })
    })
}

/// `text` with every known secret replaced by what `replace` gives for `(name, value)`: the
/// variable it came from, or the field it was sent in.
pub fn replace_in<'a>(text: &'a str, replace: Replace) -> Cow<'a, str> {
    let Some(snapshot) = snapshot() else { return Cow::Borrowed(text) };
    let Snapshot { matcher, origins } = &*snapshot;
    let mut found = matcher.find_iter(text).peekable();
    if found.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for hit in found {
        out.push_str(&text[copied..hit.start()]);
        out.push_str(&replace(origins[hit.pattern().as_usize()].name(), &text[hit.start()..hit.end()]));
        copied = hit.end();
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(text: &str) -> String {
        replace_in(text, &mut |_, _| "••••".to_string()).into_owned()
    }

    #[test]
    fn known_values_are_masked_in_any_text_longest_first() {
        assert!(matches!(replace_in("nothing known yet: hunter2xyz", &mut |_, _| String::new()), Cow::Borrowed(_)));
        remember_variable("SECRET", "hunter2xyz");
        learn("api_key", "hunter2xyz-and-more");
        learn("password", "short");
        learn("password", "••••");
        assert_eq!(masked("a hunter2xyz-and-more b hunter2xyz c"), "a •••• b •••• c");
        assert_eq!(masked("short is too short to look for"), "short is too short to look for");
        assert!(holds("x hunter2xyz"));
        assert!(!holds("hunter2"));
    }

    #[test]
    fn a_placeholder_names_the_variable_else_the_field() {
        learn("api_key", "learnt-secret-1");
        remember_variable("TEAM_TOKEN", "expanded-secret-2");
        learn("token", "expanded-secret-2");
        let mut named = |name: &str, _: &str| format!("<{name}>");
        assert_eq!(replace_in("learnt-secret-1 expanded-secret-2", &mut named), "<api_key> <TEAM_TOKEN>");
        assert_eq!(variable_of("expanded-secret-2").as_deref(), Some("TEAM_TOKEN"));
        assert_eq!(variable_of("learnt-secret-1"), None);
        // Learnt from a field first, then found to be a variable's: the variable names it.
        learn("key", "both-ways-3");
        remember_variable("BOTH", "both-ways-3");
        assert_eq!(variable_of("both-ways-3").as_deref(), Some("BOTH"));
    }
}
