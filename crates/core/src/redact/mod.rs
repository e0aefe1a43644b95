//! The one rule that masks secrets wherever a request is shown or stored: the record, the
//! traffic pane and `attach`, copies, the exchange view, curl exports, dry runs, history, saved
//! cases, error messages, `--json` and reports all go through here.
//!
//! A secret is found three ways:
//! - by its **name** ([`names`]): a field, header, query parameter or option whose words name a
//!   credential (`api_key`, `password`, `Authorization`), never one that only looks alike
//!   (`author`, `max_tokens`, `code`);
//! - by its **shape** ([`shapes`]): `Bearer …`, a JWT, well-known key prefixes (`sk-`, `ghp_`...),
//!   wherever it stands;
//! - by being **known** ([`known`]): every value a `${VAR}` expanded to and every value sent in a
//!   secret field or header, masked wherever it appears later, text included.
//!
//! A secret is shown as [`MASK`], always the same four dots whatever its length, and only a
//! string is ever masked: numbers, booleans and `null` keep their place and type. A mask is
//! recognised ([`is_mask`]), so nothing is masked twice.

use std::borrow::Cow;

mod command;
mod json;
pub mod known;
pub mod names;
pub mod shapes;

pub use command::{args, command, command_with};
pub use json::{broken_json, form_body, json_body, json_message, masked_arguments, placeholders};
pub use names::{Place, is_secret_name, is_secret_name_in};

/// What every secret is shown as.
pub const MASK: &str = "••••";

/// True for a value that is a mask already: [`MASK`], alone or leading (older records wrote
/// `•••• (N chars)`), so that nothing shows the mask of a mask.
pub fn is_mask(value: &str) -> bool {
    value.starts_with(MASK)
}

/// True for a `${VAR}` placeholder a case file names a secret by.
pub fn is_placeholder(value: &str) -> bool {
    value.starts_with("${") && value.ends_with('}') && !value[2..].contains("${")
}

/// What stands in for each secret found: `(name, value)` → the text written instead. `name` is
/// the variable it was expanded from, or the option, query parameter, header or field it was the
/// value of (`password` for a URL's password, `user` for a token given as a URL's user name,
/// `token` or `api_key` for a credential known by its shape).
pub type Replace<'a> = &'a mut dyn FnMut(&str, &str) -> String;

fn masked(_name: &str, _value: &str) -> String {
    MASK.to_string()
}

/// `value`, which `${name}` expanded to, is a secret from now on: every text this module shows
/// has it masked, wherever it landed (`url`, `command`, `header_value`, `text`...).
pub fn remember_expanded(name: &str, value: &str) {
    known::remember_variable(name, value);
}

/// True when `text` holds a known secret (a `${VAR}` value, or one sent in a secret field).
pub fn holds_expanded(text: &str) -> bool {
    known::holds(text)
}

/// Any text that may hold a secret (an error message, a server's prose, a line that is not
/// JSON) with its secrets masked: known secrets, credential shapes, and the passwords and secret
/// query parameters of the URLs in it. The rest is kept as written.
pub fn text(text: &str) -> Cow<'_, str> {
    text_with(text, &mut masked)
}

/// [`text`], under the name its callers first knew: the whole rule, not only `${VAR}` values.
pub fn expanded(line: &str) -> Cow<'_, str> {
    text(line)
}

/// [`text`], under the name its callers first knew: the whole rule, not only URLs.
pub fn urls_in(line: &str) -> Cow<'_, str> {
    text(line)
}

/// [`text`] with each secret replaced by what `replace` gives (a case file writes `${VAR}`).
pub fn text_with<'a>(text: &'a str, replace: Replace) -> Cow<'a, str> {
    text_in(text, Place::Anywhere, replace)
}

fn text_in<'a>(text: &'a str, place: Place, replace: Replace) -> Cow<'a, str> {
    let text = match known::replace_in(text, replace) {
        Cow::Borrowed(text) => shapes::replace_in(text, replace),
        Cow::Owned(text) => Cow::Owned(shapes::replace_in(&text, replace).into_owned()),
    };
    if !text.contains("://") {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end_matches(char::is_whitespace);
        if word.contains("://") {
            out.push_str(&url_parts(word, place, replace));
            out.push_str(&piece[word.len()..]);
        } else {
            out.push_str(piece);
        }
    }
    Cow::Owned(out)
}

