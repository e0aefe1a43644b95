//! The whole sign-in: discovery, client identity, the browser and its redirect, the token
//! exchange; refresh before asking again; step-up with the union of scopes.

use std::time::Duration;

use super::challenge::Challenge;
use super::client::{self, ClientIdentity};
use super::discovery::{self, ResourceMetadata, ServerMetadata};
use super::http::OAuthHttp;
use super::pkce::{Pkce, new_state};
use super::redirect::{Listener, Redirected};
use super::store::{StoredToken, TokenStore, resource_key};
use super::token::{self, Tokens};
use super::{AuthError, AuthLog, OAuthOptions, REDIRECT_TIMEOUT, StepKind};

/// Signs the person in to MCP servers over HTTP and keeps their tokens.
pub struct Authorizer {
    options: OAuthOptions,
    http: OAuthHttp,
    store: TokenStore,
    redirect_timeout: Duration,
    /// Opens the authorization URL once the browser gate passed it: the system browser (which
    /// honours `$BROWSER`) when `None`.
    open: Option<crate::invoke::browser::Opener>,
    /// The last sign-in's token, when the store cannot keep it (no home) or for scopes held.
    held: tokio::sync::Mutex<Option<StoredToken>>,
}

/// What discovery found for one server.
struct Found {
    resource: ResourceMetadata,
    server: ServerMetadata,
    /// The `resource` parameter (RFC 8707), unless the configuration leaves it out.
    resource_parameter: Option<String>,
}

impl Authorizer {
    pub fn new(options: OAuthOptions, log: AuthLog, store: TokenStore) -> Authorizer {
        Authorizer {
            options,
            http: OAuthHttp::new(log),
            store,
            redirect_timeout: REDIRECT_TIMEOUT,
            open: None,
            held: tokio::sync::Mutex::new(None),
        }
    }

    pub fn with_redirect_timeout(mut self, timeout: Duration) -> Authorizer {
        self.redirect_timeout = timeout;
        self
    }

    /// Gives up on an OAuth request after `timeout` (an authorization server that never answers).
    pub fn with_request_timeout(mut self, timeout: Duration) -> Authorizer {
        self.http = self.http.with_timeout(timeout);
        self
    }

    /// Opens authorization URLs with `open` instead of the system browser (a program that drives
    /// the sign-in itself, as the tests do; `$BROWSER` does the same for the whole process).
    pub fn with_opener(mut self, open: crate::invoke::browser::Opener) -> Authorizer {
        self.open = Some(open);
        self
    }

    pub fn log(&self) -> &AuthLog {
        &self.http.log
    }

    /// Records each OAuth request from now on in `traffic` too (the exchange view of the
    /// session that signs in).
    pub fn record_traffic(&self, traffic: crate::invoke::mcp::traffic::Traffic) {
        self.http.tracer.record_into(traffic);
    }

    pub fn options(&self) -> &OAuthOptions {
        &self.options
    }

    pub fn store(&self) -> &TokenStore {
        &self.store
    }

    async fn kept(&self, url: &str) -> Option<StoredToken> {
        let held = self.held.lock().await.clone().filter(|t| t.resource == resource_key(url));
        match held {
            Some(token) => Some(token),
            None => self.store.get(url).unwrap_or_else(|e| {
                self.http.log.push(StepKind::Failed, e.to_string());
                None
            }),
        }
    }

    async fn keep(&self, token: StoredToken) {
        if let Err(e) = self.store.put(token.clone()) {
            self.http.log.push(StepKind::Failed, e.to_string());
        }
        *self.held.lock().await = Some(token);
    }

    /// The token kept for `url`, refreshed first when it has expired; none when there is none or
    /// it cannot be refreshed.
    pub async fn stored_token(&self, url: &str) -> Option<String> {
        let kept = self.kept(url).await?;
        if !kept.expired() {
            return Some(kept.access_token);
        }
        self.refresh(kept).await.ok().map(|t| t.access_token)
    }

    /// A new token from the kept refresh token (used silently before asking the person again).
    pub async fn refresh_kept(&self, url: &str) -> Option<String> {
        let kept = self.kept(url).await?;
        self.refresh(kept).await.ok().map(|t| t.access_token)
    }

