//! Tokens kept between runs: one JSON file readable by the user alone (0600 in a 0700 folder),
//! in the platform's state directory, one entry per authorization server and resource. Nothing
//! else (history, cases, curl, logs) ever holds a token.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::AuthError;
use super::client::ClientIdentity;
use super::token::{Tokens, now};

/// A store larger than this is not read (it holds a few entries).
const MAX_STORE: u64 = 4 << 20;
/// A token this close to its expiry is refreshed before use.
const EXPIRY_MARGIN_SECS: u64 = 30;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredToken {
    /// The MCP server's URL the token is for.
    pub resource: String,
    pub issuer: String,
    pub token_endpoint: String,
    /// The `resource` parameter sent with token requests (none when the config leaves it out).
    #[serde(default)]
    pub resource_parameter: Option<String>,
    pub client: ClientIdentity,
    pub access_token: String,
    #[serde(default)]
    pub refresh_token: Option<String>,
    #[serde(default)]
    pub expires_at: Option<u64>,
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl StoredToken {
    pub fn expired(&self) -> bool {
        self.expires_at.is_some_and(|at| at <= now() + EXPIRY_MARGIN_SECS)
    }

    pub fn apply(&mut self, tokens: Tokens) {
        self.access_token = tokens.access_token;
        // A refresh answer without a new refresh token leaves the old one in force (RFC 6749 §6).
        if tokens.refresh_token.is_some() {
            self.refresh_token = tokens.refresh_token;
        }
        self.expires_at = tokens.expires_at;
        self.scopes = tokens.scopes;
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    tokens: Vec<StoredToken>,
}

/// Where tokens live; `None` keeps them for this run only (no home to keep them in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenStore {
    path: Option<PathBuf>,
}

/// The server URL as a key: no trailing slash, no fragment.
pub fn resource_key(url: &str) -> String {
    url.split('#').next().unwrap_or_default().trim_end_matches('/').to_string()
}

impl TokenStore {
    /// `$TOOLDECK_TOKENS`, else `$XDG_STATE_HOME/tooldeck/tokens.json`, else
    /// `~/.local/state/tooldeck/tokens.json`.
    pub fn default_location() -> TokenStore {
        TokenStore {
            path: crate::config::user_file("TOOLDECK_TOKENS", "XDG_STATE_HOME", ".local/state", "tokens.json"),
        }
    }

    pub fn at(path: PathBuf) -> TokenStore {
        TokenStore { path: Some(path) }
    }

    pub fn memory() -> TokenStore {
        TokenStore { path: None }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn error(&self, reason: impl std::fmt::Display) -> AuthError {
        let path = self.path.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
        AuthError::Store { path, reason: reason.to_string() }
    }

    fn read(&self) -> Result<File, AuthError> {
        let Some(path) = &self.path else { return Ok(File::default()) };
        let bytes = match crate::files::read_bounded(path, MAX_STORE) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(File::default()),
            Err(e) => return Err(self.error(e)),
        };
        serde_json::from_slice(&bytes)
            .map_err(|e| self.error(format!("it is not a token store ({e}); remove it to start again")))
    }

    fn write(&self, file: &File) -> Result<(), AuthError> {
        let Some(path) = &self.path else { return Ok(()) };
        if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
            crate::files::create_private_dir(folder).map_err(|e| self.error(e))?;
        }
        let mut text = Vec::new();
        crate::json_out::write_pretty(&mut text, file).map_err(|e| self.error(e))?;
        let temporary = path.with_extension("json.new");
        let mut options = std::fs::OpenOptions::new();
        options.create(true).write(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut out = options.open(&temporary).map_err(|e| self.error(e))?;
        out.write_all(&text).and_then(|()| out.sync_all()).map_err(|e| self.error(e))?;
        std::fs::rename(&temporary, path).map_err(|e| self.error(e))
    }

    /// The token kept for the MCP server at `url`.
    pub fn get(&self, url: &str) -> Result<Option<StoredToken>, AuthError> {
        let key = resource_key(url);
        Ok(self.read()?.tokens.into_iter().find(|t| t.resource == key))
    }

    pub fn all(&self) -> Result<Vec<StoredToken>, AuthError> {
        Ok(self.read()?.tokens)
    }

    /// Keeps `token`, replacing the one for the same server and authorization server.
    pub fn put(&self, mut token: StoredToken) -> Result<(), AuthError> {
        token.resource = resource_key(&token.resource);
        let mut file = self.read()?;
        file.tokens.retain(|t| t.resource != token.resource);
        file.tokens.push(token);
        self.write(&file)
    }

    /// Forgets the tokens for `url`; true when there were some.
    pub fn remove(&self, url: &str) -> Result<bool, AuthError> {
        let key = resource_key(url);
        let mut file = self.read()?;
        let before = file.tokens.len();
        file.tokens.retain(|t| t.resource != key);
        if file.tokens.len() == before {
            return Ok(false);
        }
        self.write(&file).map(|()| true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn sample(resource: &str) -> StoredToken {
        StoredToken {
            resource: resource.into(),
            issuer: "http://as".into(),
            token_endpoint: "http://as/token".into(),
            resource_parameter: Some(resource.into()),
            client: ClientIdentity { client_id: "c".into(), client_secret: None, auth_method: "none".into() },
            access_token: "A".into(),
            refresh_token: Some("R".into()),
            expires_at: Some(now() + 3600),
            scopes: vec!["s".into()],
        }
    }

    #[test]
    fn kept_per_server_privately_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::at(dir.path().join("state/tokens.json"));
        assert_eq!(store.get("http://h/mcp").unwrap(), None);
        store.put(sample("http://h/mcp/")).unwrap();
        store.put(sample("http://other/mcp")).unwrap();
        let mut newer = sample("http://h/mcp");
        newer.access_token = "B".into();
        store.put(newer).unwrap();
        assert_eq!(store.get("http://h/mcp").unwrap().unwrap().access_token, "B");
        assert_eq!(store.all().unwrap().len(), 2);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path().unwrap()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(store.remove("http://h/mcp").unwrap());
        assert!(!store.remove("http://h/mcp").unwrap());
        assert_eq!(store.all().unwrap().len(), 1);
    }

    #[test]
    fn expiry_and_a_broken_file() {
        let mut token = sample("http://h");
        assert!(!token.expired());
        token.expires_at = Some(now());
        assert!(token.expired());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        std::fs::write(&path, "{not json").unwrap();
        let error = TokenStore::at(path).get("http://h").unwrap_err().to_string();
        assert!(error.contains("not a token store"), "{error}");
    }
}
