//! `tooldeck list`: the catalog as a table, or as normalised JSON.

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
    let rows: Vec<[String; 5]> = tools
        .iter()
        .map(|t| {
            [
                visible(&t.id).into_owned(),
                truncate(&visible(t.display_title()), 40).into_owned(),
                t.format.to_string(),
                t.parameter_count().to_string(),
                visible(&t.source.to_string()).into_owned(),
            ]
        })
        .collect();
    let headers = ["ID", "TITLE", "FORMAT", "PARAMS", "SOURCE"];
    let mut widths = headers.map(width);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let line = |cells: [&str; 5]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(width(cell));
            if i == 3 {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                if i < 4 {
                    text.push_str(&" ".repeat(pad));
                }
            }
            if i < 4 {
                text.push_str("  ");
            }
        }
        text
    };
    writeln!(out, "{}", line(headers))?;
    for row in &rows {
        writeln!(out, "{}", line([&row[0], &row[1], &row[2], &row[3], &row[4]]))?;
    }
    Ok(())
}
