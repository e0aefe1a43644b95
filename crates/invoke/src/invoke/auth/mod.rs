//! OAuth 2.1 for MCP over HTTP, as the MCP authorization specification describes it (revisions
//! 2025-06-18, 2025-11-25 and 2026-07-28): discovery on a `401`, protected resource and
//! authorization server metadata, client identity, PKCE with a loopback redirect, token exchange,
//! refresh, step-up on `403 insufficient_scope`, and a token store private to the user.
//!
//! Every request goes through [`http::OAuthHttp`] (tooldeck's own reqwest client, no redirects
//! followed) so that each probe, registration and token exchange is recorded as an [`AuthStep`]
//! the app's auth pane and `tooldeck auth login` show, secrets masked by `crate::redact`. rmcp's
//! `AuthorizationManager` sends with a client of its own that cannot be observed, hence this.

pub mod challenge;
mod client;
mod discovery;
mod flow;
pub mod http;
mod pkce;
pub mod redirect;
pub mod store;
mod token;
mod trace;
pub mod transport;

use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use challenge::Challenge;
pub use flow::Authorizer;
pub use store::{StoredToken, TokenStore};

/// How the person wants to be signed in: the command line's `--client-id` and friends, or an
/// endpoint's `[endpoints.NAME.oauth]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthOptions {
    /// Sign in when the server asks (`--login`); without it a headless command stops with exit 4.
    pub login: bool,
    /// A pre-registered client (`--client-id`, `--client-secret`; `${ENV}` expanded).
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// An https URL used as the client id where the server supports Client ID Metadata Documents.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for instead of those the server names.
    pub scopes: Vec<String>,
    /// The loopback port the redirect comes back to (0 or none: any free port).
    pub redirect_port: Option<u16>,
    /// Leave out the `resource` parameter (authorization servers such as Entra ID refuse it).
    pub omit_resource: bool,
    /// Print the authorization URL and read the redirected URL back instead of opening a browser.
    pub no_browser: bool,
    /// Where headless commands show each step as it happens.
    pub echo: Echo,
}

/// A function that shows a sign-in step (headless commands print it on stderr).
#[derive(Clone, Copy, Default)]
pub struct Echo(pub Option<fn(&AuthStep)>);

/// How steps are shown is no part of what the options mean: any two are equal.
impl PartialEq for Echo {
    fn eq(&self, _: &Echo) -> bool {
        true
    }
}

impl Eq for Echo {}

impl std::fmt::Debug for Echo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Echo(on)" } else { "Echo(off)" })
    }
}

impl OAuthOptions {
    /// These options (from the command line) over an endpoint's `[oauth]` table: what is given
    /// here wins; `${ENV}` in the file's secret is expanded when it is used.
    pub fn over(&self, file: Option<&crate::config::OAuthConfig>) -> OAuthOptions {
        let Some(file) = file else { return self.clone() };
        let secret = file.client_secret.as_deref().and_then(|s| crate::invoke::endpoint::expand_env(s).ok());
        OAuthOptions {
            login: self.login,
            client_id: self.client_id.clone().or_else(|| file.client_id.clone()),
            client_secret: self.client_secret.clone().or(secret),
            client_metadata_url: self.client_metadata_url.clone().or_else(|| file.client_metadata_url.clone()),
            scopes: if self.scopes.is_empty() { file.scopes.clone() } else { self.scopes.clone() },
            redirect_port: self.redirect_port.or(file.redirect_port),
            omit_resource: self.omit_resource || !file.send_resource,
            no_browser: self.no_browser,
            echo: self.echo,
        }
    }

    /// The log steps go to: echoed when a headless command asked for it.
    pub fn log(&self) -> AuthLog {
        match self.echo.0 {
            Some(echo) => AuthLog::echoing(echo),
            None => AuthLog::default(),
        }
    }
}

