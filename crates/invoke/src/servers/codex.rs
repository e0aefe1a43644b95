//! Codex's `~/.codex/config.toml`: a table `[mcp_servers.NAME]` per server, `command`, `args`,
//! `env`, `cwd` for stdio and `url`, `http_headers`, `bearer_token_env_var` for HTTP.

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
        return (Vec::new(), vec![problem(offset_of(text, "mcp_servers"), "\"mcp_servers\" is not a table".into())]);
    };
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    for (name, entry) in servers {
        let offset = offset_of(text, &format!("mcp_servers.{name}"));
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

/// Where a table's header is (`[mcp_servers.NAME]`, or a quoted name), else the start.
fn offset_of(text: &str, header: &str) -> usize {
    let quoted = header.split_once('.').map(|(table, name)| format!("{table}.\"{name}\""));
    text.find(&format!("[{header}]"))
        .or_else(|| quoted.and_then(|q| text.find(&format!("[{q}]"))))
        .or_else(|| text.find(header))
        .unwrap_or(0)
}