    async fn refresh(&self, mut kept: StoredToken) -> Result<StoredToken, AuthError> {
        // The kept token endpoint is held to the same rule as a new one (a store written before
        // the rule, or by hand, may name a plain http one).
        let http = self.http.for_server(url::Url::parse(&kept.resource).ok().as_ref());
        let Some(refresh_token) = kept.refresh_token.clone() else {
            return Err(AuthError::NoClient("no refresh token is kept".into()));
        };
        self.http
            .log
            .push(StepKind::Found, format!("refresh: the token for {} with the kept refresh token", kept.resource));
        let mut form = vec![("grant_type", "refresh_token".to_string()), ("refresh_token", refresh_token)];
        form.extend(kept.resource_parameter.clone().map(|r| ("resource", r)));
        let tokens = token::request(&http, "refresh", &kept.token_endpoint, &kept.client, form, &kept.scopes).await?;
        kept.apply(tokens);
        self.keep(kept.clone()).await;
        Ok(kept)
    }

    /// Forgets the tokens for `url` (here and in the store); true when there were some.
    pub async fn sign_out(&self, url: &str) -> Result<bool, AuthError> {
        let held = self.held.lock().await.take().is_some();
        Ok(self.store.remove(url)? || held)
    }

    /// Signs in to the server at `url`, which answered 401 with `challenge`: a kept refresh token
    /// for the same authorization server first, then the browser.
    pub async fn sign_in(&self, url: &str, challenge: Option<&str>) -> Result<String, AuthError> {
        let challenge = challenge.map(Challenge::parse).unwrap_or_default();
        let found = self.discover(url, &challenge).await?;
        if let Some(kept) =
            self.kept(url).await.filter(|k| k.issuer == found.server.issuer && k.refresh_token.is_some())
        {
            match self.refresh(kept).await {
                Ok(token) => return Ok(token.access_token),
                Err(e) => self.http.log.push(StepKind::Skipped, format!("{e}; signing in again")),
            }
        }
        self.authorize(url, &challenge, &found, &[]).await
    }

    /// After `403 insufficient_scope`: signs in again asking for the scopes held and those the
    /// challenge requires.
    pub async fn step_up(&self, url: &str, challenge: &str) -> Result<String, AuthError> {
        let challenge = Challenge::parse(challenge);
        let held = self.kept(url).await.map(|k| k.scopes).unwrap_or_default();
        self.http.log.push(
            StepKind::Found,
            format!(
                "step-up: the server wants {}; held {}",
                challenge.scope.as_deref().unwrap_or("(unnamed)"),
                discovery::list_or_none(&held)
            ),
        );
        let found = self.discover(url, &challenge).await?;
        self.authorize(url, &challenge, &found, &held).await
    }

    /// The client for signing in to the server at `url`: what it may send where depends on it.
    fn http_for(&self, url: &str) -> Result<OAuthHttp, AuthError> {
        let server_url = url::Url::parse(url)
            .map_err(|_| AuthError::Discovery(format!("{:?} is not a URL", crate::redact::oauth_url(url))))?;
        Ok(self.http.for_server(Some(&server_url)))
    }

    async fn discover(&self, url: &str, challenge: &Challenge) -> Result<Found, AuthError> {
        let http = self.http_for(url)?;
        let server_url = url::Url::parse(url).map_err(|_| AuthError::Discovery(format!("{url:?} is not a URL")))?;
        let resource = discovery::resource(&http, &server_url, challenge).await?;
        let Some(issuer) = resource.authorization_servers.first().cloned() else {
            return Err(AuthError::NoResourceMetadata { tried: url.to_string() });
        };
        let server = discovery::server(&http, &issuer, !resource.found).await?;
        let resource_parameter = match self.options.omit_resource {
            true => None,
            false => Some(resource.resource.clone().unwrap_or_else(|| resource_key(url))),
        };
        Ok(Found { resource, server, resource_parameter })
    }

