//! Where calls go and how: a server's URL or command, headers, tokens, `${ENV}` expansion,
//! timeouts, named endpoints from the config file, and the server's own tool list. The command
//! line, case files and the app all describe a server with [`EndpointOptions`].

use std::path::PathBuf;
use std::time::Duration;

use super::auth::{AuthLog, Authorizer, OAuthOptions, TokenStore};
use super::mcp::asks::{Asks, ClientSetup, Headless};
use super::mcp::http::McpHttpEndpoint;
use super::otc::OtcEndpoint;
use super::{Endpoint, InvokeError};
use crate::catalog::{Catalog, Diagnostic, LoadOptions, Tool, load_text};

/// The path OTC servers take calls on, unless told otherwise (older servers use `/execute`).
pub const DEFAULT_CALL_PATH: &str = "/tools/call";
/// Seconds to wait for an answer, unless told otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// A server as the user named it. `None` means "not given", so that a value given on the command
/// line can win over a file's without comparing against defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointOptions {
    /// An Open Tool Calling server URL, or the name of an endpoint in the config file.
    pub endpoint: Option<String>,
    pub call_path: Option<String>,
    /// `Name: value` lines; `${ENV}` in a value is expanded when the server is connected.
    pub headers: Vec<String>,
    pub timeout: Option<u64>,
    /// An MCP server to start and talk to over stdio.
    pub mcp: Option<String>,
    /// An MCP server over Streamable HTTP.
    pub mcp_url: Option<String>,
    /// The config file with named endpoints (default: ~/.config/tooldeck/config.toml).
    pub config: Option<PathBuf>,
    /// Headers whose values are secrets by where they came from (the config file), whatever
    /// their names; see [`EndpointOptions::masked_headers`].
    pub secret_headers: Vec<String>,
    /// MCP roots (`--root PATH`, repeatable; `roots` of a named endpoint).
    pub roots: Vec<String>,
    /// An MCP protocol revision to pin (`--protocol`); the newest both speak otherwise.
    pub protocol: Option<String>,
    /// Seconds a whole MCP call may take, progress or not (`--max-time`).
    pub max_time: Option<u64>,
    /// How `call` and `test` answer what an MCP server asks (`--elicit-json`, `--sample-text`).
    pub answers: Headless,
    /// Signing in to an MCP server over HTTP (`--login`, `--client-id`, `[endpoints.NAME.oauth]`).
    pub oauth: OAuthOptions,
    /// `--server NAME`: a server in tooldeck's config or another client's, by name.
    pub server: Option<String>,
    /// The name a config gives the server, once resolved: status lines and groups say it.
    pub name: Option<String>,
    /// Environment variables and the folder a stdio server is started with (from a config).
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

impl EndpointOptions {
    /// `self` where it names a server, else `fallback`'s server; a call path and timeout given
    /// here win either way, and both sets of headers are sent (`fallback`'s first).
    pub fn or(&self, fallback: &EndpointOptions) -> EndpointOptions {
        if self.names_a_server() {
            return self.clone();
        }
        EndpointOptions {
            endpoint: fallback.endpoint.clone(),
            mcp: fallback.mcp.clone(),
            mcp_url: fallback.mcp_url.clone(),
            call_path: self.call_path.clone().or_else(|| fallback.call_path.clone()),
            timeout: self.timeout.or(fallback.timeout),
            headers: fallback.headers.iter().chain(&self.headers).cloned().collect(),
            config: self.config.clone().or_else(|| fallback.config.clone()),
            secret_headers: fallback.secret_headers.iter().chain(&self.secret_headers).cloned().collect(),
            roots: if self.roots.is_empty() { fallback.roots.clone() } else { self.roots.clone() },
            protocol: self.protocol.clone().or_else(|| fallback.protocol.clone()),
            max_time: self.max_time.or(fallback.max_time),
            answers: self.answers.clone(),
            oauth: if self.oauth == OAuthOptions::default() { fallback.oauth.clone() } else { self.oauth.clone() },
            server: fallback.server.clone(),
            name: fallback.name.clone(),
            env: fallback.env.clone(),
            cwd: fallback.cwd.clone(),
        }
    }

