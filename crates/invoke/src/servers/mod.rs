//! The MCP servers a person already has: tooldeck's own config and the configs of Claude
//! Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI and Codex, each server with where
//! it was found. A config that cannot be read, or an entry that makes no sense, is a [`Problem`]
//! line; the other servers are still found.

mod clients;
mod codex;
mod places;
mod tooldeck;
mod vars;
pub mod wrap;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

pub use places::{HOME_VAR, Layout, Place, Places};
pub use vars::{ExpandError, Vars};

/// The application a server was configured for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Client {
    Tooldeck,
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    VsCode,
    Windsurf,
    GeminiCli,
    Codex,
}

impl Client {
    pub const ALL: [Client; 8] = [
        Client::Tooldeck,
        Client::ClaudeDesktop,
        Client::ClaudeCode,
        Client::Cursor,
        Client::VsCode,
        Client::Windsurf,
        Client::GeminiCli,
        Client::Codex,
    ];

    /// The short name `--server CLIENT:NAME` and `--json` use.
    pub fn name(self) -> &'static str {
        match self {
            Client::Tooldeck => "tooldeck",
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::VsCode => "vscode",
            Client::Windsurf => "windsurf",
            Client::GeminiCli => "gemini",
            Client::Codex => "codex",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Client::Tooldeck => "tooldeck",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::VsCode => "VS Code",
            Client::Windsurf => "Windsurf",
            Client::GeminiCli => "Gemini CLI",
            Client::Codex => "Codex",
        }
    }

    pub fn from_name(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// How a found server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Started as a child process, spoken to over stdio.
    Stdio { command: String, args: Vec<String>, env: BTreeMap<String, String>, cwd: Option<String> },
    /// MCP over HTTP.
    Http { url: String, headers: BTreeMap<String, String> },
    /// One of tooldeck's own endpoints that is an Open Tool Calling server.
    Otc { url: String },
}

impl Transport {
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Stdio { .. } => "stdio",
            Transport::Http { .. } => "http",
            Transport::Otc { .. } => "otc",
        }
    }

    /// What it runs or where it is, secrets masked, for one line of a listing.
    pub fn shown(&self) -> String {
        match self {
            Transport::Stdio { command, args, .. } => {
                let words = std::iter::once(command.as_str()).chain(args.iter().map(String::as_str));
                crate::redact::command(&shlex::try_join(words).unwrap_or_else(|_| command.clone()))
            }
            Transport::Http { url, .. } | Transport::Otc { url } => crate::redact::url(url),
        }
    }

    /// What makes two entries the same server whatever they are called.
    fn identity(&self) -> String {
        match self {
            Transport::Stdio { command, args, .. } => format!("{command}\0{}", args.join("\0")),
            Transport::Http { url, .. } | Transport::Otc { url } => url.trim_end_matches('/').to_string(),
        }
    }
}

/// One server as a config names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundServer {
    pub name: String,
    pub client: Client,
    /// The config file it is in, and the line of its entry.
    pub path: PathBuf,
    pub line: usize,
    /// Where inside the file, when not the top (`project /home/me/app` in `~/.claude.json`).
    pub scope: Option<String>,
    pub transport: Transport,
    /// What the person may want to know: a command not found, the same server under another
    /// name, fields tooldeck does not use, a server disabled in its client.
    pub notes: Vec<String>,
}

impl FoundServer {
    /// `CLIENT:NAME`, which picks it when several configs use its name.
    pub fn qualified_name(&self) -> String {
        format!("{}:{}", self.client.name(), self.name)
    }

    /// `path:line`, with the scope when there is one.
    pub fn location(&self) -> String {
        let at = format!("{}:{}", self.path.display(), self.line);
        match &self.scope {
            Some(scope) => format!("{at} ({scope})"),
            None => at,
        }
    }
}

/// A config file, or an entry in one, that could not be used: one line for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// Why an entry in a config was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("not an object")]
    NotAnObject,
    #[error("\"{0}\" is not a string")]
    NotAString(String),
    #[error("\"{0}\" is not a list of strings")]
    NotStrings(String),
    #[error("\"{0}\" is not a table of strings")]
    NotATable(String),
    #[error("\"type\": \"{0}\" with a command and no URL")]
    CommandOfType(String),
    #[error("neither a \"command\" nor a \"url\"")]
    NoCommandOrUrl,
}

/// Why `--server NAME` picks no server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("no server is named \"{name}\" in any config found ({known})")]
    NotFound { name: String, known: String },
    #[error("\"{name}\" names different servers in several configs; pick one with --server CLIENT:NAME: {candidates}")]
    Ambiguous { name: String, candidates: String },
}

/// Every server found, and every problem met on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub servers: Vec<FoundServer>,
    pub problems: Vec<Problem>,
}

/// Reads every config in `places`; files that do not exist are skipped silently.
pub fn discover(places: &Places) -> Found {
    let mut found = Found::default();
    if let Some(path) = &places.tooldeck_config {
        tooldeck::read(path, &mut found);
    }
    // A project folder that is the home folder (or a config linked to another) names one file
    // twice: it is read once, so its servers are listed once and `--wrap` can pick them.
    let mut read = HashSet::new();
    for place in places.files() {
        if !read.insert(same_file(&place.path)) {
            continue;
        }
        let text = match crate::files::read_text(&place.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                found.problems.push(Problem {
                    path: place.path.clone(),
                    line: 1,
                    message: format!("cannot read: {e}"),
                });
                continue;
            }
        };
        let (servers, problems) = match place.layout {
            Layout::Codex => codex::read(&place, &text),
            _ => clients::read(&place, &text, places.project.as_deref()),
        };
        found.servers.extend(servers);
        found.problems.extend(problems);
    }
    note_missing_commands(&mut found.servers, &std::env::var_os("PATH").unwrap_or_default());
    note_same_servers(&mut found.servers);
    note_wrapped(&mut found.servers);
    found
}

