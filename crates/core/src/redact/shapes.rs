//! Values that are secrets by their shape, wherever they stand: `Bearer …`, a JWT, and the
//! prefixes well-known services give their keys (`sk-`, `ghp_`, `github_pat_`, `xoxb-`, `AKIA`,
//! `glpat-`). A shape starts at a word's start and needs a key's length and characters, so
//! `task-1`, `desk-lamp` or "Bearer tokens expire" are left alone.

use std::borrow::Cow;

use super::Replace;

/// A key prefix, the least number of characters after it, and whether those must hold a digit
/// (a long kebab-case word after `sk-` is a name, not a key).
struct Prefix {
    prefix: &'static str,
    least: usize,
    most: usize,
    digit: bool,
}

const PREFIXES: &[Prefix] = &[
    Prefix { prefix: "sk-", least: 20, most: usize::MAX, digit: true },
    Prefix { prefix: "ghp_", least: 30, most: usize::MAX, digit: false },
    Prefix { prefix: "gho_", least: 30, most: usize::MAX, digit: false },
    Prefix { prefix: "ghu_", least: 30, most: usize::MAX, digit: false },
    Prefix { prefix: "ghs_", least: 30, most: usize::MAX, digit: false },
    Prefix { prefix: "ghr_", least: 30, most: usize::MAX, digit: false },
    Prefix { prefix: "github_pat_", least: 22, most: usize::MAX, digit: false },
    Prefix { prefix: "xoxb-", least: 10, most: usize::MAX, digit: true },
    Prefix { prefix: "xoxp-", least: 10, most: usize::MAX, digit: true },
    Prefix { prefix: "xoxa-", least: 10, most: usize::MAX, digit: true },
    Prefix { prefix: "glpat-", least: 20, most: usize::MAX, digit: false },
    Prefix { prefix: "AKIA", least: 16, most: 16, digit: false },
];

/// Characters of a key after its prefix.
fn key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// Characters of a bearer token (RFC 6750's `b64token`).
fn bearer_char(c: u8) -> bool {
    key_char(c) || b"._~+/=".contains(&c)
}

/// A credential found in a text: its byte span and the name it is given in a placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub name: &'static str,
}

/// Every credential-shaped value in `text`, in order, not overlapping. One pass: each word is
/// looked at from its start only, and skipped whole when no shape can start there (a server's
/// answer may hold megabytes of text).
pub fn find(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    // A text without any shape's first letter is left at once (`contains` on bytes is memchr).
    if !FIRST_LETTERS.iter().any(|letter| bytes.contains(letter)) {
        return found;
    }
    let mut at = 0;
    while at < bytes.len() {
        if !key_char(bytes[at]) {
            at += 1;
            continue;
        }
        if let Some(shape) = shape_at(bytes, at) {
            at = shape.end;
            found.push(shape);
            continue;
        }
        at += bytes[at..].iter().position(|&c| !key_char(c)).unwrap_or(bytes.len() - at);
    }
    found
}

/// The first letters of every shape.
const FIRST_LETTERS: [u8; 7] = [b'b', b'B', b'e', b's', b'g', b'x', b'A'];

/// The shape that starts at `at`, when one does.
fn shape_at(bytes: &[u8], at: usize) -> Option<Found> {
    // Most words are left at once.
    if !FIRST_LETTERS.contains(&bytes[at]) {
        return None;
    }
    let run = |from: usize, allowed: fn(u8) -> bool| {
        from + bytes[from.min(bytes.len())..].iter().take_while(|&&c| allowed(c)).count()
    };
    let rest = &bytes[at..];
    if rest.len() > 7 && rest[..6].eq_ignore_ascii_case(b"bearer") && rest[6] == b' ' {
        let start = at + 6 + rest[6..].iter().take_while(|&&c| c == b' ').count();
        let end = run(start, bearer_char);
        return looks_random(&bytes[start..end]).then_some(Found { start, end, name: "token" });
    }
    if rest.starts_with(b"eyJ") {
        let end = run(at, |c| key_char(c) || c == b'.');
        let parts: Vec<&[u8]> = bytes[at..end].split(|&c| c == b'.').collect();
        if parts.len() == 3 && parts[0].len() >= 10 && parts[1].len() >= 10 {
            return Some(Found { start: at, end, name: "token" });
        }
    }
    let end = run(at, key_char);
    let word = &bytes[at..end];
    PREFIXES.iter().find_map(|p| {
        let tail = word.strip_prefix(p.prefix.as_bytes())?;
        let fits = (p.least..=p.most).contains(&tail.len())
            && (!p.digit || tail.iter().any(u8::is_ascii_digit))
            && (p.prefix != "AKIA" || tail.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()));
        fits.then_some(Found { start: at, end, name: "api_key" })
    })
}

/// A bearer credential, not a word: long enough, with a digit, a mark or both cases in it.
fn looks_random(token: &[u8]) -> bool {
    token.len() >= 8
        && (token.iter().any(|c| !c.is_ascii_alphabetic())
            || (token.iter().any(u8::is_ascii_uppercase) && token.iter().any(u8::is_ascii_lowercase)))
}

/// `text` with each credential-shaped value replaced by what `replace` gives for
/// `(name, value)`.
pub fn replace_in<'a>(text: &'a str, replace: Replace) -> Cow<'a, str> {
    let found = find(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for Found { start, end, name } in found {
        out.push_str(&text[copied..start]);
        out.push_str(&replace(name, &text[start..end]));
        copied = end;
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
    fn credential_shapes_are_found_wherever_they_stand() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        let cases = [
            ("Authorization was Bearer abc123def456", "Authorization was Bearer ••••"),
            ("bearer  tok.en-9_x~", "bearer  ••••"),
            (&format!("got {jwt} back"), "got •••• back"),
            ("key=sk-proj-a1B2c3D4e5F6g7H8i9J0kLmN", "key=••••"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "••••"),
            ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "••••"),
            ("slack xoxb-1234567890-abcdef", "slack ••••"),
            ("id AKIAIOSFODNN7EXAMPLE.", "id ••••."),
            ("(glpat-abcdefghij0123456789)", "(••••)"),
        ];
        for (text, shown) in cases {
            assert_eq!(masked(text), shown, "{text}");
        }
    }

    #[test]
    fn near_misses_are_left_alone() {
        for text in [
            "task-1234567890123456789012345",
            "desk-lamp-with-a-very-long-name-indeed",
            "sk-this-is-a-long-kebab-case-name",
            "sk-short1",
            "Bearer tokens expire after an hour",
            "Bearer abc",
            "AKIAIOSFODNN7EXAMPLEX",
            "AKIAiosfodnn7example",
            "eyJustAWord",
            "ghp_short",
            "mask-of-task-12",
        ] {
            assert_eq!(masked(text), text);
        }
        assert!(matches!(replace_in("plain", &mut |_, _| String::new()), Cow::Borrowed(_)));
    }

    #[test]
    fn a_placeholder_is_named_for_the_kind_of_credential() {
        let mut named = |name: &str, _: &str| format!("${{{}}}", name.to_ascii_uppercase());
        assert_eq!(replace_in("Bearer abc123def456", &mut named), "Bearer ${TOKEN}");
        assert_eq!(replace_in("sk-a1B2c3D4e5F6g7H8i9J0kL", &mut named), "${API_KEY}");
    }
}
