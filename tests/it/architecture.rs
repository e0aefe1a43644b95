//! What neither the compiler nor clippy checks. The crates keep their layers apart (core, then
//! invoke, then the app) and clippy keeps functions short (`too_many_lines`); this file checks
//! the rest: no circle between the top-level modules inside a crate (a circle inside one file or
//! folder is fine), only `main.rs` uses the command line (`cli`), one browser gate, no string
//! errors, pane state written only by its pane, JSON written only by `json_out`, and tasks
//! spawned only by the runtime's supervisor.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its code (tests aside) names with `crate::`.
fn uses() -> BTreeMap<String, BTreeSet<String>> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in sources() {
        let module = file.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let used = uses.entry(module.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name != module && !name.is_empty() {
                used.insert(name);
            }
        }
    }
    uses
}

/// The modules reachable from `start` (not counting `start` unless a path leads back to it).
fn reachable(uses: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&str> = uses.get(start).into_iter().flatten().map(String::as_str).collect();
    while let Some(module) = todo.pop() {
        if seen.insert(module.to_string()) {
            todo.extend(uses.get(module).into_iter().flatten().map(String::as_str));
        }
    }
    seen
}

#[test]
fn no_circle_between_modules() {
    let uses = uses();
    assert!(uses.len() > 10, "the modules were found: {uses:?}");
    for module in uses.keys() {
        let back = reachable(&uses, module);
        assert!(!back.contains(module), "{module} is in a circle: {module} → {:?}", uses[module]);
    }
}

#[test]
fn only_main_uses_the_command_line() {
    for (module, used) in uses() {
        assert!(module == "cli" || !used.contains("cli"), "{module} uses cli");
    }
}

/// Every `.rs` file under `src/`, with its path relative to `src/` (`/`-separated) and its text
/// before any `#[cfg(test)]` (tests may be as long as they need).
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for src in
        [root.join("src"), root.join("crates/core/src"), root.join("crates/invoke/src"), root.join("crates/evals/src")]
    {
        sources_under(&src, &mut files);
    }
    files.sort();
    files
}

/// The `.rs` files under one crate's `src`, named relative to it.
fn sources_under(src: &Path, files: &mut Vec<(String, String)>) {
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(src).expect("under src");
                let name = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
                let text = std::fs::read_to_string(&path).expect("a source file");
                let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
                files.push((name, code));
            }
        }
    }
}

/// One gate to the browser: only `invoke/browser.rs` names the `webbrowser` crate (outside
/// comments), so every URL opened passes its http(s)-only check.
#[test]
fn only_the_browser_gate_opens_urls() {
    let naming: Vec<String> =
        sources().into_iter().filter(|(_, code)| names_webbrowser(code)).map(|(file, _)| file).collect();
    assert_eq!(naming, ["invoke/browser.rs"], "open URLs through crate::invoke::browser::open");
}

fn names_webbrowser(code: &str) -> bool {
    code.lines().any(|line| line.split("//").next().unwrap_or_default().contains("webbrowser"))
}

#[test]
fn the_browser_check_finds_a_use_and_skips_comments() {
    assert!(names_webbrowser("fn a() {\n    let _ = webbrowser::open(u);\n}"));
    assert!(names_webbrowser("use webbrowser as w;"));
    assert!(!names_webbrowser("/// not `webbrowser`, the gate\n// webbrowser::open\nfn b() {}"));
}

/// No `Result<_, String>` in the library: every module has its error enum, and what the runtime
/// reports back to the app is the app's typed error (`app::EffectError`).
#[test]
fn no_string_errors() {
    for (file, code) in sources() {
        let found = string_errors(&code);
        assert!(found.is_empty(), "{file} has Result<_, String>: give its module an error enum ({found:?})");
    }
}

