//! Case files: the YAML outline and the reader never panic, whatever the text, and a list of
//! cases written as YAML (block style, flow style, JSON, or appended by the recorder) reads back.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tooldeck::cases::file::{CaseFile, parse_into};
use tooldeck::cases::outline::{fragment, outline, without_cases};
use tooldeck::invoke::Status;
use tooldeck::text::LineIndex;

use super::strategies::{any_string, json_value, yaml_soup};

#[track_caller]
fn check_outline(text: &str) {
    let Some(o) = outline(text) else { return };
    let (start, end) = o.cases;
    assert!(start <= end && end <= text.len(), "cases {:?} in a text of {}", o.cases, text.len());
    assert!(text.is_char_boundary(start) && text.is_char_boundary(end));
    let mut previous = start;
    for &(item_start, item_end) in &o.items {
        assert!(previous <= item_start && item_start <= item_end && item_end <= end, "{o:?}");
        assert!(text.is_char_boundary(item_start) && text.is_char_boundary(item_end));
        previous = item_end;
        let _ = fragment(&LineIndex::new(text), (item_start, item_end));
    }
    let _ = without_cases(text, o.cases);
}

#[track_caller]
fn read_any(label: &str, text: &str) {
    let mut file = CaseFile::default();
    parse_into(&mut file, label, text);
    let count = file.case_count();
    let (cases, problems) = file.read_all();
    assert!(cases.len() <= count);
    for problem in problems {
        assert!(problem.line >= 1 && problem.column >= 1, "{problem:?}");
    }
}

/// One case as a generator writes it, and what reading it must give.
#[derive(Debug, Clone)]
struct GenCase {
    name: Option<String>,
    tool: String,
    args: Option<Map<String, Value>>,
    validate: Option<bool>,
    expect: Map<String, Value>,
}

impl GenCase {
    fn to_json(&self) -> Value {
        let mut map = Map::new();
        if let Some(name) = &self.name {
            map.insert("name".into(), json!(name));
        }
        map.insert("tool".into(), json!(self.tool));
        if let Some(args) = &self.args {
            map.insert("args".into(), Value::Object(args.clone()));
        }
        if let Some(validate) = self.validate {
            map.insert("validate".into(), json!(validate));
        }
        map.insert("expect".into(), Value::Object(self.expect.clone()));
        Value::Object(map)
    }
}

fn gen_case() -> impl Strategy<Value = GenCase> {
    let status = prop::sample::select(vec!["value", "error", "requires_authorization", "artifact", "null"]);
    let pointer = prop_oneof![Just(String::new()), any_string(6).prop_map(|s| format!("/{s}"))];
    let expect = (
        prop::option::of(status),
        prop::option::of(json_value()),
        prop::option::of(json_value()),
        prop::collection::vec((pointer, json_value()), 0..3),
        prop::option::of(any::<u64>()),
        prop::option::of(any_string(12)),
    )
        .prop_map(|(status, value, contains, pointers, max_ms, error_contains)| {
            let mut map = Map::new();
            if let Some(status) = status {
                map.insert("status".into(), json!(status));
            }
            if let Some(value) = value {
                map.insert("value".into(), value);
            }
            if let Some(contains) = contains {
                map.insert("contains".into(), contains);
            }
            if !pointers.is_empty() {
                map.insert("pointer".into(), Value::Object(pointers.into_iter().collect()));
            }
            if let Some(max_ms) = max_ms {
                map.insert("max_ms".into(), json!(max_ms));
            }
            if let Some(text) = error_contains {
                map.insert("error_contains".into(), json!(text));
            }
            map
        });
    let args = prop::collection::vec((any_string(8), json_value()), 0..5).prop_map(|m| m.into_iter().collect());
    (prop::option::of(any_string(12)), any_string(12), prop::option::of(args), prop::option::of(any::<bool>()), expect)
        .prop_map(|(name, tool, args, validate, expect)| GenCase { name, tool, args, validate, expect })
}

/// Strings as the case reader reads them back: `$${` is a literal `${`, as the recorder writes it.
fn escaped(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(text.replace("${", "$${")),
        Value::Array(items) => Value::Array(items.iter().map(escaped).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), escaped(v))).collect()),
        other => other.clone(),
    }
}

/// A key YAML reads as this very string, else the key quoted as JSON.
fn yaml_key(key: &str) -> String {
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !["true", "false", "null", "yes", "no", "on", "off", "y", "n"].contains(&key.to_ascii_lowercase().as_str());
    if plain { key.to_string() } else { yaml_json(&json!(key)) }
}

/// JSON with the characters a YAML stream may not hold raw (DEL, C1, U+FFFE/F; U+2028/9 and
/// the BOM for good measure) escaped, as the recorder writes it.
fn yaml_json(value: &Value) -> String {
    let escape =
        |c: char| matches!(c, '\u{7F}'..='\u{9F}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}');
    value.to_string().chars().map(|c| if escape(c) { format!("\\u{:04x}", c as u32) } else { c.to_string() }).collect()
}

