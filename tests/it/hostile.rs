//! Hostile inputs: each gives a clear diagnostic, never a panic, a stack overflow or a hang, and
//! never stops the good files beside it from loading.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use tooldeck::catalog::{Diagnostic, LoadOptions, Loaded, Severity, load_paths, load_text};
use tooldeck::text::visible;

const GOOD: &str =
    r#"{"tools": [{"name": "good", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}"#;

/// Writes `name` with `bytes` into a fresh folder.
fn file(name: &str, bytes: impl AsRef<[u8]>) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn load(paths: &[&Path]) -> Loaded {
    load_with(paths, &LoadOptions::default())
}

fn load_with(paths: &[&Path], options: &LoadOptions) -> Loaded {
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.to_path_buf()).collect();
    load_paths(&paths, options)
}

/// Loads one file named by the user, which must give no tool and exactly one error.
fn only_error(name: &str, bytes: impl AsRef<[u8]>) -> Diagnostic {
    let (_dir, path) = file(name, bytes);
    let loaded = load(&[&path]);
    assert!(loaded.catalog.is_empty(), "tools loaded from a hostile file: {:?}", loaded.catalog.tools());
    assert_eq!(loaded.files, 1);
    let errors: Vec<&Diagnostic> = loaded.errors().collect();
    assert_eq!(errors.len(), 1, "{:#?}", loaded.diagnostics);
    assert_eq!(errors[0].path, path.display().to_string());
    errors[0].clone()
}

/// Runs `f` on a thread with the default 2 MiB stack of a spawned thread (whatever
/// RUST_MIN_STACK says), as a loader thread in the app would have.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(f).unwrap().join().expect("the loader panicked")
}

#[test]
fn empty_file() {
    let error = only_error("empty.json", "");
    assert!(error.message.contains("empty"), "{error}");
    assert_eq!((error.line, error.column), (1, 1));
}

#[test]
fn whitespace_only() {
    let error = only_error("blank.json", " \n\t\r\n   \n");
    assert!(error.message.contains("empty"), "{error}");
}

#[test]
fn only_comments() {
    let error = only_error("comments.jsonc", "// nothing here\n/* and\n   nothing here */\n");
    assert!(error.message.contains("no JSON value"), "{error}");
    assert!(error.message.contains("only comments"), "{error}");
}

#[test]
fn unclosed_comment() {
    let error = only_error("comment.jsonc", "{\"tools\": []} /* trailing");
    assert!(error.message.contains("never closed"), "{error}");
    assert_eq!((error.line, error.column), (1, 15));
}

#[test]
fn truncated_json_names_the_unclosed_bracket() {
    let text = "{\n  \"tools\": [\n    {\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}}\n";
    let error = only_error("truncated.json", text);
    assert!(error.message.contains("end of file"), "{error}");
    assert!(error.message.contains("array opened at 2:12 is never closed"), "{error}");
    assert!(error.message.contains("truncated"), "{error}");
    assert_eq!((error.line, error.column), (4, 1), "reported where the file ends");
}

#[test]
fn truncated_inside_an_object() {
    let error = only_error("cut.json", "{\"tools\": [{\"name\": \"a\", \"inputSchema\": {\"type\": \"obj");
    assert!(error.message.contains("never closed"), "{error}");
    let error = only_error("cut2.json", "[{\"name\": \"a\",");
    assert!(error.message.contains("object opened at 1:2 is never closed"), "{error}");
}

#[test]
fn binary_file() {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bytes.extend((0..2048u32).map(|i| (i * 7 % 256) as u8));
    let error = only_error("image.json", &bytes);
    assert!(error.message.contains("binary"), "{error}");
    assert!(error.message.contains("NUL"), "{error}");
}

#[test]
fn not_utf8_reports_the_line_and_column_of_the_bad_byte() {
    let error = only_error("latin1.json", b"{\n  \"name\": \"caf\xE9\",\n  \"parameters\": {}\n}\n");
    assert!(error.message.contains("UTF-8"), "{error}");
    assert!(error.message.contains("0xE9"), "{error}");
    // `  "name": "caf` is 14 characters; the bad byte is the 15th.
    assert_eq!((error.line, error.column), (2, 15), "{error}");
}

