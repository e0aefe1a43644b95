//! Definition files → a value tree that remembers where each value starts.
//!
//! We parse JSON, JSONC and JSON5 with one small parser of our own instead of a crate because the
//! catalog needs three things no JSON5 crate gives together: the position of every value (so a
//! diagnostic or a tool's `source` can name a line), `NaN` kept apart from `null` (GenAIScript's
//! "required number"), and a nesting limit (a hostile file must not overflow the stack).

use serde_json::{Map, Number, Value};

/// Files nested deeper than this are refused: real definitions stay far below it, and the limit
/// keeps the recursive parser and every later recursive pass safe from stack overflow.
pub const MAX_DEPTH: usize = 200;

/// A parsed file: its JSON value, where every value in it starts, and which `null`s were really
/// `NaN` or `Infinity` (JSON has no such values; GenAIScript's shorthand needs `NaN`).
#[derive(Debug, Clone, Default)]
pub struct Document {
    value: Value,
    /// One entry per value, in pre-order (a value, then its children), so a path can be followed
    /// through `value` and this table together without a second tree.
    spans: Vec<Span>,
    /// Pre-order indexes of the values that were `NaN` or `Infinity`, ascending.
    non_finite: Vec<(usize, NonFinite)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    /// Byte offset of the value's first character.
    offset: usize,
    /// Number of values in the subtree, the value itself included.
    size: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonFinite {
    NaN,
    Infinity,
    NegativeInfinity,
}

/// One step of a path into a document: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    Key(String),
    Index(usize),
}

impl From<&str> for Segment {
    fn from(key: &str) -> Self {
        Segment::Key(key.to_string())
    }
}

impl From<usize> for Segment {
    fn from(index: usize) -> Self {
        Segment::Index(index)
    }
}

impl Document {
    pub fn parse(text: &str) -> Result<Document, SyntaxError> {
        parse(text)
    }

    /// A document without positions, for parsers that give none (YAML): every value is at 0.
    pub fn from_value(value: Value) -> Document {
        fn index(value: &Value, spans: &mut Vec<Span>) {
            let at = spans.len();
            spans.push(Span { offset: 0, size: 1 });
            match value {
                Value::Array(items) => items.iter().for_each(|v| index(v, spans)),
                Value::Object(map) => map.values().for_each(|v| index(v, spans)),
                _ => {}
            }
            spans[at].size = spans.len() - at;
        }
        let mut spans = Vec::new();
        index(&value, &mut spans);
        Document { value, spans, non_finite: Vec::new() }
    }

    /// A YAML document: the value from serde-saphyr, positions from the YAML event stream. Where
    /// the two cannot be matched up (aliases, merge keys), positions fall back to the start.
    pub fn from_yaml(text: &str, value: Value) -> Document {
        let mut document = Document::from_value(value);
        if let Some(spans) = yaml_spans(text).filter(|s| s.len() == document.spans.len()) {
            document.spans = spans;
        }
        document
    }

    /// The plain JSON value; `NaN` and `Infinity` read as `null`.
    pub fn value(&self) -> &Value {
        &self.value
    }

    pub fn root(&self) -> Node<'_> {
        Node { doc: self, value: &self.value, index: 0 }
    }

    pub fn has_non_finite(&self) -> bool {
        !self.non_finite.is_empty()
    }

    /// The node at `path`, if every step exists.
    pub fn node_at<'a>(&self, path: impl IntoIterator<Item = &'a Segment>) -> Option<Node<'_>> {
        let (node, complete) = self.walk(path);
        complete.then_some(node)
    }

    /// Where the value at `path` starts; for a path that leads nowhere, where its deepest
    /// existing ancestor starts, so a diagnostic about a missing value still points near it.
    pub fn offset_of<'a>(&self, path: impl IntoIterator<Item = &'a Segment>) -> usize {
        let (node, _) = self.walk(path);
        self.spans.get(node.index).map_or(0, |s| s.offset)
    }

    fn walk<'a>(&self, path: impl IntoIterator<Item = &'a Segment>) -> (Node<'_>, bool) {
        let mut node = self.root();
        for segment in path {
            let next = match (segment, node.value) {
                (Segment::Key(key), Value::Object(_)) => node.get(key),
                (Segment::Index(i), Value::Array(_)) => node.items().nth(*i),
                // JSON pointers from validators name array items by number.
                (Segment::Key(key), Value::Array(_)) => key.parse::<usize>().ok().and_then(|i| node.items().nth(i)),
                _ => None,
            };
            match next {
                Some(n) => node = n,
                None => return (node, false),
            }
        }
        (node, true)
    }
}

