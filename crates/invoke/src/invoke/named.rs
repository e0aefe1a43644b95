//! `--server NAME` and `--endpoint NAME`: a server by the name a config gives it, tooldeck's own
//! (`[endpoints.NAME]`) or another client's (Claude Desktop, Cursor, VS Code...), made into the
//! same [`EndpointOptions`] the command line gives.

use std::path::Path;

use super::endpoint::EndpointOptions;
use crate::servers::{Client, Found, FoundServer, Places, Transport, Vars};

/// Why `--server NAME` or `--endpoint NAME` names no server that can be used.
#[derive(Debug, thiserror::Error)]
pub enum NamedError {
    /// No server by that name (with the configs that could not be read, where it may be).
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("no endpoint \"{name}\" in {}", .path.display())]
    NoEndpoint { name: String, path: std::path::PathBuf },
    /// A `${VAR}` in the server's definition that cannot be expanded.
    #[error("server \"{server}\" ({location}): {why}")]
    Variable { server: String, location: String, why: String },
    #[error("server \"{0}\": its command holds a NUL character")]
    NulInCommand(String),
}

impl EndpointOptions {
    /// The server `--server NAME` (or `--endpoint NAME`, not a URL) names; values given on the
    /// command line still win over the config's. Without a name, `self` as it is.
    pub fn resolve(&self) -> Result<EndpointOptions, NamedError> {
        let by_name = self.server.as_deref().or_else(|| self.endpoint.as_deref().filter(|e| !e.contains("://")));
        let Some(name) = by_name else { return Ok(self.clone()) };
        let places = Places::here(self.config.as_deref());
        let found = crate::servers::discover(&places);
        let server = found.named(name).map_err(|e| NamedError::NotFound(with_problems(e.to_string(), &found)))?;
        match server.client {
            Client::Tooldeck => self.with_own_endpoint(&server.name, &server.path),
            _ => self.with_found_server(server, &places),
        }
    }

    /// One of tooldeck's own endpoints, with its roots, protocol and call path.
    fn with_own_endpoint(&self, name: &str, path: &Path) -> Result<EndpointOptions, NamedError> {
        let config = crate::config::load(path)?;
        let Some(named) = config.endpoints.get(name) else {
            return Err(NamedError::NoEndpoint { name: name.to_string(), path: path.to_path_buf() });
        };
        let mut headers: Vec<String> = named.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        headers.extend(self.headers.iter().cloned());
        Ok(EndpointOptions {
            secret_headers: named.headers.keys().cloned().collect(),
            endpoint: named.url.clone(),
            mcp: named.mcp.clone(),
            mcp_url: named.mcp_url.clone(),
            call_path: self.call_path.clone().or_else(|| named.call_path.clone()),
            timeout: self.timeout.or(named.timeout),
            headers,
            roots: if self.roots.is_empty() { named.roots.clone() } else { self.roots.clone() },
            protocol: self.protocol.clone().or_else(|| named.protocol.clone()),
            oauth: self.oauth.over(named.oauth.as_ref()),
            server: None,
            name: self.server.as_ref().map(|_| name.to_string()),
            ..self.clone()
        })
    }

    /// Another client's server: its variables expanded now, so an unset one is said before
    /// anything starts.
    fn with_found_server(&self, server: &FoundServer, places: &Places) -> Result<EndpointOptions, NamedError> {
        // A value from the environment is a secret wherever it lands (a URL's query, an
        // argument), as in a header; a folder (`${workspaceFolder}`) is not asked of `env`.
        let env = |name: &str| {
            let value = std::env::var(name).ok()?;
            crate::redact::remember_expanded(name, &value);
            Some(value)
        };
        let vars = Vars { project: places.project.as_deref(), home: places.home.as_deref(), env: &env };
        let expand = |text: &str| {
            vars.expand(text).map_err(|e| NamedError::Variable {
                server: server.name.clone(),
                location: server.location().to_string(),
                why: e.to_string(),
            })
        };
        let mut options =
            EndpointOptions { server: None, endpoint: None, name: Some(server.name.clone()), ..self.clone() };
        match &server.transport {
            Transport::Stdio { command, args, env, cwd } => {
                let words: Vec<String> =
                    std::iter::once(command).chain(args).map(|w| expand(w)).collect::<Result<_, _>>()?;
                let line = shlex::try_join(words.iter().map(String::as_str))
                    .map_err(|_| NamedError::NulInCommand(server.name.clone()))?;
                options.mcp = Some(line);
                options.env =
                    env.iter().map(|(k, v)| Ok((k.clone(), expand(v)?))).collect::<Result<_, NamedError>>()?;
                options.cwd = cwd.as_deref().map(expand).transpose()?.map(Into::into);
            }
            Transport::Http { url, headers } => {
                options.mcp_url = Some(expand(url)?);
                let mut lines: Vec<String> = headers
                    .iter()
                    .map(|(k, v)| Ok(format!("{k}: {}", expand(v)?)))
                    .collect::<Result<_, NamedError>>()?;
                lines.extend(self.headers.iter().cloned());
                options.headers = lines;
                // Values from a config file are shown masked whatever their names.
                options.secret_headers = headers.keys().cloned().collect();
            }
            Transport::Otc { url } => options.endpoint = Some(url.clone()),
        }
        Ok(options)
    }
}

/// A lookup that failed, with the configs that could not be read (the server may be in one).
fn with_problems(message: String, found: &Found) -> String {
    match found.problems.as_slice() {
        [] => message,
        [one] => format!("{message}; a config could not be read: {one}"),
        [first, rest @ ..] => format!("{message}; {} configs could not be read, the first: {first}", rest.len() + 1),
    }
}
