//! `tooldeck check`: every problem in the definition files; exit 1 when there is an error.

use std::io::{self, Write};
use std::process::ExitCode;

use serde_json::json;

use super::{count_problems, exit};
use crate::catalog::Loaded;
use crate::text::visible;

pub fn run(loaded: &Loaded, as_json: bool) -> io::Result<ExitCode> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    if as_json {
        let report = json!({
            "tools": loaded.catalog.len(),
            "errors": loaded.errors().collect::<Vec<_>>(),
            "warnings": loaded.warnings().collect::<Vec<_>>(),
        });
        crate::json_out::write_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for diagnostic in &loaded.diagnostics {
            writeln!(out, "{}", visible(&diagnostic.to_string()))?;
        }
        let (errors, warnings) = (loaded.errors().count(), loaded.warnings().count());
        writeln!(
            out,
            "checked {} {}: {} {}, {}",
            loaded.files,
            if loaded.files == 1 { "file" } else { "files" },
            loaded.catalog.len(),
            if loaded.catalog.len() == 1 { "tool" } else { "tools" },
            count_problems(errors, warnings)
        )?;
    }
    out.flush()?;
    Ok(if loaded.has_errors() { exit::code(exit::FAILED) } else { ExitCode::SUCCESS })
}