#[test]
fn not_utf8_after_multibyte_characters_counts_characters() {
    let error = only_error("mixed.json", "{\"é€\": \"".bytes().chain([0xFF]).collect::<Vec<u8>>());
    assert_eq!((error.line, error.column), (1, 9), "{error}");
}

#[test]
fn utf16_with_a_bom() {
    let text = r#"{"tools": []}"#;
    let mut le = vec![0xFF, 0xFE];
    le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let error = only_error("le.json", &le);
    assert!(error.message.contains("UTF-16"), "{error}");
    let mut be = vec![0xFE, 0xFF];
    be.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
    let error = only_error("be.json", &be);
    assert!(error.message.contains("UTF-16"), "{error}");
}

#[test]
fn utf16_without_a_bom_is_still_refused() {
    let bytes: Vec<u8> = r#"{"tools": []}"#.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let error = only_error("nobom.json", &bytes);
    assert!(!error.message.is_empty());
}

#[test]
fn utf8_bom_is_fine() {
    let (_dir, path) = file("bom.json", format!("\u{FEFF}{GOOD}"));
    let loaded = load(&[&path]);
    assert!(loaded.diagnostics.is_empty(), "{:#?}", loaded.diagnostics);
    assert_eq!(loaded.catalog.len(), 1);
}

#[test]
fn over_the_size_cap() {
    let mut text = String::from("[\n");
    for i in 0..60 {
        text.push_str(&format!("{{\"name\": \"tool_{i}\", \"parameters\": {{\"type\": \"object\"}}}},\n"));
    }
    text.push_str("{\"name\": \"last\", \"parameters\": {}}\n]");
    assert!(text.len() > 3000);
    let (_dir, path) = file("big.json", &text);
    let options = LoadOptions { max_file_bytes: 1024, ..LoadOptions::default() };
    let loaded = load_with(&[&path], &options);
    assert!(loaded.catalog.is_empty());
    let errors: Vec<_> = loaded.errors().collect();
    assert_eq!(errors.len(), 1, "{:#?}", loaded.diagnostics);
    assert!(errors[0].message.contains("larger than"), "{}", errors[0]);
    assert_eq!(errors[0].line, 0, "a whole-file problem has no line");
    // The same file loads with the default cap.
    assert_eq!(load(&[&path]).catalog.len(), 61);
}

#[test]
fn size_cap_message_states_the_cap() {
    let (_dir, path) = file("big.json", "[".to_string() + &" ".repeat(4096) + "]");
    let loaded = load_with(&[&path], &LoadOptions { max_file_bytes: 1024, ..LoadOptions::default() });
    let error = loaded.errors().next().expect("an error");
    assert!(!error.message.contains(" 0 MiB"), "{error}");
    assert!(error.message.contains("larger than 1.0 KiB"), "{error}");
}

/// A real 50 MB file: the default cap refuses it quickly, without parsing it.
#[test]
fn fifty_megabytes_is_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.json");
    {
        let mut out = BufWriter::new(fs::File::create(&path).unwrap());
        out.write_all(b"{\"tools\": [\n").unwrap();
        let item = br#"{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}},"#;
        let mut written = 0;
        while written < 50_000_000 {
            out.write_all(item).unwrap();
            out.write_all(b"\n").unwrap();
            written += item.len() + 1;
        }
        out.write_all(b"{\"name\": \"end\", \"inputSchema\": {}}\n]}\n").unwrap();
    }
    assert!(fs::metadata(&path).unwrap().len() > 50_000_000);
    let loaded = load(&[&path]);
    assert!(loaded.catalog.is_empty());
    let errors: Vec<_> = loaded.errors().collect();
    assert_eq!(errors.len(), 1, "{:#?}", loaded.diagnostics);
    assert!(errors[0].message.contains("larger than"), "{}", errors[0]);
    assert!(errors[0].to_string().starts_with(&format!("{}: error: ", path.display())), "{}", errors[0]);
}

fn assert_too_deep(name: &'static str, text: String) {
    let error = on_small_stack(move || only_error(name, text));
    assert!(error.message.contains("deeper than"), "{error}");
}

#[test]
fn nested_arrays_100_000_deep() {
    assert_too_deep("arrays.json", "[".repeat(100_000));
    assert_too_deep("closed-arrays.json", "[".repeat(100_000) + &"]".repeat(100_000));
}

