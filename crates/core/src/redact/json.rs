//! JSON through the one rule: a message on the wire (the record, the traffic pane, attach,
//! copies), an OAuth body, a saved case. The value of a secret field is replaced whole when it
//! is a string (every string under it when it is an object or a list); every other string has
//! its known secrets, credential shapes and URL secrets masked; numbers, booleans and `null`
//! are never touched, so a JSON-RPC `id`, an error's `code` or `max_tokens` keep their type.

use serde_json::{Map, Value};

use super::{MASK, Place, Replace, is_mask, is_placeholder, is_secret_name_in, known};

/// A JSON-RPC message as it is recorded, shown and copied, secrets masked at any depth (an
/// `api_key` argument, an `Authorization` in a tool's arguments, a Bearer token or an echoed
/// secret in a result's text). `None` when nothing needed masking, so the text as it went over
/// the wire can be kept unchanged.
pub fn json_message(value: &Value) -> Option<Value> {
    learn(value, Place::Anywhere);
    redact(value, Place::Anywhere, None, &mut super::masked)
}

/// An OAuth body (a token answer, metadata, a registration) with its secrets masked at any depth:
/// the authorization code and PKCE verifier too, besides every token and client secret.
pub fn json_body(value: &Value) -> Value {
    learn(value, Place::OAuth);
    redact(value, Place::OAuth, None, &mut super::masked).unwrap_or_else(|| value.clone())
}

/// A form body (`grant_type=…&code=…&client_secret=…`) with its secret fields' values masked.
pub fn form_body(body: &str) -> String {
    body.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if is_secret_name_in(name, Place::OAuth) && !value.is_empty() => {
                let decoded: String = url::form_urlencoded::parse(format!("v={value}").as_bytes())
                    .next()
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default();
                known::learn(name, &decoded);
                format!("{name}={MASK}")
            }
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A message that is not valid JSON (a lone surrogate, a cut line) with the values of its secret
/// fields masked as it is written: each `"name": "value"` pair whose name is a secret is found in
/// the text, its value learnt and masked; then the rest of the rule runs over the text (known
/// secrets, credential shapes, URLs).
pub fn broken_json(text: &str) -> String {
    let raw = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i) = (0, 0);
    let mut last_key: Option<(usize, usize)> = None;
    while i < raw.len() {
        if raw[i] != b'"' {
            if !raw[i].is_ascii_whitespace() && raw[i] != b':' {
                last_key = None;
            }
            i += 1;
            continue;
        }
        let end = string_end(raw, i);
        let after = raw[end..].iter().position(|b| !b.is_ascii_whitespace()).map(|n| end + n);
        let key = last_key.map(|(s, e)| &text[s..e]).filter(|name| is_secret_name_in(name, Place::Anywhere));
        if let Some(name) =
            key.filter(|_| end > i + 1 && text.is_char_boundary(i + 1) && text.is_char_boundary(end - 1))
        {
            out.push_str(&text[copied..=i]);
            let secret = &text[i + 1..end - 1];
            if is_mask(secret) {
                out.push_str(secret);
            } else {
                known::learn(name, secret);
                out.push_str(MASK);
            }
            out.push('"');
            copied = end;
            last_key = None;
        } else if after.is_some_and(|a| raw[a] == b':') && text.is_char_boundary(end.saturating_sub(1)) {
            last_key = Some((i + 1, end.saturating_sub(1).max(i + 1)));
        } else {
            last_key = None;
        }
        i = end;
    }
    out.push_str(&text[copied..]);
    super::text(&out).into_owned()
}