/// The `Result<…>`s in `code` whose error (the second argument, at the top level of the
/// brackets) is `String`, wherever they are: a signature, a field, a message, a local.
fn string_errors(code: &str) -> Vec<String> {
    // Signatures may break across lines: look at the code with its whitespace squeezed.
    let squeezed: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut found = Vec::new();
    for (at, opening) in squeezed.match_indices("Result<") {
        // `MyResult<T>` is another type.
        if squeezed[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let args = &squeezed[at + opening.len()..];
        let bytes = args.as_bytes();
        let (mut depth, mut start, mut parts, mut end) = (0usize, 0, Vec::new(), None);
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'<' | b'(' | b'[' => depth += 1,
                // The arrow of a function type closes nothing.
                b'>' if i > 0 && bytes[i - 1] == b'-' => {}
                b'>' | b')' | b']' if depth == 0 => {
                    parts.push(&args[start..i]);
                    end = Some(i);
                    break;
                }
                b'>' | b')' | b']' => depth -= 1,
                b',' if depth == 0 => {
                    parts.push(&args[start..i]);
                    start = i + 1;
                }
                // Not a type after all (the words of a comment, say).
                b';' | b'{' | b'}' => break,
                _ => {}
            }
        }
        let stringly = parts.get(1).is_some_and(|e| matches!(e.trim(), "String" | "std::string::String"));
        if let Some(end) = end.filter(|_| stringly) {
            found.push(squeezed[at..at + opening.len() + end + 1].to_string());
        }
    }
    found
}

#[test]
fn the_string_error_check_finds_them_nested_and_split() {
    let code = "fn a() -> Result<Box<Report>, String> {}\nfield: Option<Result<Thumbnail,\n    String>>,\n\
                fn b() -> io::Result<String> {}\nfn c() -> Result<Vec<String>, Error> {}\n\
                fn d() -> Result<HashMap<String, String>, MyError> {}\nfn e(f: Box<dyn Fn() -> u8>) -> MyResult<u8, String> {}\n\
                let g: std::result::Result<(), std::string::String> = Ok(());";
    assert_eq!(
        string_errors(code),
        ["Result<Box<Report>, String>", "Result<Thumbnail, String>", "Result<(), std::string::String>"]
    );
}

/// Each pane of `App`, by the field that holds it, and the module file(s) (or folder) that own
/// its state: only these write its fields.
const PANES: &[(&str, &[&str])] = &[
    ("list", &["app/list.rs"]),
    ("form_pane", &["app/form.rs"]),
    ("result", &["app/result/"]),
    ("fuzz", &["app/fuzz.rs"]),
    ("auth", &["app/auth.rs"]),
    ("faces", &["app/faces.rs"]),
    ("asks", &["app/asks.rs"]),
    ("sessions", &["app/sessions.rs"]),
    ("recorder", &["app/recorder.rs"]),
    ("prompts", &["app/prompts.rs"]),
    ("confirmations", &["app/confirm.rs"]),
    ("lint", &["app/lint.rs"]),
    ("app_host", &["app/apps.rs"]),
    ("status", &["app/status_age.rs"]),
    ("watching", &["app/watching.rs"]),
];

/// `App`'s fields that are its own state, not a pane's: `App` changes them itself.
const APP_OWN_FIELDS: &[&str] = &[
    "catalog",
    "load_errors",
    "load_warnings",
    "loading",
    "load_progress",
    "focus",
    "size",
    "keymap",
    "zoomed",
    "before_result",
    "overlay",
];

/// Methods of the standard library's collections and options that change what they are called on.
const CHANGING_METHODS: &[&str] = &[
    "push",
    "push_str",
    "push_back",
    "push_front",
    "pop",
    "pop_back",
    "pop_front",
    "clear",
    "take",
    "insert",
    "replace",
    "retain",
    "truncate",
    "extend",
    "append",
    "as_mut",
    "get_mut",
    "iter_mut",
    "remove",
    "drain",
    "sort",
    "sort_by",
    "dedup",
    "entry",
    "clone_from",
    "get_or_insert",
    "get_or_insert_with",
];