#[test]
fn nested_objects_100_000_deep() {
    assert_too_deep("objects.json", r#"{"a":"#.repeat(100_000));
    assert_too_deep("closed-objects.json", r#"{"a":"#.repeat(100_000) + "1" + &"}".repeat(100_000));
    assert_too_deep("objects.json5", "{a:".repeat(100_000) + "NaN" + &"}".repeat(100_000));
}

#[test]
fn deep_nesting_through_load_text() {
    let (tools, diagnostics) = on_small_stack(|| load_text("deep.json", &"[".repeat(100_000), &LoadOptions::default()));
    assert!(tools.is_empty());
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].severity, Severity::Error);
    assert!(diagnostics[0].message.contains("deeper than"), "{}", diagnostics[0]);
}

#[test]
fn yaml_nested_100_000_deep() {
    let loaded = on_small_stack(|| {
        let (_dir, path) = file("deep.yaml", "[".repeat(100_000) + &"]".repeat(100_000));
        load(&[&path])
    });
    assert!(loaded.catalog.is_empty());
    assert!(loaded.has_errors(), "{:#?}", loaded.diagnostics);
    let loaded = on_small_stack(|| {
        let (_dir, path) = file("deep-map.yaml", "{a: ".repeat(100_000) + "1" + &"}".repeat(100_000));
        load(&[&path])
    });
    assert!(loaded.catalog.is_empty());
    assert!(loaded.has_errors(), "{:#?}", loaded.diagnostics);
    let loaded = on_small_stack(|| {
        // Block style needs an indentation per level, so fewer levels (4.5 MB of text).
        let mut text = String::new();
        for depth in 0..3_000 {
            text.push_str(&" ".repeat(depth));
            text.push_str("a:\n");
        }
        let (_dir, path) = file("deep-block.yml", text);
        load(&[&path])
    });
    assert!(loaded.catalog.is_empty());
    assert!(loaded.has_errors(), "{:#?}", loaded.diagnostics);
}

/// Just under the nesting limit, a schema nested as deep as the parser allows still loads
/// (or is refused) without overflowing the stack in any later pass.
#[test]
fn deep_but_allowed_schema() {
    let depth = 90;
    let mut schema = r#"{"type": "string"}"#.to_string();
    for _ in 0..depth {
        schema = format!(r#"{{"type": "object", "properties": {{"x": {schema}}}}}"#);
    }
    let text = format!(r#"{{"tools": [{{"name": "deep", "inputSchema": {schema}}}]}}"#);
    let loaded = on_small_stack(move || {
        let (_dir, path) = file("deep-schema.json", text);
        load(&[&path])
    });
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    let tool = &loaded.catalog.tools()[0];
    let mut node = &tool.input_schema;
    for _ in 0..depth {
        node = &node["properties"]["x"];
    }
    assert_eq!(node, &serde_json::json!({"type": "string"}));
}

#[test]
fn deep_but_allowed_genaiscript_shorthand() {
    let depth = 190;
    let text = "{a:".repeat(depth) + "\"\"" + &"}".repeat(depth);
    let loaded = on_small_stack(move || {
        let (_dir, path) = file("deep.json5", text);
        load(&[&path])
    });
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    assert_eq!(loaded.catalog.len(), 1);
}

/// `$ref`s that double at every level must not blow up time or memory.
#[test]
fn exponential_refs_terminate() {
    let mut defs = serde_json::Map::new();
    defs.insert("d0".into(), serde_json::json!({"type": "string"}));
    for i in 1..48 {
        let prev = format!("#/$defs/d{}", i - 1);
        defs.insert(
            format!("d{i}"),
            serde_json::json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
        );
    }
    let text = serde_json::json!({"tools": [{"name": "bomb", "inputSchema": {
        "type": "object", "properties": {"x": {"$ref": "#/$defs/d47"}}, "$defs": defs
    }}]})
    .to_string();
    let (_dir, path) = file("bomb.json", text);
    let loaded = load(&[&path]);
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    assert_eq!(loaded.catalog.len(), 1);
    assert!(serde_json::to_string(&loaded.catalog.tools()[0].input_schema).unwrap().len() < 50_000_000);
}

#[test]
#[cfg(unix)] // Making symlinks on Windows takes a privilege tests do not have.
fn symlink_loop_in_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("good.json"), GOOD).unwrap();
    fs::create_dir_all(root.join("sub/deeper")).unwrap();
    std::os::unix::fs::symlink(root, root.join("sub/back-to-root")).unwrap();
    std::os::unix::fs::symlink(root.join("sub"), root.join("sub/deeper/up")).unwrap();
    std::os::unix::fs::symlink(root.join("sub/deeper/self"), root.join("sub/deeper/self")).unwrap();
    let loaded = load(&[root]);
    let ids: Vec<&str> = loaded.catalog.tools().iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["good"], "each real file loads once: {:#?}", loaded.diagnostics);
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
}

