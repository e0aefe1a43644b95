//! `tooldeck servers --wrap NAME` / `--unwrap NAME`: a client's config entry rewritten to start
//! the server through `tooldeck proxy --record FILE --name NAME -- <its command>`, and back.
//!
//! Only the entry's own text changes: every other byte of the file (comments, formatting, the
//! other servers) stays as it was. The wrapped entry keeps the original entry's text verbatim
//! (a field in JSON, `#|` comment lines in TOML), so unwrapping needs no backup and gives the
//! original bytes back; a backup of the file as it was is still written beside it.

mod codex;
mod json;
#[cfg(test)]
mod roundtrip;
mod write;

use std::path::{Path, PathBuf};

use super::{Client, FoundServer, Layout, Places, Transport};

/// The field of a wrapped JSON entry that holds the original entry's text.
pub const ORIGINAL_FIELD: &str = "_tooldeck_unwrap";
/// What a backup's name adds to the config's.
const BACKUP_SUFFIX: &str = ".tooldeck-backup";

/// Why an entry cannot be wrapped or unwrapped; each says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum WrapError {
    #[error(transparent)]
    Lookup(#[from] super::LookupError),
    #[error("no server \"{name}\" in {client}'s configs")]
    NotInClient { name: String, client: &'static str },
    #[error("\"{name}\" is in several configs; pick one with --client: {candidates}")]
    Ambiguous { name: String, candidates: String },
    #[error("\"{0}\" is tooldeck's own endpoint: a client's config entry is what gets wrapped")]
    OwnEndpoint(String),
    #[error(
        "\"{name}\" is reached over HTTP ({url}): a client connects to a URL and starts nothing, so a proxy in its config would never be started. Run one yourself and point {client} at it: tooldeck proxy --listen 127.0.0.1:8800 --mcp-url {url} --record FILE, then http://127.0.0.1:8800/mcp"
    )]
    Http { name: String, url: String, client: &'static str },
    #[error("\"{0}\" already runs through tooldeck proxy")]
    AlreadyWrapped(String),
    #[error("\"{0}\" is not wrapped by tooldeck (nothing to unwrap)")]
    NotWrapped(String),
    #[error("{path}: {why}")]
    Edit { path: String, why: String },
    #[error("cannot find tooldeck's own path to put in the config: {0}")]
    OwnPath(std::io::Error),
    #[error("no data folder to keep the record in (HOME is not set)")]
    NoDataFolder,
    #[error("cannot write {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// What a wrap or an unwrap did, for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    pub name: String,
    pub client: Client,
    pub path: PathBuf,
    pub backup: PathBuf,
    /// Where the proxy records (a wrap only).
    pub record: Option<PathBuf>,
}

/// Wraps the entry `name` (of `client`, when given) in `places`' configs.
pub fn wrap(places: &Places, name: &str, client: Option<Client>) -> Result<Done, WrapError> {
    let server = pick(places, name, client)?;
    let (url, args) = match &server.transport {
        Transport::Http { url, .. } | Transport::Otc { url } => {
            let url = crate::redact::url(url);
            return Err(WrapError::Http { name: name.into(), url, client: server.client.title() });
        }
        Transport::Stdio { command, args, .. } => (command.clone(), args.clone()),
    };
    if is_wrapped_command(&url, &args) {
        return Err(WrapError::AlreadyWrapped(name.into()));
    }
    let record = record_path(server.client, name)?;
    let exe = std::env::current_exe().map_err(WrapError::OwnPath)?;
    let mut proxy_args: Vec<String> = ["proxy", "--record"].map(String::from).to_vec();
    proxy_args.push(record.display().to_string());
    proxy_args.extend(["--name".to_string(), name.to_string(), "--".to_string(), url]);
    proxy_args.extend(args);
    let wrapped = Wrapped { command: exe.display().to_string(), args: proxy_args };
    let done = edit(places, &server, |text, place| match place.layout {
        Layout::Codex => codex::wrap(text, &server.name, &wrapped),
        _ => json::wrap(text, &entry_path(&server, place.layout), &wrapped),
    })?;
    Ok(Done { record: Some(record), ..done })
}

/// Puts back the original entry `name` (of `client`, when given) kept in its wrapped entry.
pub fn unwrap(places: &Places, name: &str, client: Option<Client>) -> Result<Done, WrapError> {
    let server = pick(places, name, client)?;
    edit(places, &server, |text, place| match place.layout {
        Layout::Codex => codex::unwrap(text, &server.name),
        _ => json::unwrap(text, &entry_path(&server, place.layout)),
    })
}