impl Found {
    /// The server `--server NAME` means: `NAME`, or `CLIENT:NAME` when several configs use the
    /// name for different servers (the same server under one name in several configs is fine).
    /// tooldeck's own endpoint of that name wins over the other clients' servers.
    pub fn named(&self, name: &str) -> Result<&FoundServer, LookupError> {
        let mut matches: Vec<&FoundServer> = self.servers.iter().filter(|s| s.name == name).collect();
        if let Some(own) = matches.iter().find(|s| s.client == Client::Tooldeck) {
            return Ok(own);
        }
        if matches.is_empty()
            && let Some((client, rest)) = name.split_once(':')
            && let Some(client) = Client::from_name(client)
        {
            matches = self.servers.iter().filter(|s| s.client == client && s.name == rest).collect();
        }
        let Some(first) = matches.first() else {
            let mut known: Vec<&str> = self.servers.iter().map(|s| s.name.as_str()).collect();
            known.dedup();
            let known =
                if known.is_empty() { "none named".to_string() } else { format!("named: {}", known.join(", ")) };
            return Err(LookupError::NotFound { name: name.to_string(), known });
        };
        if matches.iter().all(|s| s.transport.identity() == first.transport.identity()) {
            return Ok(first);
        }
        let candidates: Vec<String> =
            matches.iter().map(|s| format!("{} ({})", s.qualified_name(), s.location())).collect();
        Err(LookupError::Ambiguous { name: name.to_string(), candidates: candidates.join(", ") })
    }
}

/// A stdio server whose program is neither on `PATH` nor at the path given gets a note: the
/// listing says so before anyone tries to connect. Each program is looked for once, however
/// many entries start it.
fn note_missing_commands(servers: &mut [FoundServer], path_var: &std::ffi::OsStr) {
    let mut exists: HashMap<(String, Option<String>), bool> = HashMap::new();
    for server in servers {
        let Transport::Stdio { command, cwd, .. } = &server.transport else { continue };
        let found = *exists
            .entry((command.clone(), cwd.clone()))
            .or_insert_with(|| program_exists(command, cwd.as_deref().map(Path::new), path_var));
        if !found {
            server.notes.push(format!("command not found: {}", crate::text::visible(command)));
        }
    }
}

/// What tells one file from another: its canonical path (links followed), else the path as
/// given (a file that does not exist).
fn same_file(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// True when `program` can be started: a path to a file, or a name found on `path_var`.
pub fn program_exists(program: &str, cwd: Option<&Path>, path_var: &std::ffi::OsStr) -> bool {
    if program.contains(['/', '\\']) {
        let path = Path::new(program);
        return match (path.is_relative(), cwd) {
            (true, Some(cwd)) => cwd.join(path).is_file(),
            _ => path.is_file(),
        };
    }
    // Windows finds `npx` as `npx.cmd`.
    let extensions: Vec<String> = match std::env::var("PATHEXT") {
        Ok(list) if cfg!(windows) => {
            std::iter::once(String::new()).chain(list.split(';').map(str::to_string)).collect()
        }
        _ => vec![String::new()],
    };
    std::env::split_paths(path_var)
        .any(|folder| extensions.iter().any(|ext| folder.join(format!("{program}{ext}")).is_file()))
}

/// An entry that runs through `tooldeck proxy` says so, and how to undo it.
fn note_wrapped(servers: &mut [FoundServer]) {
    for server in servers {
        let Transport::Stdio { command, args, .. } = &server.transport else { continue };
        if !wrap::is_wrapped_command(command, args) {
            continue;
        }
        let record = args.windows(2).find(|pair| pair[0] == "--record").map(|pair| pair[1].clone());
        let recording = record.map(|r| format!(", recording to {r}")).unwrap_or_default();
        server.notes.push(format!(
            "wrapped: runs through tooldeck proxy{recording} (tooldeck servers --unwrap {} --client {})",
            server.name,
            server.client.name()
        ));
    }
}

/// How many other entries of the same server one entry's notes name; the rest are one count.
pub const MAX_SAME_SERVER_NOTES: usize = 5;

/// Two entries that start the same command or name the same URL are one server, whatever each
/// config calls it: each says where else it is (the first few places, then how many more).
/// Entries are grouped by what they start, so a config of thousands of alike entries costs
/// a few notes each, not a note for every pair.
fn note_same_servers(servers: &mut [FoundServer]) {
    let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, server) in servers.iter().enumerate() {
        groups.entry(server.transport.identity()).or_default().push(index);
    }
    let mut notes: Vec<Vec<String>> = vec![Vec::new(); servers.len()];
    for members in groups.values().filter(|members| members.len() > 1) {
        for &index in members {
            let server = &servers[index];
            let others = members.iter().filter(|&&other| other != index);
            notes[index].extend(others.take(MAX_SAME_SERVER_NOTES).map(|&other| same_as(server, &servers[other])));
            let more = (members.len() - 1).saturating_sub(MAX_SAME_SERVER_NOTES);
            if more > 0 {
                notes[index].push(format!("and {more} more entries that start the same server"));
            }
        }
    }
    for (server, extra) in servers.iter_mut().zip(notes) {
        server.notes.extend(extra);
    }
}

/// The note on `server` that `other` is the same server.
fn same_as(server: &FoundServer, other: &FoundServer) -> String {
    match other.name == server.name {
        true => format!("also in {} ({})", other.client.title(), other.location()),
        false => format!("the same server as \"{}\" in {} ({})", other.name, other.client.title(), other.location()),
    }
}

#[cfg(test)]
mod tests;
