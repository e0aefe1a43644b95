//! The JSON / JSONC / JSON5 parser behind [`Document::parse`]: one pass that builds the value and
//! the pre-order table of positions together, keeps `NaN` apart from `null`, and refuses nesting
//! past [`MAX_DEPTH`] before it can overflow the stack.

use serde_json::{Map, Number, Value};

use super::document::{Document, MAX_DEPTH, NonFinite, Span, SyntaxError};
use crate::text::LineIndex;

mod split;

pub(super) fn parse(text: &str) -> Result<Document, SyntaxError> {
    parse_with(text, true)
}

fn parse_with(text: &str, may_split: bool) -> Result<Document, SyntaxError> {
    let mut parser = Parser::new(text, 0, Vec::new(), may_split);
    parser.skip_trivia()?;
    if parser.pos >= parser.bytes.len() {
        return Err(parser.error_at(0, "the file holds no JSON value (it is empty or only comments)"));
    }
    let value = parser.value()?;
    parser.skip_trivia()?;
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("unexpected text after the end of the JSON value"));
    }
    Ok(Document::new(value, parser.spans, parser.non_finite))
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Offsets of the arrays and objects still open, for "not closed" messages and the depth limit.
    open: Vec<usize>,
    spans: Vec<Span>,
    non_finite: Vec<(usize, NonFinite)>,
    /// A huge array may be parsed on several cores ([`split`]); not within a stretch of one.
    may_split: bool,
    /// The items of the arrays being read, innermost last: each array is gathered here and then
    /// moved out into a list of exactly its length, so no list grows by doubling (in a file of
    /// thousands of tools the spare room and the copies of growing were a fifth of the work).
    items: Vec<Value>,
    /// The members of the objects being read, innermost last, with the pre-order index of each
    /// value: an object's map is made once, at its exact size, with one hash of each key.
    members: Vec<Member>,
}

/// A member of an object being read: its key, its value and where the value's entries start in
/// the pre-order table.
struct Member {
    key: String,
    value: Value,
    start: usize,
}

/// Past this many members, an object finds its duplicate keys by hash rather than by looking at
/// every member before (a huge object would otherwise be quadratic).
const SCAN_MEMBERS: usize = 16;

