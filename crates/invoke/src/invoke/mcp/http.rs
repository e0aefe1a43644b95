//! MCP over Streamable HTTP with a bearer token the user can give later. A server that answers
//! 401 is not a dead end: the connection waits for a token (`--token mcp=…`, or `t` in the app),
//! and a call made meanwhile comes back as an authorization prompt that says what the server's
//! `WWW-Authenticate` asks for.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;

use super::McpEndpoint;
use crate::invoke::request::CallRequest;
use crate::invoke::{AuthPrompt, Exchange, InvokeError, Outcome, Status};

/// The provider name an MCP server's token goes by (`--token mcp=TOKEN`).
pub const MCP_PROVIDER: &str = "mcp";

pub struct McpHttpEndpoint {
    pub(super) url: String,
    /// From `--header` and the config file; a token given later replaces its Authorization.
    headers: Vec<(String, String)>,
    timeout: Duration,
    /// Who answers the server's asks, the revision, `--max-time` (kept across reconnects).
    setup: super::asks::ClientSetup,
    /// The live connection and the token it was made with.
    connection: Mutex<Option<(Option<String>, Arc<McpEndpoint>)>>,
    /// Where every connection's log entries, list changes and a lost session go.
    events: super::events::EventSink,
    /// Headers shown masked whatever their names (from the config file or the environment).
    masked: Vec<String>,
    /// Signs in (OAuth) when the server asks, and keeps the tokens; none for a plain token.
    pub(super) authorizer: Option<Arc<crate::invoke::auth::Authorizer>>,
}

impl McpHttpEndpoint {
    /// Connects at once, so a wrong URL says so straight away; a server that wants authorization
    /// leaves the endpoint waiting for a token instead of failing.
    pub async fn connect(
        url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
        setup: super::asks::ClientSetup,
    ) -> Result<McpHttpEndpoint, InvokeError> {
        McpHttpEndpoint::connect_signing_in(url, headers, timeout, setup, None).await
    }

    /// [`McpHttpEndpoint::connect`] with a token kept for the server used at once, and signing in
    /// as `authorizer` allows when the server asks.
    pub async fn connect_signing_in(
        url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
        setup: super::asks::ClientSetup,
        authorizer: Option<Arc<crate::invoke::auth::Authorizer>>,
    ) -> Result<McpHttpEndpoint, InvokeError> {
        let endpoint = McpHttpEndpoint {
            url: url.to_string(),
            headers,
            timeout,
            setup,
            connection: Mutex::new(None),
            events: super::events::EventSink::default(),
            masked: Vec::new(),
            authorizer,
        };
        if let Some(authorizer) = &endpoint.authorizer {
            authorizer.record_traffic(endpoint.events.traffic());
        }
        match endpoint.connect_with_kept_token().await {
            Ok(_) | Err(InvokeError::Unauthorized { .. }) => Ok(endpoint),
            Err(error) => Err(error),
        }
    }

    /// The URL as it may be shown (a password or `api_key=` masked).
    pub fn label(&self) -> String {
        crate::redact::url(&self.url)
    }

    pub fn asks(&self) -> &super::asks::Asks {
        &self.setup.asks
    }

    /// The revision agreed with the server (once connected).
    pub async fn protocol_version(&self) -> Option<String> {
        self.connection.lock().await.as_ref().and_then(|(_, c)| c.protocol_version())
    }

    /// Tells the server its roots changed (when connected).
    pub async fn roots_changed(&self) {
        if let Some((_, connection)) = self.connection.lock().await.as_ref() {
            connection.roots_changed().await;
        }
    }

    /// Connects with `token` (the same connection is kept while the token stays the same).
    pub async fn authorize(&self, token: &str) -> Result<(), InvokeError> {
        self.connection(Some(token)).await.map(|_| ())
    }

    /// The connection for `token`; without one, whatever connection there is (a token given
    /// once serves every later call).
    pub(super) async fn connection(&self, token: Option<&str>) -> Result<Arc<McpEndpoint>, InvokeError> {
        let mut slot = self.connection.lock().await;
        if let Some((used, connection)) = slot.as_ref()
            && (token.is_none() || used.as_deref() == token)
        {
            return Ok(Arc::clone(connection));
        }
        let mut headers = self.headers.clone();
        if let Some(token) = token {
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
            headers.push(("Authorization".to_string(), format!("Bearer {token}")));
        }
        let connection =
            McpEndpoint::connect_http_with(&self.url, headers, self.timeout, self.setup.clone(), self.events.clone());
        let connection = Arc::new(connection.await?);
        *slot = Some((token.map(str::to_string), Arc::clone(&connection)));
        Ok(connection)
    }

    /// Headers to show masked in exchanges and curl commands, whatever their names.
    pub fn masking(mut self, names: Vec<String>) -> McpHttpEndpoint {
        self.masked = names;
        self
    }

    /// What went over the wire for a call that got no answer, secrets masked when shown.
    pub async fn failed_exchange(&self, call_id: &str) -> Option<Exchange> {
        let mut exchange = self.current().await?.take_failed_exchange(call_id)?;
        exchange.masked_headers = self.masked.clone();
        Some(exchange)
    }

