//! The sample tools, built into the binary so an installed tooldeck has them: the catalog used
//! when no paths are given, and what the built-in demo server answers for.

use include_dir::{Dir, DirEntry, include_dir};

use super::Loaded;
use super::load::{LoadOptions, Syntax, load_bytes};

static SAMPLES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../sample-tools");

/// Loads every sample file; sources read `sample-tools/<folder>/<file>`.
pub fn load_samples(options: &LoadOptions) -> Loaded {
    let mut files = Vec::new();
    collect(&SAMPLES, &mut files);
    files.sort_by(|a, b| a.path().cmp(b.path()));
    let mut loaded = Loaded::default();
    for file in files {
        let path = file.path().to_string_lossy();
        let label = format!("sample-tools/{path}");
        let options = LoadOptions { syntax: Syntax::of_name(&label), named_by_user: true, ..*options };
        load_bytes(&mut loaded, &label, file.contents(), &options);
    }
    loaded
}

fn collect<'a>(dir: &'a Dir<'a>, files: &mut Vec<&'a include_dir::File<'a>>) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(d) => collect(d, files),
            DirEntry::File(f) => {
                let is_definition = f
                    .path()
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| ["json", "json5", "jsonc", "yaml", "yml"].contains(&e));
                if is_definition {
                    files.push(f);
                }
            }
        }
    }
}
