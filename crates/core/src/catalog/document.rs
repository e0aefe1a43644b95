//! Definition files → a value tree that remembers where each value starts.
//!
//! We parse JSON, JSONC and JSON5 with one small parser of our own instead of a crate because the
//! catalog needs three things no JSON5 crate gives together: the position of every value (so a
//! diagnostic or a tool's `source` can name a line), `NaN` kept apart from `null` (GenAIScript's
//! "required number"), and a nesting limit (a hostile file must not overflow the stack).

use std::collections::HashMap;

use serde_json::Value;

/// Files nested deeper than this are refused: real definitions stay far below it, and the limit
/// keeps the recursive parser and every later recursive pass safe from stack overflow.
pub const MAX_DEPTH: usize = 200;

/// A parsed file: its JSON value, where every value in it starts, and which `null`s were really
/// `NaN` or `Infinity` (JSON has no such values; GenAIScript's shorthand needs `NaN`).
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub(super) value: Value,
    /// One entry per value, in pre-order (a value, then its children), so a path can be followed
    /// through `value` and this table together without a second tree.
    pub(super) spans: Vec<Span>,
    /// Pre-order indexes of the values that were `NaN` or `Infinity`, ascending.
    pub(super) non_finite: Vec<(usize, NonFinite)>,
    /// Every value's children, so that the n-th item of a list is found without stepping over the
    /// n before it: one lookup per tool would otherwise make a file of many tools quadratic.
    children: Children,
}

/// The children of every value, by pre-order index: those of value `v` are
/// `list[first[v]..first[v + 1]]`. Indexes are `u32` (a file holds far fewer values; the
/// loader refuses files over 32 MiB), which halves the table on a file of millions of values.
#[derive(Debug, Clone, Default)]
struct Children {
    first: Vec<u32>,
    list: Vec<u32>,
}

impl Children {
    fn new(spans: &[Span]) -> Children {
        let mut first = Vec::with_capacity(spans.len() + 1);
        let mut list = Vec::with_capacity(spans.len().saturating_sub(1));
        for (index, span) in spans.iter().enumerate() {
            first.push(small(list.len()));
            let end = index.saturating_add(span.size()).min(spans.len());
            let mut child = index + 1;
            while child < end {
                list.push(small(child));
                child += spans[child].size().max(1);
            }
        }
        first.push(small(list.len()));
        Children { first, list }
    }

    fn of(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        let range = self.first.get(index).zip(self.first.get(index + 1));
        let children = range.and_then(|(&start, &end)| self.list.get(start as usize..end as usize));
        children.unwrap_or_default().iter().map(|&c| c as usize)
    }

    fn nth_of(&self, index: usize, n: usize) -> Option<usize> {
        let start = *self.first.get(index)? as usize;
        let end = *self.first.get(index + 1)? as usize;
        (start + n < end).then(|| self.list.get(start + n).map(|&c| c as usize)).flatten()
    }
}

/// A count or offset within one file, stored in 32 bits (saturating: past 4 GiB positions only
/// point less precisely, nothing breaks).
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Where a value starts, and how many values its subtree holds (the value itself included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    offset: u32,
    size: u32,
}

impl Span {
    /// A value starting at byte `offset`, alone until its subtree is counted.
    pub(super) fn at(offset: usize) -> Span {
        Span { offset: small(offset), size: 1 }
    }

    /// Byte offset of the value's first character.
    pub(super) fn offset(&self) -> usize {
        self.offset as usize
    }

    /// Number of values in the subtree, the value itself included.
    pub(super) fn size(&self) -> usize {
        self.size as usize
    }

    pub(super) fn set_size(&mut self, size: usize) {
        self.size = small(size);
    }
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
    pub(super) fn new(value: Value, spans: Vec<Span>, non_finite: Vec<(usize, NonFinite)>) -> Document {
        let children = Children::new(&spans);
        Document { value, spans, non_finite, children }
    }

    /// Parses JSON, JSONC or JSON5 text.
    pub fn parse(text: &str) -> Result<Document, SyntaxError> {
        super::json5::parse(text)
    }

