//! Who tooldeck is to the authorization server, in the 2026-07-28 order: a pre-registered client,
//! else a Client ID Metadata Document, else dynamic registration (RFC 7591).

use serde_json::{Value, json};

use super::discovery::ServerMetadata;
use super::http::OAuthHttp;
use super::{AuthError, OAuthOptions, StepKind};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClientIdentity {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub auth_method: String,
}

/// How a client with `secret` authenticates at the token endpoint, as the metadata allows
/// (RFC 8414: `client_secret_basic` when it says nothing).
pub fn auth_method(metadata: &ServerMetadata, secret: bool) -> String {
    let supported = |m: &str| metadata.token_auth_methods.iter().any(|s| s == m);
    let method = match secret {
        false => "none",
        true if metadata.token_auth_methods.is_empty() || supported("client_secret_basic") => "client_secret_basic",
        true if supported("client_secret_post") => "client_secret_post",
        true => "client_secret_basic",
    };
    method.to_string()
}

pub async fn identify(
    http: &OAuthHttp,
    metadata: &ServerMetadata,
    options: &OAuthOptions,
    redirect_uri: &str,
    scope: Option<&str>,
) -> Result<ClientIdentity, AuthError> {
    if let Some(client_id) = &options.client_id {
        let secret = options.client_secret.clone().filter(|s| !s.is_empty());
        let identity = ClientIdentity {
            auth_method: auth_method(metadata, secret.is_some()),
            client_id: client_id.clone(),
            client_secret: secret,
        };
        http.log
            .push(StepKind::Found, format!("client: pre-registered {}, {}", identity.client_id, identity.auth_method));
        return Ok(identity);
    }
    if metadata.client_id_metadata_documents
        && let Some(url) = &options.client_metadata_url
    {
        http.log.push(StepKind::Found, format!("client: the metadata document {}", crate::redact::oauth_url(url)));
        return Ok(ClientIdentity { client_id: url.clone(), client_secret: None, auth_method: "none".into() });
    }
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(AuthError::NoClient(format!(
            "{} offers no dynamic registration{}; give --client-id (and --client-secret) of a client registered there",
            metadata.issuer,
            if metadata.client_id_metadata_documents { " (it takes a --client-metadata-url)" } else { "" }
        )));
    };
    register(http, metadata, endpoint, redirect_uri, scope).await
}

/// RFC 7591 registration as a native app that wants refresh tokens.
async fn register(
    http: &OAuthHttp,
    metadata: &ServerMetadata,
    endpoint: &str,
    redirect_uri: &str,
    scope: Option<&str>,
) -> Result<ClientIdentity, AuthError> {
    let step = "dynamic registration";
    let supported = |m: &str| metadata.token_auth_methods.iter().any(|s| s == m);
    let wanted = if metadata.token_auth_methods.is_empty() || supported("none") {
        "none".to_string()
    } else {
        auth_method(metadata, true)
    };
    let mut body = json!({
        "client_name": "tooldeck",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": wanted,
        "application_type": "native",
    });
    if let Some(scope) = scope {
        body["scope"] = json!(scope);
    }
    let answer = http.post_json(step, endpoint, &body).await?;
    if !answer.ok() {
        return Err(AuthError::Refused {
            step,
            url: crate::redact::oauth_url(endpoint),
            status: answer.status,
            detail: answer.error_detail(),
        });
    }
    let value = answer.json(step, endpoint)?;
    let Some(client_id) = value.get("client_id").and_then(Value::as_str).filter(|id| !id.is_empty()) else {
        return Err(AuthError::BadAnswer {
            step,
            url: crate::redact::oauth_url(endpoint),
            reason: "it gave no client_id".into(),
        });
    };
    let secret = value.get("client_secret").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let method = value
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| if secret.is_some() { auth_method(metadata, true) } else { "none".to_string() });
    http.log.push(
        StepKind::Found,
        format!(
            "client: registered {client_id}, {method}{}",
            secret.as_deref().map(|_| format!(", secret {}", crate::redact::MASK)).unwrap_or_default()
        ),
    );
    Ok(ClientIdentity { client_id: client_id.to_string(), client_secret: secret, auth_method: method })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_endpoint_auth_method_follows_the_metadata() {
        let mut metadata = ServerMetadata::default();
        assert_eq!(auth_method(&metadata, false), "none");
        assert_eq!(auth_method(&metadata, true), "client_secret_basic");
        metadata.token_auth_methods = vec!["client_secret_post".into()];
        assert_eq!(auth_method(&metadata, true), "client_secret_post");
        metadata.token_auth_methods = vec!["client_secret_post".into(), "client_secret_basic".into()];
        assert_eq!(auth_method(&metadata, true), "client_secret_basic");
    }
}
