//! The one rule that masks secrets wherever a request is shown or stored: the exchange view, curl
//! exports, dry runs, history, saved cases, error messages and reports all go through here.
//!
//! Two kinds of secret: those known by their name (a header, query parameter, option or field
//! named like `api_key`), and those known by where they came from: every value a `${VAR}` expanded
//! to ([`remember_expanded`]), in a URL, a command, its arguments or a header alike.

use std::borrow::Cow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Values `${VAR}`s expanded to, with the variable's name. Process-wide: a value is expanded once,
/// where a server is resolved, and then lands in error messages made deep in a transport, the
/// app's lines, the history, cases and reports, which all show text through this module.
#[cfg(not(test))]
static EXPANDED: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
/// True once anything was remembered: text is then searched for the values, never before.
#[cfg(not(test))]
static ANY_EXPANDED: AtomicBool = AtomicBool::new(false);

// The library's own tests run side by side in one process: each keeps its values to its thread,
// so one test's `${VAR}` cannot mask another test's text.
#[cfg(test)]
thread_local! {
    static EXPANDED: Mutex<Vec<(String, String)>> = const { Mutex::new(Vec::new()) };
    static ANY_EXPANDED: AtomicBool = const { AtomicBool::new(false) };
}

fn with_expanded<R>(work: impl FnOnce(&Mutex<Vec<(String, String)>>, &AtomicBool) -> R) -> R {
    #[cfg(not(test))]
    return work(&EXPANDED, &ANY_EXPANDED);
    #[cfg(test)]
    EXPANDED.with(|expanded| ANY_EXPANDED.with(|any| work(expanded, any)))
}

/// `value`, which `${name}` expanded to, is a secret from now on: every text this module shows
/// has it masked, wherever it landed (`url`, `command`, `header_value`, `expanded`...).
pub fn remember_expanded(name: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    with_expanded(|expanded, any| {
        let mut known = crate::sync::lock(expanded);
        if !known.iter().any(|(_, v)| v == value) {
            known.push((name.to_string(), value.to_string()));
            // Longest first: a value that holds another is masked whole.
            known.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        }
        any.store(true, Ordering::Release);
    });
}

/// `text` with every remembered `${VAR}` value masked (`••••`): for any text that may hold one,
/// an error message above all.
pub fn expanded(text: &str) -> Cow<'_, str> {
    expanded_with(text, &mut masked)
}

/// True when `text` holds a remembered `${VAR}` value.
pub fn holds_expanded(text: &str) -> bool {
    with_expanded(|expanded, any| {
        any.load(Ordering::Acquire) && crate::sync::lock(expanded).iter().any(|(_, v)| text.contains(v.as_str()))
    })
}

