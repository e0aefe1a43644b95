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

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Byte offset of the value's first character in the source text.
    pub offset: usize,
    pub kind: NodeKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Number(Number),
    NaN,
    Infinity { negative: bool },
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
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

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            // The last occurrence wins, as in JavaScript.
            NodeKind::Object(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The deepest node along `path` and how many segments were followed, so a diagnostic about a
    /// value that is missing still points at its parent.
    pub fn locate<'a>(&self, path: impl IntoIterator<Item = &'a Segment>) -> (&Node, usize) {
        let mut node = self;
        let mut depth = 0;
        for segment in path {
            let next = match (segment, &node.kind) {
                (Segment::Key(key), NodeKind::Object(_)) => node.get(key),
                (Segment::Index(i), NodeKind::Array(items)) => items.get(*i),
                // JSON pointers from validators name array items by number.
                (Segment::Key(key), NodeKind::Array(items)) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(n) => {
                    node = n;
                    depth += 1;
                }
                None => break,
            }
        }
        (node, depth)
    }

    /// A tree without positions, for documents from parsers that give none (YAML).
    pub fn from_value(value: &Value) -> Node {
        let kind = match value {
            Value::Null => NodeKind::Null,
            Value::Bool(b) => NodeKind::Bool(*b),
            Value::Number(n) => NodeKind::Number(n.clone()),
            Value::String(s) => NodeKind::String(s.clone()),
            Value::Array(items) => NodeKind::Array(items.iter().map(Node::from_value).collect()),
            Value::Object(map) => NodeKind::Object(map.iter().map(|(k, v)| (k.clone(), Node::from_value(v))).collect()),
        };
        Node { offset: 0, kind }
    }

    /// The plain JSON value; `NaN` and `Infinity` have no JSON form and become `null`.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            NodeKind::Null | NodeKind::NaN | NodeKind::Infinity { .. } => Value::Null,
            NodeKind::Bool(b) => Value::Bool(*b),
            NodeKind::Number(n) => Value::Number(n.clone()),
            NodeKind::String(s) => Value::String(s.clone()),
            NodeKind::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            NodeKind::Object(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for (k, v) in entries {
                    map.insert(k.clone(), v.to_value());
                }
                Value::Object(map)
            }
        }
    }

    /// True when this value or anything inside it is `NaN` or `Infinity`.
    pub fn has_non_finite(&self) -> bool {
        match &self.kind {
            NodeKind::NaN | NodeKind::Infinity { .. } => true,
            NodeKind::Array(items) => items.iter().any(Node::has_non_finite),
            NodeKind::Object(entries) => entries.iter().any(|(_, v)| v.has_non_finite()),
            _ => false,
        }
    }
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

pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut parser = Parser { text, bytes: text.as_bytes(), pos: 0, open: Vec::new() };
    parser.skip_trivia()?;
    if parser.pos >= parser.bytes.len() {
        return Err(parser.error_at(0, "the file holds no JSON value (it is empty or only comments)"));
    }
    let node = parser.value()?;
    parser.skip_trivia()?;
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("unexpected text after the end of the JSON value"));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Offsets of the arrays and objects still open, for "not closed" messages and the depth limit.
    open: Vec<usize>,
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

    fn value(&mut self) -> Result<Node, SyntaxError> {
        let offset = self.pos;
        let kind = match self.bytes.get(self.pos) {
            None => return Err(self.end_of_input("a value")),
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') | Some(b'\'') => NodeKind::String(self.string()?),
            Some(b'-' | b'+' | b'.' | b'0'..=b'9') => self.number()?,
            Some(_) => {
                let word = self.identifier();
                match word {
                    "true" => NodeKind::Bool(true),
                    "false" => NodeKind::Bool(false),
                    "null" => NodeKind::Null,
                    "NaN" => NodeKind::NaN,
                    "Infinity" => NodeKind::Infinity { negative: false },
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
        Ok(Node { offset, kind })
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

    fn array(&mut self) -> Result<NodeKind, SyntaxError> {
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
        Ok(NodeKind::Array(items))
    }

    fn object(&mut self) -> Result<NodeKind, SyntaxError> {
        self.enter()?;
        let mut entries: Vec<(String, Node)> = Vec::new();
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
            let value = self.value()?;
            entries.push((key, value));
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
        Ok(NodeKind::Object(entries))
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

    fn number(&mut self) -> Result<NodeKind, SyntaxError> {
        let start = self.pos;
        let negative = self.bytes[self.pos] == b'-';
        if matches!(self.bytes[self.pos], b'-' | b'+') {
            self.pos += 1;
        }
        let rest = &self.text[self.pos..];
        if rest.starts_with("Infinity") {
            self.pos += "Infinity".len();
            return Ok(NodeKind::Infinity { negative });
        }
        if rest.starts_with("NaN") {
            self.pos += "NaN".len();
            return Ok(NodeKind::NaN);
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
            return number.map(NodeKind::Number).ok_or_else(|| self.error_at(start, "hexadecimal number out of range"));
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
                return Ok(NodeKind::Number(Number::from(i)));
            }
            if let Ok(u) = literal.parse::<u64>() {
                return Ok(NodeKind::Number(Number::from(u)));
            }
        }
        let f: f64 = literal.parse().map_err(|_| bad())?;
        Number::from_f64(f).map(NodeKind::Number).ok_or_else(bad)
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
        parse(text).expect("parses").to_value()
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
        let node = parse("{ year: NaN, n: null, inf: -Infinity }").unwrap();
        assert_eq!(node.get("year").unwrap().kind, NodeKind::NaN);
        assert_eq!(node.get("n").unwrap().kind, NodeKind::Null);
        assert_eq!(node.get("inf").unwrap().kind, NodeKind::Infinity { negative: true });
        assert!(node.has_non_finite());
    }

    #[test]
    fn surrogate_pairs_and_lone_surrogates() {
        assert_eq!(value(r#""\ud83d\ude00""#), json!("😀"));
        assert_eq!(value(r#""\ud83d""#), json!("\u{FFFD}"));
    }

    #[test]
    fn positions_are_line_and_character_column() {
        let text = "{\n  \"é\": {\n    \"b\": 1\n  }\n}";
        let node = parse(text).unwrap();
        let path = [Segment::from("é"), Segment::from("b")];
        let (found, depth) = node.locate(&path);
        assert_eq!(depth, 2);
        assert_eq!(LineIndex::new(text).line_col(found.offset), (3, 10));
    }

    #[test]
    fn truncated_file_names_the_unclosed_bracket() {
        let err = parse("{\n  \"tools\": [\n    {\"a\": 1}").unwrap_err();
        assert!(err.message.contains("opened at 2:12 is never closed"), "{}", err.message);
    }

    #[test]
    fn deep_nesting_is_refused_without_overflow() {
        let text = "[".repeat(100_000);
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("deeper than"));
    }

    #[test]
    fn errors() {
        assert!(parse("").unwrap_err().message.contains("no JSON value"));
        assert!(parse("{a: hello}").unwrap_err().message.contains("strings need quotes"));
        assert!(parse("{\"a\" 1}").unwrap_err().message.contains("expected `:`"));
        assert!(parse("\"abc\ndef\"").unwrap_err().message.contains("never closed"));
        assert!(parse("{} x").unwrap_err().message.contains("after the end"));
        assert!(parse("/* open").unwrap_err().message.contains("never closed"));
        assert!(parse("1e999").unwrap_err().message.contains("not a number"));
    }

    #[test]
    fn duplicate_keys_last_wins() {
        assert_eq!(value("{a: 1, a: 2}"), json!({"a": 2}));
    }
}
