//! Codex's `~/.codex/config.toml`: a table `[mcp_servers.NAME]` per server, `command`, `args`,
//! `env`, `cwd` for stdio and `url`, `http_headers`, `bearer_token_env_var` for HTTP.

use std::collections::HashMap;

use serde_json::Value;

use super::clients::{Fields, string_map, strings, text};
use super::places::Place;
use super::{EntryError, FoundServer, Problem, Transport};
use crate::text::LineIndex;

/// Fields Codex reads that change nothing about how tooldeck connects.
const IGNORED_FIELDS: &[&str] = &[
    "enabled",
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
    "enabled_tools",
    "disabled_tools",
    "env_vars",
    "env_http_headers",
];

pub(super) fn read(place: &Place, text: &str) -> (Vec<FoundServer>, Vec<Problem>) {
    let lines = LineIndex::new(text);
    let problem = |offset: usize, message: String| Problem {
        path: place.path.clone(),
        line: lines.line_col(offset.min(text.len())).0,
        message,
    };
    let table: toml::Table = match toml::from_str(text) {
        Ok(table) => table,
        Err(e) => {
            let offset = e.span().map_or(0, |span| span.start);
            return (Vec::new(), vec![problem(offset, format!("not readable as TOML: {}", e.message().trim()))]);
        }
    };
    let Some(servers) = table.get("mcp_servers") else { return (Vec::new(), Vec::new()) };
    let Some(servers) = servers.as_table() else {
        return (
            Vec::new(),
            vec![problem(
                text.find("[mcp_servers]").or_else(|| text.find("mcp_servers")).unwrap_or(0),
                "\"mcp_servers\" is not a table".into(),
            )],
        );
    };
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    let headers = Headers::of(text);
    for (name, entry) in servers {
        let offset = headers.offset_of(text, name);
        let fields = serde_json::to_value(entry).ok().and_then(|v| v.as_object().cloned());
        let read = fields.ok_or(EntryError::NotAnObject).and_then(|fields| entry_of(&fields));
        match read {
            Ok((transport, notes)) => found.push(FoundServer {
                name: name.clone(),
                client: place.client,
                path: place.path.clone(),
                line: lines.line_col(offset).0,
                scope: None,
                transport,
                notes,
            }),
            Err(e) => problems.push(problem(offset, format!("server \"{name}\": {e}"))),
        }
    }
    (found, problems)
}

fn entry_of(fields: &Fields) -> Result<(Transport, Vec<String>), EntryError> {
    let mut notes = Vec::new();
    let transport = match (text(fields, "command")?, text(fields, "url")?) {
        (Some(command), _) => Transport::Stdio {
            command,
            args: strings(fields, "args")?,
            env: string_map(fields, "env")?,
            cwd: text(fields, "cwd")?,
        },
        (None, Some(url)) => {
            let mut headers = string_map(fields, "http_headers")?;
            if let Some(variable) = text(fields, "bearer_token_env_var")? {
                headers.insert("Authorization".into(), format!("Bearer ${{{variable}}}"));
            }
            Transport::Http { url, headers }
        }
        (None, None) => return Err(EntryError::NoCommandOrUrl),
    };
    if fields.get("enabled").and_then(Value::as_bool) == Some(false) {
        notes.push("disabled in Codex".to_string());
    }
    let known = ["command", "args", "env", "cwd", "url", "http_headers", "bearer_token_env_var"];
    let unknown: Vec<&str> =
        fields.keys().map(String::as_str).filter(|key| !known.contains(key) && !IGNORED_FIELDS.contains(key)).collect();
    if !unknown.is_empty() {
        notes.push(format!("fields tooldeck does not use: {}", unknown.join(", ")));
    }
    Ok((transport, notes))
}

/// Where each table header of a file is (`[a.b]` → `a.b`, as written), found in one pass so a
/// file of thousands of servers is not searched once for each.
struct Headers<'a> {
    offsets: HashMap<&'a str, usize>,
}

impl<'a> Headers<'a> {
    fn of(text: &'a str) -> Headers<'a> {
        let mut offsets = HashMap::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if let Some(inside) = trimmed.strip_prefix('[').filter(|inside| !inside.starts_with('['))
                && let Some(end) = inside.find(']')
            {
                offsets.entry(inside[..end].trim()).or_insert(offset + (line.len() - trimmed.len()));
            }
            offset += line.len();
        }
        Headers { offsets }
    }

    /// Where server `name`'s table header is (`[mcp_servers.NAME]`, or a quoted name); a server
    /// written another way (an inline table, dotted keys) is looked for in the text, else the
    /// start.
    fn offset_of(&self, text: &str, name: &str) -> usize {
        let written =
            [format!("mcp_servers.{name}"), format!("mcp_servers.\"{name}\""), format!("mcp_servers.'{name}'")];
        if let Some(offset) = written.iter().find_map(|header| self.offsets.get(header.as_str())) {
            return *offset;
        }
        text.find(&written[0]).unwrap_or(0)
    }
}