/// Why signing in stopped: each names the step, and the URL where there is one (redacted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("{step}: {url} could not be reached: {reason}")]
    Unreachable { step: &'static str, url: String, reason: String },
    #[error("{step}: {url} answered HTTP {status}: {detail}")]
    Refused { step: &'static str, url: String, status: u16, detail: String },
    #[error("{step}: what {url} answered is not usable: {reason}")]
    BadAnswer { step: &'static str, url: String, reason: String },
    #[error("discovery: no protected resource metadata was found (tried {tried})")]
    NoResourceMetadata { tried: String },
    #[error("discovery: no authorization server metadata was found (tried {tried})")]
    NoServerMetadata { tried: String },
    #[error("discovery: {0}")]
    Discovery(String),
    #[error("client identity: {0}")]
    NoClient(String),
    #[error("authorization: {0}")]
    Redirect(String),
    #[error("authorization: no redirect came back within {0} s; run the sign-in again")]
    TimedOut(u64),
    #[error("the token store {path}: {reason}")]
    Store { path: String, reason: String },
    #[error("step-up: the server still wants more scopes after {0} sign-ins; stopped")]
    StepUpLimit(usize),
    /// An endpoint the sign-in would have sent to over plain http (or another scheme), refused by
    /// [`transport::allowed`] before anything was sent.
    #[error("{step}: {url} was refused before anything was sent to it: {rule}")]
    Insecure { step: &'static str, url: String, rule: &'static str },
    /// The authorization URL is not a web link, so it is not handed to the browser.
    #[error("authorization: {0}")]
    NotOpened(crate::invoke::browser::OpenError),
}

/// One thing that happened while signing in, for the auth pane and `auth login`'s output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthStep {
    pub kind: StepKind,
    /// What happened, secrets masked (URLs through `redact::oauth_url`, tokens as `redact::MASK`).
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// An HTTP request and its answer (or why there was none).
    Request,
    /// Something found (metadata, a client id, a token).
    Found,
    /// A URL the person opens, or a redirect received.
    Browser,
    /// A probe that failed without stopping the flow.
    Skipped,
    Failed,
}

/// Shows a step as it happens.
type EchoFn = Arc<dyn Fn(&AuthStep) + Send + Sync>;

/// The steps of the sign-ins so far; shared (the app's pane reads it while the flow runs).
#[derive(Clone, Default)]
pub struct AuthLog {
    steps: Arc<Mutex<Vec<AuthStep>>>,
    echo: Option<EchoFn>,
}

/// At most this many steps are kept (a session that signs in again and again).
const MAX_STEPS: usize = 500;

impl AuthLog {
    /// A log that also hands each step to `echo` as it happens (headless commands print it).
    pub fn echoing(echo: impl Fn(&AuthStep) + Send + Sync + 'static) -> AuthLog {
        AuthLog { steps: Arc::default(), echo: Some(Arc::new(echo)) }
    }

    pub fn push(&self, kind: StepKind, text: impl Into<String>) {
        let step = AuthStep { kind, text: text.into() };
        if let Some(echo) = &self.echo {
            echo(&step);
        }
        let mut steps = crate::sync::lock(&self.steps);
        steps.push(step);
        if steps.len() > MAX_STEPS {
            steps.remove(0);
        }
    }

    pub fn steps(&self) -> Vec<AuthStep> {
        crate::sync::lock(&self.steps).clone()
    }
}

impl std::fmt::Debug for AuthLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthLog").field("steps", &self.steps().len()).finish()
    }
}

/// How long one OAuth request may take; the person's own wait in the browser is longer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the loopback listener waits for the browser to come back.
pub const REDIRECT_TIMEOUT: Duration = Duration::from_secs(300);
/// Sign-ins one call may trigger on `403 insufficient_scope` (the first one included).
pub const MAX_SIGN_INS: usize = 3;

/// The command that signs in to `url`, for messages that say how to go on.
pub fn login_command(url: &str) -> String {
    format!("tooldeck auth login --mcp-url {}", crate::redact::oauth_url(url))
}
