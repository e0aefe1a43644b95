//! A message's bytes read as JSON, however deep it nests (up to [`MAX_DEPTH`]): what the frame,
//! the interceptor and the record's readers all read with.

use serde_json::Value;

/// What the record and the live view say of a message nested deeper than [`MAX_DEPTH`]: it is
/// not read, so neither kept nor shown as text (its secrets could not be found to mask).
pub const TOO_DEEP: &str = "nested deeper than 512 levels: not read, its text not kept";

/// How deep a message may nest and still be read. serde_json stops at 128 levels to stay within
/// a thread's stack; a deeper message (JSON-RPC allows any depth) is read on a stack of its own,
/// up to this. Past it, reading it (and walking it to mask its secrets) would cost too much.
pub const MAX_DEPTH: usize = 512;

/// serde_json's own limit: a message nested deeper is read on a stack of its own.
const USUAL_DEPTH: usize = 128;

/// The stack a deep message is read on: room for [`MAX_DEPTH`] levels of serde_json's parser
/// in a debug build, reserved, not touched, until used.
const DEEP_STACK: usize = 32 * 1024 * 1024;

/// Why bytes are not read as a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unread {
    NotJson,
    /// Nested deeper than [`MAX_DEPTH`] (JSON or not: it was not read to tell).
    TooDeep,
}

/// `raw` as JSON, however deep it nests up to [`MAX_DEPTH`].
pub fn parse_json(raw: &[u8]) -> Result<Value, Unread> {
    parse_within(raw, MAX_DEPTH)
}

/// A record line (or a live feed's) as JSON: it holds a message one level down, so it may nest
/// one level deeper than [`MAX_DEPTH`].
pub fn parse_record_line(raw: &[u8]) -> Result<Value, Unread> {
    parse_within(raw, MAX_DEPTH + 1)
}

fn parse_within(raw: &[u8], max_depth: usize) -> Result<Value, Unread> {
    if let Ok(value) = serde_json::from_slice(raw) {
        return Ok(value);
    }
    match nesting(raw) {
        depth if depth <= USUAL_DEPTH => Err(Unread::NotJson),
        depth if depth > max_depth => Err(Unread::TooDeep),
        _ => stacker::grow(DEEP_STACK, || {
            use serde::Deserialize as _;
            let mut reader = serde_json::Deserializer::from_slice(raw);
            reader.disable_recursion_limit();
            let value = Value::deserialize(&mut reader).and_then(|value| reader.end().map(|()| value));
            value.map_err(|_| Unread::NotJson)
        }),
    }
}

/// How deep `raw` nests its arrays and objects (brackets inside strings aside), counted up to
/// two past [`MAX_DEPTH`].
fn nesting(raw: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &byte in raw {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                if deepest > MAX_DEPTH + 1 {
                    return deepest;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_counted_outside_strings_and_read_up_to_the_limit() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(parse_json(nested(MAX_DEPTH - 1).as_bytes()).map(|_| ()), Ok(()));
        assert_eq!(parse_json(nested(MAX_DEPTH + 1).as_bytes()), Err(Unread::TooDeep));
        assert_eq!(parse_record_line(nested(MAX_DEPTH + 1).as_bytes()).map(|_| ()), Ok(()), "one level more");
        assert_eq!(parse_json(format!("{}x", nested(200)).as_bytes()), Err(Unread::NotJson));
        assert_eq!(parse_json(br#""[[[[" "#), Ok(Value::String("[[[[".into())), "brackets in a string");
        assert_eq!(nesting(br#"{"a":"\"[[[[","b":[1]}"#), 2, "an escaped quote ends no string");
        assert_eq!(nesting(br#"{"a":"\\","b":[[1]]}"#), 3, "an escaped backslash does");
        assert!(TOO_DEEP.contains(&MAX_DEPTH.to_string()));
    }
}