    /// Scopes to ask for: the configured ones, else the challenge's, else the metadata's; with
    /// `held` (step-up) and `offline_access` where the server offers it.
    fn scopes(&self, challenge: &Challenge, found: &Found, held: &[String]) -> Vec<String> {
        let wanted = if !self.options.scopes.is_empty() {
            self.options.scopes.clone()
        } else if challenge.scope.is_some() {
            challenge.scopes()
        } else {
            found.resource.scopes_supported.clone()
        };
        let offline = "offline_access".to_string();
        let mut scopes: Vec<String> = Vec::new();
        for scope in held.iter().chain(&wanted) {
            if *scope != offline && !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        if found.server.scopes_supported.contains(&offline) {
            scopes.push(offline);
        }
        scopes
    }

    async fn authorize(
        &self,
        url: &str,
        challenge: &Challenge,
        found: &Found,
        held: &[String],
    ) -> Result<String, AuthError> {
        let scopes = self.scopes(challenge, found, held);
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let listener = Listener::bind(self.options.redirect_port.unwrap_or(0)).await?;
        let redirect_uri = listener.redirect_uri.clone();
        let http = self.http_for(url)?;
        let client = client::identify(&http, &found.server, &self.options, &redirect_uri, scope.as_deref()).await?;
        let pkce = Pkce::new();
        let state = new_state();
        let address = authorization_url(found, &client, &redirect_uri, &state, &pkce, scope.as_deref())?;
        let redirected = self.browse(listener, &address).await?;
        let code = check_redirect(&redirected, &state, &found.server)?;
        self.http.log.push(StepKind::Browser, "redirect: received, state and issuer checked");
        let mut form = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", pkce.verifier),
        ];
        form.extend(found.resource_parameter.clone().map(|r| ("resource", r)));
        let tokens = token::request(&http, "token", &found.server.token_endpoint, &client, form, &scopes).await?;
        let access = tokens.access_token.clone();
        self.keep(stored(url, found, client, tokens)).await;
        Ok(access)
    }

    /// Opens `address` in the browser (or prints it, `--no-browser`) and waits for the redirect,
    /// or for the redirected URL pasted on standard input; both go to the traffic log.
    async fn browse(&self, listener: Listener, address: &str) -> Result<Redirected, AuthError> {
        let redirect_uri = listener.redirect_uri.clone();
        let result = self.wait_for_redirect(listener, address).await;
        match &result {
            Ok(redirected) => {
                let mut params: Vec<(String, String)> =
                    redirected.params.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                params.sort();
                self.http.tracer.browser(address, &redirect_uri, Ok(&params));
            }
            Err(e) => self.http.tracer.browser(address, &redirect_uri, Err(&e.to_string())),
        }
        result
    }

    async fn wait_for_redirect(&self, listener: Listener, address: &str) -> Result<Redirected, AuthError> {
        // The gate first, printed or opened: a URL that is no web link ends the sign-in now
        // rather than after the redirect timeout.
        crate::invoke::browser::check(address).map_err(AuthError::NotOpened)?;
        self.http.log.push(StepKind::Browser, format!("authorize: {}", crate::redact::oauth_url(address)));
        if self.options.no_browser {
            self.http.log.push(StepKind::Browser, "open the URL above, then paste the address the browser ends on");
            let pasted = async {
                let mut line = String::new();
                let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
                tokio::io::AsyncBufReadExt::read_line(&mut stdin, &mut line).await.ok();
                Redirected::from_url(&line)
            };
            return tokio::select! {
                received = listener.accept(self.redirect_timeout) => received,
                pasted = tokio::time::timeout(self.redirect_timeout, pasted) => {
                    pasted.map_err(|_| AuthError::TimedOut(self.redirect_timeout.as_secs()))
                }
            };
        }
        let address = address.to_string();
        let log = self.http.log.clone();
        let open = self.open;
        // Some browsers (and $BROWSER scripts) hold on until they exit: never wait for them here.
        tokio::task::spawn_blocking(move || {
            if let Err(e) = crate::invoke::browser::open_with(&address, open) {
                log.push(StepKind::Failed, e.to_string());
            }
        });
        listener.accept(self.redirect_timeout).await
    }
}

fn authorization_url(
    found: &Found,
    client: &ClientIdentity,
    redirect_uri: &str,
    state: &str,
    pkce: &Pkce,
    scope: Option<&str>,
) -> Result<String, AuthError> {
    let endpoint = &found.server.authorization_endpoint;
    let mut address = url::Url::parse(endpoint)
        .map_err(|_| AuthError::Discovery(format!("the authorization endpoint {endpoint:?} is not a URL")))?;
    {
        let mut query = address.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &client.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("state", state)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256");
        if let Some(resource) = &found.resource_parameter {
            query.append_pair("resource", resource);
        }
        if let Some(scope) = scope {
            query.append_pair("scope", scope);
        }
    }
    Ok(address.to_string())
}

