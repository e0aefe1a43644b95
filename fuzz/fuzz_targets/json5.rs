//! The JSON / JSONC / JSON5 parser: any text is a document or an error inside the text; every
//! value's position is inside the text; a document without NaN/Infinity, written back as JSON,
//! reads back as the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tooldeck::catalog::document::{Document, Node};

fn walk(node: Node, text: &str) {
    let at = node.offset();
    assert!(at <= text.len() && text.is_char_boundary(at), "value at {at} in a text of {}", text.len());
    match node.value() {
        Value::Array(_) => node.items().for_each(|item| walk(item, text)),
        Value::Object(_) => node.entries().for_each(|(_, child)| walk(child, text)),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Document::parse(&text) {
        Ok(doc) => {
            walk(doc.root(), &text);
            if !doc.has_non_finite() {
                let json = serde_json::to_string(doc.value()).expect("a parsed value serialises");
                let again = Document::parse(&json).expect("JSON written by serde_json parses");
                assert_eq!(again.value(), doc.value(), "{json}");
            }
        }
        Err(e) => {
            assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{e:?} in a text of {}", text.len());
        }
    }
});