/// [`expanded`] with each value replaced by what `replace` gives for `(variable, value)` (a case
/// file writes `${VAR}` again).
fn expanded_with<'a>(text: &'a str, replace: Replace) -> Cow<'a, str> {
    if !holds_expanded(text) {
        return Cow::Borrowed(text);
    }
    let known = with_expanded(|expanded, _| crate::sync::lock(expanded).clone());
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        match known.iter().find(|(_, value)| rest.starts_with(value.as_str())) {
            Some((name, value)) => {
                out.push_str(&replace(name, value));
                rest = &rest[value.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    Cow::Owned(out)
}

/// A secret shown by its length only.
pub fn mask(secret: &str) -> String {
    format!("•••• ({} chars)", secret.chars().count())
}

/// Words that make a header, query parameter or command-line option name carry a secret.
const SECRET_WORDS: &[&str] =
    &["auth", "key", "token", "secret", "password", "passwd", "session", "cookie", "credential"];

/// True for names (headers, query parameters, options) whose values are secrets:
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `X-Auth-Token`,
/// `api_key`, `--client-secret`...
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    (SECRET_WORDS.iter().any(|word| name.contains(word)) && !NOT_SECRETS.contains(&name.as_str()))
        || SECRET_NAMES.contains(&name.as_str())
}

/// Whole names that are secrets without a secret word in them: an OAuth authorization code (in a
/// redirected URL) and the PKCE verifier that redeems it.
const SECRET_NAMES: &[&str] = &["code", "code_verifier"];

/// Names with a secret word that are not secrets: MCP forbids servers to take its session id as
/// authentication, and the exchange view and a curl for the live session need it shown.
const NOT_SECRETS: &[&str] = &["mcp-session-id"];

/// A header's value as it may be shown: masked when its name says it is a secret, or when a
/// `${VAR}` expanded into it.
pub fn header_value(name: &str, value: &str) -> String {
    if is_secret_name(name) || holds_expanded(value) { mask(value) } else { value.to_string() }
}

/// What stands in for each secret found: `(name, value)` → the text written instead. `name` is
/// the option, query parameter or header it was the value of (`password` for a URL's password,
/// `user` for a token given as a URL's user name).
pub type Replace<'a> = &'a mut dyn FnMut(&str, &str) -> String;

fn masked(_name: &str, _value: &str) -> String {
    "••••".to_string()
}

/// A URL with its password and secret query parameters masked (`user:••••@host`,
/// `?api_key=••••`). Text that is not a URL comes back as it was.
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

/// [`url`] with each secret replaced by what `replace` gives (a case file writes `${VAR}`).
/// A `${VAR}` value anywhere in it (a query parameter of any name, the path) is one too.
pub fn url_with(text: &str, replace: Replace) -> String {
    let text = &*expanded_with(text, replace);
    let Some(scheme_end) = text.find("://") else { return text.to_string() };
    let rest = &text[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let shown = match userinfo.split_once(':') {
                Some((user, password)) => format!("{user}:{}", replace("password", password)),
                None => replace("user", userinfo),
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
                    Some((name, value)) if is_secret_name(&query_name(name)) => {
                        format!("{name}={}", replace(&query_name(name), value))
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

/// Prose with the URLs in it redacted by [`url`] (a server's message that names the page to open,
/// `api_key` and all): each word holding `://` is judged as a URL, the rest is kept as written.
pub fn urls_in(text: &str) -> Cow<'_, str> {
    let text = expanded(text);
    if !text.contains("://") {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end_matches(char::is_whitespace);
        if word.contains("://") {
            out.push_str(&url(word));
            out.push_str(&piece[word.len()..]);
        } else {
            out.push_str(piece);
        }
    }
    Cow::Owned(out)
}

/// A query parameter's name as the server reads it: percent-decoded, `+` a space.
fn query_name(name: &str) -> String {
    url::form_urlencoded::parse(name.as_bytes()).next().map(|(name, _)| name.into_owned()).unwrap_or_default()
}

/// A server's command line with the values of secret-looking options masked
/// (`--api-key=S`, `--token S`, `--password 'A B'`, `API_KEY=S node server.js`,
/// `--header "Authorization: Bearer S"`) and URLs in it redacted. Words are split as a shell would
/// (quotes, backslashes, any blank), so a quoted or tab-separated secret is masked whole; words
/// that hold no secret are shown as written.
pub fn command(line: &str) -> String {
    command_with(line, &mut masked)
}

/// [`command`] with each secret replaced by what `replace` gives. A word that comes to hold a
/// `${VAR}` is double-quoted, so the value it expands to stays one word whatever its blanks.
/// A `${VAR}` value anywhere in the line (an argument of any name) is a secret too.
pub fn command_with(line: &str, replace: Replace) -> String {
    let line = &*expanded_with(line, replace);
    let mut out = String::with_capacity(line.len());
    let mut hide_next: Option<String> = None;
    let mut shown_to = 0;
    for (start, end, word) in shell_words(line) {
        out.push_str(&line[shown_to..start]);
        shown_to = end;
        let written = &line[start..end];
        if let Some(option) = hide_next.take() {
            out.push_str(&one_word(replace(&option, &word)));
            continue;
        }
        // A value quoted or escaped in the line is found once the shell's quotes are gone.
        if holds_expanded(&word) {
            out.push_str(&one_word(expanded_with(&word, replace).into_owned()));
            continue;
        }
        // A URL first (its query may hold `api_key=`), unless it is an option's value.
        let url_first = word.find("://").is_some_and(|at| word.find('=').is_none_or(|eq| at < eq));
        match word.split_once('=') {
            _ if url_first => {
                let redacted = url_with(&word, replace);
                out.push_str(&if redacted == word { written.to_string() } else { one_word(redacted) });
            }
            Some((name, value)) if is_secret_name(name) && !value.is_empty() => {
                out.push_str(&one_word(format!("{name}={}", replace(name, value))));
            }
            Some((name, value)) if value.contains("://") => {
                let redacted = url_with(value, replace);
                let shown =
                    if redacted == value { written.to_string() } else { one_word(format!("{name}={redacted}")) };
                out.push_str(&shown);
            }
            _ if word.starts_with('-') && is_secret_name(&word) => {
                hide_next = Some(word.clone());
                out.push_str(written);
            }
            _ => match word.split_once(':') {
                // A header (`X-Api-Key: S`), not a Rust path (`keys::test`) or a port (`key:8080`).
                Some((name, value))
                    if !name.contains(char::is_whitespace)
                        && is_secret_name(name)
                        && !value.starts_with(':')
                        && !value.trim().is_empty() =>
                {
                    out.push_str(&one_word(format!("{name}: {}", replace(name, value.trim()))));
                }
                _ => out.push_str(written),
            },
        }
    }
    out.push_str(&line[shown_to..]);
    out
}

fn one_word(text: String) -> String {
    if text.contains("${") { format!("\"{text}\"") } else { text }
}

/// The words of a command line as a POSIX shell splits them: each word's byte span in `line`
/// and its text with quotes and backslashes removed. An unclosed quote runs to the end.
fn shell_words(line: &str) -> Vec<(usize, usize, String)> {
    #[derive(PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let mut words = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let (mut word, mut quote, mut end) = (String::new(), Quote::None, start);
        while let Some((at, c)) = chars.next() {
            end = at + c.len_utf8();
            match (&quote, c) {
                (Quote::None, c) if c.is_whitespace() => {
                    end = at;
                    break;
                }
                (Quote::None, '\\') | (Quote::Double, '\\') => {
                    if let Some((next_at, next)) = chars.next() {
                        end = next_at + next.len_utf8();
                        word.push(next);
                    }
                }
                (Quote::None, '\'') => quote = Quote::Single,
                (Quote::None, '"') => quote = Quote::Double,
                (Quote::Single, '\'') | (Quote::Double, '"') => quote = Quote::None,
                (_, c) => word.push(c),
            }
        }
        words.push((start, end, word));
    }
    words
}

/// Endings of OAuth body fields whose names hold a secret word but whose values are addresses,
/// method names, types or times (`token_endpoint`, `token_endpoint_auth_method`, `token_type`,
/// `authorization_servers`, `client_secret_expires_at`): shown, so a person sees where each
/// step of a sign-in goes.
const PLAIN_FIELD_ENDINGS: &[&str] = &[
    "_endpoint",
    "_uri",
    "_uris",
    "_url",
    "_supported",
    "_method",
    "_methods",
    "_type",
    "_types",
    "_server",
    "_servers",
    "_at",
    "_in",
];

/// True for a field of a request or answer body (JSON or a form) whose value is a secret:
/// `access_token`, `refresh_token`, `id_token`, `client_secret`, `code`, `code_verifier`...
pub fn is_secret_field(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    is_secret_name(name)
        && !PLAIN_FIELD_ENDINGS.iter().any(|end| lower.ends_with(end))
        && !PROTOCOL_FIELDS.contains(&lower.as_str())
}

/// MCP's own fields with a secret word that hold no secret: the progress token pairs a call with
/// its progress reports, and the traffic pane must show it for a person to follow them.
const PROTOCOL_FIELDS: &[&str] = &["progresstoken"];

/// A JSON-RPC message as the traffic pane shows and copies it: the values of secret fields
/// masked at any depth (`api_key`, `Authorization`, `access_token` in a tool's arguments or a
/// result), and the password and secret query parameters of a URL held in any string. `None`
/// when nothing needed masking, so the text as it went over the wire can be shown unchanged.
pub fn json_message(value: &serde_json::Value) -> Option<serde_json::Value> {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut changed = false;
            let masked = map
                .iter()
                .map(|(name, child)| {
                    let shown = match child {
                        Value::String(secret) if is_secret_field(name) => Some(Value::String(mask(secret))),
                        Value::Number(secret) if is_secret_field(name) => {
                            Some(Value::String(mask(&secret.to_string())))
                        }
                        _ => json_message(child),
                    };
                    changed |= shown.is_some();
                    (name.clone(), shown.unwrap_or_else(|| child.clone()))
                })
                .collect();
            changed.then_some(Value::Object(masked))
        }
        Value::Array(items) => {
            let shown: Vec<Option<Value>> = items.iter().map(json_message).collect();
            shown.iter().any(Option::is_some).then(|| {
                Value::Array(shown.into_iter().zip(items).map(|(s, item)| s.unwrap_or_else(|| item.clone())).collect())
            })
        }
        // A string that is one URL (no spaces) may carry a password or a token in its query.
        Value::String(text) if text.contains("://") && !text.contains(char::is_whitespace) => {
            let shown = url(text);
            (shown != *text).then_some(Value::String(shown))
        }
        Value::String(text) if holds_expanded(text) => Some(Value::String(expanded(text).into_owned())),
        _ => None,
    }
}

/// A JSON body with the values of its secret fields masked, at any depth.
pub fn json_body(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(name, child)| {
                    let shown = match child {
                        Value::String(secret) if is_secret_field(name) => Value::String(mask(secret)),
                        Value::Number(secret) if is_secret_field(name) => Value::String(mask(&secret.to_string())),
                        _ => json_body(child),
                    };
                    (name.clone(), shown)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(json_body).collect()),
        Value::String(text) => Value::String(expanded(text).into_owned()),
        other => other.clone(),
    }
}