    /// Headers shown masked whatever their names and values: those from the config file. A
    /// value from the environment (`${NAME}`) needs no name here: `redact` masks every expanded
    /// value, in a header as in a URL or a command.
    pub fn masked_headers(&self) -> Vec<String> {
        self.secret_headers.clone()
    }

    pub fn call_path(&self) -> &str {
        self.call_path.as_deref().unwrap_or(DEFAULT_CALL_PATH)
    }

    /// How long to wait for an answer (at least a second).
    pub fn answer_timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS).max(1))
    }

    /// True when the user named a server (so its own tools join the catalog).
    pub fn names_a_server(&self) -> bool {
        self.endpoint.is_some() || self.mcp.is_some() || self.mcp_url.is_some() || self.server.is_some()
    }

    /// The server for status lines and tool sources, before it is connected (the same text the
    /// connected endpoint's label gives, secrets masked); `demo_url` when none was chosen.
    pub fn label(&self, demo_url: Option<&str>) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        match (&self.mcp, &self.mcp_url, &self.endpoint) {
            (Some(command), _, _) => format!("mcp:stdio {}", crate::redact::command(command.trim())),
            (None, Some(url), _) | (None, None, Some(url)) => crate::redact::url(url.trim_end_matches('/')),
            (None, None, None) => format!("demo server {}", demo_url.unwrap_or_default()),
        }
    }

    /// How an MCP server is met: the roots, the revision, `--max-time`, and the answers
    /// `call` and `test` give (the app then routes the asks to the person).
    pub fn client_setup(&self) -> ClientSetup {
        ClientSetup {
            asks: Asks::headless(self.answers.clone(), self.roots.clone()),
            protocol: self.protocol.clone(),
            max_time: self.max_time.map(|s| Duration::from_secs(s.max(1))),
            auth_log: self.oauth.log(),
            initialize_first: false,
            env: self.env.clone(),
            cwd: self.cwd.clone(),
        }
    }

    /// Who signs in to an MCP server over HTTP, with the user's token store; steps go to `log`.
    pub fn authorizer(&self, log: AuthLog) -> std::sync::Arc<Authorizer> {
        std::sync::Arc::new(Authorizer::new(self.oauth.clone(), log, TokenStore::default_location()))
    }

    /// Connects to the chosen server; `demo_url` answers when none was chosen.
    pub async fn connect(
        &self,
        headers: Vec<(String, String)>,
        demo_url: Option<&str>,
    ) -> Result<Endpoint, InvokeError> {
        self.connect_with(headers, demo_url, self.client_setup()).await
    }

    /// [`EndpointOptions::connect`] with a setup of the caller's (the app keeps its `Asks`).
    pub async fn connect_with(
        &self,
        headers: Vec<(String, String)>,
        demo_url: Option<&str>,
        setup: ClientSetup,
    ) -> Result<Endpoint, InvokeError> {
        let timeout = self.answer_timeout();
        if let Some(command) = &self.mcp {
            return Ok(Endpoint::Mcp(super::mcp::stdio::McpStdio::connect(command, timeout, setup).await?.into()));
        }
        if let Some(url) = &self.mcp_url {
            let log = setup.auth_log.clone();
            let endpoint =
                McpHttpEndpoint::connect_signing_in(url, headers, timeout, setup, Some(self.authorizer(log))).await?;
            return Ok(Endpoint::Mcp(endpoint.masking(self.masked_headers()).into()));
        }
        let base = self.endpoint.as_deref().or(demo_url).unwrap_or_default();
        let endpoint = OtcEndpoint::new(base, self.call_path(), headers, timeout)?;
        Ok(Endpoint::Otc(endpoint.masking(self.masked_headers())))
    }
}

/// Expands `${NAME}` from the environment; an unset variable is an error naming it.
/// Why a header, a token or a `${ENV}` in one cannot be used. None repeats a value: it may be a
/// secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("an unclosed ${{ in a value")]
    UnclosedVariable,
    #[error("environment variable {0} is not set")]
    Unset(String),
    #[error("a --header is not `Name: value`")]
    NotAHeader,
    #[error("a --token is not PROVIDER=TOKEN")]
    NotAToken,
}

