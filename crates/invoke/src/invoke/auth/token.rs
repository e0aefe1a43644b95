//! The token endpoint: the authorization code for tokens, and a refresh token for new ones.

use serde_json::Value;

use super::client::ClientIdentity;
use super::http::OAuthHttp;
use super::{AuthError, StepKind};

/// What the token endpoint gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// Seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// The scopes granted (those asked for when the answer does not say).
    pub scopes: Vec<String>,
}

pub fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// One token request; the client authenticates as its identity says.
pub async fn request(
    http: &OAuthHttp,
    step: &'static str,
    endpoint: &str,
    client: &ClientIdentity,
    mut form: Vec<(&'static str, String)>,
    asked_scopes: &[String],
) -> Result<Tokens, AuthError> {
    let mut basic = None;
    match (client.auth_method.as_str(), client.client_secret.as_deref()) {
        ("client_secret_basic", Some(secret)) => basic = Some((client.client_id.as_str(), secret)),
        ("client_secret_post", Some(secret)) => {
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_secret", secret.to_string()));
        }
        _ => form.push(("client_id", client.client_id.clone())),
    }
    let answer = http.post_form(step, endpoint, &form, basic).await?;
    let url = crate::redact::oauth_url(endpoint);
    if !answer.ok() {
        return Err(AuthError::Refused { step, url, status: answer.status, detail: answer.error_detail() });
    }
    let value = answer.json(step, endpoint)?;
    let text = |name: &str| value.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let Some(access_token) = text("access_token") else {
        return Err(AuthError::BadAnswer { step, url, reason: "it holds no access_token".into() });
    };
    if let Some(kind) = text("token_type").filter(|t| !t.eq_ignore_ascii_case("bearer")) {
        return Err(AuthError::BadAnswer { step, url, reason: format!("the token type is {kind:?}, not Bearer") });
    }
    let tokens = Tokens {
        access_token,
        refresh_token: text("refresh_token"),
        expires_at: value.get("expires_in").and_then(Value::as_u64).map(|s| now().saturating_add(s)),
        scopes: text("scope").map(|s| super::challenge::split_scopes(&s)).unwrap_or_else(|| asked_scopes.to_vec()),
    };
    http.log.push(StepKind::Found, describe(&tokens));
    Ok(tokens)
}

/// The token as the pane shows it: masked, with its scopes and expiry.
pub fn describe(tokens: &Tokens) -> String {
    let expiry = match tokens.expires_at {
        Some(at) => format!("expires in {} s", at.saturating_sub(now())),
        None => "no expiry given".to_string(),
    };
    format!(
        "token: {}, scopes {}, {expiry}, {}",
        crate::redact::MASK,
        super::discovery::list_or_none(&tokens.scopes),
        if tokens.refresh_token.is_some() { "with a refresh token" } else { "no refresh token" }
    )
}