/// A header's value as it may be shown: masked when its name says it is a secret (and learnt,
/// so it is masked wherever it turns up later), else with the secrets in it masked.
pub fn header_value(name: &str, value: &str) -> String {
    header_value_with(name, value, &mut masked)
}

/// [`header_value`] with the secret replaced by what `replace` gives.
pub fn header_value_with(name: &str, value: &str, replace: Replace) -> String {
    if is_mask(value) || is_placeholder(value) {
        return value.to_string();
    }
    if is_secret_name(name) {
        known::learn(name, value);
        // `Bearer S`: the credential is learnt alone too, it may come back without its scheme.
        if let Some((_, credential)) = value.split_once(' ') {
            known::learn(name, credential.trim());
        }
        return replace(name, value);
    }
    text_with(value, replace).into_owned()
}

/// A URL with its password and secret query parameters masked (`user:••••@host`,
/// `?api_key=••••`), and any known secret or credential shape in it. Text that is not a URL
/// comes back with only those.
pub fn url(text: &str) -> String {
    url_with(text, &mut masked)
}

/// A request's path and query as a server saw it (`/mcp?api_key=…&token=…`), its secret query
/// parameters masked as [`url`] masks a URL's. A whole URL (a proxy's request line) is [`url`]'s.
pub fn path_and_query(text: &str) -> String {
    const ORIGIN: &str = "http://h";
    if !text.starts_with('/') {
        return url(text);
    }
    let shown = url(&format!("{ORIGIN}{text}"));
    shown.strip_prefix(ORIGIN).map_or(shown.clone(), str::to_string)
}

/// [`url`] for an OAuth URL (the redirect that brings the authorization code back, a sign-in's
/// endpoints): its `code` and `code_verifier` are masked too.
pub fn oauth_url(text: &str) -> String {
    url_in(text, Place::OAuth, &mut masked)
}

/// [`url`] with each secret replaced by what `replace` gives (a case file writes `${VAR}`).
/// A `${VAR}` value anywhere in it (a query parameter of any name, the path) is one too.
pub fn url_with(text: &str, replace: Replace) -> String {
    url_in(text, Place::Anywhere, replace)
}

fn url_in(text: &str, place: Place, replace: Replace) -> String {
    let text = known::replace_in(text, replace);
    let text = shapes::replace_in(&text, replace);
    url_parts(&text, place, replace)
}

/// The password and secret query parameters of one URL replaced (nothing else is looked at).
fn url_parts(text: &str, place: Place, replace: Replace) -> String {
    let Some(scheme_end) = text.find("://") else { return text.to_string() };
    let mut hide = |name: &str, value: &str| {
        if value.is_empty() || is_mask(value) || is_placeholder(value) {
            value.to_string()
        } else {
            replace(name, value)
        }
    };
    let rest = &text[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let shown = match userinfo.split_once(':') {
                Some((user, password)) => format!("{user}:{}", hide("password", password)),
                None => hide("user", userinfo),
            };
            format!("{shown}@{host}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let (query, fragment) = query.split_once('#').map_or((query, None), |(q, f)| (q, Some(f)));
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    // A name may be percent-encoded (`api%5Fkey` is `api_key`): judged decoded.
                    Some((name, value)) if is_secret_name_in(&query_name(name), place) => {
                        format!("{name}={}", hide(&query_name(name), value))
                    }
                    _ => pair.to_string(),
                })
                .collect();
            let fragment = fragment.map(|f| format!("#{f}")).unwrap_or_default();
            format!("{path}?{}{fragment}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{}://{authority}{tail}", &text[..scheme_end])
}

/// A query parameter's name as the server reads it: percent-decoded, `+` a space.
fn query_name(name: &str) -> String {
    url::form_urlencoded::parse(name.as_bytes()).next().map(|(name, _)| name.into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests;