#[test]
#[cfg(unix)] // Making symlinks on Windows takes a privilege tests do not have.
fn a_symlink_to_itself_named_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a-good.json"), GOOD).unwrap();
    std::os::unix::fs::symlink(root.join("loop.json"), root.join("loop.json")).unwrap();
    let loaded = load(&[root]);
    assert_eq!(loaded.catalog.len(), 1, "{:#?}", loaded.diagnostics);
    let about_loop: Vec<_> = loaded.diagnostics.iter().filter(|d| d.path.ends_with("loop.json")).collect();
    assert_eq!(about_loop.len(), 1, "{:#?}", loaded.diagnostics);
}

#[test]
fn one_good_file_and_one_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a-bad.json"), "{\"tools\": [").unwrap();
    fs::write(dir.path().join("b-good.json"), GOOD).unwrap();
    fs::write(dir.path().join("notes.txt"), "not a definition file, not read").unwrap();
    let loaded = load(&[dir.path()]);
    assert_eq!(loaded.files, 2, "only definition extensions are read");
    assert_eq!(loaded.catalog.tools().iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["good"]);
    let errors: Vec<_> = loaded.errors().collect();
    assert_eq!(errors.len(), 1, "{:#?}", loaded.diagnostics);
    assert!(errors[0].path.ends_with("a-bad.json"), "{}", errors[0]);
    assert!(errors[0].line >= 1);
}

#[test]
fn good_files_load_whatever_order_the_paths_come_in() {
    let (_d1, bad) = file("bad.json", "\0\0\0");
    let (_d2, good) = file("good.json", GOOD);
    let missing = Path::new("/nonexistent/tooldeck/nothing.json");
    let loaded = load(&[&bad, missing, &good]);
    assert_eq!(loaded.catalog.len(), 1);
    assert_eq!(loaded.errors().count(), 2, "{:#?}", loaded.diagnostics);
}

#[test]
fn nonexistent_path() {
    let path = Path::new("/nonexistent/tooldeck/tools.json");
    let loaded = load(&[path]);
    assert!(loaded.catalog.is_empty());
    let errors: Vec<_> = loaded.errors().collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path, "/nonexistent/tooldeck/tools.json");
    assert_eq!(errors[0].line, 0);
    assert!(errors[0].message.contains("cannot open"), "{}", errors[0]);
    assert!(errors[0].to_string().starts_with("/nonexistent/tooldeck/tools.json: error: cannot open"), "{}", errors[0]);
}

#[test]
fn empty_folder_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = load(&[dir.path()]);
    assert!(!loaded.has_errors());
    assert_eq!(loaded.warnings().count(), 1, "{:#?}", loaded.diagnostics);
}

#[test]
fn json_that_is_not_a_tool_in_a_folder_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("package.json"), r#"{"name": "my-package", "version": "1.0.0", "private": true}"#)
        .unwrap();
    fs::write(dir.path().join("tools.json"), GOOD).unwrap();
    let loaded = load(&[dir.path()]);
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    assert_eq!(loaded.catalog.len(), 1);
    let warnings: Vec<_> = loaded.warnings().collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(warnings[0].path.ends_with("package.json"));
    assert!(warnings[0].message.starts_with("skipped"), "{}", warnings[0]);
}