    pub fn events(&self) -> super::events::EventSink {
        self.events.clone()
    }

    /// A new session (`initialize` again) with the token the last one had.
    pub async fn reconnect(&self) -> Result<(), InvokeError> {
        let token = {
            let mut slot = self.connection.lock().await;
            slot.take().and_then(|(token, _)| token)
        };
        self.connection(token.as_deref()).await.map(|_| ())
    }

    /// The live connection, if there is one.
    pub async fn current(&self) -> Option<Arc<McpEndpoint>> {
        self.connection.lock().await.as_ref().map(|(_, c)| Arc::clone(c))
    }

    /// Ends the session at the server (when no call still holds the connection).
    pub async fn close(self) {
        if let Some((_, endpoint)) = self.connection.into_inner()
            && let Ok(endpoint) = Arc::try_unwrap(endpoint)
        {
            endpoint.close().await;
        }
    }

    pub async fn list_tools(&self) -> Result<String, InvokeError> {
        self.with_sign_in(|c| async move { c.list_tools().await }).await
    }

    /// Who signs in to this server (none when only a pasted token is used).
    pub fn authorizer(&self) -> Option<&Arc<crate::invoke::auth::Authorizer>> {
        self.authorizer.as_ref()
    }

    /// Signs in now (the app's "sign in"), whatever the server said last, and connects with the
    /// new token.
    pub async fn sign_in(&self, challenge: Option<&str>) -> Result<(), InvokeError> {
        let Some(authorizer) = &self.authorizer else {
            return Err(InvokeError::sign_in(self.url.clone(), "signing in is not set up here"));
        };
        let token = authorizer
            .sign_in(&self.url, challenge)
            .await
            .map_err(|e| InvokeError::sign_in(self.url.clone(), e.to_string()).caused_by(e))?;
        self.connection(Some(&token)).await.map(|_| ())
    }

    /// A call with the request's `mcp` token if it has one. A 401 is an authorization prompt.
    pub async fn call_with_progress(
        &self,
        request: &CallRequest,
        on_progress: impl Fn(crate::invoke::Progress) + Send + Sync + 'static,
    ) -> Result<(Outcome, Exchange), InvokeError> {
        let token = request.tokens.iter().find(|(provider, _)| provider == MCP_PROVIDER).map(|(_, t)| t.as_str());
        let on_progress = Arc::new(on_progress);
        let call = |connection: Arc<McpEndpoint>| {
            let on_progress = Arc::clone(&on_progress);
            async move { connection.call_with_progress(request, move |p| on_progress(p)).await }
        };
        let called = match token {
            Some(token) => match self.connection(Some(token)).await {
                Ok(connection) => call(connection).await,
                Err(error) => Err(error),
            },
            None => self.with_sign_in(call).await,
        };
        match called {
            Ok((outcome, mut exchange)) => {
                exchange.masked_headers = self.masked.clone();
                Ok((outcome, exchange))
            }
            Err(InvokeError::Unauthorized { url, challenge }) => {
                Ok(authorization_prompt(request, &url, challenge.as_deref(), token.is_some()))
            }
            Err(error) => Err(error),
        }
    }

    /// `resources/read` over the connection there is (or a new one without a token).
    pub async fn read_resource(&self, uri: &str) -> Result<(Vec<super::content::Embedded>, Vec<String>), InvokeError> {
        self.with_sign_in(|c| async move { c.read_resource(uri).await }).await
    }

    /// The request as it would be sent (`--dry-run`): the call, and the headers that go with it
    /// (given ones, the request's token, the content types, the revision agreed when connected),
    /// masked where shown by the one rule.
    pub fn describe(&self, request: &CallRequest) -> Exchange {
        let mut exchange = McpEndpoint::describe_call(&self.url, request);
        exchange.method = "POST".into();
        let live = self
            .connection
            .try_lock()
            .ok()
            .and_then(|slot| slot.as_ref().map(|(token, c)| (token.clone(), Arc::clone(c))));
        let token = request
            .tokens
            .iter()
            .find(|(provider, _)| provider == MCP_PROVIDER)
            .map(|(_, t)| t.clone())
            .or_else(|| live.as_ref().and_then(|(token, _)| token.clone()));
        let mut headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            ("Accept".to_string(), "application/json, text/event-stream".to_string()),
        ];
        if let Some(version) = live.as_ref().and_then(|(_, c)| c.protocol_version()) {
            headers.push(("MCP-Protocol-Version".into(), version));
        }
        // A token given for the call replaces a given Authorization header, as it does when sent.
        let given = self.headers.iter().filter(|(n, _)| token.is_none() || !n.eq_ignore_ascii_case("authorization"));
        headers.extend(given.cloned());
        if let Some(token) = token {
            headers.push(("Authorization".into(), format!("Bearer {token}")));
        }
        exchange.request_headers = headers;
        exchange.masked_headers = self.masked.clone();
        exchange
    }
}

