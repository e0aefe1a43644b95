//! Wrapping a server of Codex's `config.toml`: its `[mcp_servers.NAME]` table (with its
//! subtables) is rewritten by toml_edit, which keeps its comments and other keys; the original
//! table's text rides in `#|` comment lines under the header (Codex may refuse a key it does not
//! know; a comment it never reads) and is put back as it was.

use super::{TextError, Wrapped};

/// Starts each line of the original text kept in a wrapped table.
const KEPT: &str = "#| ";
/// The byte order mark some editors put at the start of a file.
const BOM: char = '\u{feff}';

/// The table of server `name` in `text`, wrapped.
pub fn wrap(text: &str, name: &str, wrapped: &Wrapped) -> Result<String, TextError> {
    let (start, end) = span(text, name)?;
    let table = &text[start..end];
    if table.lines().any(|line| line.starts_with(KEPT.trim_end())) {
        return Err(TextError::Wrapped);
    }
    let mut document: toml_edit::DocumentMut =
        table.parse().map_err(|e: toml_edit::TomlError| TextError::Other(format!("not readable as TOML: {e}")))?;
    let entry = document
        .get_mut("mcp_servers")
        .and_then(|servers| servers.get_mut(name))
        .and_then(toml_edit::Item::as_table_like_mut)
        .ok_or_else(|| TextError::Other(format!("no [mcp_servers.{name}] table")))?;
    entry.insert("command", toml_edit::value(wrapped.command.as_str()));
    entry.insert("args", toml_edit::value(wrapped.args.iter().collect::<toml_edit::Array>()));
    // The lines tooldeck writes end as the file's do (CRLF or LF).
    let eol = if text.split_once('\n').is_some_and(|(first, _)| first.ends_with('\r')) { "\r\n" } else { "\n" };
    let new = document.to_string();
    let mut new_lines = new.lines();
    let mut out = String::with_capacity(text.len() + table.len() * 2 + 200);
    out.push_str(&text[..start]);
    out.push_str(new_lines.next().unwrap_or_default());
    out.push_str(eol);
    out.push_str(&format!(
        "# Runs through tooldeck proxy: `tooldeck servers --unwrap {name} --client codex` puts back the lines marked #|{eol}"
    ));
    // Split at LF alone: a CRLF line keeps its CR, so unwrap gives back every byte (the last
    // piece is the table's end: empty after its final newline, or a last line without one).
    for piece in table.split('\n') {
        out.push_str(KEPT);
        out.push_str(piece);
        out.push('\n');
    }
    for line in new_lines {
        out.push_str(line);
        out.push_str(eol);
    }
    out.push_str(&text[end..]);
    Ok(out)
}

/// The table of server `name` in `text` as it was before it was wrapped.
pub fn unwrap(text: &str, name: &str) -> Result<String, TextError> {
    let (start, end) = span(text, name)?;
    let kept: Vec<&str> = text[start..end]
        .split('\n')
        .filter_map(|line| {
            // `#| ` as written; `#|` alone where an editor trimmed the space of an empty line.
            let rest = line.strip_prefix(KEPT.trim_end())?;
            match rest.strip_prefix(' ') {
                Some(piece) => Some(piece),
                None => (rest.is_empty() || rest == "\r").then_some(rest),
            }
        })
        .collect();
    if kept.is_empty() {
        return Err(TextError::NotWrapped);
    }
    Ok(format!("{}{}{}", &text[..start], kept.join("\n"), &text[end..]))
}

/// Where the table `[mcp_servers.NAME]` and its subtables are in `text`: from its header line to
/// the next other table's header, or the end.
fn span(text: &str, name: &str) -> Result<(usize, usize), TextError> {
    let names = [format!("mcp_servers.{name}"), format!("mcp_servers.\"{name}\""), format!("mcp_servers.'{name}'")];
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        // A byte order mark before the first line stays where it is, outside the table.
        let bom = if offset == 0 && line.starts_with(BOM) { BOM.len_utf8() } else { 0 };
        if let Some(header) = header(&line[bom..]) {
            let ours = names
                .iter()
                .any(|n| header == n || header.strip_prefix(n.as_str()).is_some_and(|r| r.starts_with('.')));
            match start {
                None if names.iter().any(|n| header == n) => start = Some(offset + bom),
                Some(start) if !ours => return Ok((start, offset)),
                _ => {}
            }
        }
        offset += line.len();
    }
    start.map(|start| (start, text.len())).ok_or_else(|| {
        TextError::Other(format!(
            "no [mcp_servers.{name}] table (a server written as an inline table is wrapped by hand)"
        ))
    })
}

/// A table header line's name (`[a.b]` → `a.b`, spaces around dots as written).
fn header(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let inside = line.strip_prefix('[')?;
    let inside = inside.strip_prefix('[').unwrap_or(inside);
    let end = inside.find(']')?;
    Some(inside[..end].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_table_unwraps_to_the_same_bytes() {
        let text = "model = \"o3\"\n\n# notes server\n[mcp_servers.notes]\ncommand = \"node\" # the runtime\nargs = [\"s.js\"]\n\n[mcp_servers.notes.env]\nKEY = \"v\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let wrapped =
            Wrapped { command: "/bin/tooldeck".into(), args: vec!["proxy".into(), "--".into(), "node".into()] };
        let new = wrap(text, "notes", &wrapped).unwrap();
        let table: toml::Table = toml::from_str(&new).unwrap();
        let notes = &table["mcp_servers"]["notes"];
        assert_eq!(notes["command"].as_str(), Some("/bin/tooldeck"));
        assert_eq!(notes["env"]["KEY"].as_str(), Some("v"));
        assert_eq!(table["mcp_servers"]["other"]["command"].as_str(), Some("x"));
        assert!(matches!(wrap(&new, "notes", &wrapped), Err(TextError::Wrapped)));
        assert_eq!(unwrap(&new, "notes").unwrap(), text);
        assert!(matches!(unwrap(text, "notes"), Err(TextError::NotWrapped)));
    }
}
