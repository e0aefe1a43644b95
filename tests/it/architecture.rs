//! The module picture: no circle between the crate's top-level modules (a circle inside one file
//! or folder is fine), and only `main.rs` uses the command line (`cli`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its code (tests aside) names with `crate::`.
fn uses() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(&src).expect("under src");
            let first = relative.components().next().expect("a file").as_os_str().to_string_lossy();
            let module = first.trim_end_matches(".rs").to_string();
            if module == "lib" || module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let used = uses.entry(module.clone()).or_default();
            for (at, _) in code.match_indices("crate::") {
                let name: String =
                    code[at + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if name != module && !name.is_empty() {
                    used.insert(name);
                }
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
