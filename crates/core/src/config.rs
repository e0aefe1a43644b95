//! The config file: named endpoints, so `--endpoint prod` means what the file says, and the
//! app's keys. A missing file is the defaults; a broken one is an error that names its line.
//!
//! ```toml
//! [keys]
//! run = "ctrl-r"          # one key
//! quit = ["q", "ctrl-q"]  # or several; [] unbinds
//!
//! [app]
//! confirm_destructive = false  # tools marked destructive run without asking for y first
//! ```
//!
//! Keys replace the action's default keys in every pane it works in; the action names and
//! their defaults are in `app/keymap/table.rs` (and in the app's help, `?`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub endpoints: BTreeMap<String, NamedEndpoint>,
    /// `[keys]`: action name → its keys, as written (with where, for errors).
    #[serde(default)]
    pub keys: BTreeMap<String, Spanned<KeyList>>,
    /// `[app]`: how the app behaves.
    #[serde(default)]
    pub app: AppSettings,
    /// Where the file is, for errors found later (a bad key).
    #[serde(skip)]
    pub origin: String,
    /// The line each `[keys]` entry is on.
    #[serde(skip)]
    key_lines: BTreeMap<String, usize>,
    #[serde(default)]
    pub lint: LintConfig,
}

impl Config {
    /// The line of `[keys]`'s `action` (1 when there is none).
    pub fn key_line(&self, action: &str) -> usize {
        self.key_lines.get(action).copied().unwrap_or(1)
    }
}

/// `[app]`; `confirm_destructive = false`: a tool marked destructive runs without asking for `y`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSettings {
    #[serde(default = "yes")]
    pub confirm_destructive: bool,
}

impl Default for AppSettings {
    fn default() -> AppSettings {
        AppSettings { confirm_destructive: true }
    }
}

fn yes() -> bool {
    true
}

/// One key or several.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum KeyList {
    One(String),
    Many(Vec<String>),
}

impl KeyList {
    pub fn keys(&self) -> &[String] {
        match self {
            KeyList::One(key) => std::slice::from_ref(key),
            KeyList::Many(keys) => keys,
        }
    }
}

/// `[lint]`: which rules `tooldeck lint` runs and how seriously (the command line adds to it).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintConfig {
    /// Rules switched off: `group/name`, `group/*` or `group`.
    #[serde(default)]
    pub off: Vec<String>,
    /// Rules raised to errors.
    #[serde(default)]
    pub error: Vec<String>,
    /// Providers to check (openai, openai-strict, anthropic, gemini, mcp); what they would
    /// refuse is then an error. Unset: all of them, as warnings.
    pub targets: Option<Vec<String>>,
    /// `cost/large-tool` notes tools over this many tokens.
    pub max_tool_tokens: Option<usize>,
}

/// One named endpoint: an OTC `url`, an MCP `mcp` command, or an MCP `mcp_url`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedEndpoint {
    pub url: Option<String>,
    pub call_path: Option<String>,
    pub mcp: Option<String>,
    pub mcp_url: Option<String>,
    /// Values may use `${ENV}`; they are expanded when the endpoint is used.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    pub timeout: Option<u64>,
    /// MCP roots advertised to this server (paths or `file://` URIs).
    #[serde(default)]
    pub roots: Vec<String>,
    /// An MCP protocol revision to pin (`--protocol`).
    pub protocol: Option<String>,
    /// `[endpoints.NAME.oauth]`: how to sign in to this MCP server.
    pub oauth: Option<OAuthConfig>,
}

/// `[endpoints.NAME.oauth]`: a pre-registered client (`client_secret` may use `${ENV}`), a
/// Client ID Metadata Document URL, scopes, a fixed redirect port, and `send_resource = false`
/// for authorization servers that refuse the `resource` parameter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthConfig {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub client_metadata_url: Option<String>,
    #[serde(default)]
    pub scopes: Vec<String>,
    pub redirect_port: Option<u16>,
    #[serde(default = "yes")]
    pub send_resource: bool,
}

/// `$TOOLDECK_CONFIG`, else `$XDG_CONFIG_HOME/tooldeck/config.toml`, else `~/.config/tooldeck/config.toml`.
pub fn default_path() -> Option<PathBuf> {
    user_file("TOOLDECK_CONFIG", "XDG_CONFIG_HOME", ".config", "config.toml")
}