///
/// Each value is a secret from then on, wherever it lands ([`crate::redact::remember_expanded`]).
pub fn expand_env(text: &str) -> Result<String, ValueError> {
    expand_env_from(text, &|name| {
        let value = std::env::var(name).ok()?;
        crate::redact::remember_expanded(name, &value);
        Some(value)
    })
}

/// [`expand_env`] reading variables from `lookup`.
fn expand_env_from(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ValueError> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else { return Err(ValueError::UnclosedVariable) };
        let name = &rest[start + 2..start + end];
        let value = lookup(name).ok_or_else(|| ValueError::Unset(name.to_string()))?;
        out.push_str(&value);
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `Name: value` lines as pairs, `${ENV}` expanded. A malformed line is named by its header
/// name only: the value may be a secret.
pub fn parse_headers(headers: &[String]) -> Result<Vec<(String, String)>, ValueError> {
    headers
        .iter()
        .map(|h| match h.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), expand_env(value.trim())?)),
            _ => Err(ValueError::NotAHeader),
        })
        .collect()
}

/// `PROVIDER=TOKEN` pairs, `${ENV}` expanded; an error never repeats the token.
pub fn parse_tokens(tokens: &[String]) -> Result<Vec<(String, String)>, ValueError> {
    tokens
        .iter()
        .map(|t| match t.split_once('=') {
            Some((provider, token)) if !provider.is_empty() => Ok((provider.to_string(), expand_env(token)?)),
            _ => Err(ValueError::NotAToken),
        })
        .collect()
}

/// The tokens a call of `tool` carries: those for a provider the tool declares a requirement
/// for, and the server's own bearer token (MCP over HTTP). A token given for one tool's provider
/// is never sent with calls of tools that do not ask for it.
pub fn tokens_for(tool: Option<&Tool>, tokens: &[(String, String)]) -> Vec<(String, String)> {
    let declared =
        |provider: &str| tool.is_some_and(|tool| tool.requirements.authorization.iter().any(|a| a.id == provider));
    tokens
        .iter()
        .filter(|(provider, _)| provider == super::mcp::http::MCP_PROVIDER || declared(provider))
        .cloned()
        .collect()
}

/// Reading a server's tools only to call them: their schemas are compiled to check arguments
/// anyway and no diagnostics are shown, so the meta-schema check is skipped.
pub fn to_call() -> LoadOptions {
    LoadOptions { meta_check: false, ..LoadOptions::default() }
}

/// The one way every command and the app list a server's tools: asked for over `endpoint`,
/// read as a definition file is read (on a blocking thread: a server may list thousands),
/// each marked as `label`'s and keeping its definition as sent; with what reading them found.
pub async fn list_catalog(
    endpoint: &Endpoint,
    label: &str,
    options: &LoadOptions,
) -> Result<(Vec<Tool>, Vec<Diagnostic>), InvokeError> {
    let text = endpoint.list_tools().await?;
    let (label, options) = (label.to_string(), *options);
    tokio::task::spawn_blocking(move || read_server_tools(&label, &text, &options))
        .await
        .map_err(|e| InvokeError::Unreadable(format!("reading the server's tools stopped: {e}")))
}

/// A server's tool list (the text `Endpoint::list_tools` gives) as tools and diagnostics.
pub fn read_server_tools(label: &str, text: &str, options: &LoadOptions) -> (Vec<Tool>, Vec<Diagnostic>) {
    let (mut tools, diagnostics) = load_text(label, text, options);
    // Each definition as sent, by name: the listing was read as JSON just above, so this
    // parse succeeds on the same bounded text.
    let listed: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    // By name, the first of each (a search of the list per tool was quadratic in its length).
    let mut sent: std::collections::HashMap<&str, &serde_json::Value> = std::collections::HashMap::new();
    for t in listed.get("tools").and_then(serde_json::Value::as_array).into_iter().flatten() {
        if let Some(name) = t.get("name").and_then(serde_json::Value::as_str) {
            sent.entry(name).or_insert(t);
        }
    }
    for tool in &mut tools {
        tool.source = crate::catalog::Source::server(label);
        tool.written.raw = sent.get(tool.name.as_str()).map(|t| std::sync::Arc::new((*t).clone()));
    }
    (tools, diagnostics)
}