    /// A document without positions, for parsers that give none (YAML): every value is at 0.
    pub fn from_value(value: Value) -> Document {
        fn index(value: &Value, spans: &mut Vec<Span>) {
            let at = spans.len();
            spans.push(Span::at(0));
            match value {
                Value::Array(items) => items.iter().for_each(|v| index(v, spans)),
                Value::Object(map) => map.values().for_each(|v| index(v, spans)),
                _ => {}
            }
            let size = spans.len() - at;
            spans[at].set_size(size);
        }
        let mut spans = Vec::new();
        index(&value, &mut spans);
        Document::new(value, spans, Vec::new())
    }

    /// A YAML document: the value from serde-saphyr, positions from the YAML event stream. Where
    /// the two cannot be matched up (aliases, merge keys), positions fall back to the start.
    pub fn from_yaml(text: &str, value: Value) -> Document {
        let document = Document::from_value(value);
        match super::yaml::spans(text).filter(|s| s.len() == document.spans.len()) {
            Some(spans) => Document::new(document.value, spans, Vec::new()),
            None => document,
        }
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

    /// Moves the value at `path` out (leaving `null`). Positions stay as parsed, so paths into
    /// what was taken no longer resolve: re-parse the text for those.
    pub fn take(&mut self, path: &[Segment]) -> Value {
        let mut value = &mut self.value;
        for segment in path {
            let next = match (segment, value) {
                (Segment::Key(key), Value::Object(map)) => map.get_mut(key.as_str()),
                (Segment::Index(i), Value::Array(items)) => items.get_mut(*i),
                (Segment::Key(key), Value::Array(items)) => key.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
                _ => None,
            };
            match next {
                Some(v) => value = v,
                None => return Value::Null,
            }
        }
        std::mem::take(value)
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
        self.spans.get(node.index).map_or(0, Span::offset)
    }

    fn walk<'a>(&self, path: impl IntoIterator<Item = &'a Segment>) -> (Node<'_>, bool) {
        let mut node = self.root();
        for segment in path {
            match node.step(segment) {
                Some(n) => node = n,
                None => return (node, false),
            }
        }
        (node, true)
    }
}

/// Many paths looked up in one document (every diagnostic of a file): an object's members are
/// indexed by key the first time a path goes through a large one, so 100,000 diagnostics about
/// one object's members cost linear time, not a scan of its members each.
pub struct Lookup<'a> {
    doc: &'a Document,
    keys: HashMap<usize, HashMap<&'a str, Node<'a>>>,
}

/// Objects with fewer members are scanned: indexing them costs more than it saves.
const INDEXED_FROM: usize = 32;

impl<'a> Lookup<'a> {
    pub fn new(doc: &'a Document) -> Lookup<'a> {
        Lookup { doc, keys: HashMap::new() }
    }

    /// [`Document::offset_of`], with the large objects on the way indexed.
    pub fn offset_of<'p>(&mut self, path: impl IntoIterator<Item = &'p Segment>) -> usize {
        let mut node = self.doc.root();
        for segment in path {
            let next = match (segment, node.value) {
                (Segment::Key(key), Value::Object(map)) if map.len() >= INDEXED_FROM => {
                    let members = self.keys.entry(node.index).or_insert_with(|| node.entries().collect());
                    members.get(key.as_str()).copied()
                }
                _ => node.step(segment),
            };
            match next {
                Some(n) => node = n,
                None => break,
            }
        }
        node.offset()
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
        let end = self.index + self.doc.spans.get(self.index).map_or(1, Span::size);
        let first = self.doc.non_finite.partition_point(|(i, _)| *i < self.index);
        self.doc.non_finite.get(first).is_some_and(|(i, _)| *i < end)
    }

    fn children(&self) -> impl Iterator<Item = (usize, &'a Value)> + 'a {
        let values: Box<dyn Iterator<Item = &'a Value>> = match self.value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => Box::new(std::iter::empty()),
        };
        self.doc.children.of(self.index).zip(values)
    }

    /// The `n`-th item of a list, without walking the ones before it.
    pub fn item(&self, n: usize) -> Option<Node<'a>> {
        let Value::Array(items) = self.value else { return None };
        let (value, index) = items.get(n).zip(self.doc.children.nth_of(self.index, n))?;
        Some(Node { doc: self.doc, value, index })
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