/// A value in a [`Document`], with access to what JSON cannot say about it (`NaN`).
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    doc: &'a Document,
    value: &'a Value,
    index: usize,
}

impl<'a> Node<'a> {
    pub fn value(&self) -> &'a Value {
        self.value
    }

    pub fn non_finite(&self) -> Option<NonFinite> {
        let found = self.doc.non_finite.binary_search_by_key(&self.index, |(i, _)| *i);
        found.ok().map(|i| self.doc.non_finite[i].1)
    }

    /// True when this value or anything inside it is `NaN` or `Infinity`.
    pub fn has_non_finite(&self) -> bool {
        let end = self.index + self.doc.spans.get(self.index).map_or(1, |s| s.size);
        let first = self.doc.non_finite.partition_point(|(i, _)| *i < self.index);
        self.doc.non_finite.get(first).is_some_and(|(i, _)| *i < end)
    }

    fn children(&self) -> impl Iterator<Item = (usize, &'a Value)> + 'a {
        let doc = self.doc;
        let values: Box<dyn Iterator<Item = &'a Value>> = match self.value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => Box::new(std::iter::empty()),
        };
        let mut next = self.index + 1;
        values.map(move |value| {
            let index = next;
            next += doc.spans.get(index).map_or(1, |s| s.size);
            (index, value)
        })
    }

    pub fn items(&self) -> impl Iterator<Item = Node<'a>> + 'a {
        let doc = self.doc;
        self.children().map(move |(index, value)| Node { doc, value, index })
    }

    pub fn entries(&self) -> impl Iterator<Item = (&'a str, Node<'a>)> + 'a {
        let doc = self.doc;
        let keys: Box<dyn Iterator<Item = &'a String>> = match self.value {
            Value::Object(map) => Box::new(map.keys()),
            _ => Box::new(std::iter::empty()),
        };
        keys.zip(self.children()).map(move |(key, (index, value))| (key.as_str(), Node { doc, value, index }))
    }

    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        self.entries().find(|(k, _)| *k == key).map(|(_, node)| node)
    }
}

/// Pre-order spans of the first YAML document's values, or `None` if it uses aliases, merge keys
/// or complex keys (then the serde value has a different shape than the events).
fn yaml_spans(text: &str) -> Option<Vec<Span>> {
    use serde_saphyr::granit_parser::{Event, Parser};
    enum Frame {
        Sequence(usize),
        Mapping { start: usize, expect_key: bool },
    }
    let lines: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let offset = |line: usize, col: usize| {
        let start = *lines.get(line.saturating_sub(1))?;
        Some(text[start..].char_indices().nth(col).map_or(text.len(), |(i, _)| start + i))
    };
    let mut spans = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut started = false;
    for event in Parser::new_from_str(text) {
        let (event, span) = event.ok()?;
        let at = || offset(span.start.line(), span.start.col());
        // A key of a mapping is no value of its own.
        let is_key = matches!(stack.last(), Some(Frame::Mapping { expect_key: true, .. }));
        match event {
            Event::Alias(_) => return None,
            Event::Scalar(ref text, ..) if is_key => {
                if text == "<<" {
                    return None;
                }
                if let Some(Frame::Mapping { expect_key, .. }) = stack.last_mut() {
                    *expect_key = false;
                }
                continue;
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if is_key => return None,
            Event::Scalar(..) => {
                if started && stack.is_empty() {
                    break;
                }
                started = true;
                spans.push(Span { offset: at()?, size: 1 });
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if started && stack.is_empty() {
                    break;
                }
                started = true;
                let start = spans.len();
                spans.push(Span { offset: at()?, size: 1 });
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Frame::Sequence(start)
                } else {
                    Frame::Mapping { start, expect_key: true }
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (Frame::Sequence(start) | Frame::Mapping { start, .. }) = stack.pop()?;
                spans[start].size = spans.len() - start;
            }
            _ => continue,
        }
        // A value just ended: its mapping now expects a key again.
        if let Some(Frame::Mapping { expect_key, .. }) = stack.last_mut() {
            *expect_key = true;
        }
    }
    Some(spans)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

/// Maps byte offsets to 1-based line and column (columns count characters, not bytes).
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, line_starts }
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let column = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, column + 1)
    }
}