/// The `WWW-Authenticate` challenge `url` answers an `initialize` without a token with, when it
/// answers 401 (`auth login` starts from it).
pub async fn challenge_of(url: &str, headers: Vec<(String, String)>, timeout: Duration) -> Option<String> {
    let mut map = reqwest::header::HeaderMap::new();
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) =
            (reqwest::header::HeaderName::from_bytes(name.as_bytes()), reqwest::header::HeaderValue::from_str(&value))
        {
            map.insert(name, value);
        }
    }
    match wants_authorization(url, map, timeout).await {
        Some(InvokeError::Unauthorized { challenge, .. }) => challenge,
        _ => None,
    }
}

/// `Some` error explaining a 401 (with the server's `WWW-Authenticate`), when that is what `url`
/// answers to an `initialize`.
pub(super) async fn wants_authorization(
    url: &str,
    headers: reqwest::header::HeaderMap,
    timeout: Duration,
) -> Option<InvokeError> {
    let client = crate::invoke::http::client_builder().timeout(timeout).default_headers(headers).build().ok()?;
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tooldeck", "version": env!("CARGO_PKG_VERSION")}
    }});
    let response =
        client.post(url).header("accept", "application/json, text/event-stream").json(&initialize).send().await.ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    let challenge = response.headers().get("www-authenticate").and_then(|v| v.to_str().ok()).map(str::to_string);
    Some(InvokeError::Unauthorized { url: url.to_string(), challenge })
}

/// The outcome of a call the server refused with 401: what it asks for, parsed from its
/// `WWW-Authenticate` (`scope="…"`, `resource_metadata="…"`), and how to give a token.
fn authorization_prompt(
    request: &CallRequest,
    url: &str,
    challenge: Option<&str>,
    had_token: bool,
) -> (Outcome, Exchange) {
    let parameter = |name: &str| challenge.and_then(|c| challenge_parameter(c, name));
    let mut outcome = Outcome::new(Status::RequiresAuthorization, request.call_id.clone());
    let refused = if had_token { "refused the token (HTTP 401)" } else { "wants authorization (HTTP 401)" };
    outcome.authorization = Some(AuthPrompt {
        message: format!(
            "the MCP server {refused}; sign in with `{}` (or --login), or give it a bearer token ({MCP_PROVIDER})",
            crate::invoke::auth::login_command(url)
        ),
        provider: Some(MCP_PROVIDER.to_string()),
        url: parameter("resource_metadata").or_else(|| parameter("authorization_uri")),
        scopes: parameter("scope").map(|s| s.split_whitespace().map(str::to_string).collect()).unwrap_or_default(),
    });
    let mut exchange = McpEndpoint::describe_call(url, request);
    exchange.status = Some(401);
    if let Some(challenge) = challenge {
        exchange.response_headers.push(("www-authenticate".to_string(), challenge.to_string()));
    }
    (outcome, exchange)
}

/// One `name="value"` (or `name=value`) parameter of a `WWW-Authenticate` challenge.
fn challenge_parameter(challenge: &str, name: &str) -> Option<String> {
    let mut rest = challenge;
    while let Some(at) = rest.find(name) {
        let before_ok = rest[..at].chars().next_back().is_none_or(|c| c == ' ' || c == ',');
        let after = rest[at + name.len()..].trim_start();
        if before_ok && let Some(value) = after.strip_prefix('=') {
            let value = value.trim_start();
            return Some(match value.strip_prefix('"') {
                Some(quoted) => quoted.split('"').next().unwrap_or_default().to_string(),
                None => value.split([',', ' ']).next().unwrap_or_default().to_string(),
            });
        }
        rest = &rest[at + name.len()..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_parameters_are_read_quoted_or_not() {
        let challenge = r#"Bearer realm="tools", scope="files:read files:write", resource_metadata="https://x/.well-known/oauth-protected-resource", error=invalid_token"#;
        assert_eq!(challenge_parameter(challenge, "scope").as_deref(), Some("files:read files:write"));
        assert_eq!(
            challenge_parameter(challenge, "resource_metadata").as_deref(),
            Some("https://x/.well-known/oauth-protected-resource")
        );
        assert_eq!(challenge_parameter(challenge, "error").as_deref(), Some("invalid_token"));
        assert_eq!(challenge_parameter(challenge, "realm").as_deref(), Some("tools"));
        assert_eq!(challenge_parameter(challenge, "missing"), None);
        assert_eq!(challenge_parameter("Bearer xscope=\"no\"", "scope"), None, "only whole names");
    }

    #[test]
    fn a_401_is_an_authorization_prompt_naming_the_provider_and_scopes() {
        let request = CallRequest::new("read_file", serde_json::json!({"path": "/x"}));
        let (outcome, exchange) =
            authorization_prompt(&request, "http://h/mcp", Some(r#"Bearer scope="files:read""#), false);
        assert_eq!(outcome.status, Status::RequiresAuthorization);
        let auth = outcome.authorization.unwrap();
        assert_eq!(auth.provider.as_deref(), Some("mcp"));
        assert_eq!(auth.scopes, ["files:read"]);
        assert!(auth.message.contains("wants authorization"), "{}", auth.message);
        assert_eq!(exchange.status, Some(401));
    }
}
