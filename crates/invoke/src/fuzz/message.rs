//! What a server said, made into the shape of its cause: the values of the input it repeats
//! taken out (a store's "X not found" is one cause whatever X was), then quoted values, paths
//! and numbers made alike, so that one way of failing is one finding however many inputs drew it.

use serde_json::Value;

/// Pieces of an input looked for in a message, at most.
const MAX_PIECES: usize = 64;
/// How deep into the input values are taken as pieces.
const MAX_DEPTH: usize = 8;

/// The cause's shape of `message` said for `arguments`: every value of the input (and its
/// words, numbers, and the JSON of its parts) taken out, then [`normalise`]d.
pub fn shape(message: &str, arguments: &Value) -> String {
    normalise(&without_input(message, arguments))
}

/// `message` with each piece of `arguments` it repeats replaced by `V`: whole values, their
/// words and the JSON text of arrays and objects, longest first, each only where it stands as a
/// word of its own (`x` is taken out of "item x missing", not out of "max").
pub fn without_input(message: &str, arguments: &Value) -> String {
    let first = message.lines().next().unwrap_or_default();
    let mut pieces = Vec::new();
    collect_pieces(arguments, &mut pieces, 0, true);
    pieces.sort_by_key(|p| std::cmp::Reverse(p.len()));
    pieces.dedup();
    let mut out = first.to_string();
    for piece in &pieces {
        if out.contains(piece.as_str()) {
            out = replace_words(&out, piece);
        }
    }
    // An empty value between two words leaves two spaces ("Task  not found"): where the input
    // holds one, that is the value too.
    if has_blank(arguments, 0) && out.contains("  ") {
        out = out.replace("  ", " V ");
    }
    out
}

/// Whether a string of the input is empty or only blanks.
fn has_blank(value: &Value, depth: usize) -> bool {
    match value {
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) if depth < MAX_DEPTH => items.iter().any(|v| has_blank(v, depth + 1)),
        Value::Object(map) if depth < MAX_DEPTH => map.values().any(|v| has_blank(v, depth + 1)),
        _ => false,
    }
}

fn collect_pieces(value: &Value, out: &mut Vec<String>, depth: usize, root: bool) {
    if depth > MAX_DEPTH || out.len() >= MAX_PIECES {
        return;
    }
    match value {
        Value::String(text) => {
            let text = text.trim();
            if !text.is_empty() {
                out.push(text.to_string());
                // As a JSON text too: a message that quotes it with escapes.
                let json = Value::String(text.to_string()).to_string();
                if json.len() > text.len() + 2 {
                    out.push(json);
                }
            }
            let words = text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3);
            out.extend(words.take(MAX_PIECES).map(str::to_string));
        }
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => {
            if !root && !items.is_empty() {
                out.push(value.to_string());
            }
            items.iter().take(MAX_PIECES).for_each(|v| collect_pieces(v, out, depth + 1, false));
        }
        Value::Object(map) => {
            if !root && !map.is_empty() {
                out.push(value.to_string());
            }
            map.values().take(MAX_PIECES).for_each(|v| collect_pieces(v, out, depth + 1, false));
        }
        // `true`, `false`, `null` as the message writes them, when they are a field's value.
        Value::Bool(_) | Value::Null if !root => out.push(value.to_string()),
        Value::Bool(_) | Value::Null => {}
    }
    out.truncate(MAX_PIECES);
}

/// `text` with `piece` replaced by `V` wherever it stands on its own: a piece that begins (or
/// ends) with a letter or digit not inside a longer word, one that begins (or ends) with a sign
/// ("-", "/") only between spaces, quotes, brackets or punctuation, so that a value "-" is
/// taken out of "Task - not found" and not out of "non-negative".
fn replace_words(text: &str, piece: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let apart = |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || "'\"`()[]{}<>,;:.!?=".contains(c));
    let stands = |edge: Option<char>, neighbour: Option<char>| match edge {
        Some(edge) if word(edge) => !neighbour.is_some_and(word),
        _ => apart(neighbour),
    };
    let (first, last) = (piece.chars().next(), piece.chars().next_back());
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(piece) {
        let before = rest[..at].chars().next_back().or_else(|| out.chars().next_back());
        let after = rest[at + piece.len()..].chars().next();
        let whole = stands(first, before) && stands(last, after);
        out.push_str(&rest[..at]);
        out.push_str(if whole { "V" } else { piece });
        rest = &rest[at + piece.len()..];
    }
    out.push_str(rest);
    out
}