/// A form body (`grant_type=…&code=…&client_secret=…`) with its secret fields' values masked.
pub fn form_body(body: &str) -> String {
    body.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if is_secret_field(name) => {
                let decoded: String = url::form_urlencoded::parse(format!("v={value}").as_bytes())
                    .next()
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default();
                format!("{name}={}", mask(&decoded))
            }
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_in_prose_are_masked_and_the_words_kept() {
        let said = urls_in("Open https://auth.example.com/login?api_key=S3CRET&state=1 to go on,\tthen come back.");
        assert_eq!(said, "Open https://auth.example.com/login?api_key=••••&state=1 to go on,\tthen come back.");
        assert!(matches!(urls_in("no link here: api_key=x"), Cow::Borrowed(_)), "prose without a URL is kept");
        assert_eq!(urls_in("at http://u:pw@h/x\n"), "at http://u:••••@h/x\n");
    }

    #[test]
    fn a_messages_secrets_are_masked_and_the_rest_kept() {
        let message = serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "fetch", "_meta": {"progressToken": "call-7"},
            "arguments": {"api_key": "sk-live-123", "headers": {"Authorization": "Bearer tok-9"},
                "url": "https://me:pw-1@example.com/x?token=abc-2&page=3", "note": "see https://a.b?key=z later"}
        }});
        let shown = json_message(&message).expect("something to mask").to_string();
        for secret in ["sk-live-123", "tok-9", "pw-1", "abc-2"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        for kept in ["call-7", "page=3", "fetch", "see https://a.b?key=z later"] {
            assert!(shown.contains(kept), "{kept} in {shown}");
        }
        assert_eq!(json_message(&serde_json::json!({"method": "tools/list", "params": {}})), None);
    }

    #[test]
    fn expanded_values_are_secrets_in_urls_commands_headers_and_prose() {
        assert!(matches!(expanded("before hunter2xyz"), Cow::Borrowed(_)), "nothing remembered, nothing masked");
        remember_expanded("SECRET", "hunter2xyz");
        remember_expanded("QUOTED", "it's-Q");
        remember_expanded("EMPTY", "");
        assert_eq!(url("http://h/mcp?k=hunter2xyz&page=2"), "http://h/mcp?k=••••&page=2");
        assert_eq!(url("http://h/hunter2xyz/mcp"), "http://h/••••/mcp");
        assert_eq!(command("srv --k hunter2xyz 'a hunter2xyz b'"), "srv --k •••• 'a •••• b'");
        assert_eq!(command("srv --q 'it'\"'\"'s-Q' -v"), "srv --q •••• -v");
        assert_eq!(header_value("X-Team", "Bearer hunter2xyz"), "•••• (17 chars)");
        assert_eq!(header_value("X-Team", "blue"), "blue");
        assert_eq!(
            expanded("cannot connect to http://h/?k=hunter2xyz: refused"),
            "cannot connect to http://h/?k=••••: refused"
        );
        assert_eq!(urls_in("see hunter2xyz"), "see ••••");
        let message = serde_json::json!({"note": "k=hunter2xyz", "n": 1});
        assert_eq!(json_message(&message), Some(serde_json::json!({"note": "k=••••", "n": 1})));
        // A case file names the variable again, so the case reaches the same server.
        let mut named = |name: &str, _: &str| format!("${{{name}}}");
        assert_eq!(url_with("http://h/mcp?k=hunter2xyz", &mut named), "http://h/mcp?k=${SECRET}");
        assert_eq!(command_with("srv --k hunter2xyz", &mut named), "srv --k ${SECRET}");
    }

    #[test]
    fn a_path_with_a_secret_word_is_not_a_header() {
        assert_eq!(command("test --exact keys_pty::hello"), "test --exact keys_pty::hello");
        assert_eq!(command("curl -H 'X-Api-Key: abc'"), "curl -H 'X-Api-Key: ••••'".replace('\'', ""));
    }

    #[test]
    fn secret_header_names() {
        for name in ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token"] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["Content-Type", "Accept", "User-Agent", "Mcp-Protocol-Version"] {
            assert!(!is_secret_name(name), "{name}");
        }
        assert_eq!(header_value("X-Api-Key", "abc"), "•••• (3 chars)");
        assert_eq!(header_value("Accept", "text/plain"), "text/plain");
    }

    #[test]
    fn urls_lose_passwords_and_secret_parameters() {
        assert_eq!(url("http://user:PW@host:8080/mcp"), "http://user:••••@host:8080/mcp");
        assert_eq!(url("https://TOKEN@host/x"), "https://••••@host/x");
        assert_eq!(url("http://h/mcp?api_key=S&page=2#top"), "http://h/mcp?api_key=••••&page=2#top");
        assert_eq!(url("http://h/mcp?q=1"), "http://h/mcp?q=1");
        assert_eq!(url("not a url"), "not a url");
    }

    #[test]
    fn a_request_path_loses_its_secret_parameters() {
        assert_eq!(path_and_query("/mcp?api_key=S&token=T&page=2"), "/mcp?api_key=••••&token=••••&page=2");
        assert_eq!(path_and_query("/mcp"), "/mcp");
        assert_eq!(path_and_query("//x@y/mcp?key=S"), "//x@y/mcp?key=••••");
        assert_eq!(path_and_query("http://h/mcp?api_key=S"), "http://h/mcp?api_key=••••");
    }

    #[test]
    fn percent_encoded_secret_names_are_masked_too() {
        assert_eq!(url("http://h/mcp?api%5Fkey=S&page=2"), "http://h/mcp?api%5Fkey=••••&page=2");
        assert_eq!(url("http://h/mcp?%61ccess_%74oken=S"), "http://h/mcp?%61ccess_%74oken=••••");
        assert_eq!(url("http://h/mcp?q%5F=1"), "http://h/mcp?q%5F=1");
        let mut named = |name: &str, _: &str| format!("${{{}}}", name.to_ascii_uppercase());
        assert_eq!(url_with("http://h/?api%5Fkey=S", &mut named), "http://h/?api%5Fkey=${API_KEY}");
    }

    #[test]
    fn commands_lose_secret_options() {
        assert_eq!(command("server --api-key=S --port 1"), "server --api-key=•••• --port 1");
        assert_eq!(command("server --token S --port 1"), "server --token •••• --port 1");
        assert_eq!(command("API_KEY=S node s.js"), "API_KEY=•••• node s.js");
        assert_eq!(command("node s.js http://u:p@h/"), "node s.js http://u:••••@h/");
        assert_eq!(command("http://u:p@h/?api_key=k"), "http://u:••••@h/?api_key=••••");
        assert_eq!(command("node build/index.js /tmp"), "node build/index.js /tmp");
    }

    #[test]
    fn commands_are_split_as_a_shell_would() {
        assert_eq!(command("srv --password 'A B' --port 1"), "srv --password •••• --port 1");
        assert_eq!(command("srv --secret=\"A B\" -v"), "srv --secret=•••• -v");
        assert_eq!(command("srv --token\tS3CR3T -v"), "srv --token\t•••• -v");
        assert_eq!(command("srv --api-key=S\t--x"), "srv --api-key=••••\t--x");
        assert_eq!(command("srv --token A\\ B"), "srv --token ••••");
        assert_eq!(command("srv --password 'unclosed and more"), "srv --password ••••");
        assert_eq!(command("srv --header 'X-Api-Key: S' -q"), "srv --header X-Api-Key: •••• -q");
        assert_eq!(command("srv --url='http://u:p@h/'"), "srv --url=http://u:••••@h/");
        assert_eq!(command("srv 'a b'  \"c\""), "srv 'a b'  \"c\"");
        for line in ["srv --password 'A B'", "srv --secret=\"A B\"", "srv --token\tAB", "PASSWORD='A B' srv"] {
            let shown = command(line);
            assert!(!shown.contains('A') || !shown.contains('B'), "{line:?} → {shown:?}");
        }
    }

    #[test]
    fn oauth_bodies_lose_their_secrets_and_keep_their_addresses() {
        let answer = serde_json::json!({
            "access_token": "AT-1", "refresh_token": "RT-1", "id_token": "ID-1", "token_type": "Bearer",
            "expires_in": 3600, "client_secret": "CS-1", "client_secret_expires_at": 0,
            "token_endpoint": "http://as/token", "token_endpoint_auth_methods_supported": ["none"],
            "authorization_servers": ["http://as"], "nested": [{"registration_access_token": "RAT-1"}],
        });
        let shown = json_body(&answer).to_string();
        for secret in ["AT-1", "RT-1", "ID-1", "CS-1", "RAT-1"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        for kept in ["Bearer", "3600", "http://as/token", "\"none\"", "http://as\""] {
            assert!(shown.contains(kept), "{kept} lost from {shown}");
        }
        let form = form_body(
            "grant_type=authorization_code&code=C0DE&code_verifier=V%2B1&client_secret=S&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback&refresh_token=R",
        );
        assert_eq!(
            form,
            "grant_type=authorization_code&code=•••• (4 chars)&code_verifier=•••• (3 chars)&client_secret=•••• (1 chars)&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback&refresh_token=•••• (1 chars)"
        );
    }
}