/// A pane owns its state: its fields change only in its own module (through `Prompts::open`,
/// `FormPane::start_editing`, `ToolList::start_filter`...); the app and the screen read them.
#[test]
fn pane_state_is_written_only_by_its_pane() {
    let written: Vec<String> = sources()
        .iter()
        .filter(|(file, _)| !file.ends_with("/tests.rs"))
        .flat_map(|(file, code)| pane_state_writes(file, code))
        .collect();
    assert!(written.is_empty(), "pane state written from outside its pane:\n{}", written.join("\n"));
}

/// Every field of `App` is either a pane in `PANES` or `App`'s own: a new pane joins the check.
#[test]
fn every_pane_of_the_app_is_checked() {
    let mod_rs = sources().into_iter().find(|(file, _)| file == "app/mod.rs").expect("app/mod.rs").1;
    let body = mod_rs.split("pub struct App {").nth(1).and_then(|rest| rest.split("\n}").next()).expect("struct App");
    let fields: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("//"))
        .filter_map(|line| line.trim_start_matches("pub ").split_once(':').map(|(name, _)| name.trim()))
        .collect();
    assert!(fields.len() > 10, "the fields of App: {fields:?}");
    let unknown: Vec<&&str> = fields
        .iter()
        .filter(|field| !APP_OWN_FIELDS.contains(field) && !PANES.iter().any(|(pane, _)| pane == *field))
        .collect();
    assert!(unknown.is_empty(), "App's fields neither a pane (PANES) nor its own (APP_OWN_FIELDS): {unknown:?}");
}

/// Where `code` (the file `file` under `src/`) writes a field of a pane from outside its module:
/// `app.PANE.FIELD = …` (or `+=`...), `&mut app.PANE.FIELD`, `app.PANE.FIELD.push(…)` and the other
/// changing methods of collections, with `self.` for `app.` in the app's own files.
fn pane_state_writes(file: &str, code: &str) -> Vec<String> {
    let squeezed: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut written = Vec::new();
    let owners = |pane: &str| PANES.iter().find(|(p, _)| *p == pane).map_or(&[][..], |(_, owners)| *owners);
    for (pane, _) in PANES.iter().filter(|(pane, _)| !owners(pane).iter().any(|owner| file.starts_with(owner))) {
        // `self` is the app only in the app's files.
        let holders: &[&str] = if file.starts_with("app/") { &["app", "self"] } else { &["app"] };
        for holder in holders {
            // A whole pane borrowed into a name to change it there (`let pane = &mut app.list;`
            // then `pane.filter = …`) is a write too; a whole pane swapped or passed is not.
            let whole = format!("= &mut {holder}.{pane};");
            for (at, _) in squeezed.match_indices(&whole) {
                written.push(format!(
                    "{file}: {} (borrowed whole to change; owned by {})",
                    &squeezed[at..at + whole.len()],
                    owners(pane).join(", ")
                ));
            }
            let pattern = format!("{holder}.{pane}.");
            for (at, _) in squeezed.match_indices(&pattern) {
                let before = squeezed[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                if let Some(how) = write_at(&squeezed, at, at + pattern.len()) {
                    let end = (at + pattern.len() + 30).min(squeezed.len());
                    let end = (end..=squeezed.len()).find(|&i| squeezed.is_char_boundary(i)).unwrap_or(squeezed.len());
                    written.push(format!(
                        "{file}: {} ({how}; owned by {})",
                        &squeezed[at..end],
                        owners(pane).join(", ")
                    ));
                }
            }
        }
    }
    written
}

/// Whether the field path starting at `from` (after `app.PANE.`, which starts at `holder`) is
/// written there, and how.
fn write_at(code: &str, holder: usize, from: usize) -> Option<&'static str> {
    let bytes = code.as_bytes();
    let word = |i: usize| bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    // The field path: `field(.field)*`, each possibly indexed; a method of the pane itself
    // (`app.list.start_filter()`) is the pane's own business.
    let mut i = from;
    loop {
        let start = i;
        while word(i) {
            i += 1;
        }
        if i == start || bytes.get(i) == Some(&b'(') {
            return None;
        }
        if bytes.get(i) == Some(&b'[') {
            i += code[i..].find(']')? + 1;
        }
        if bytes.get(i) != Some(&b'.') {
            break;
        }
        let next = i + 1;
        let mut end = next;
        while word(end) {
            end += 1;
        }
        if bytes.get(end) == Some(&b'(') {
            return CHANGING_METHODS.contains(&&code[next..end]).then_some("a changing method");
        }
        i = next;
    }
    if code[..holder].ends_with("&mut ") {
        return Some("borrowed to change");
    }
    let rest = code[i..].trim_start();
    let assigned = (rest.starts_with('=') && !rest[1..].starts_with(['=', '>']))
        || ["+=", "-=", "*=", "/=", "|=", "&=", "^=", "%="].iter().any(|op| rest.starts_with(op));
    assigned.then_some("assigned")
}

