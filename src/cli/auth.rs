//! `tooldeck auth login|status|logout`, and the sign-in options every command that connects
//! takes (`--login`, `--client-id`, `--client-secret`, `--client-metadata-url`, `--no-browser`).

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::ServerArgs;
use super::exit;
use super::failure::Failure;
use crate::invoke::auth::{AuthStep, Echo, OAuthOptions, StepKind, StoredToken, TokenStore};

/// How to sign in to an MCP server over HTTP when it answers 401.
#[derive(Debug, Args, Clone, Default)]
pub struct OAuthArgs {
    /// Sign in (OAuth, in the browser) when the MCP server asks; without it a server that wants
    /// authorization and has no kept token ends the command with exit 4.
    #[arg(long)]
    pub login: bool,
    /// A client registered at the authorization server beforehand (`${ENV}` is expanded).
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// The secret of the --client-id client (`${ENV}` is expanded; shown masked).
    #[arg(long, value_name = "SECRET")]
    pub client_secret: Option<String>,
    /// An https URL of this client's metadata document, used as its client id where the
    /// authorization server supports Client ID Metadata Documents.
    #[arg(long, value_name = "URL")]
    pub client_metadata_url: Option<String>,
    /// Print the sign-in URL instead of opening a browser, and read the address the browser
    /// ends on from standard input (the loopback redirect is still listened for).
    #[arg(long)]
    pub no_browser: bool,
}

impl OAuthArgs {
    pub fn options(&self) -> OAuthOptions {
        let expand = |v: &Option<String>| {
            v.as_deref().map(|v| crate::invoke::endpoint::expand_env(v).unwrap_or_else(|_| v.to_string()))
        };
        OAuthOptions {
            login: self.login,
            client_id: expand(&self.client_id),
            client_secret: expand(&self.client_secret),
            client_metadata_url: self.client_metadata_url.clone(),
            no_browser: self.no_browser,
            echo: Echo(Some(print_step)),
            ..OAuthOptions::default()
        }
    }
}

/// A sign-in step on stderr, as it happens (the URL to open among them).
fn print_step(step: &AuthStep) {
    let mark = match step.kind {
        StepKind::Failed => "✗",
        StepKind::Skipped => "·",
        _ => "✓",
    };
    let _ = writeln!(std::io::stderr(), "tooldeck: sign-in {mark} {}", crate::text::visible(&step.text));
}