/// `value` after `key:` at `indent`: a non-empty object as a block (when `blocks` says so), any
/// other value as JSON, which YAML reads as the same value.
fn yaml_value(value: &Value, indent: usize, blocks: &mut impl Iterator<Item = bool>, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() && blocks.next().unwrap_or(false) => {
            out.push('\n');
            for (k, v) in map {
                out.push_str(&" ".repeat(indent));
                out.push_str(&yaml_key(k));
                out.push(':');
                yaml_value(v, indent + 2, blocks, out);
            }
        }
        other => {
            out.push(' ');
            out.push_str(&yaml_json(other));
            out.push('\n');
        }
    }
}

/// The cases as a block-style YAML file with other top-level keys around the list.
fn block_yaml(cases: &[Value], before: bool, after: bool, blocks: &[bool]) -> String {
    let mut blocks = blocks.iter().copied().cycle();
    let mut out = String::new();
    if before {
        out.push_str("# cases\nendpoint: \"http://127.0.0.1:1\"\n");
    }
    out.push_str(if cases.is_empty() { "cases: []\n" } else { "cases:\n" });
    for (i, case) in cases.iter().enumerate() {
        if i % 3 == 2 {
            out.push_str("\n  # between cases\n");
        }
        for (j, (k, v)) in case.as_object().unwrap().iter().enumerate() {
            out.push_str(if j == 0 { "  - " } else { "    " });
            out.push_str(&yaml_key(k));
            out.push(':');
            yaml_value(v, 6, &mut blocks, &mut out);
        }
    }
    if after {
        out.push_str("timeout: 5\n");
    }
    out
}

#[track_caller]
fn assert_reads_back(label: &str, text: &str, cases: &[GenCase]) {
    let mut file = CaseFile::default();
    parse_into(&mut file, label, text);
    let (read, problems) = file.read_all();
    assert!(problems.is_empty(), "{problems:#?}\n{text}");
    assert_eq!(read.len(), cases.len(), "{text}");
    for (got, want) in read.iter().zip(cases) {
        assert_eq!(got.tool, want.tool);
        assert_eq!(got.name, want.name.clone().unwrap_or_else(|| want.tool.clone()));
        assert_eq!(got.args, Value::Object(want.args.clone().unwrap_or_default()), "{text}");
        assert_eq!(got.validate, want.validate.unwrap_or(true));
        let e = &want.expect;
        let status = e.get("status").and_then(Value::as_str);
        assert_eq!(got.expect.status.map(Status::name), status);
        assert_eq!(got.expect.value.as_ref(), e.get("value"), "{text}");
        assert_eq!(got.expect.contains.as_ref(), e.get("contains"), "{text}");
        let pointers: Vec<(String, Value)> = e
            .get("pointer")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(got.expect.pointer, pointers);
        assert_eq!(got.expect.max_ms, e.get("max_ms").and_then(Value::as_u64));
        assert_eq!(got.expect.error_contains.as_deref(), e.get("error_contains").and_then(Value::as_str));
    }
}

proptest! {
    #![proptest_config(crate::properties::config(256))]

    #[test]
    fn outline_never_panics_on_yaml_like_text(text in yaml_soup()) {
        check_outline(&text);
    }

    #[test]
    fn outline_never_panics_on_any_text(text in any_string(64)) {
        check_outline(&text);
        check_outline(&format!("cases:\n  - {text}\n  - tool: t\n"));
    }

    #[test]
    fn case_files_never_panic(text in yaml_soup(), label in prop::sample::select(vec!["c.yaml", "c.json", "c.json5"])) {
        read_any(label, &text);
    }

    #[test]
    fn case_files_of_any_text_never_panic(text in any_string(64)) {
        read_any("c.yaml", &text);
        read_any("c.yaml", &format!("cases:\n  - tool: {text}\n    expect: {{}}\n"));
    }

    /// A list of cases written as block YAML (read a case at a time), flow YAML or JSON (read
    /// whole) reads back as written.
    #[test]
    fn written_cases_read_back(
        cases in prop::collection::vec(gen_case(), 0..6),
        before in any::<bool>(),
        after in any::<bool>(),
        blocks in prop::collection::vec(any::<bool>(), 1..8),
    ) {
        let written: Vec<Value> = cases.iter().map(|c| escaped(&c.to_json())).collect();
        let block = block_yaml(&written, before, after, &blocks);
        assert_reads_back("c.yaml", &block, &cases);
        let whole = json!({"cases": written});
        // JSON is YAML, but for the characters YAML refuses raw.
        assert_reads_back("c.yaml", &yaml_json(&whole), &cases);
        assert_reads_back("c.json", &whole.to_string(), &cases);
    }
}

proptest! {
    #![proptest_config(crate::properties::config(64))]

    /// What the recorder appends (`S` in the app) reads back through the case file loader.
    #[test]
    fn recorded_cases_read_back(cases in prop::collection::vec(gen_case(), 1..4)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.yaml");
        for case in &cases {
            tooldeck::cases::record::append_case(&path, &case.to_json()).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_reads_back("cases.yaml", &text, &cases);
    }
}
