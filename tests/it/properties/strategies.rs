//! Generators shared by the properties: JSON values, text that looks like the formats (so that
//! random input gets past the first byte), and mutations of real files.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// Any character, control characters, surrogate neighbours and the odd line breaks included.
pub fn any_string(max: usize) -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-z_]{0,8}",
        2 => prop::collection::vec(any::<char>(), 0..max).prop_map(String::from_iter),
        1 => prop::collection::vec(
            prop::sample::select(vec!['\n', '\r', '\t', '\0', '\u{7f}', '\u{85}', '\u{2028}', '\u{FEFF}', '\u{FFFF}',
                '"', '\'', '\\', '$', '{', '}', 'é', '😀', '#', ':', '-', ' ']),
            0..max,
        ).prop_map(String::from_iter),
    ]
    .boxed()
}

/// A finite number as JSON has them: integers at and near the edges, and floats.
pub fn json_number() -> BoxedStrategy<Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        prop::sample::select(vec![
            Value::from(i64::MIN),
            Value::from(i64::MAX),
            Value::from(u64::MAX),
            Value::from(0),
            Value::from(-1),
            Value::from(0.5),
            Value::from(-0.0),
            Value::from(1e300),
            Value::from(5e-324),
            Value::from(3.0),
        ]),
    ]
    .boxed()
}

pub fn json_leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        json_number(),
        any_string(12).prop_map(Value::String),
    ]
    .boxed()
}

/// Any JSON value, a few levels deep.
pub fn json_value() -> BoxedStrategy<Value> {
    json_leaf()
        .prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((any_string(8), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
            ]
        })
        .boxed()
}

/// A JSON object whose keys are drawn mostly from `keys`, values from `value`: bodies that a
/// reader of that shape looks into, rather than objects it ignores at the first key.
pub fn object_with_keys(
    keys: &'static [&'static str],
    value: impl Strategy<Value = Value> + 'static,
) -> BoxedStrategy<Value> {
    let key = prop_oneof![4 => prop::sample::select(keys).prop_map(str::to_string), 1 => any_string(6)];
    prop::collection::vec((key, value), 0..6).prop_map(|members| Value::Object(members.into_iter().collect())).boxed()
}

/// How a seed file is damaged: the edits a truncated download, a bad merge or a flipped bit make.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// Keep only the first part (a truncated file).
    Truncate(prop::sample::Index),
    /// Remove a slice.
    Cut(prop::sample::Index, usize),
    /// Repeat a slice right after itself.
    Duplicate(prop::sample::Index, usize),
    /// XOR a byte.
    Flip(prop::sample::Index, u8),
    /// Insert bytes that mean something to a parser.
    Insert(prop::sample::Index, Vec<u8>),
    /// Overwrite a byte with one that means something to a parser.
    Replace(prop::sample::Index, u8),
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    let index = any::<prop::sample::Index>();
    let special = prop::sample::select(b"{}[],:\"'\\/*\n\r 0-+.eE#&!|>-?tfnNI\x00\xff\xc3".to_vec());
    prop_oneof![
        index.clone().prop_map(Mutation::Truncate),
        (index.clone(), 1usize..64).prop_map(|(i, n)| Mutation::Cut(i, n)),
        (index.clone(), 1usize..256).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        (index.clone(), 1u8..=255).prop_map(|(i, x)| Mutation::Flip(i, x)),
        (index.clone(), prop::collection::vec(special.clone(), 1..4)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (index, special).prop_map(|(i, b)| Mutation::Replace(i, b)),
    ]
}

pub fn mutate(bytes: &mut Vec<u8>, mutation: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let len = bytes.len();
    match mutation {
        Mutation::Truncate(i) => bytes.truncate(i.index(len)),
        Mutation::Cut(i, n) => {
            let start = i.index(len);
            bytes.drain(start..(start + n).min(len));
        }
        Mutation::Duplicate(i, n) => {
            let start = i.index(len);
            let slice = bytes[start..(start + n).min(len)].to_vec();
            let at = start + slice.len();
            bytes.splice(at..at, slice);
        }
        Mutation::Flip(i, x) => bytes[i.index(len)] ^= x,
        Mutation::Insert(i, b) => {
            let at = i.index(len + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Replace(i, b) => bytes[i.index(len)] = *b,
    }
}

/// A few mutations in a row.
pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 1..4)
}

/// Tokens of YAML case files, including what YAML treats specially: random strings of these
/// reach far more of a YAML reader than random characters do.
pub fn yaml_soup() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "cases:",
        "cases: ",
        "endpoint: http://x\n",
        "defs: [d]\n",
        "\n",
        "\r\n",
        "\r",
        "  ",
        "    ",
        "\t",
        "- ",
        "-",
        "  - ",
        "tool: t",
        "name: n",
        "args:",
        "expect:",
        "{status: value}",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        ": ",
        "#",
        "# c\n",
        "&a ",
        "*a",
        "'",
        "\"",
        "|\n",
        ">-\n",
        "? ",
        "!!str ",
        "---\n",
        "...\n",
        "é",
        "😀",
        "\u{FEFF}",
        "\u{85}",
        "\u{2028}",
        "null",
        "~",
        "1",
        "-1.5e3",
        "true",
        "${X}",
        "%YAML 1.2\n",
        "<<: *a\n",
        "\0",
    ]);
    prop::collection::vec(token, 0..40).prop_map(|tokens| tokens.concat())
}

/// JSON-ish tokens, for the JSON5 parser and the definition formats.
pub fn json_soup() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "'",
        "\\",
        "\\u",
        "\\ud83d",
        "\\x4",
        "d800",
        "a",
        "tools",
        "\"name\"",
        "\"type\"",
        "\"object\"",
        "\"properties\"",
        "\"inputSchema\"",
        "\"parameters\"",
        "\"function\"",
        "$ref",
        "\"#/$defs/x\"",
        "NaN",
        "-Infinity",
        "Infinity",
        "+",
        "-",
        ".",
        "0x",
        "0xFFFFFFFFFFFFFFFFF",
        "1e999",
        "1",
        "0",
        "e",
        "true",
        "null",
        "//",
        "/*",
        "*/",
        "\n",
        "\r",
        " ",
        "\u{2028}",
        "\u{FEFF}",
        "é",
        "😀",
        "\u{0}",
    ]);
    prop::collection::vec(token, 0..48).prop_map(|tokens| tokens.concat())
}