/// [`read_server_tools`] to call them ([`to_call`]), without diagnostics.
pub fn server_tools(label: &str, text: &str) -> Vec<Tool> {
    read_server_tools(label, text, &to_call()).0
}

/// The server's own tools join the catalog (tools already in it, from files, come first). Why
/// they could not be listed is returned for the caller to say.
pub async fn merge_server_tools(catalog: &mut Catalog, endpoint: &Endpoint) -> Result<(), InvokeError> {
    let (tools, _) = list_catalog(endpoint, &endpoint.label(), &to_call()).await?;
    for tool in tools {
        if catalog.get(&tool.id).is_none() {
            catalog.add(tool);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_expansion() {
        let env = |name: &str| (name == "TOKEN").then(|| "t0k-81".to_string());
        assert_eq!(expand_env_from("Bearer ${TOKEN}!", &env).unwrap(), "Bearer t0k-81!");
        assert!(expand_env_from("${UNSET}", &env).unwrap_err().to_string().contains("not set"));
        assert_eq!(expand_env_from("plain", &env).unwrap(), "plain");
        assert_eq!(expand_env_from("${oops", &env).unwrap_err(), ValueError::UnclosedVariable);
    }

    #[test]
    fn expanded_values_are_masked_wherever_they_land() {
        // Any variable this process has (setting one would need `unsafe`), long enough to find.
        let (name, value) = std::env::vars()
            .find(|(name, value)| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && value.len() >= 4)
            .expect("the environment has a variable");
        let url = expand_env(&format!("http://h/mcp?k=${{{name}}}")).unwrap();
        assert!(!crate::redact::url(&url).contains(&value), "{url}");
        assert!(!crate::redact::command(&format!("srv --k {url}")).contains(&value));
        assert!(!crate::redact::expanded(&format!("cannot reach {url}")).contains(&value));
    }

    #[test]
    fn headers_and_tokens_parse_and_errors_hold_no_secret() {
        assert_eq!(parse_headers(&["X-Api: 1".into()]).unwrap(), vec![("X-Api".to_string(), "1".to_string())]);
        let error = parse_headers(&["Authorization Bearer SECRET".into()]).unwrap_err().to_string();
        assert!(!error.contains("SECRET"), "{error}");
        assert_eq!(parse_tokens(&["google=abc".into()]).unwrap(), vec![("google".to_string(), "abc".to_string())]);
        let error = parse_tokens(&["SECRET".into()]).unwrap_err().to_string();
        assert!(!error.contains("SECRET"), "{error}");
    }

    #[test]
    fn the_first_options_win_where_they_name_something() {
        let file = EndpointOptions {
            endpoint: Some("http://file".into()),
            call_path: Some("/execute".into()),
            headers: vec!["X-From: file".into()],
            timeout: Some(5),
            ..EndpointOptions::default()
        };
        let flags = EndpointOptions { headers: vec!["X-From: flag".into()], ..EndpointOptions::default() };
        let options = flags.or(&file);
        assert_eq!(options.endpoint.as_deref(), Some("http://file"));
        assert_eq!((options.call_path(), options.answer_timeout()), ("/execute", Duration::from_secs(5)));
        assert_eq!(options.headers, ["X-From: file", "X-From: flag"]);
        let flags = EndpointOptions { timeout: Some(9), ..EndpointOptions::default() };
        assert_eq!(flags.or(&file).answer_timeout(), Duration::from_secs(9), "an explicit timeout wins");
        let flags = EndpointOptions { endpoint: Some("http://flag".into()), ..EndpointOptions::default() };
        let options = flags.or(&file);
        assert_eq!(options.endpoint.as_deref(), Some("http://flag"));
        assert_eq!(options.call_path(), DEFAULT_CALL_PATH, "nothing of the file's server is kept");
    }
}
