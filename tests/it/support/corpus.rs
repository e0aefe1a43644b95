//! Where the real-world corpus is, for every test that reads it (`#[path]`-included by each test
//! binary that needs it, so there is one rule).
//!
//! The corpus is third-party data kept outside the repository (CONTRIBUTING.md says what it
//! holds), so a fresh clone has none: those tests then say they skipped and pass, and the rest of
//! `cargo test` still means something. It is found at `TOOLDECK_CORPUS`, else at `corpus/` in the
//! repository (a link there is enough; git ignores it).
//! Setting `TOOLDECK_CORPUS` makes the corpus required: `.ci/run` sets it, so CI fails when the
//! corpus is missing instead of passing without having looked at it.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const VARIABLE: &str = "TOOLDECK_CORPUS";

const DEFAULT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");

/// The corpus folder, or `None` after one line on stderr when there is none and none was asked for.
/// Panics when `TOOLDECK_CORPUS` names a folder that is not there.
#[track_caller]
pub fn find() -> Option<PathBuf> {
    match locate(std::env::var_os(VARIABLE), Path::new(DEFAULT)) {
        Ok(Some(path)) => Some(path),
        Ok(None) => {
            // Straight to the stream rather than eprintln!, which the test harness captures and
            // throws away for a passing test: a skip has to be seen to be worth reporting.
            let test = std::thread::current().name().unwrap_or("a corpus test").to_owned();
            let line = format!("{test}: skipped: no corpus/ folder; set {VARIABLE} to the real-world corpus\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            None
        }
        Err(message) => panic!("{message}"),
    }
}

/// The rule itself, apart from the process environment so that both ways can be tested: a set
/// variable (even an empty one) must name a folder; unset, the default is used if it is there.
pub fn locate(variable: Option<OsString>, default: &Path) -> Result<Option<PathBuf>, String> {
    match variable {
        Some(value) => {
            let path = PathBuf::from(value);
            if path.is_dir() {
                Ok(Some(path))
            } else {
                Err(format!(
                    "{VARIABLE}={} is not a folder: the corpus tests are required when it is set",
                    path.display()
                ))
            }
        }
        None => Ok(default.is_dir().then(|| default.to_path_buf())),
    }
}
