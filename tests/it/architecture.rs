//! What neither the compiler nor clippy checks. The crates keep their layers apart (core, then
//! invoke, then the app) and clippy keeps functions short (`too_many_lines`); this file checks
//! the rest: no circle between the top-level modules inside a crate (a circle inside one file or
//! folder is fine), only `main.rs` uses the command line (`cli`), one browser gate, no string
//! errors, pane state private to its pane (so the compiler keeps its writes inside it), JSON
//! written only by `json_out`, tasks spawned only by the runtime's supervisor, and every server
//! listening through `loopback`.

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

/// Each pane of `App`, by the field that holds it. A pane's fields are private (checked below),
/// so the compiler keeps every write to its state inside its own module.
const PANES: &str = "list form_pane result fuzz eval auth faces asks sessions recorder prompts confirmations lint app_host \
    status watching";

fn words(list: &str) -> impl Iterator<Item = &str> {
    list.split_whitespace()
}

/// `App`'s fields that are its own state, not a pane's: `App` changes them itself.
const APP_OWN_FIELDS: &str = "catalog load_errors load_warnings loading load_progress focus size keymap zoomed before_result \
    overlay";

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
        .filter(|field| !words(APP_OWN_FIELDS).any(|f| f == **field) && !words(PANES).any(|p| p == **field))
        .collect();
    assert!(unknown.is_empty(), "App's fields neither a pane (PANES) nor its own (APP_OWN_FIELDS): {unknown:?}");
}

/// The pane structs whose fields must be private: every pane type of `App` (its fields that are
/// panes, `PANES`), and the state they hold.
const PANE_STATE_TYPES: &str =
    "ArtifactView ValueView ValueLines Run Answer LogRing LogLine TrafficLog FuzzRun Question JsonView";

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
        .filter(|(name, _)| words(PANES).any(|pane| pane == *name))
        .map(|(_, ty)| ty.trim().trim_end_matches(',').rsplit("::").next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(types.len(), words(PANES).count(), "every pane of App found: {types:?}");
    types.extend(words(PANE_STATE_TYPES).map(str::to_string));
    let mut public = Vec::new();
    for ty in &types {
        let opening = format!("pub struct {ty} {{");
        let (file, code) =
            files.iter().find(|(_, code)| code.contains(&opening)).unwrap_or_else(|| panic!("struct {ty}"));
        let fields = code.split(&opening).nth(1).and_then(|rest| rest.split("\n}").next()).unwrap_or_default();
        // `pub(super)` keeps a field inside a pane's own folder (`app/result/value.rs` → the result
        // pane), but opens one of `app/list.rs` to all of `app`.
        let super_is_app = file.matches('/').count() == 1;
        for line in fields.lines().map(str::trim) {
            let open = line.starts_with("pub ") || line.starts_with("pub(crate)") || line.starts_with("pub(in");
            if open || (super_is_app && line.starts_with("pub(super)")) {
                public.push(format!("{ty}.{}", line.split(':').next().unwrap_or(line)));
            }
        }
    }
    assert!(public.is_empty(), "pane state with pub fields (give them getters): {public:?}");
}

/// Files that serialize JSON without `json_out`, and why that is no output and no file: what is
/// drawn on screen goes through `text::visible`, which shows every control character.
const JSON_WRITERS_ALLOWED: &[(&str, &str)] = &[
    ("json_out.rs", "the one JSON writer for output and files"),
    ("lint/o200k/tests.rs", "a test's text to count tokens of (the indented JSON a person pastes), never written"),
    ("form/value.rs", "`pretty`: the text of the form's JSON editor and the result pane, drawn through text::visible"),
    ("form/build.rs", "counts a default's bytes; writes nothing"),
    ("invoke/mcp/asks.rs", "measures a server's request to cut what is shown"),
    ("invoke/mock/tools.rs", "the demo server's answer, sent to a client"),
    ("invoke/auth/trace.rs", "a sign-in step's body for the sign-in pane and stderr, through text::visible"),
    ("invoke/otc.rs", "the exchange view's request text, drawn through text::visible"),
    ("invoke/mcp/mod.rs", "the exchange view's request and answer text, drawn through text::visible"),
    ("invoke/mcp/as_result.rs", "the exchange view's request text, drawn through text::visible"),
    ("invoke/mcp/info.rs", "the server pane's capabilities text, drawn through text::visible"),
    ("invoke/mcp/exchange_log.rs", "the traffic pane's text, drawn through text::visible"),
    ("invoke/mcp/traffic.rs", "the traffic pane's text, drawn through text::visible"),
    (
        "wire/frame.rs",
        "a frame's bytes, the message rmcp handed tooldeck as rmcp sends it; written out only as a record line",
    ),
    ("servers/wrap/roundtrip.rs", "the wrap round-trip tests' configs: a test module, not built into tooldeck"),
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

/// Files that may bind a socket outside `loopback/`, with why.
const LISTENERS_ALLOWED: &[(&str, &str)] = &[(
    "proxy/live/port.rs",
    "the live feed's port for `tooldeck attach` where there are no Unix sockets: not HTTP (a browser cannot \
     speak it), and a watcher's first line must be the secret in a 0600 file",
)];

/// Every HTTP server is a `loopback::LoopbackServer`: only `loopback/` binds a TCP port or serves
/// HTTP, so none goes without the Host/Origin guard it puts in front of every router.
#[test]
fn every_server_listens_through_loopback() {
    for (file, code) in sources() {
        let found = listens(&code);
        let allowed = file.starts_with("loopback/")
            || (LISTENERS_ALLOWED.iter().any(|(name, _)| *name == file) && !found.contains(&"axum::serve("));
        assert!(
            found.is_empty() || allowed,
            "{file} listens by hand ({found:?}): serve through crate::loopback::Bound / LoopbackServer (its guard comes with it)"
        );
    }
}

/// The ways to listen or serve named in `code`, comments aside.
fn listens(code: &str) -> Vec<&'static str> {
    const WAYS: &[&str] = &["TcpListener::bind", "TcpListener::from_std", "axum::serve(", "hyper::server"];
    let code: String = code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
    WAYS.iter().copied().filter(|way| code.contains(way)).collect()
}

#[test]
fn the_listener_check_finds_them() {
    let code = "// TcpListener::bind in a comment\nlet l = tokio::net::TcpListener::bind(addr).await?;\n\
                axum::serve(l, router).await";
    assert_eq!(listens(code), ["TcpListener::bind", "axum::serve("]);
    assert!(listens("let l = Bound::bind(0).await?; // not TcpListener::bind").is_empty());
}