#[test]
fn the_pane_state_check_finds_a_write() {
    let code = "app.prompts.popup = Some(Popup::help());\nif app.prompts.popup == None {}\nlet e = &mut self.form_pane.editing;";
    assert_eq!(pane_state_writes("app/actions.rs", code).len(), 2, "the two writes, not the comparison");
    assert_eq!(pane_state_writes("app/prompts.rs", "self.prompts.popup = None;").len(), 0, "its own module");
    let writes = [
        "app.list.filtering = true;",
        "self.recorder.count += 1;",
        "app.faces.subscribed.insert(uri);",
        "self.asks.roots.clear();",
        "std::mem::take(&mut app.auth.steps)",
        "if let Some(json) = self.form_pane.json.as_mut() {}",
        "app.result.value_view.cursor = 3;",
        "app.fuzz.run.as_mut().map(|r| r.id)",
        "app.sessions.current = x;",
        "let pane = &mut app.form_pane; pane.cursor = 0;",
    ];
    for write in writes {
        assert_eq!(pane_state_writes("app/actions.rs", write).len(), 1, "{write}");
    }
    let reads = [
        "if app.list.filtering { }",
        "let open = app.result.scroll >= 3;",
        "app.result.run.as_ref().map(|r| r.id)",
        "match x { _ if app.list.filtering => 1 }",
        "app.list.start_filter();",
        "app.list.filter.text().is_empty()",
        "std::mem::swap(&mut app.sessions, parked);",
        "let s = &app.list.filter;",
    ];
    for read in reads {
        assert_eq!(pane_state_writes("app/actions.rs", read), Vec::<String>::new(), "{read}");
    }
    assert_eq!(pane_state_writes("app/result/content.rs", "self.result.scroll = 0;").len(), 0, "the pane's folder");
    assert_eq!(pane_state_writes("ui/list.rs", "self.list.filtering = true;").len(), 0, "self is not the app there");
    assert_eq!(pane_state_writes("cli/app.rs", "app.sessions.found = found;").len(), 1, "the command line too");
}

/// Each pane that takes keys: its type, and how `route.rs` reaches it from the app. Every one
/// answers through `Component::handle`; a new one joins this list (and `route::Pane`).
const KEY_PANES: &[(&str, &str)] = &[
    ("Asks", "app.asks"),
    ("Prompts", "app.prompts"),
    ("ServerPane", "app.sessions.pane_mut(session)"),
    ("TrafficLog", "app.sessions.pane_mut(session).traffic_mut()"),
    ("FuzzPane", "app.fuzz"),
    ("AuthPane", "app.auth"),
    ("ToolList", "app.list"),
    ("FormPane", "app.form_pane"),
    ("ResultPane", "app.result"),
];