fn parse(text: &str) -> Result<Document, SyntaxError> {
    let mut parser =
        Parser { text, bytes: text.as_bytes(), pos: 0, open: Vec::new(), spans: Vec::new(), non_finite: Vec::new() };
    parser.skip_trivia()?;
    if parser.pos >= parser.bytes.len() {
        return Err(parser.error_at(0, "the file holds no JSON value (it is empty or only comments)"));
    }
    let value = parser.value()?;
    parser.skip_trivia()?;
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("unexpected text after the end of the JSON value"));
    }
    Ok(Document { value, spans: parser.spans, non_finite: parser.non_finite })
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Offsets of the arrays and objects still open, for "not closed" messages and the depth limit.
    open: Vec<usize>,
    spans: Vec<Span>,
    non_finite: Vec<(usize, NonFinite)>,
}

impl<'a> Parser<'a> {
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
        self.spans.push(Span { offset, size: 1 });
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
        self.spans[index].size = self.spans.len() - index;
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
        let mut items = Vec::new();
        loop {
            self.skip_trivia()?;
            match self.bytes.get(self.pos) {
                None => return Err(self.end_of_input("a value or `]`")),
                Some(b']') => break,
                _ => {}
            }
            items.push(self.value()?);
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
        Ok(Value::Array(items))
    }

    fn object(&mut self) -> Result<Value, SyntaxError> {
        self.enter()?;
        let mut map = Map::new();
        // Pre-order index of each member's value, in the map's order.
        let mut starts: Vec<usize> = Vec::new();
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
            let mut start = self.spans.len();
            let value = self.value()?;
            if map.contains_key(&key) {
                // The last duplicate wins, as in JavaScript; it moves to the end of the map, and
                // the earlier value's entries leave the pre-order table so both stay in step.
                let earlier = map.keys().position(|k| *k == key).unwrap_or_default();
                let removed = self.forget_subtree(starts.remove(earlier));
                for s in starts.iter_mut().skip(earlier) {
                    *s -= removed;
                }
                start -= removed;
                map.shift_remove(&key);
            }
            starts.push(start);
            map.insert(key, value);
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
        Ok(Value::Object(map))
    }