#[derive(Debug, Subcommand, Clone)]
pub enum AuthCommand {
    /// Sign in to the MCP server (--mcp-url URL or --endpoint NAME) and keep the token.
    Login {
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Show the tokens kept (for one server, or all), masked.
    Status {
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Forget the tokens kept for the server (or for every server with --all).
    Logout {
        #[command(flatten)]
        server: ServerArgs,
        #[arg(long)]
        all: bool,
    },
}

/// A failure said on one line, whatever the server or the token store said.
fn fail(code: u8, message: &str) -> Failure {
    Failure::new(code, crate::text::visible(message))
}

/// The MCP server URL the options name (after a named endpoint is looked up).
fn server_url(server: &ServerArgs) -> Result<(crate::invoke::endpoint::EndpointOptions, Option<String>), Failure> {
    let options = server.options().resolve().map_err(|e| fail(exit::USAGE, &e.to_string()))?;
    let url = options.mcp_url.clone();
    Ok((options, url))
}

pub fn run(command: AuthCommand) -> ExitCode {
    super::failure::finish(match command {
        AuthCommand::Login { server } => login(&server),
        AuthCommand::Status { server } => status(&server),
        AuthCommand::Logout { server, all } => logout(&server, all),
    })
}

fn login(server: &ServerArgs) -> Result<ExitCode, Failure> {
    let (mut options, url) = server_url(server)?;
    let url = url.ok_or_else(|| fail(exit::USAGE, "auth login needs an MCP server over HTTP: --mcp-url URL"))?;
    options.oauth.login = true;
    let runtime = super::tokio_runtime().map_err(|e| fail(exit::TRANSPORT, &format!("cannot start: {e}")))?;
    let signed = runtime.block_on(async {
        let headers = crate::invoke::endpoint::parse_headers(&options.headers).unwrap_or_default();
        let challenge = crate::invoke::mcp::http::challenge_of(&url, headers, options.answer_timeout()).await;
        let authorizer = options.authorizer(options.oauth.log());
        authorizer.sign_in(&url, challenge.as_deref()).await.map(|_| authorizer.store().get(&url))
    });
    match signed {
        Ok(Ok(Some(token))) => {
            let _ = writeln!(std::io::stdout(), "signed in to {}\n{}", crate::redact::url(&url), describe(&token));
            Ok(ExitCode::SUCCESS)
        }
        Ok(Ok(None)) => {
            let _ =
                writeln!(std::io::stdout(), "signed in to {} (no place to keep the token)", crate::redact::url(&url));
            Ok(ExitCode::SUCCESS)
        }
        Ok(Err(e)) | Err(e) => Err(fail(exit::AUTHORIZATION_REQUIRED, &e.to_string())),
    }
}

/// A kept token as `auth status` shows it: masked, with what it is for.
fn describe(token: &StoredToken) -> String {
    let expiry = match token.expires_at {
        Some(_) if token.expired() => "expired".to_string(),
        Some(at) => format!("expires in {} s", at.saturating_sub(now())),
        None => "no expiry".to_string(),
    };
    format!(
        "  server     {}\n  issuer     {}\n  client     {} ({})\n  token      {}\n  scopes     {}\n  expiry     {expiry}\n  refresh    {}",
        crate::redact::url(&token.resource),
        crate::redact::url(&token.issuer),
        crate::text::visible(&token.client.client_id),
        token.client.auth_method,
        crate::redact::MASK,
        if token.scopes.is_empty() { "(none)".to_string() } else { token.scopes.join(" ") },
        if token.refresh_token.is_some() { "yes" } else { "no" },
    )
}

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

fn status(server: &ServerArgs) -> Result<ExitCode, Failure> {
    let (_, url) = server_url(server)?;
    let store = TokenStore::default_location();
    let tokens = store.all().map_err(|e| fail(exit::USAGE, &e.to_string()))?;
    let key = url.as_deref().map(crate::invoke::auth::store::resource_key);
    let shown: Vec<&StoredToken> = tokens.iter().filter(|t| key.as_ref().is_none_or(|k| &t.resource == k)).collect();
    let mut out = std::io::stdout();
    if shown.is_empty() {
        let _ = writeln!(
            out,
            "no tokens kept{}",
            url.map(|u| format!(" for {}", crate::redact::url(&u))).unwrap_or_default()
        );
    }
    for token in shown {
        let _ = writeln!(out, "{}", describe(token));
    }
    if let Some(path) = store.path() {
        let _ = writeln!(out, "(kept in {})", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn logout(server: &ServerArgs, all: bool) -> Result<ExitCode, Failure> {
    let (_, url) = server_url(server)?;
    let store = TokenStore::default_location();
    let urls: Vec<String> = match (all, url) {
        (true, _) => store.all().map(|t| t.into_iter().map(|t| t.resource).collect()).unwrap_or_default(),
        (false, Some(url)) => vec![url],
        (false, None) => return Err(fail(exit::USAGE, "auth logout needs --mcp-url URL (or --all)")),
    };
    for url in urls {
        match store.remove(&url) {
            Ok(true) => println_safe(&format!("signed out of {}", crate::redact::url(&url))),
            Ok(false) => println_safe(&format!("no token was kept for {}", crate::redact::url(&url))),
            Err(e) => return Err(fail(exit::USAGE, &e.to_string())),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn println_safe(line: &str) {
    let _ = writeln!(std::io::stdout(), "{line}");
}