/// The type names `Component` is implemented for, however the trait is named.
fn components() -> Vec<String> {
    let mut found = Vec::new();
    for (_, code) in sources() {
        let squeezed: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
        for (at, _) in squeezed.match_indices("Component for ") {
            let before = squeezed[..at].trim_end().rsplit(' ').next().unwrap_or_default();
            if before.ends_with("::") || before == "impl" {
                let name: String =
                    squeezed[at + 14..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                found.push(name);
            }
        }
    }
    found
}

/// Every pane that takes keys implements `Component`, and the router hands it its input through
/// `handle`; no other type does (a new component joins `KEY_PANES`).
#[test]
fn every_pane_that_takes_keys_answers_through_handle() {
    let components = components();
    let route = sources().into_iter().find(|(file, _)| file == "app/route.rs").expect("app/route.rs").1;
    for (pane, path) in KEY_PANES {
        assert!(components.iter().any(|c| c == pane), "{pane} does not implement Component: {components:?}");
        let call = format!("{path}.handle(input, &cx)");
        assert!(route.contains(&call), "app/route.rs does not route to {pane} ({call})");
    }
    let unlisted: Vec<&String> = components.iter().filter(|c| !KEY_PANES.iter().any(|(pane, _)| pane == c)).collect();
    assert!(unlisted.is_empty(), "components missing from KEY_PANES: {unlisted:?}");
}

/// The body of `fn name` in `code` (from its name to its closing brace), if there is one.
fn function_body<'a>(code: &'a str, name: &str) -> Option<&'a str> {
    let start = code.find(&format!("fn {name}("))?;
    let open = start + code[start..].find('{')?;
    let mut depth = 0;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&code[start..open + i + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// A key goes through the panes' `handle`: `key_pressed` hands the question, the popup and the
/// pane over the others their input with `handle`, and the focused pane through
/// `focused_key`, which does too; the per-pane key functions of `App` are gone, and the panes'
/// own key readers are theirs alone.
#[test]
fn key_pressed_routes_through_handle() {
    let files = sources();
    let code = |name: &str| files.iter().find(|(file, _)| file == name).map(|(_, code)| code.as_str()).unwrap_or("");
    let actions = code("app/actions.rs");
    let key_pressed = function_body(actions, "key_pressed").expect("fn key_pressed in app/actions.rs");
    for pane in ["Pane::Question", "Pane::Popup"] {
        assert!(key_pressed.contains(&format!("handle(app, {pane}")), "key_pressed does not hand {pane} the key");
    }
    assert!(key_pressed.contains("handle(app, pane, input)"), "key_pressed does not hand the overlay the key");
    assert!(key_pressed.contains("focused_key("), "key_pressed does not route to the focused pane");
    let focused = function_body(actions, "focused_key").expect("fn focused_key");
    assert!(focused.contains("handle(app, pane, input)"), "focused_key does not hand the focused pane the key");
    let pasted = function_body(actions, "pasted").expect("fn pasted");
    assert!(pasted.contains("Input::Paste(text)"), "a paste does not go through handle");
    let gone = ["fuzz_key", "traffic_key", "server_key", "result_key", "filter_key", "edit_key", "json_key", "paste"];
    for (file, code) in files.iter().filter(|(file, _)| file.starts_with("app/")) {
        for name in gone {
            let in_app =
                code.match_indices(&format!("fn {name}(")).any(|(at, _)| enclosing_impl(code, at) == Some("App"));
            assert!(!in_app, "{file} defines App::{name}: keys go through the panes' Component::handle");
        }
    }
    // The panes' own readers of keys and pastes are private: `handle` is the way in.
    let readers = [
        ("app/prompts.rs", "pub fn key("),
        ("app/prompts.rs", "pub fn paste("),
        ("app/asks.rs", "pub fn key("),
        ("app/list.rs", "pub fn filter_key("),
        ("app/list.rs", "pub fn paste_filter("),
    ];
    for (file, reader) in readers {
        assert!(!code(file).contains(reader), "{file}: {reader} is a way around handle");
    }
}

/// The type of the `impl` block that holds byte `at` of `code` (`impl App {` → `App`).
fn enclosing_impl(code: &str, at: usize) -> Option<&str> {
    let start = match code[..at].rfind("\nimpl") {
        Some(newline) => newline + 1,
        None => code.starts_with("impl").then_some(0)?,
    };
    let header = &code[start..code[start..].find('{').map_or(at, |i| start + i)];
    header.rsplit(' ').find(|word| !word.is_empty()).map(str::trim)
}

/// The pane structs whose fields must be private: every pane type of `App` (its fields that are
/// panes, `PANES`), and the state they hold.
const PANE_STATE_TYPES: &[&str] = &[
    "ArtifactView",
    "ValueView",
    "ValueLines",
    "Run",
    "Answer",
    "LogRing",
    "LogLine",
    "TrafficLog",
    "FuzzRun",
    "Question",
    "JsonView",
];

/// Pane structs left with `pub` fields, as `Type.field`. It may only shrink.
const PUB_FIELDS_LEFT: &[&str] = &[];

/// No pane struct has a `pub` field: the screen reads a pane through its getters and nothing
/// outside it can write its state.
#[test]
fn no_pane_struct_has_a_pub_field() {
    let files = sources();
    let mod_rs = &files.iter().find(|(file, _)| file == "app/mod.rs").expect("app/mod.rs").1;
    let body = mod_rs.split("pub struct App {").nth(1).and_then(|rest| rest.split("\n}").next()).expect("struct App");
    let mut types: Vec<String> = body
        .lines()
        .filter_map(|line| line.trim().trim_start_matches("pub ").split_once(':'))
        .filter(|(name, _)| PANES.iter().any(|(pane, _)| pane == name))
        .map(|(_, ty)| ty.trim().trim_end_matches(',').rsplit("::").next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(types.len(), PANES.len(), "every pane of App found: {types:?}");
    types.extend(PANE_STATE_TYPES.iter().map(|t| t.to_string()));
    let mut public = Vec::new();
    for ty in &types {
        let opening = format!("pub struct {ty} {{");
        let (_, code) = files.iter().find(|(_, code)| code.contains(&opening)).unwrap_or_else(|| panic!("struct {ty}"));
        let fields = code.split(&opening).nth(1).and_then(|rest| rest.split("\n}").next()).unwrap_or_default();
        for line in fields.lines().map(str::trim) {
            if let Some(field) = line.strip_prefix("pub ").and_then(|rest| rest.split(':').next()) {
                public.push(format!("{ty}.{field}"));
            }
        }
    }
    let new: Vec<&String> = public.iter().filter(|f| !PUB_FIELDS_LEFT.contains(&f.as_str())).collect();
    assert!(new.is_empty(), "pane state with pub fields (give them getters): {new:?}");
    let fixed: Vec<&&str> = PUB_FIELDS_LEFT.iter().filter(|f| !public.contains(&f.to_string())).collect();
    assert!(fixed.is_empty(), "no longer pub, take them off PUB_FIELDS_LEFT: {fixed:?}");
}

#[test]
fn the_routing_checks_find_what_they_look_for() {
    let code = "impl App {\n    fn fuzz_key(&mut self) { if x { y } }\n}\nimpl super::Component for FuzzPane {\n    fn handle(&mut self) {}\n}\n";
    let at = code.find("fn fuzz_key").unwrap();
    assert_eq!(enclosing_impl(code, at), Some("App"));
    assert_eq!(enclosing_impl(code, code.find("fn handle").unwrap()), Some("FuzzPane"));
    assert_eq!(function_body(code, "fuzz_key"), Some("fn fuzz_key(&mut self) { if x { y } }"));
    assert_eq!(function_body(code, "missing"), None);
}

/// Files that serialize JSON without `json_out`, and why that is no output and no file: what is
/// drawn on screen goes through `text::visible`, which shows every control character.
const JSON_WRITERS_ALLOWED: &[(&str, &str)] = &[
    ("json_out.rs", "the one JSON writer for output and files"),
    ("form/value.rs", "`pretty`: the text of the form's JSON editor and the result pane, drawn through text::visible"),
    ("form/build.rs", "counts a default's bytes; writes nothing"),
    ("invoke/mcp/asks.rs", "measures a server's request to cut what is shown"),
    ("invoke/mock/tools.rs", "the demo server's answer, sent to a client"),
    ("invoke/auth/trace.rs", "a sign-in step's body for the sign-in pane and stderr, through text::visible"),
    ("invoke/otc.rs", "the exchange view's request text, drawn through text::visible"),
    ("invoke/mcp/mod.rs", "the exchange view's request and answer text, drawn through text::visible"),
    ("invoke/mcp/as_result.rs", "the exchange view's request text, drawn through text::visible"),
    ("invoke/mcp/info.rs", "the server pane's capabilities text, drawn through text::visible"),
    ("invoke/mcp/wire.rs", "the traffic pane's text, drawn through text::visible"),
    ("invoke/mcp/traffic.rs", "the traffic pane's text, drawn through text::visible"),
    (
        "wire/frame.rs",
        "a frame's bytes, the message rmcp handed tooldeck as rmcp sends it; written out only as a record line",
    ),
    (
        "proxy/live/feed.rs",
        "a frame's bytes, remade from a record line a proxy or a record wrote; written out only as a record line",
    ),
];

/// Every `--json` output and every JSON file is written by `json_out` (C1 controls and bidi marks
/// escaped); any other file that serializes JSON is on the list above, with its reason.
#[test]
fn json_is_written_only_by_json_out() {
    for (file, code) in sources() {
        let writes = json_writes(&code);
        let allowed = JSON_WRITERS_ALLOWED.iter().any(|(name, _)| *name == file);
        assert!(
            writes.is_empty() || allowed,
            "{file} writes JSON with {writes:?}: use crate::json_out (or, for text that is neither output nor a file, add it to JSON_WRITERS_ALLOWED with why)"
        );
    }
}

/// serde_json's writers named in `code`, comments aside.
fn json_writes(code: &str) -> Vec<String> {
    const WRITERS: &[&str] =
        &["to_string", "to_string_pretty", "to_vec", "to_vec_pretty", "to_writer", "to_writer_pretty"];
    let code: String = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut found = Vec::new();
    for (at, _) in code.match_indices("serde_json::") {
        let name: String = code[at + 12..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if WRITERS.contains(&name.as_str()) || name == "Serializer" {
            found.push(format!("serde_json::{name}"));
        }
    }
    // `use serde_json::{to_string, …}` would hide the calls from the search above.
    for line in code.lines().filter(|l| l.trim_start().starts_with("use serde_json")) {
        found.extend(
            WRITERS
                .iter()
                .filter(|w| line.contains(&format!("{w},")) || line.contains(&format!("{w}}}")))
                .map(|w| w.to_string()),
        );
    }
    found
}

#[test]
fn the_json_writer_check_finds_them() {
    let code = "// serde_json::to_string in a comment\nlet a = serde_json::to_writer_pretty(&mut out, &v);\n\
                let b = serde_json::to_value(&v);\nuse serde_json::{Value, to_vec};\nlet s = serde_json::Serializer::new(out);";
    assert_eq!(json_writes(code), ["serde_json::to_writer_pretty", "serde_json::Serializer", "to_vec"]);
}

/// The app's runtime starts every task through its supervisor (`runtime/supervisor.rs`), so
/// quitting cancels them all: no other file of `runtime/` spawns one. Blocking work
/// (`spawn_blocking`) runs inside a supervised task.
#[test]
fn the_runtime_spawns_only_through_its_supervisor() {
    let spawning: Vec<String> = sources()
        .into_iter()
        .filter(|(file, code)| {
            file.starts_with("runtime/") && file != "runtime/supervisor.rs" && code.contains("tokio::spawn(")
        })
        .map(|(file, _)| file)
        .collect();
    assert!(spawning.is_empty(), "these spawn tasks nobody supervises: {spawning:?}");
}
