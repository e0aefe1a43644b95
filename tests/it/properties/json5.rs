//! The JSON / JSONC / JSON5 parser: total on any text, exact on any JSON, and its positions
//! (of values and of errors) point into the text where they should.

use proptest::prelude::*;
use serde_json::{Map, Value};
use tooldeck::catalog::document::{Document, Node, NonFinite};

use super::strategies::{any_string, json_leaf, json_soup, json_value, mutate, mutations};

/// A value as written in a JSON5 file: duplicate keys and `NaN`/`Infinity` included, which a
/// `serde_json::Value` cannot hold.
#[derive(Debug, Clone)]
enum Written {
    Leaf(Value),
    NonFinite(NonFinite),
    Array(Vec<Written>),
    Object(Vec<(String, Written)>),
}

fn written() -> impl Strategy<Value = Written> {
    let non_finite = prop::sample::select(vec![NonFinite::NaN, NonFinite::Infinity, NonFinite::NegativeInfinity]);
    let leaf = prop_oneof![4 => json_leaf().prop_map(Written::Leaf), 1 => non_finite.prop_map(Written::NonFinite)];
    // Few distinct keys, so that duplicates are common.
    let key = prop_oneof![3 => prop::sample::select(vec!["a", "b", "c", "$d", "_e"]).prop_map(str::to_string),
        1 => any_string(6)];
    leaf.prop_recursive(4, 40, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Written::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(Written::Object),
        ]
    })
}

/// What the parser must make of a written value: the last duplicate wins and moves to the end of
/// the map (as `Document` documents it), non-finite numbers read as null.
fn expected(w: &Written) -> Value {
    match w {
        Written::Leaf(v) => v.clone(),
        Written::NonFinite(_) => Value::Null,
        Written::Array(items) => Value::Array(items.iter().map(expected).collect()),
        Written::Object(members) => {
            let mut map = Map::new();
            for (k, v) in members {
                map.shift_remove(k);
                map.insert(k.clone(), expected(v));
            }
            Value::Object(map)
        }
    }
}

/// A tiny deterministic generator for the printer's style choices (proptest shrinks the seed).
struct Style(u64);

impl Style {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[(self.next() % options.len() as u64) as usize]
    }
}

/// One value in pre-order as printed: where it starts and whether it was `NaN`/`Infinity`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Printed {
    offset: usize,
    non_finite: Option<NonFinite>,
}

/// Writes `w` as JSON5 in a style `style` picks (comments, odd whitespace, quotes, identifier
/// keys, hex, leading `+` and `.`, trailing commas) and returns the surviving values' pre-order
/// starts: what the parsed document's positions must be.
fn print(w: &Written, out: &mut String, style: &mut Style) -> Vec<Printed> {
    let offset = out.len();
    match w {
        Written::Leaf(value) => {
            print_leaf(value, out, style);
            vec![Printed { offset, non_finite: None }]
        }
        Written::NonFinite(kind) => {
            out.push_str(match kind {
                NonFinite::NaN => style.pick(&["NaN", "+NaN", "-NaN"]),
                NonFinite::Infinity => style.pick(&["Infinity", "+Infinity"]),
                NonFinite::NegativeInfinity => "-Infinity",
            });
            vec![Printed { offset, non_finite: Some(*kind) }]
        }
        Written::Array(items) => {
            out.push('[');
            let mut all = vec![Printed { offset, non_finite: None }];
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                trivia(out, style);
                all.extend(print(item, out, style));
                trivia(out, style);
            }
            if !items.is_empty() && style.one_in(3) {
                out.push(',');
                trivia(out, style);
            }
            out.push(']');
            all
        }
        Written::Object(members) => {
            out.push('{');
            let mut survivors: Vec<(&str, Vec<Printed>)> = Vec::new();
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                trivia(out, style);
                print_key(key, out, style);
                trivia(out, style);
                out.push(':');
                trivia(out, style);
                let printed = print(value, out, style);
                survivors.retain(|(k, _)| k != key);
                survivors.push((key, printed));
                trivia(out, style);
            }
            if !members.is_empty() && style.one_in(3) {
                out.push(',');
            }
            out.push('}');
            let mut all = vec![Printed { offset, non_finite: None }];
            all.extend(survivors.into_iter().flat_map(|(_, p)| p));
            all
        }
    }
}

fn trivia(out: &mut String, style: &mut Style) {
    if style.one_in(2) {
        return;
    }
    let options = [" ", "\n", "\r\n", "\t", "// line\n", "/* block */", "/**/", "\u{FEFF}", "\u{2028}", "\u{A0}", "  "];
    out.push_str(style.pick(&options));
}

