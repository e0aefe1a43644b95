//! Every definition format: loading never panics, on any bytes and on the sample definitions
//! damaged every way a file gets damaged; every diagnostic has a place and every tool a form.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use tooldeck::catalog::{Format, LoadOptions, Loaded, Severity, Syntax, Tool, load_bytes, load_text};
use tooldeck::form::Form;

use super::strategies::{any_string, json_soup, json_value, mutate, mutations, yaml_soup};

/// The sample definitions (every format), as seeds to damage.
fn seeds() -> &'static [(String, Vec<u8>)] {
    static SEEDS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e != "md") {
                    out.push(path);
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-tools");
        let mut paths = Vec::new();
        walk(&root, &mut paths);
        paths.sort();
        assert!(paths.len() >= 10, "the sample definitions are missing: {}", root.display());
        paths
            .into_iter()
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect()
    })
}

fn format() -> impl Strategy<Value = Option<Format>> {
    prop_oneof![2 => Just(None), 3 => prop::sample::select(Format::ALL.to_vec()).prop_map(Some)]
}

fn label() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["t.json", "t.json5", "t.jsonc", "t.yaml", "t.tools.json", "t.info.json", "<stdin>"])
}

fn options(format: Option<Format>, meta_check: bool) -> LoadOptions {
    LoadOptions { format, meta_check, ..LoadOptions::default() }
}

/// What a load must give whatever it was given: diagnostics with a place in the text (or none,
/// for a whole-file problem), tools with an object input schema and a line, and a form for each.
#[track_caller]
fn check_loaded(loaded: &Loaded, text_lines: usize) {
    for d in &loaded.diagnostics {
        assert!(!d.message.is_empty());
        assert!(d.line == 0 || d.column >= 1, "{d:?}");
        assert!(d.line <= text_lines + 1, "{d:?} in {text_lines} lines");
    }
    for tool in loaded.catalog.tools() {
        check_tool(tool, text_lines);
    }
}

#[track_caller]
fn check_tool(tool: &Tool, text_lines: usize) {
    assert!(tool.input_schema.is_object(), "{}: {}", tool.id, tool.input_schema);
    assert!(tool.source.line >= 1 && tool.source.line <= text_lines + 1, "{:?}", tool.source);
    let mut form = Form::new(tool);
    let arguments = form.arguments().clone();
    form.set_arguments(&arguments);
}

/// Lines, counting a lone `\r` as a line break too: YAML does, and its errors count so.
fn lines(bytes: &[u8]) -> usize {
    let lone_cr = bytes.windows(2).filter(|w| w[0] == b'\r' && w[1] != b'\n').count();
    bytes.iter().filter(|&&b| b == b'\n').count() + lone_cr + usize::from(bytes.last() == Some(&b'\r')) + 1
}

fn load(label: &str, bytes: &[u8], format: Option<Format>, meta_check: bool) -> Loaded {
    let mut loaded = Loaded::default();
    let json5 = label.ends_with(".json5") || label.ends_with(".jsonc");
    let syntax = if json5 { Syntax::Json5 } else { Syntax::Json };
    load_bytes(&mut loaded, label, bytes, &LoadOptions { syntax, ..options(format, meta_check) });
    loaded
}

proptest! {
    #![proptest_config(crate::properties::config(256))]

    #[test]
    fn any_bytes_load_without_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..256),
        label in label(),
        format in format(),
    ) {
        check_loaded(&load(label, &bytes, format, false), lines(&bytes));
    }

    #[test]
    fn json_like_text_loads_without_panic(text in json_soup(), format in format(), yaml in any::<bool>()) {
        let (tools, diagnostics) = load_text(
            "t.json",
            &text,
            &LoadOptions { syntax: if yaml { Syntax::Yaml } else { Syntax::Json5 }, ..options(format, false) },
        );
        let loaded_lines = lines(text.as_bytes());
        tools.iter().for_each(|t| check_tool(t, loaded_lines));
        prop_assert!(diagnostics.iter().all(|d| d.line <= loaded_lines + 1));
    }

    #[test]
    fn yaml_like_text_loads_without_panic(text in yaml_soup(), format in format()) {
        let (tools, _) = load_text(
            "t.yaml",
            &text,
            &LoadOptions { syntax: Syntax::Yaml, named_by_user: false, ..options(format, false) },
        );
        tools.iter().for_each(|t| check_tool(t, lines(text.as_bytes())));
    }

    /// Any JSON value is a document some format may claim: wrapped the ways formats wrap tools.
    #[test]
    fn any_json_document_loads_without_panic(
        value in json_value(),
        wrap in 0usize..6,
        format in format(),
        named in any::<bool>(),
    ) {
        let doc = match wrap {
            0 => value,
            1 => serde_json::json!({"tools": [value]}),
            2 => serde_json::json!([{"type": "function", "function": {"name": "f", "parameters": value}}]),
            3 => serde_json::json!({"name": "t", "inputSchema": value, "outputSchema": value}),
            4 => serde_json::json!({"name": "t", "parameters": value}),
            _ => serde_json::json!({"type": "object", "properties": {"p": value}, "$defs": {"x": value}}),
        };
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let (tools, diagnostics) = load_text("t.json", &text, &LoadOptions { named_by_user: named, ..options(format, true) });
        let n = lines(text.as_bytes());
        tools.iter().for_each(|t| check_tool(t, n));
        prop_assert!(diagnostics.iter().all(|d| d.line >= 1 && d.line <= n + 1 && d.column >= 1), "{:?}", diagnostics);
    }

    /// The samples, damaged: each format read as itself, as detected, and as every other format.
    #[test]
    fn damaged_samples_load_without_panic(
        seed in any::<prop::sample::Index>(),
        edits in mutations(),
        format in format(),
        as_yaml in any::<bool>(),
    ) {
        let seeds = seeds();
        let (name, bytes) = &seeds[seed.index(seeds.len())];
        let mut bytes = bytes.clone();
        for edit in &edits {
            mutate(&mut bytes, edit);
        }
        let label = if as_yaml { format!("{name}.yaml") } else { name.clone() };
        check_loaded(&load(&label, &bytes, format, true), lines(&bytes));
    }

    #[test]
    fn any_text_as_every_format(text in any_string(48), format in format()) {
        let (tools, _) = load_text("t.json5", &text, &LoadOptions { syntax: Syntax::Json5, ..options(format, false) });
        tools.iter().for_each(|t| check_tool(t, lines(text.as_bytes())));
    }
}

/// Undamaged, every sample loads without an error in its own format.
#[test]
fn samples_load_cleanly() {
    for (name, bytes) in seeds() {
        let loaded = load(name, bytes, None, true);
        let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert!(!loaded.catalog.is_empty(), "{name}");
        check_loaded(&loaded, lines(bytes));
    }
}