/// `$override_var`, else `$xdg_var/tooldeck/file`, else `~/home_dir/tooldeck/file` (on
/// Windows the roaming application data folder for the config, the local one for the rest).
pub fn user_file(override_var: &str, xdg_var: &str, home_dir: &str, file: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(override_var) {
        return Some(PathBuf::from(path));
    }
    let base =
        std::env::var_os(xdg_var).map(PathBuf::from).filter(|p| p.is_absolute()).or_else(|| platform_base(home_dir))?;
    Some(base.join("tooldeck").join(file))
}

/// Where tooldeck keeps a kind of file when no variable says: the XDG layout under the home
/// folder, also on macOS (where command-line tools keep theirs there too).
#[cfg(not(windows))]
fn platform_base(home_dir: &str) -> Option<PathBuf> {
    dirs::home_dir().map(|home| home.join(home_dir))
}

/// Windows has no XDG layout: the config roams, history and tokens stay on the machine.
#[cfg(windows)]
fn platform_base(home_dir: &str) -> Option<PathBuf> {
    if home_dir == ".config" { dirs::config_dir() } else { dirs::data_local_dir() }
}

/// Why the config file cannot be used; each names the file, and the line where there is one.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{origin}:{line}: {message}")]
    Syntax { origin: String, line: usize, message: String },
    #[error("{origin}: endpoint \"{name}\" needs exactly one of url, mcp, mcp_url")]
    EndpointKind { origin: String, name: String },
}

/// Reads `path`; a missing file is the default config.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = match crate::files::read_text(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(source) => return Err(ConfigError::Read { path: path.display().to_string(), source }),
    };
    parse(&text, &path.display().to_string())
}

pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
    let lines = crate::text::LineIndex::new(text);
    let line_of = |offset: usize| lines.line_col(offset.min(text.len())).0;
    let mut config: Config = toml::from_str(text).map_err(|e| ConfigError::Syntax {
        origin: origin.to_string(),
        line: e.span().map_or(1, |span| line_of(span.start)),
        message: e.message().to_string(),
    })?;
    config.origin = origin.to_string();
    config.key_lines = config.keys.iter().map(|(action, keys)| (action.clone(), line_of(keys.span().start))).collect();
    for (name, endpoint) in &config.endpoints {
        let kinds = [&endpoint.url, &endpoint.mcp, &endpoint.mcp_url].iter().filter(|k| k.is_some()).count();
        if kinds != 1 {
            return Err(ConfigError::EndpointKind { origin: origin.to_string(), name: name.clone() });
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_endpoints() {
        let config = parse(
            "[endpoints.prod]\nurl = \"https://tools.example.com\"\ncall_path = \"/execute\"\nheaders = { Authorization = \"Bearer ${T}\" }\n\n[endpoints.local]\nmcp = \"node server.js\"\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(config.endpoints["prod"].call_path.as_deref(), Some("/execute"));
        assert_eq!(config.endpoints["prod"].headers["Authorization"], "Bearer ${T}");
        assert_eq!(config.endpoints["local"].mcp.as_deref(), Some("node server.js"));
    }

    #[test]
    fn mistakes_name_their_line() {
        let error = parse("[endpoints.prod]\nurl = \"x\"\nurll = \"y\"\n", "c.toml").unwrap_err().to_string();
        assert!(error.starts_with("c.toml:3:"), "{error}");
        let error = parse("[endpoints.both]\nurl = \"x\"\nmcp = \"y\"\n", "c.toml").unwrap_err().to_string();
        assert!(error.contains("exactly one of"), "{error}");
    }

    #[test]
    fn lint_section() {
        let config = parse(
            "[lint]\noff = [\"tips/*\"]\nerror = [\"schema/unknown-format\"]\ntargets = [\"openai\"]\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(config.lint.off, ["tips/*"]);
        assert_eq!(config.lint.error, ["schema/unknown-format"]);
        assert_eq!(config.lint.targets.as_deref(), Some(&["openai".to_string()][..]));
        assert!(parse("[lint]\nof = []\n", "c.toml").unwrap_err().to_string().starts_with("c.toml:2:"));
    }

    #[test]
    fn the_app_table() {
        assert!(parse("", "c.toml").unwrap().app.confirm_destructive, "on by default");
        assert!(parse("[app]\n", "c.toml").unwrap().app.confirm_destructive);
        assert!(!parse("[app]\nconfirm_destructive = false\n", "c.toml").unwrap().app.confirm_destructive);
        let error = parse("[app]\nconfirm = false\n", "c.toml").unwrap_err().to_string();
        assert!(error.starts_with("c.toml:2:"), "{error}");
    }

    #[test]
    fn a_missing_file_is_the_defaults() {
        assert_eq!(load(Path::new("/nonexistent/tooldeck.toml")).unwrap().endpoints, BTreeMap::new());
    }
}
