//! Definition files in every format: the first byte forces one of the seven formats or leaves
//! it to detection, the second names the file (.json, .json5, .jsonc, .yaml, stdin); the rest is
//! the file. Loading never panics; every tool has an object input schema.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tooldeck::catalog::{Format, LoadOptions, Loaded, Syntax, load_bytes};

fuzz_target!(|data: &[u8]| {
    let [format, name, bytes @ ..] = data else { return };
    let format = Format::ALL.get(usize::from(*format % 8)).copied();
    let label = ["t.json", "t.json5", "t.jsonc", "t.yaml", "<stdin>", "t.tools.json"][usize::from(name % 6)];
    let syntax = if label.ends_with(".json5") || label.ends_with(".jsonc") { Syntax::Json5 } else { Syntax::Json };
    let named_by_user = name & 0x40 != 0;
    let options = LoadOptions { syntax, named_by_user, format, meta_check: name & 0x80 != 0, ..LoadOptions::default() };
    let mut loaded = Loaded::default();
    load_bytes(&mut loaded, label, bytes, &options);
    for tool in loaded.catalog.tools() {
        assert!(tool.input_schema.is_object(), "{}: {}", tool.id, tool.input_schema);
    }
    for diagnostic in &loaded.diagnostics {
        assert!(!diagnostic.message.is_empty());
    }
});