#[test]
fn json_that_is_not_a_tool_named_directly_is_an_error() {
    let error = only_error("package.json", r#"{"name": "my-package", "version": "1.0.0", "private": true}"#);
    assert!(error.message.contains("not a tool definition"), "{error}");
    assert_eq!((error.line, error.column), (1, 1));
    let error = only_error("scalar.json", "\"just a string\"");
    assert!(error.message.contains("a string"), "{error}");
}

/// A data file that happens to be a JSON array, found by a folder walk, is not a tool file
/// either: it should be skipped with a warning, like any other unrecognised JSON.
#[test]
fn json_array_that_is_not_tools_in_a_folder_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("data.json"), r#"[{"id": 1, "label": "first"}, {"id": 2, "label": "second"}]"#).unwrap();
    fs::write(dir.path().join("tools.json"), GOOD).unwrap();
    let loaded = load(&[dir.path()]);
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    assert_eq!(loaded.catalog.len(), 1);
    assert!(loaded.warnings().any(|w| w.path.ends_with("data.json") && w.message.starts_with("skipped")));
}

#[test]
fn escape_sequences_in_names_and_descriptions() {
    let text = r#"{"tools": [{
  "name": "evil\u001b[2J\u001b]0;pwned\u0007",
  "title": "bidi \u202e gnirts",
  "description": "clears the screen\u001b[H\u009b31m and rings \u0007 with a NUL \u0000 and a lone \ud800 surrogate",
  "inputSchema": {"type": "object", "properties": {"k\u001bey": {"type": "string", "description": "\u001b[31mred"}}}
}]}"#;
    let (_dir, path) = file("evil.json", text);
    let loaded = load(&[&path]);
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    let tool = &loaded.catalog.tools()[0];
    assert_eq!(tool.name, "evil\u{1b}[2J\u{1b}]0;pwned\u{7}", "the name is kept exactly");
    assert!(tool.description.as_deref().unwrap().contains('\u{FFFD}'), "a lone surrogate becomes U+FFFD");
    for text in [
        tool.name.as_str(),
        tool.title.as_deref().unwrap(),
        tool.description.as_deref().unwrap(),
        tool.input_schema["properties"].as_object().unwrap().keys().next().unwrap(),
    ] {
        let shown = visible(text);
        assert!(!shown.chars().any(|c| c.is_control()), "control character left in {shown:?}");
        assert!(!shown.contains('\u{202E}'), "bidi override left in {shown:?}");
    }
    assert_eq!(visible(&tool.name), "evil␛[2J␛]0;pwned␇");
}

/// A key given twice: the last one wins, and positions after it stay right.
#[test]
fn duplicate_keys_keep_positions_right() {
    let text = r#"{
  "tools": [{"name": "old", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}],
  "tools": [
    {"name": "first", "inputSchema": {"type": "object"}},
    {"name": "second", "inputSchema": {"type": "object", "required": 5}}
  ]
}"#;
    let (_dir, path) = file("dupkeys.json", text);
    let loaded = load(&[&path]);
    let tools = loaded.catalog.tools();
    assert_eq!(tools.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["first"]);
    assert_eq!(tools[0].source.line, 4);
    let errors: Vec<_> = loaded.errors().collect();
    assert_eq!(errors.len(), 1, "{:#?}", loaded.diagnostics);
    assert_eq!(errors[0].line, 5, "{}", errors[0]);
}

#[test]
fn numbers_out_of_range_and_odd_literals() {
    let error = only_error("num.json", r#"{"name": "n", "parameters": {"type": "object", "maximum": 1e999}}"#);
    assert!(error.message.contains("not a number"), "{error}");
    let error = only_error("word.json", r#"{"name": undefined}"#);
    assert!(error.message.contains("strings need quotes"), "{error}");
    let error = only_error("ctrl.json", "{\"name\": \u{1}}");
    assert!(error.message.contains("U+0001"), "{error}");
}

#[test]
fn a_very_long_line_loads() {
    let description = "x".repeat(2_000_000);
    let text = format!(
        r#"{{"tools": [{{"name": "long", "description": "{description}", "inputSchema": {{"type": "object"}}}}]}}"#
    );
    let (_dir, path) = file("long.json", text);
    let loaded = load(&[&path]);
    assert!(loaded.diagnostics.is_empty(), "{:#?}", loaded.diagnostics);
    assert_eq!(loaded.catalog.tools()[0].description.as_deref().map(str::len), Some(2_000_000));
}