/// A message with what varies from input to input made alike: quoted values, paths and
/// numbers, so that `ENOENT: '/a'` and `ENOENT: '/b'` are one cause.
pub fn normalise(message: &str) -> String {
    let chars: Vec<char> = message.lines().next().unwrap_or_default().chars().collect();
    let mut out = String::with_capacity(chars.len().min(200));
    let mut word = String::new();
    let mut i = 0;
    while i < chars.len() && out.len() <= 200 {
        let c = chars[i];
        // A quote opens a value unless it is an apostrophe (a letter before it: "doesn't").
        let opens = matches!(c, '\'' | '"' | '`') && !i.checked_sub(1).is_some_and(|p| chars[p].is_alphanumeric());
        if opens {
            push_word(&mut out, &std::mem::take(&mut word));
            out.push('Q');
            i = closing_quote(&chars, i) + 1;
        } else if c == ' ' {
            push_word(&mut out, &std::mem::take(&mut word));
            // Spaces in a row are one: an empty value between two words leaves two.
            if !out.ends_with(' ') {
                out.push(' ');
            }
            i += 1;
        } else {
            word.push(c);
            i += 1;
        }
    }
    push_word(&mut out, &word);
    out
}

/// Where the value quoted at `open` ends: the same quote, not escaped (`\"` in a JSON text), at
/// the end of a word (the line's end, a space, or a punctuation mark before one), so that an
/// unescaped quote inside the value (as zod writes `received "a"-b"`) does not end it; the end
/// of the line if none.
fn closing_quote(chars: &[char], open: usize) -> usize {
    let quote = chars[open];
    let ends_word = |at: usize| match chars.get(at) {
        None => true,
        Some(c) if c.is_whitespace() => true,
        Some(c) if ",.;:!?)]}".contains(*c) => chars.get(at + 1).is_none_or(|n| n.is_whitespace()),
        Some(_) => false,
    };
    (open + 1..chars.len())
        .find(|&j| chars[j] == quote && chars[j - 1] != '\\' && ends_word(j + 1))
        .unwrap_or(chars.len())
}

/// One word made alike: a path is P, each number N (with its sign, point and exponent: -1, 0,
/// 5e-324 and -8.5e+307 are one cause, "Invalid resourceId: N", not four).
fn push_word(out: &mut String, word: &str) {
    if word.contains('/') || word.contains('\\') {
        out.push('P');
        return;
    }
    let mut number = false;
    let mut previous = ' ';
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        let signed = matches!(c, '-' | '+') && chars.peek().is_some_and(char::is_ascii_digit);
        let in_number =
            number && (matches!(c, '.' | 'e' | 'E') || (matches!(c, '-' | '+') && matches!(previous, 'e' | 'E')));
        if c.is_ascii_digit() || in_number || (signed && !number) {
            if !number {
                out.push('N');
            }
            number = true;
        } else {
            number = false;
            out.push(c);
        }
        previous = c;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn one_message_with_other_numbers_is_one_cause() {
        // server-everything's get-resource-reference, as four inputs drew it.
        let said = |n: &str| normalise(&format!("Invalid resourceId: {n}. Must be a finite positive integer."));
        for n in ["-1", "-8.5e+307", "5e-324", "1.5", "+3"] {
            assert_eq!(said(n), said("0"), "{n}");
        }
        assert_eq!(normalise("ENOENT: open '/srv/a b'"), normalise("ENOENT: open '/srv/c'"));
        assert_ne!(normalise("a - b"), normalise("a N b"), "a dash alone is not a number");
        // A received value with quotes inside, escaped (JSON) or not (zod), or a slash.
        let received = |v: &str| normalise(&format!("Expected boolean, received {v} at more"));
        for v in [r#""a \"b\" c""#, r#""a"b""#, r#""a"-b c""#, r#""/""#, r#""x y/z""#] {
            assert_eq!(received(v), received(r#""""#), "{v}");
        }
        assert_eq!(normalise("it doesn't exist: 'a'"), "it doesn't exist: Q", "an apostrophe opens nothing");
    }

    #[test]
    fn a_message_that_repeats_the_input_is_one_shape_whatever_the_value() {
        // A store's answer with the random name bare, as the grouping by quotes missed.
        let said = |name: &str| shape(&format!("Task {name} not found in project alpha"), &json!({"id": name}));
        for name in ["hello", "x", "Z", "a b", "é日本", "beta42", "path/to", "null", "", " a ", "-", "_", "%s"] {
            assert_eq!(said(name), said("ok"), "{name}");
        }
        assert_eq!(said("ok"), "Task V not found in project alpha");
        assert_eq!(said(""), said("ok"), "an empty name leaves two spaces");
        // A word of a longer value, the JSON of a nested one, a number inside a name.
        let args = json!({"title": "buy milk today", "tags": ["a", "b"], "n": 77});
        assert_eq!(without_input("no list named milk", &args), "no list named V");
        assert_eq!(without_input("bad tags [\"a\",\"b\"] here", &args), "bad tags V here");
        assert_eq!(without_input("item-77 gone", &args), "item-V gone");
        // Only whole words: a short value does not eat the letters of the message's own words.
        assert_eq!(without_input("max reached", &json!({"s": "x"})), "max reached");
        assert_eq!(without_input("a required field", &json!({"s": "-"})), "a required field");
        assert_eq!(without_input("must be non-negative", &json!({"s": "-"})), "must be non-negative");
        assert_eq!(without_input("bad name: '-'", &json!({"s": "-"})), "bad name: 'V'");
    }
}