/// The new command of a wrapped entry.
pub struct Wrapped {
    pub command: String,
    pub args: Vec<String>,
}

/// Why an entry's text could not be changed (said with the file's path).
#[derive(Debug)]
pub enum TextError {
    Wrapped,
    NotWrapped,
    Other(String),
}

/// True for a command that starts `tooldeck proxy` (a wrapped entry, however it was written).
pub fn is_wrapped_command(command: &str, args: &[String]) -> bool {
    let program = Path::new(command).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    program == "tooldeck" && args.first().is_some_and(|a| a == "proxy") && args.iter().any(|a| a == "--")
}

/// The one server `name` (and `client`) picks among the other clients' configs.
fn pick(places: &Places, name: &str, client: Option<Client>) -> Result<FoundServer, WrapError> {
    let found = super::discover(places);
    let matches: Vec<&FoundServer> =
        found.servers.iter().filter(|s| s.name == name && client.is_none_or(|c| s.client == c)).collect();
    match matches.as_slice() {
        [] => match client {
            Some(client) => Err(WrapError::NotInClient { name: name.into(), client: client.title() }),
            None => Err(found.named(name).map(|_| ()).err().map_or(WrapError::NotWrapped(name.into()), Into::into)),
        },
        [one] if one.client == Client::Tooldeck => Err(WrapError::OwnEndpoint(name.into())),
        [one] => Ok((*one).clone()),
        many => {
            let candidates: Vec<String> =
                many.iter().map(|s| format!("{} ({})", s.client.name(), s.location())).collect();
            Err(WrapError::Ambiguous { name: name.into(), candidates: candidates.join(", ") })
        }
    }
}

/// Where a JSON config holds the entry: the keys from the top down.
fn entry_path(server: &FoundServer, layout: Layout) -> Vec<String> {
    let table = if layout == Layout::VsCode { "servers" } else { "mcpServers" };
    let mut path = Vec::new();
    if let Some(folder) = server.scope.as_deref().and_then(|s| s.strip_prefix("project ")) {
        path.extend(["projects".to_string(), folder.to_string()]);
    }
    path.extend([table.to_string(), server.name.clone()]);
    path
}

/// The record of a wrapped server: `<data folder>/tooldeck/records/<client>-<name>.jsonl`.
fn record_path(client: Client, name: &str) -> Result<PathBuf, WrapError> {
    let folder = crate::config::user_file("TOOLDECK_RECORDS", "XDG_DATA_HOME", ".local/share", "records")
        .ok_or(WrapError::NoDataFolder)?;
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    Ok(folder.join(format!("{}-{safe}.jsonl", client.name())))
}

/// Reads the entry's config, changes its text with `change`, writes a backup (readable by the
/// user alone, as it may hold secrets) and then the new text (in place of the file a symlink
/// points to, with the file's permissions), each through a private file renamed over it.
fn edit(
    places: &Places,
    server: &FoundServer,
    change: impl FnOnce(&str, &super::Place) -> Result<String, TextError>,
) -> Result<Done, WrapError> {
    let shown = server.path.display().to_string();
    let failed = |why: String| WrapError::Edit { path: shown.clone(), why };
    let path = std::fs::canonicalize(&server.path).map_err(|e| failed(e.to_string()))?;
    let text = crate::files::read_text(&path).map_err(|e| failed(e.to_string()))?;
    let layout = places.files().into_iter().find(|p| p.path == server.path).map_or(Layout::McpServers, |p| p.layout);
    let place = super::Place { client: server.client, path: path.clone(), layout };
    let changed = change(&text, &place).map_err(|e| match e {
        TextError::Wrapped => WrapError::AlreadyWrapped(server.name.clone()),
        TextError::NotWrapped => WrapError::NotWrapped(server.name.clone()),
        TextError::Other(why) => failed(why),
    })?;
    let mut backup = path.clone().into_os_string();
    backup.push(BACKUP_SUFFIX);
    let backup = PathBuf::from(backup);
    let permissions = std::fs::metadata(&path).map_err(|e| failed(e.to_string()))?.permissions();
    write::replace(&backup, text.as_bytes(), write::private_like(permissions.clone()))
        .map_err(|source| WrapError::Write { path: backup.display().to_string(), source })?;
    write::replace(&path, changed.as_bytes(), permissions)
        .map_err(|source| WrapError::Write { path: path.display().to_string(), source })?;
    Ok(Done { name: server.name.clone(), client: server.client, path, backup, record: None })
}
