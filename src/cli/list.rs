//! `tooldeck list`: the catalog as a table, or as normalised JSON.

use std::borrow::Cow;
use std::io::{self, Write};
use std::process::ExitCode;

use super::count_problems;
use crate::catalog::Loaded;
use crate::catalog::Tool;
use crate::text::{truncate, visible, width};

pub fn run(loaded: &Loaded, as_json: bool) -> io::Result<ExitCode> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    if as_json {
        crate::json_out::write_pretty(&mut out, loaded.catalog.tools())?;
        writeln!(out)?;
    } else {
        write_table(&mut out, loaded.catalog.tools())?;
    }
    out.flush()?;
    let (errors, warnings) = (loaded.errors().count(), loaded.warnings().count());
    if errors + warnings > 0 {
        report!("{} (run `tooldeck check` to see them)", count_problems(errors, warnings));
    }
    Ok(ExitCode::SUCCESS)
}

/// `list --watch`: how the tools changed since the listing `before` (none: the first run), one
/// line a change from the diff engine, breaking first, on stderr (stdout stays the listing).
pub fn say_changes(before: Option<&crate::catalog::Catalog>, now: &crate::catalog::Catalog) {
    let Some(before) = before else { return };
    let lines = crate::diff::lines(&crate::diff::diff_catalogs(before, now));
    let mut err = io::stderr().lock();
    if lines.is_empty() {
        let _ = writeln!(err, "the same tools");
    }
    for line in lines {
        let _ = writeln!(err, "{line}");
    }
}

/// The ids, one a line, nothing else (shell completion reads them; problems stay unsaid).
pub fn ids(loaded: &Loaded) -> io::Result<ExitCode> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for tool in loaded.catalog.tools() {
        // An id with a line break (or an escape) would be several words, or a terminal command.
        if !tool.id.chars().any(char::is_control) {
            writeln!(out, "{}", tool.id)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn write_table(out: &mut impl Write, tools: &[Tool]) -> io::Result<()> {
    if tools.is_empty() {
        return writeln!(out, "no tools");
    }
    let rows: Vec<[(Cow<str>, usize); 5]> = tools
        .iter()
        .map(|t| {
            [
                cell(visible(&t.id)),
                cell(Cow::Owned(format!("{}{}", app_mark(t), truncate(&visible(t.display_title()), 40)))),
                cell(Cow::Owned(t.format.to_string())),
                cell(Cow::Owned(t.parameter_count().to_string())),
                cell(Cow::Owned(visible(&t.source.to_string()).into_owned())),
            ]
        })
        .collect();
    let headers = ["ID", "TITLE", "FORMAT", "PARAMS", "SOURCE"].map(|h| cell(Cow::Borrowed(h)));
    let mut widths = [0; 5];
    for row in std::iter::once(&headers).chain(&rows) {
        for (w, (_, cells)) in widths.iter_mut().zip(row) {
            *w = (*w).max(*cells);
        }
    }
    for row in std::iter::once(&headers).chain(&rows) {
        write_row(out, row, &widths)?;
    }
    Ok(())
}

/// `[app] ` before the title of a tool that ships an MCP App view (`[app-only] ` when a host
/// offers it to the app and not to the model).
fn app_mark(tool: &Tool) -> &'static str {
    match &tool.written.app {
        Some(app) if !app.model_sees() => "[app-only] ",
        Some(_) => "[app] ",
        None => "",
    }
}

/// A cell with its width, measured once: a catalog of 69,000 tools is 345,000 cells.
fn cell(text: Cow<'_, str>) -> (Cow<'_, str>, usize) {
    let cells = width(&text);
    (text, cells)
}

/// One line of the table: cells padded to their column's width, the count right-aligned, two
/// spaces between columns, nothing after the last.
fn write_row(out: &mut impl Write, row: &[(Cow<str>, usize); 5], widths: &[usize; 5]) -> io::Result<()> {
    for (i, ((text, cells), column)) in row.iter().zip(widths).enumerate() {
        let pad = column.saturating_sub(*cells);
        match i {
            3 => write!(out, "{:pad$}{text}  ", "")?,
            4 => writeln!(out, "{text}")?,
            _ => write!(out, "{text}{:pad$}  ", "")?,
        }
    }
    Ok(())
}