impl<'a> Parser<'a> {
    fn new(text: &'a str, pos: usize, open: Vec<usize>, may_split: bool) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos,
            open,
            spans: Vec::new(),
            non_finite: Vec::new(),
            may_split,
            items: Vec::new(),
            members: Vec::new(),
        }
    }

    fn error(&self, message: impl Into<String>) -> SyntaxError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> SyntaxError {
        SyntaxError { offset, message: message.into() }
    }

    fn end_of_input(&self, expected: &str) -> SyntaxError {
        let mut message = format!("unexpected end of file, expected {expected}");
        if let Some(&opened) = self.open.last() {
            let (line, column) = LineIndex::new(self.text).line_col(opened);
            let what = if self.bytes[opened] == b'[' { "array" } else { "object" };
            message.push_str(&format!(
                "; the {what} opened at {line}:{column} is never closed, so the file looks truncated"
            ));
        }
        self.error(message)
    }

    fn peek_char(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        // Plain ASCII whitespace is nearly all there is; skip it without decoding characters.
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        while let Some(c) = self.peek_char() {
            match c {
                ' ' | '\t' | '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{A0}' | '\u{FEFF}' | '\u{2028}' | '\u{2029}' => {
                    self.pos += c.len_utf8()
                }
                '/' if self.bytes.get(self.pos + 1) == Some(&b'/') => {
                    self.pos = self.text[self.pos..].find('\n').map_or(self.bytes.len(), |i| self.pos + i);
                }
                '/' if self.bytes.get(self.pos + 1) == Some(&b'*') => {
                    let start = self.pos;
                    match self.text[self.pos + 2..].find("*/") {
                        Some(i) => self.pos += i + 4,
                        None => return Err(self.error_at(start, "this /* comment is never closed")),
                    }
                }
                c if c.is_whitespace() => self.pos += c.len_utf8(),
                _ => break,
            }
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        let offset = self.pos;
        let index = self.spans.len();
        self.spans.push(Span::at(offset));
        let value = match self.bytes.get(self.pos) {
            None => return Err(self.end_of_input("a value")),
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') | Some(b'\'') => Value::String(self.string()?),
            Some(b'-' | b'+' | b'.' | b'0'..=b'9') => match self.number()? {
                Ok(number) => Value::Number(number),
                Err(non_finite) => {
                    self.non_finite.push((index, non_finite));
                    Value::Null
                }
            },
            Some(_) => {
                let word = self.identifier();
                match word {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    "NaN" | "Infinity" => {
                        let kind = if word == "NaN" { NonFinite::NaN } else { NonFinite::Infinity };
                        self.non_finite.push((index, kind));
                        Value::Null
                    }
                    "" => {
                        let c = self.peek_char().unwrap_or(' ');
                        return Err(self.error(format!("unexpected character {}", describe_char(c))));
                    }
                    other => {
                        self.pos = offset;
                        return Err(self.error(format!(
                            "unexpected word `{}`: strings need quotes (only object keys may go without)",
                            other.chars().take(40).collect::<String>()
                        )));
                    }
                }
            }
        };
        let size = self.spans.len() - index;
        self.spans[index].set_size(size);
        Ok(value)
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        if self.open.len() >= MAX_DEPTH {
            return Err(self.error(format!(
                "nesting is deeper than {MAX_DEPTH} levels; no tool definition needs that, so the file is refused"
            )));
        }
        self.open.push(self.pos);
        self.pos += 1;
        Ok(())
    }

    fn array(&mut self) -> Result<Value, SyntaxError> {
        self.enter()?;
        if self.may_split && self.bytes.len() - self.pos >= split::MIN_BYTES {
            let before = (self.pos, self.spans.len(), self.non_finite.len());
            if let Some(items) = split::items(self) {
                return Ok(Value::Array(items));
            }
            // Not split: the one-core parser below reads it (and words any error).
            self.pos = before.0;
            self.spans.truncate(before.1);
            self.non_finite.truncate(before.2);
        }
        let base = self.items.len();
        loop {
            self.skip_trivia()?;
            match self.bytes.get(self.pos) {
                None => return Err(self.end_of_input("a value or `]`")),
                Some(b']') => break,
                _ => {}
            }
            let item = self.value()?;
            self.items.push(item);
            self.skip_trivia()?;
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => break,
                None => return Err(self.end_of_input("`,` or `]`")),
                Some(_) => return Err(self.error("expected `,` or `]` after an array item")),
            }
        }
        self.pos += 1;
        self.open.pop();
        // `drain` knows its length: the list is allocated once, at exactly that size.
        Ok(Value::Array(self.items.drain(base..).collect()))
    }

    fn object(&mut self) -> Result<Value, SyntaxError> {
        self.enter()?;
        let base = self.members.len();
        // Hashes of the keys so far, once the object is too big to scan for a duplicate.
        let mut hashes: Option<std::collections::HashSet<u64>> = None;
        loop {
            self.skip_trivia()?;
            let key = match self.bytes.get(self.pos) {
                None => return Err(self.end_of_input("a key or `}`")),
                Some(b'}') => break,
                Some(b'"' | b'\'') => self.string()?,
                Some(_) => {
                    let word = self.identifier();
                    if word.is_empty() {
                        let c = self.peek_char().unwrap_or(' ');
                        return Err(self.error(format!("expected a key, found {}", describe_char(c))));
                    }
                    word.to_string()
                }
            };
            self.skip_trivia()?;
            match self.bytes.get(self.pos) {
                Some(b':') => self.pos += 1,
                None => return Err(self.end_of_input("`:`")),
                Some(_) => return Err(self.error(format!("expected `:` after the key \"{key}\""))),
            }
            self.skip_trivia()?;
            let start = self.spans.len();
            let value = self.value()?;
            let seen = match &mut hashes {
                Some(hashes) => !hashes.insert(key_hash(&key)),
                None => true,
            };
            let start = if seen { self.drop_earlier(base, &key, start) } else { start };
            self.members.push(Member { key, value, start });
            if hashes.is_none() && self.members.len() - base > SCAN_MEMBERS {
                hashes = Some(self.members[base..].iter().map(|m| key_hash(&m.key)).collect());
            }
            self.skip_trivia()?;
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                None => return Err(self.end_of_input("`,` or `}`")),
                Some(_) => return Err(self.error("expected `,` or `}` after an object member")),
            }
        }
        self.pos += 1;
        self.open.pop();
        let mut map = Map::with_capacity(self.members.len() - base);
        for member in self.members.drain(base..) {
            map.insert(member.key, member.value);
        }
        Ok(Value::Object(map))
    }

    /// A member named `key` read before, in the object whose members start at `base`, is dropped:
    /// the last duplicate wins, as in JavaScript, and takes its place at the end. Its value's
    /// entries leave the pre-order table, so the members after it (and the new value, which
    /// started at `start`) move back; gives where the new value starts now.
    fn drop_earlier(&mut self, base: usize, key: &str, start: usize) -> usize {
        let Some(earlier) = self.members[base..].iter().position(|m| m.key == key) else {
            return start;
        };
        let dropped = self.members.remove(base + earlier);
        let removed = self.forget_subtree(dropped.start);
        for member in &mut self.members[base + earlier..] {
            member.start -= removed;
        }
        start - removed
    }

    /// Drops the pre-order entries of the subtree starting at `start`; returns how many.
    fn forget_subtree(&mut self, start: usize) -> usize {
        let size = self.spans[start].size();
        self.spans.drain(start..start + size);
        // `non_finite` is in pre-order: the subtree's entries are one run, and only those after
        // it move (a sweep over all of them made a file of many duplicate keys quadratic).
        let from = self.non_finite.partition_point(|(i, _)| *i < start);
        let to = self.non_finite.partition_point(|(i, _)| *i < start + size);
        self.non_finite.drain(from..to);
        for (i, _) in &mut self.non_finite[from..] {
            *i -= size;
        }
        size
    }

    fn identifier(&mut self) -> &'a str {
        let text = self.text;
        let start = self.pos;
        for (i, c) in text[start..].char_indices() {
            if !(c.is_alphanumeric() || c == '_' || c == '$') {
                self.pos = start + i;
                return &text[start..self.pos];
            }
        }
        self.pos = self.bytes.len();
        &text[start..]
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        let quote = self.bytes[self.pos];
        self.pos += 1;
        let mut out = String::new();
        loop {
            // Copy the run of ordinary characters in one go.
            let run_end = self.bytes[self.pos..]
                .iter()
                .position(|&b| b == quote || b == b'\\' || b == b'\n' || b == b'\r')
                .map_or(self.bytes.len(), |i| self.pos + i);
            out.push_str(&self.text[self.pos..run_end]);
            self.pos = run_end;
            match self.bytes.get(self.pos) {
                None | Some(b'\n' | b'\r') => {
                    return Err(self.error_at(start, "this string is never closed (a string cannot span lines)"));
                }
                Some(&b) if b == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => self.escape(&mut out)?,
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), SyntaxError> {
        let at = self.pos;
        self.pos += 1;
        let Some(c) = self.peek_char() else {
            return Err(self.end_of_input("an escape sequence"));
        };
        self.pos += c.len_utf8();
        match c {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{08}'),
            'f' => out.push('\u{0C}'),
            'v' => out.push('\u{0B}'),
            '0' => out.push('\0'),
            '\n' | '\u{2028}' | '\u{2029}' => {} // JSON5 line continuation
            '\r' => {
                if self.bytes.get(self.pos) == Some(&b'\n') {
                    self.pos += 1;
                }
            }
            'x' => {
                let code = self.hex_digits(2, at)?;
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            'u' => {
                let high = self.hex_digits(4, at)?;
                let c = if (0xD800..0xDC00).contains(&high) && self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u") {
                    let save = self.pos;
                    self.pos += 2;
                    let low = self.hex_digits(4, at)?;
                    if (0xDC00..0xE000).contains(&low) {
                        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                    } else {
                        self.pos = save;
                        None
                    }
                } else {
                    char::from_u32(high)
                };
                // A lone surrogate has no UTF-8 form: keep the text readable instead of failing.
                out.push(c.unwrap_or('\u{FFFD}'));
            }
            other => out.push(other),
        }
        Ok(())
    }

    fn hex_digits(&mut self, count: usize, escape_at: usize) -> Result<u32, SyntaxError> {
        let digits = self.text.get(self.pos..self.pos + count).unwrap_or("");
        match u32::from_str_radix(digits, 16) {
            Ok(code) if digits.len() == count && digits.bytes().all(|b| b.is_ascii_hexdigit()) => {
                self.pos += count;
                Ok(code)
            }
            _ => Err(self.error_at(escape_at, format!("bad escape sequence: expected {count} hex digits"))),
        }
    }

    /// A number, or which non-finite value JSON5 spelled.
    fn number(&mut self) -> Result<Result<Number, NonFinite>, SyntaxError> {
        let start = self.pos;
        let negative = self.bytes[self.pos] == b'-';
        if matches!(self.bytes[self.pos], b'-' | b'+') {
            self.pos += 1;
        }
        let rest = &self.text[self.pos..];
        if rest.starts_with("Infinity") {
            self.pos += "Infinity".len();
            return Ok(Err(if negative { NonFinite::NegativeInfinity } else { NonFinite::Infinity }));
        }
        if rest.starts_with("NaN") {
            self.pos += "NaN".len();
            return Ok(Err(NonFinite::NaN));
        }
        if rest.starts_with("0x") || rest.starts_with("0X") {
            self.pos += 2;
            let digits_start = self.pos;
            while self.bytes.get(self.pos).is_some_and(u8::is_ascii_hexdigit) {
                self.pos += 1;
            }
            let digits = &self.text[digits_start..self.pos];
            let magnitude =
                u64::from_str_radix(digits, 16).map_err(|_| self.error_at(start, "bad hexadecimal number"))?;
            let number = if negative {
                // Down to -0x8000000000000000 (i64::MIN), whose magnitude is no i64.
                0i64.checked_sub_unsigned(magnitude).map(Number::from)
            } else {
                Some(Number::from(magnitude))
            };
            return number.map(Ok).ok_or_else(|| self.error_at(start, "hexadecimal number out of range"));
        }
        let mut is_integer = true;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'0'..=b'9' => {}
                b'.' | b'e' | b'E' => is_integer = false,
                b'+' | b'-' if matches!(self.bytes[self.pos - 1], b'e' | b'E') => {}
                _ => break,
            }
            self.pos += 1;
        }
        let literal = self.text[start..self.pos].trim_start_matches('+');
        let bad = || SyntaxError { offset: start, message: format!("`{literal}` is not a number") };
        if is_integer {
            if let Ok(i) = literal.parse::<i64>() {
                return Ok(Ok(Number::from(i)));
            }
            if let Ok(u) = literal.parse::<u64>() {
                return Ok(Ok(Number::from(u)));
            }
        }
        let f: f64 = literal.parse().map_err(|_| bad())?;
        Number::from_f64(f).map(Ok).ok_or_else(bad)
    }
}

/// A key's hash, to find duplicates in a big object.
fn key_hash(key: &str) -> u64 {
    use std::hash::BuildHasher;
    static STATE: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
    STATE.get_or_init(Default::default).hash_one(key)
}

fn describe_char(c: char) -> String {
    if c.is_control() || c == '\u{FFFD}' { format!("U+{:04X}", c as u32) } else { format!("`{c}`") }
}