fn print_key(key: &str, out: &mut String, style: &mut Style) {
    let identifier = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier && style.one_in(2) {
        out.push_str(key);
    } else {
        print_string(key, out, style);
    }
}

fn print_string(s: &str, out: &mut String, style: &mut Style) {
    if style.one_in(2) {
        out.push_str(&serde_json::to_string(s).unwrap());
        return;
    }
    let quote = if style.one_in(2) { '\'' } else { '"' };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if style.one_in(4) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c if (c as u32) < 0x80 && c != '\0' && style.one_in(4) => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
}

fn print_leaf(value: &Value, out: &mut String, style: &mut Style) {
    match value {
        Value::String(s) => print_string(s, out, style),
        Value::Number(n) => {
            let text = n.to_string();
            if let Some(u) = n.as_u64().filter(|_| style.one_in(3)) {
                out.push_str(&format!("{}0x{u:X}", if style.one_in(2) { "+" } else { "" }));
            } else if let Some(i) = n.as_i64().filter(|i| *i < 0 && style.one_in(3)) {
                out.push_str(&format!("-0x{:x}", i.unsigned_abs()));
            } else if let Some(rest) = text.strip_prefix("0.").filter(|_| style.one_in(2)) {
                out.push('.');
                out.push_str(rest);
            } else if !text.starts_with('-') && style.one_in(4) {
                out.push('+');
                out.push_str(&text);
            } else {
                out.push_str(&text);
            }
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The document's values in pre-order, with their positions and non-finite marks.
fn walk(node: Node, out: &mut Vec<Printed>) {
    out.push(Printed { offset: node.offset(), non_finite: node.non_finite() });
    match node.value() {
        Value::Array(_) => node.items().for_each(|item| walk(item, out)),
        Value::Object(_) => node.entries().for_each(|(_, child)| walk(child, out)),
        _ => {}
    }
}

#[track_caller]
fn assert_error_in_text(text: &str) {
    if let Err(e) = Document::parse(text) {
        assert!(e.offset <= text.len(), "error offset {} past the end ({}): {e:?}", e.offset, text.len());
        assert!(text.is_char_boundary(e.offset), "error offset {} inside a character: {e:?}", e.offset);
        assert!(!e.message.is_empty());
    }
}

proptest! {
    #![proptest_config(crate::properties::config(256))]

    #[test]
    fn never_panics_on_any_text(text in any_string(64)) {
        assert_error_in_text(&text);
    }

    #[test]
    fn never_panics_on_json_like_text(text in json_soup()) {
        assert_error_in_text(&text);
    }

    #[test]
    fn never_panics_on_any_bytes_read_lossily(bytes in prop::collection::vec(any::<u8>(), 0..128)) {
        assert_error_in_text(&String::from_utf8_lossy(&bytes));
    }

    /// Whatever serde_json writes, compact or pretty, reads back as the same value.
    #[test]
    fn any_json_reads_back_as_itself(value in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) }.unwrap();
        let doc = Document::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?} in {text}")))?;
        prop_assert_eq!(doc.value(), &value, "{}", text);
        prop_assert!(!doc.has_non_finite());
    }

    /// JSON5 spelled every way the printer knows, duplicate keys and NaN included: the value is
    /// what JavaScript would make of it, and every value's position is where it was written.
    #[test]
    fn json5_reads_back_with_positions(written in written(), seed in 1u64..) {
        let mut text = String::new();
        let mut style = Style(seed);
        trivia(&mut text, &mut style);
        let printed = print(&written, &mut text, &mut style);
        trivia(&mut text, &mut style);
        let doc = Document::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?} in {text:?}")))?;
        prop_assert_eq!(doc.value(), &expected(&written), "{:?}", text);
        let mut found = Vec::new();
        walk(doc.root(), &mut found);
        prop_assert_eq!(found, printed, "{:?}", text);
    }

    /// Broken JSON (a valid text cut, doubled, flipped) is refused or read, never a panic, and an
    /// error's position is inside the text.
    #[test]
    fn mutated_json_errors_point_into_the_text(value in json_value(), edits in mutations()) {
        let mut bytes = serde_json::to_vec_pretty(&value).unwrap();
        for edit in &edits {
            mutate(&mut bytes, edit);
        }
        assert_error_in_text(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn nesting_at_the_limit_reads_and_past_it_is_refused() {
    use tooldeck::catalog::document::MAX_DEPTH;
    let at = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(Document::parse(&at).is_ok());
    let past = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    assert!(Document::parse(&past).unwrap_err().message.contains("deeper than"));
}