    /// The member or item `segment` names.
    fn step(&self, segment: &Segment) -> Option<Node<'a>> {
        match (segment, self.value) {
            (Segment::Key(key), Value::Object(_)) => self.get(key),
            (Segment::Index(i), Value::Array(_)) => self.item(*i),
            // JSON pointers from validators name array items by number.
            (Segment::Key(key), Value::Array(_)) => key.parse::<usize>().ok().and_then(|i| self.item(i)),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        self.entries().find(|(k, _)| *k == key).map(|(_, node)| node)
    }

    /// Byte offset of the value's first character in the text it was parsed from.
    pub fn offset(&self) -> usize {
        self.doc.spans.get(self.index).map_or(0, Span::offset)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::LineIndex;
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

    /// Found by the property tests: i64::MIN in hex was "out of range".
    #[test]
    fn hex_numbers_reach_both_ends() {
        assert_eq!(value("[-0x8000000000000000, 0xFFFFFFFFFFFFFFFF, -0x0, +0x1f]"), json!([i64::MIN, u64::MAX, 0, 31]));
        assert!(Document::parse("-0x8000000000000001").unwrap_err().message.contains("out of range"));
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
    fn many_items_are_found_by_index() {
        let text = format!("[{}]", (0..3_000).map(|i| format!("{{\"n\": [{i}]}}")).collect::<Vec<_>>().join(","));
        let doc = Document::parse(&text).unwrap();
        for i in [0, 1, 1_500, 2_999] {
            let node = doc.node_at(&[i.into(), "n".into(), 0.into()]).unwrap();
            assert_eq!(node.value(), &json!(i));
            assert_eq!(node.offset(), text.find(&format!("[{i}]")).unwrap() + 1);
        }
        assert!(doc.node_at(&[3_000.into()]).is_none());
    }

    #[test]
    fn a_lookup_of_many_paths_finds_what_offset_of_finds() {
        let members: Vec<String> = (0..100).map(|i| format!("k{i}: {{v: {i}}}")).collect();
        let text = format!("{{k3: 0, {}, k3: [1]}}", members.join(", "));
        let doc = Document::parse(&text).unwrap();
        let mut lookup = Lookup::new(&doc);
        for i in [0, 3, 50, 99, 100] {
            for path in [vec![format!("k{i}").as_str().into()], vec![format!("k{i}").as_str().into(), "v".into()]] {
                assert_eq!(lookup.offset_of(&path), doc.offset_of(&path), "{path:?}");
            }
        }
        assert_eq!(lookup.offset_of(&["k3".into(), 0.into()]), text.rfind("1]").unwrap());
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
    fn duplicate_keys_in_a_big_object_are_found_by_hash_and_positions_stay_right() {
        // More members than the parser scans one by one: duplicates are found by their hash.
        let mut members: Vec<String> = (0..40).map(|i| format!("k{i}: [{i}, {{n: NaN}}]")).collect();
        members.insert(30, "k3: {late: Infinity}".into());
        members.push("k39: \"last\"".into());
        let text = format!("{{{}}}", members.join(", "));
        let doc = Document::parse(&text).unwrap();
        let map = doc.value().as_object().unwrap();
        assert_eq!(map.len(), 40);
        assert_eq!(map.keys().next_back().map(String::as_str), Some("k39"));
        assert_eq!(doc.value()["k3"], json!({"late": null}));
        assert_eq!(doc.value()["k39"], json!("last"));
        assert_eq!(doc.offset_of(&["k3".into(), "late".into()]), text.find("Infinity").unwrap());
        assert_eq!(doc.root().get("k3").unwrap().get("late").unwrap().non_finite(), Some(NonFinite::Infinity));
        for i in [0, 2, 4, 29, 38] {
            let n = doc.node_at(&[format!("k{i}").as_str().into(), 1.into(), "n".into()]).unwrap();
            assert_eq!(n.non_finite(), Some(NonFinite::NaN), "k{i}");
            assert_eq!(
                doc.offset_of(&[format!("k{i}").as_str().into(), 0.into()]),
                text.find(&format!("[{i},")).unwrap() + 1
            );
        }
        assert_eq!(doc.offset_of(&["k39".into()]), text.find("\"last\"").unwrap());
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
