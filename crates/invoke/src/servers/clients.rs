//! The JSON (JSONC, JSON5) configs: `mcpServers` objects (Claude Desktop, Claude Code, Cursor,
//! Windsurf, Gemini CLI), Claude Code's per-project tables and VS Code's `servers`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::places::{Layout, Place};
use super::{EntryError, FoundServer, Problem, Transport};
use crate::catalog::document::{Document, Node};
use crate::text::LineIndex;

/// Fields some client reads that change nothing about how tooldeck connects.
const IGNORED_FIELDS: &[&str] = &[
    "alwaysAllow",
    "autoApprove",
    "description",
    "disabled",
    "disabledTools",
    "enabled",
    "envFile",
    "excludeTools",
    "gallery",
    "includeTools",
    "oauth",
    "timeout",
    "tools",
    "trust",
    "version",
    "dev",
    "name",
    super::wrap::ORIGINAL_FIELD,
];

/// Servers and problems found in one JSON config's text.
pub(super) fn read(place: &Place, text: &str, project: Option<&Path>) -> (Vec<FoundServer>, Vec<Problem>) {
    let mut reader = Reader { place, lines: LineIndex::new(text), servers: Vec::new(), problems: Vec::new() };
    let document = match Document::parse(text) {
        Ok(document) => document,
        Err(e) => {
            reader.problem_at(e.offset, format!("not readable as JSON: {}", e.message));
            return (reader.servers, reader.problems);
        }
    };
    let root = document.root();
    if !root.value().is_object() {
        reader.problem_at(root.offset(), "the file is not a JSON object".to_string());
        return (reader.servers, reader.problems);
    }
    match place.layout {
        Layout::VsCode => reader.table(root.get("servers"), None),
        Layout::ClaudeCode => {
            reader.table(root.get("mcpServers"), None);
            reader.projects(root.get("projects"), project);
        }
        Layout::McpServers | Layout::Codex => reader.table(root.get("mcpServers"), None),
    }
    (reader.servers, reader.problems)
}

struct Reader<'a> {
    place: &'a Place,
    lines: LineIndex<'a>,
    servers: Vec<FoundServer>,
    problems: Vec<Problem>,
}

impl Reader<'_> {
    fn line(&self, offset: usize) -> usize {
        self.lines.line_col(offset.min(self.lines.text().len())).0
    }

    fn problem_at(&mut self, offset: usize, message: String) {
        let line = self.line(offset);
        self.problems.push(Problem { path: self.place.path.clone(), line, message });
    }

    /// `mcpServers` (or `servers`): NAME → entry. Absent is no servers, not a problem.
    fn table(&mut self, table: Option<Node<'_>>, scope: Option<&str>) {
        let Some(table) = table else { return };
        if !table.value().is_object() {
            let key = if self.place.layout == Layout::VsCode { "servers" } else { "mcpServers" };
            self.problem_at(table.offset(), format!("\"{key}\" is not an object; its servers are skipped"));
            return;
        }
        for (name, entry) in table.entries() {
            match self.entry(name, entry) {
                Ok(mut server) => {
                    server.scope = scope.map(str::to_string);
                    self.servers.push(server);
                }
                Err(message) => self.problem_at(entry.offset(), format!("server \"{name}\": {message}")),
            }
        }
    }

    /// Claude Code's `projects`: the servers of the project tooldeck runs in (or a folder above it).
    fn projects(&mut self, projects: Option<Node<'_>>, project: Option<&Path>) {
        let (Some(projects), Some(here)) = (projects, project) else { return };
        for (folder, settings) in projects.entries() {
            if !here.starts_with(folder) {
                continue;
            }
            let scope = format!("project {folder}");
            self.table(settings.get("mcpServers"), Some(&scope));
        }
    }

    fn entry(&self, name: &str, entry: Node<'_>) -> Result<FoundServer, EntryError> {
        let Some(fields) = entry.value().as_object() else { return Err(EntryError::NotAnObject) };
        let mut notes = Vec::new();
        let kind = fields.get("type").and_then(Value::as_str).unwrap_or_default();
        let url_key = ["httpUrl", "url", "serverUrl"].into_iter().find(|key| fields.contains_key(*key));
        let transport = match (text(fields, "command")?, url_key) {
            (Some(command), _) if kind.is_empty() || kind == "stdio" => Transport::Stdio {
                command,
                args: strings(fields, "args")?,
                env: string_map(fields, "env")?,
                cwd: text(fields, "cwd")?,
            },
            (_, Some(key)) => {
                let url = text(fields, key)?.unwrap_or_default();
                if kind == "sse" || (key == "url" && self.place.client == super::Client::GeminiCli) {
                    notes.push("configured for the older HTTP+SSE transport; tooldeck speaks Streamable HTTP".into());
                }
                Transport::Http { url, headers: string_map(fields, "headers")? }
            }
            (Some(_), None) => return Err(EntryError::CommandOfType(kind.to_string())),
            (None, None) => return Err(EntryError::NoCommandOrUrl),
        };
        if fields.get("disabled").and_then(Value::as_bool) == Some(true)
            || fields.get("enabled").and_then(Value::as_bool) == Some(false)
        {
            notes.push(format!("disabled in {}", self.place.client.title()));
        }
        let known = ["command", "args", "env", "cwd", "type", "url", "serverUrl", "httpUrl", "headers"];
        let unknown: Vec<&str> = fields
            .keys()
            .map(String::as_str)
            .filter(|key| !known.contains(key) && !IGNORED_FIELDS.contains(key))
            .collect();
        if !unknown.is_empty() {
            notes.push(format!("fields tooldeck does not use: {}", unknown.join(", ")));
        }
        Ok(FoundServer {
            name: name.to_string(),
            client: self.place.client,
            path: self.place.path.clone(),
            line: self.line(entry.offset()),
            scope: None,
            transport,
            notes,
        })
    }
}

pub(super) type Fields = serde_json::Map<String, Value>;

pub(super) fn text(fields: &Fields, key: &str) -> Result<Option<String>, EntryError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(EntryError::NotAString(key.to_string())),
    }
}

pub(super) fn strings(fields: &Fields, key: &str) -> Result<Vec<String>, EntryError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            items.iter().map(|item| scalar(item).ok_or_else(|| EntryError::NotStrings(key.to_string()))).collect()
        }
        Some(_) => Err(EntryError::NotStrings(key.to_string())),
    }
}

/// Names to values, as an `env` or `headers` table holds them.
pub(super) type StringMap = BTreeMap<String, String>;

pub(super) fn string_map(fields: &Fields, key: &str) -> Result<StringMap, EntryError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| {
                scalar(value).map(|v| (name.clone(), v)).ok_or_else(|| EntryError::NotATable(key.to_string()))
            })
            .collect(),
        Some(_) => Err(EntryError::NotATable(key.to_string())),
    }
}

/// A string, or a number or boolean written where a string was meant (`"PORT": 8080`).
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
        _ => None,
    }
}