/// The code of a redirect whose `state` is ours and whose `iss` (RFC 9207) names the issuer:
/// required where the server advertises it, compared as a plain string wherever it is present.
fn check_redirect(redirected: &Redirected, state: &str, server: &ServerMetadata) -> Result<String, AuthError> {
    if let Some(error) = redirected.get("error") {
        let description = redirected.get("error_description").map(|d| format!(": {d}")).unwrap_or_default();
        return Err(AuthError::Redirect(
            crate::text::visible(&format!("the authorization server refused ({error}{description})")).into_owned(),
        ));
    }
    if redirected.get("state") != Some(state) {
        return Err(AuthError::Redirect(
            "the redirect carries another state, so it is not the answer to this sign-in".into(),
        ));
    }
    match redirected.get("iss") {
        Some(iss) if iss != server.issuer => {
            return Err(AuthError::Redirect(format!(
                "the redirect names the issuer {:?}, not {:?} (RFC 9207); refused",
                crate::text::visible(iss),
                server.issuer
            )));
        }
        None if server.iss_parameter_supported => {
            return Err(AuthError::Redirect(
                "the authorization server promises an iss parameter, and the redirect has none (RFC 9207); refused"
                    .into(),
            ));
        }
        _ => {}
    }
    redirected
        .get("code")
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .ok_or_else(|| AuthError::Redirect("the redirect carries no code".into()))
}

fn stored(url: &str, found: &Found, client: ClientIdentity, tokens: Tokens) -> StoredToken {
    let mut token = StoredToken {
        resource: resource_key(url),
        issuer: found.server.issuer.clone(),
        token_endpoint: found.server.token_endpoint.clone(),
        resource_parameter: found.resource_parameter.clone(),
        client,
        access_token: String::new(),
        refresh_token: None,
        expires_at: None,
        scopes: Vec::new(),
    };
    token.apply(tokens);
    token
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(iss_supported: bool) -> ServerMetadata {
        ServerMetadata {
            issuer: "http://as".into(),
            iss_parameter_supported: iss_supported,
            ..ServerMetadata::default()
        }
    }

    fn redirect(query: &str) -> Redirected {
        Redirected::from_url(&format!("http://127.0.0.1/callback?{query}"))
    }

    #[test]
    fn the_redirect_is_checked() {
        assert_eq!(check_redirect(&redirect("code=c&state=s"), "s", &server(false)).unwrap(), "c");
        assert!(check_redirect(&redirect("code=c&state=t"), "s", &server(false)).is_err(), "wrong state");
        assert!(check_redirect(&redirect("code=c&state=s"), "s", &server(true)).is_err(), "iss missing");
        assert!(check_redirect(&redirect("code=c&state=s&iss=http%3A%2F%2Fas"), "s", &server(true)).is_ok());
        let error = check_redirect(&redirect("code=c&state=s&iss=http%3A%2F%2Fas%2F"), "s", &server(true)).unwrap_err();
        assert!(error.to_string().contains("RFC 9207"), "no normalisation: {error}");
        assert!(check_redirect(&redirect("code=c&state=s&iss=http%3A%2F%2Fevil"), "s", &server(false)).is_err());
        let error = check_redirect(&redirect("error=access_denied&state=s"), "s", &server(false)).unwrap_err();
        assert!(error.to_string().contains("access_denied"), "{error}");
    }

    #[test]
    fn scopes_come_from_the_challenge_then_the_metadata_with_held_ones_and_offline_access() {
        let authorizer = Authorizer::new(OAuthOptions::default(), AuthLog::default(), TokenStore::memory());
        let mut found = Found {
            resource: ResourceMetadata { scopes_supported: vec!["r".into()], ..ResourceMetadata::default() },
            server: ServerMetadata::default(),
            resource_parameter: None,
        };
        let challenge = Challenge { scope: Some("a b".into()), ..Challenge::default() };
        assert_eq!(authorizer.scopes(&challenge, &found, &[]), ["a", "b"]);
        assert_eq!(authorizer.scopes(&Challenge::default(), &found, &[]), ["r"]);
        assert_eq!(authorizer.scopes(&challenge, &found, &["a".into(), "h".into()]), ["a", "h", "b"]);
        found.server.scopes_supported = vec!["offline_access".into()];
        found.resource.scopes_supported.clear();
        assert_eq!(authorizer.scopes(&Challenge::default(), &found, &[]), ["offline_access"]);
    }
}