/// The index just past the JSON string that opens at `start` (or the end of `raw`).
fn string_end(raw: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < raw.len() {
        match raw[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    raw.len()
}

/// `value` (a case about to be saved) with every secret written as a `${VAR}` placeholder, and
/// the variables it now names, to be set before the case runs: the variable a secret was
/// expanded from, else one named for where it was (`TOOLDECK_API_KEY` for an `api_key`
/// argument, `TOOLDECK_TOKEN` for a Bearer token found in a text). A value that is a mask
/// already (a call read back from a history or a record) is a placeholder too: a case never
/// sends a mask.
pub fn placeholders(value: &Value) -> (Value, Vec<String>) {
    learn(value, Place::Anywhere);
    let mut names = Placeholders::default();
    let unmasked = fill_masks(value, "", &mut names);
    let value = unmasked.as_ref().unwrap_or(value);
    let written = redact(value, Place::Anywhere, None, &mut |name, secret| names.for_secret(name, secret));
    let mut variables: Vec<String> = names.given.into_iter().map(|(variable, _)| variable).collect();
    variables.sort();
    variables.dedup();
    (written.unwrap_or_else(|| value.clone()), variables)
}

/// `value` with each mask replaced by a placeholder named for its field; `None` when it holds none.
fn fill_masks(value: &Value, field: &str, names: &mut Placeholders) -> Option<Value> {
    match value {
        // Each masked field is a secret of its own: told apart by the field, not the mask.
        Value::String(text) if is_mask(text) => Some(Value::String(names.for_secret(field, &format!("{MASK}{field}")))),
        Value::Object(map) => {
            let filled: Vec<Option<Value>> = map.iter().map(|(name, child)| fill_masks(child, name, names)).collect();
            filled.iter().any(Option::is_some).then(|| {
                Value::Object(
                    map.iter()
                        .zip(filled)
                        .map(|((name, child), f)| (name.clone(), f.unwrap_or_else(|| child.clone())))
                        .collect(),
                )
            })
        }
        Value::Array(items) => {
            let filled: Vec<Option<Value>> = items.iter().map(|item| fill_masks(item, field, names)).collect();
            filled.iter().any(Option::is_some).then(|| {
                Value::Array(items.iter().zip(filled).map(|(item, f)| f.unwrap_or_else(|| item.clone())).collect())
            })
        }
        _ => None,
    }
}

/// The variables a case's secrets are written as, one per secret.
#[derive(Default)]
struct Placeholders {
    /// `(variable, secret)`, in the order given.
    given: Vec<(String, String)>,
}

impl Placeholders {
    fn for_secret(&mut self, name: &str, secret: &str) -> String {
        if let Some((variable, _)) = self.given.iter().find(|(_, s)| s == secret) {
            return format!("${{{variable}}}");
        }
        let variable = known::variable_of(secret).unwrap_or_else(|| {
            let stem = format!("TOOLDECK_{}", super::names::words(name).join("_").to_ascii_uppercase());
            let taken = |candidate: &str| self.given.iter().any(|(v, _)| v == candidate);
            let mut variable = stem.clone();
            let mut n = 1;
            while taken(&variable) {
                n += 1;
                variable = format!("{stem}_{n}");
            }
            variable
        });
        self.given.push((variable.clone(), secret.to_string()));
        format!("${{{variable}}}")
    }
}

/// Arguments read back from a record or a history (where secrets are masked), without the
/// masked values, and where each of those was (`api_key`, `auth/password`, `keys/0`): a form
/// filled from them asks for those instead of sending the mask.
pub fn masked_arguments(arguments: &Value) -> (Value, Vec<String>) {
    let mut masked = Vec::new();
    let kept = drop_masks(arguments, "", &mut masked);
    (kept, masked)
}

fn drop_masks(value: &Value, path: &str, masked: &mut Vec<String>) -> Value {
    let at = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}/{key}") };
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter_map(|(key, child)| match child {
                    Value::String(text) if is_mask(text) => {
                        masked.push(at(key));
                        None
                    }
                    _ => Some((key.clone(), drop_masks(child, &at(key), masked))),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::String(text) if is_mask(text) => {
                        masked.push(at(&i.to_string()));
                        None
                    }
                    _ => Some(drop_masks(item, &at(&i.to_string()), masked)),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Every string value of a secret field is learnt first, so that a secret sent and echoed in
/// the same message is masked in both places.
fn learn(value: &Value, place: Place) {
    match value {
        Value::Object(map) => {
            for (name, child) in map {
                if is_secret_name_in(name, place) {
                    learn_all(name, child);
                } else {
                    learn(child, place);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| learn(item, place)),
        _ => {}
    }
}

fn learn_all(name: &str, value: &Value) {
    match value {
        Value::String(secret) => known::learn(name, secret),
        Value::Array(items) => items.iter().for_each(|item| learn_all(name, item)),
        Value::Object(map) => map
            .iter()
            .filter(|(field, _)| !super::names::names_a_secret(field))
            .for_each(|(_, child)| learn_all(name, child)),
        _ => {}
    }
}

/// `value` with its secrets replaced, `None` when none was found. `secret` is the name of the
/// secret field it stands under, if any: then every string in it is a secret.
fn redact(value: &Value, place: Place, secret: Option<&str>, replace: Replace) -> Option<Value> {
    match value {
        Value::String(text) => match secret {
            Some(_) if text.is_empty() || is_mask(text) || is_placeholder(text) => None,
            Some(name) => Some(Value::String(replace(name, text))),
            None => match super::text_in(text, place, replace) {
                std::borrow::Cow::Owned(shown) => Some(Value::String(shown)),
                std::borrow::Cow::Borrowed(_) => None,
            },
        },
        Value::Object(map) => {
            let mut changed = Map::new();
            for (name, child) in map {
                let under = match secret {
                    None if is_secret_name_in(name, place) => Some(name.as_str()),
                    Some(_) if super::names::names_a_secret(name) => None,
                    other => other,
                };
                if let Some(shown) = redact(child, place, under, replace) {
                    changed.insert(name.clone(), shown);
                }
            }
            (!changed.is_empty()).then(|| {
                Value::Object(
                    map.iter()
                        .map(|(name, child)| (name.clone(), changed.remove(name).unwrap_or_else(|| child.clone())))
                        .collect(),
                )
            })
        }
        Value::Array(items) => {
            let shown: Vec<Option<Value>> = items.iter().map(|item| redact(item, place, secret, replace)).collect();
            shown.iter().any(Option::is_some).then(|| {
                Value::Array(shown.into_iter().zip(items).map(|(s, item)| s.unwrap_or_else(|| item.clone())).collect())
            })
        }
        Value::Number(_) | Value::Bool(_) | Value::Null => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_calls_secrets_are_masked_and_look_alikes_kept() {
        let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "search", "_meta": {"progressToken": "call-7"},
            "arguments": {"author": "ann", "max_tokens": 300, "session_name": "s1", "keyword": "k",
                "code": "print(1)", "zip_code": "75001", "api_key": "sk-live-123456", "password": "hunter22",
                "headers": {"Authorization": "Bearer tok-9abcdef"}, "limit": 5, "flag": true, "none": null}
        }});
        let shown = json_message(&call).expect("something to mask");
        let args = &shown["params"]["arguments"];
        assert_eq!(args["api_key"], MASK);
        assert_eq!(args["password"], MASK);
        assert_eq!(args["headers"]["Authorization"], MASK);
        for kept in ["author", "max_tokens", "session_name", "keyword", "code", "zip_code", "limit", "flag", "none"] {
            assert_eq!(args[kept], call["params"]["arguments"][kept], "{kept}");
        }
        assert_eq!(shown["id"], 4);
        assert_eq!(shown["params"]["_meta"]["progressToken"], "call-7");
        assert_eq!(json_message(&json!({"method": "tools/list", "params": {}})), None);
    }

    #[test]
    fn types_are_kept_and_an_error_code_stays_a_number() {
        let error = json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32602, "message": "bad"}});
        assert_eq!(json_message(&error), None);
        let odd = json!({"token": 12345, "secret": true, "password": null, "api_key": ["abcdefgh", 7]});
        let shown = json_message(&odd).expect("the string in the list");
        assert_eq!(shown, json!({"token": 12345, "secret": true, "password": null, "api_key": [MASK, 7]}));
    }

    #[test]
    fn inside_a_secret_object_what_names_the_secret_is_shown() {
        let otc = json!({"context": {"authorization": [{"id": "google", "token": "ya29-token"}]}});
        let shown = json_message(&otc).expect("the token");
        assert_eq!(shown["context"]["authorization"][0], json!({"id": "google", "token": MASK}));
        let cookies =
            json!({"cookies": [{"name": "sid", "value": "c00kie-v", "domain": "a.example"}], "auth": ["ann", "pw"]});
        let shown = json_message(&cookies).expect("masked");
        assert_eq!(shown["cookies"][0], json!({"name": "sid", "value": MASK, "domain": "a.example"}));
        assert_eq!(shown["auth"], json!([MASK, MASK]));
    }

    #[test]
    fn no_mask_of_a_mask() {
        let recorded = json!({"api_key": MASK, "password": "•••• (18 chars)", "note": "key is ••••"});
        assert_eq!(json_message(&recorded), None);
    }

    #[test]
    fn a_secret_sent_is_masked_where_it_is_echoed_and_shapes_anywhere() {
        let call = json!({"params": {"arguments": {"api_key": "echo-me-secret-1"}}});
        json_message(&call);
        let answer = json!({"result": {"content": [
            {"type": "text", "text": "you sent echo-me-secret-1 with Bearer abc123def456"}
        ]}});
        let shown = json_message(&answer).expect("masked");
        assert_eq!(shown["result"]["content"][0]["text"], "you sent •••• with Bearer ••••");
    }

    #[test]
    fn urls_in_prose_are_masked_in_every_json() {
        let message = json!({"note": "see https://a.b/?api_key=z1 later", "url": "http://me:pw@h/x"});
        assert_eq!(
            json_message(&message),
            Some(json!({"note": "see https://a.b/?api_key=•••• later", "url": "http://me:••••@h/x"}))
        );
        assert_eq!(json_body(&message), json_message(&message).unwrap());
    }

    #[test]
    fn the_oauth_code_is_masked_only_in_oauth_bodies() {
        let body = json!({"code": "C0DE-123", "code_verifier": "V-1", "zip_code": "1"});
        assert_eq!(json_body(&body), json!({"code": MASK, "code_verifier": MASK, "zip_code": "1"}));
        // A tool's `code` argument is a snippet, not OAuth's code.
        let tool = json!({"code": "print(1)", "code_verifier": "v", "zip_code": "1"});
        assert_eq!(json_message(&tool), None);
    }

    #[test]
    fn a_case_names_its_secrets_as_variables() {
        crate::redact::remember_expanded("OPENAI_KEY", "from-the-environment");
        let case = json!({"args": {"api_key": "typed-by-hand", "openai": "from-the-environment", "other_api_key": "typed-by-hand-2", "n": 3},
            "expect": {"value": "echo typed-by-hand"}});
        let (written, variables) = placeholders(&case);
        assert_eq!(
            written,
            json!({"args": {"api_key": "${TOOLDECK_API_KEY}", "openai": "${OPENAI_KEY}", "other_api_key": "${TOOLDECK_OTHER_API_KEY}", "n": 3},
                "expect": {"value": "echo ${TOOLDECK_API_KEY}"}})
        );
        assert_eq!(variables, ["OPENAI_KEY", "TOOLDECK_API_KEY", "TOOLDECK_OTHER_API_KEY"]);
        let (from_history, variables) = placeholders(&json!({"args": {"password": MASK, "q": "x"}}));
        assert_eq!(from_history, json!({"args": {"password": "${TOOLDECK_PASSWORD}", "q": "x"}}));
        assert_eq!(variables, ["TOOLDECK_PASSWORD"]);
        let (same, none) = placeholders(&json!({"args": {"q": "x"}}));
        assert_eq!((same, none), (json!({"args": {"q": "x"}}), Vec::<String>::new()));
    }

    #[test]
    fn secrets_in_a_line_that_is_not_json_are_masked() {
        let shown =
            broken_json(r#"{"id":1,"result":{"access_token":"abcdef123456","max_tokens":"7","text":"\udcbb"}}"#);
        assert!(!shown.contains("abcdef123456"), "{shown}");
        assert!(shown.contains(r#""text":"\udcbb""#) && shown.contains(r#""max_tokens":"7""#), "{shown}");
        assert_eq!(broken_json("later abcdef123456 again"), "later •••• again", "learnt");
    }

    #[test]
    fn masked_arguments_are_taken_out_and_named() {
        let read = json!({"api_key": MASK, "q": "x", "auth": {"password": "•••• (8 chars)"}, "keys": ["a", MASK]});
        let (kept, masked) = masked_arguments(&read);
        assert_eq!(kept, json!({"q": "x", "auth": {}, "keys": ["a"]}));
        assert_eq!(masked, ["api_key", "auth/password", "keys/1"]);
    }
}