    /// Drops the pre-order entries of the subtree starting at `start`; returns how many.
    fn forget_subtree(&mut self, start: usize) -> usize {
        let size = self.spans[start].size;
        self.spans.drain(start..start + size);
        self.non_finite.retain(|(i, _)| *i < start || *i >= start + size);
        for (i, _) in self.non_finite.iter_mut() {
            if *i >= start + size {
                *i -= size;
            }
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
                i64::try_from(magnitude).map(|m| Number::from(-m)).ok()
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

fn describe_char(c: char) -> String {
    if c.is_control() || c == '\u{FFFD}' { format!("U+{:04X}", c as u32) } else { format!("`{c}`") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn value(text: &str) -> Value {
        Document::parse(text).expect("parses").value().clone()
    }

    #[test]
    fn plain_json() {
        assert_eq!(
            value(r#"{"a": [1, 2.5, -3e2, true, null, "x\u00e9\n"]}"#),
            json!({"a": [1, 2.5, -300.0, true, null, "xé\n"]})
        );
    }

    #[test]
    fn json5_extras() {
        let text = "// comment\n{ unquoted: 'single', trailing: [1, 2,], hex: 0x1F, half: .5, plus: +3, /* c */ }";
        assert_eq!(value(text), json!({"unquoted": "single", "trailing": [1, 2], "hex": 31, "half": 0.5, "plus": 3}));
    }

    #[test]
    fn nan_is_kept_apart_from_null() {
        let doc = Document::parse("{ year: NaN, n: null, inf: -Infinity, list: [1, NaN] }").unwrap();
        let root = doc.root();
        assert_eq!(root.get("year").unwrap().non_finite(), Some(NonFinite::NaN));
        assert_eq!(root.get("n").unwrap().non_finite(), None);
        assert_eq!(root.get("inf").unwrap().non_finite(), Some(NonFinite::NegativeInfinity));
        let list = root.get("list").unwrap();
        assert!(list.has_non_finite());
        assert_eq!(list.items().map(|n| n.non_finite()).collect::<Vec<_>>(), vec![None, Some(NonFinite::NaN)]);
        assert!(!root.get("n").unwrap().has_non_finite());
        assert_eq!(doc.value()["year"], Value::Null);
    }

    #[test]
    fn surrogate_pairs_and_lone_surrogates() {
        assert_eq!(value(r#""\ud83d\ude00""#), json!("😀"));
        assert_eq!(value(r#""\ud83d""#), json!("\u{FFFD}"));
    }

    #[test]
    fn positions_are_line_and_character_column() {
        let text = "{\n  \"é\": {\n    \"b\": 1\n  },\n  \"list\": [0, {\"c\": true}]\n}";
        let doc = Document::parse(text).unwrap();
        let lines = LineIndex::new(text);
        let at = |path: &[Segment]| lines.line_col(doc.offset_of(path));
        assert_eq!(at(&["é".into(), "b".into()]), (3, 10));
        assert_eq!(at(&["list".into(), 1.into(), "c".into()]), (5, 21));
        assert_eq!(at(&["list".into(), "1".into()]), (5, 15));
        // A missing step points at the deepest ancestor that exists.
        assert_eq!(at(&["é".into(), "nope".into()]), (2, 8));
        assert!(doc.node_at(&["é".into(), "nope".into()]).is_none());
    }

    #[test]
    fn duplicate_keys_last_wins_and_positions_stay_right() {
        let text = "{a: {x: NaN}, b: 1, a: 2, c: NaN}";
        let doc = Document::parse(text).unwrap();
        assert_eq!(doc.value(), &json!({"b": 1, "a": 2, "c": null}));
        assert_eq!(doc.offset_of(&["a".into()]), text.find("2").unwrap());
        assert_eq!(doc.offset_of(&["c".into()]), text.rfind("NaN").unwrap());
        assert_eq!(doc.root().get("c").unwrap().non_finite(), Some(NonFinite::NaN));
        assert!(!doc.root().get("a").unwrap().has_non_finite());
    }

    #[test]
    fn truncated_file_names_the_unclosed_bracket() {
        let err = Document::parse("{\n  \"tools\": [\n    {\"a\": 1}").unwrap_err();
        assert!(err.message.contains("opened at 2:12 is never closed"), "{}", err.message);
    }

    #[test]
    fn deep_nesting_is_refused_without_overflow() {
        let err = Document::parse(&"[".repeat(100_000)).unwrap_err();
        assert!(err.message.contains("deeper than"));
        let err = Document::parse(&"{\"a\":".repeat(100_000)).unwrap_err();
        assert!(err.message.contains("deeper than"));
    }

    #[test]
    fn errors() {
        let message = |text: &str| Document::parse(text).unwrap_err().message;
        assert!(message("").contains("no JSON value"));
        assert!(message("{a: hello}").contains("strings need quotes"));
        assert!(message("{\"a\" 1}").contains("expected `:`"));
        assert!(message("\"abc\ndef\"").contains("never closed"));
        assert!(message("{} x").contains("after the end"));
        assert!(message("/* open").contains("never closed"));
        assert!(message("1e999").contains("not a number"));
    }

    #[test]
    fn from_value_walks_like_a_parsed_document() {
        let doc = Document::from_value(json!({"a": [1, {"b": 2}]}));
        assert_eq!(doc.node_at(&["a".into(), 1.into(), "b".into()]).unwrap().value(), &json!(2));
    }
}
