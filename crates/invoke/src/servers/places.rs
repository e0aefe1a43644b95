//! Where each client keeps its MCP servers: files under the person's home (or the platform's
//! application-data folder) and files in the project folder tooldeck runs in.

use std::path::{Path, PathBuf};

use super::Client;

/// Points every client config lookup at another home folder (tests use a fake one; `HOME`
/// would also move tooldeck's own history and tokens).
pub const HOME_VAR: &str = "TOOLDECK_CLIENTS_HOME";

/// The two roots configs are looked for under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    /// The person's home; `None` when it cannot be told (then only project files are read).
    pub home: Option<PathBuf>,
    /// The project folder (the current directory).
    pub project: Option<PathBuf>,
    /// tooldeck's own config file (`--config`, else its default place).
    pub tooldeck_config: Option<PathBuf>,
    /// Windows keeps Claude Desktop's config under `%APPDATA%`; elsewhere it is under home.
    pub app_data: Option<PathBuf>,
}

/// How a config file lays out its servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `{"mcpServers": {NAME: {...}}}`.
    McpServers,
    /// `~/.claude.json`: `mcpServers` at the top and under `projects.<folder>.mcpServers`.
    ClaudeCode,
    /// VS Code: `{"servers": {NAME: {"type": ..., ...}}}`.
    VsCode,
    /// Codex: TOML tables `[mcp_servers.NAME]`.
    Codex,
}

/// One config file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub client: Client,
    pub path: PathBuf,
    pub layout: Layout,
}

impl Places {
    /// The places of this process: `$TOOLDECK_CLIENTS_HOME` (else the home folder), the current
    /// directory, and tooldeck's config at `config` (else its default place).
    pub fn here(config: Option<&Path>) -> Places {
        let home =
            std::env::var_os(HOME_VAR).map(PathBuf::from).or_else(dirs::home_dir).filter(|p| !p.as_os_str().is_empty());
        let app_data = match std::env::var_os(HOME_VAR) {
            // A fake home holds everything, so tests are the same on every platform.
            Some(home) => Some(PathBuf::from(home).join("AppData").join("Roaming")),
            // `%APPDATA%` on Windows; elsewhere no client keeps its config there.
            None if cfg!(windows) => dirs::config_dir(),
            None => std::env::var_os("APPDATA").map(PathBuf::from),
        };
        Places {
            home,
            project: std::env::current_dir().ok(),
            tooldeck_config: config.map(Path::to_path_buf).or_else(crate::config::default_path),
            app_data,
        }
    }

    /// Every client config file that may exist, in the order servers are listed.
    pub fn files(&self) -> Vec<Place> {
        let mut places = Vec::new();
        let mut add = |client, path: PathBuf, layout| places.push(Place { client, path, layout });
        if let Some(path) = self.claude_desktop() {
            add(Client::ClaudeDesktop, path, Layout::McpServers);
        }
        if let Some(home) = &self.home {
            add(Client::ClaudeCode, home.join(".claude.json"), Layout::ClaudeCode);
            add(Client::Cursor, home.join(".cursor").join("mcp.json"), Layout::McpServers);
            add(Client::Windsurf, home.join(".codeium").join("windsurf").join("mcp_config.json"), Layout::McpServers);
            add(Client::GeminiCli, home.join(".gemini").join("settings.json"), Layout::McpServers);
            add(Client::Codex, home.join(".codex").join("config.toml"), Layout::Codex);
        }
        if let Some(project) = &self.project {
            add(Client::ClaudeCode, project.join(".mcp.json"), Layout::McpServers);
            add(Client::Cursor, project.join(".cursor").join("mcp.json"), Layout::McpServers);
            add(Client::VsCode, project.join(".vscode").join("mcp.json"), Layout::VsCode);
            add(Client::GeminiCli, project.join(".gemini").join("settings.json"), Layout::McpServers);
        }
        places
    }

    /// `claude_desktop_config.json` where Claude Desktop keeps it on this platform (Linux has no
    /// official build; the community builds use `~/.config/Claude`).
    fn claude_desktop(&self) -> Option<PathBuf> {
        const FILE: &str = "claude_desktop_config.json";
        if cfg!(windows) {
            return self.app_data.as_ref().map(|d| d.join("Claude").join(FILE));
        }
        let home = self.home.as_ref()?;
        if cfg!(target_os = "macos") {
            return Some(home.join("Library").join("Application Support").join("Claude").join(FILE));
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && std::env::var_os(HOME_VAR).is_none())
            .unwrap_or_else(|| home.join(".config"));
        Some(config.join("Claude").join(FILE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_has_a_place() {
        let places = Places {
            home: Some(PathBuf::from("/h")),
            project: Some(PathBuf::from("/p")),
            tooldeck_config: None,
            app_data: Some(PathBuf::from("/h/AppData/Roaming")),
        };
        let files = places.files();
        for client in [
            Client::ClaudeDesktop,
            Client::ClaudeCode,
            Client::Cursor,
            Client::VsCode,
            Client::Windsurf,
            Client::GeminiCli,
            Client::Codex,
        ] {
            assert!(files.iter().any(|p| p.client == client), "{client:?}");
        }
        assert!(files.iter().any(|p| p.path == Path::new("/p/.vscode/mcp.json") && p.layout == Layout::VsCode));
        assert!(files.iter().any(|p| p.path == Path::new("/h/.codex/config.toml")));
        let without_home = Places { home: None, ..places };
        assert!(without_home.files().iter().all(|p| p.path.starts_with("/p") || cfg!(windows)));
    }
}
