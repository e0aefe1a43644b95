//! Finding who signs the person in: protected resource metadata (RFC 9728), then the
//! authorization server's metadata (RFC 8414 and OpenID discovery, in the 2025-11-25 probe order).

use serde_json::Value;

use super::http::OAuthHttp;
use super::{AuthError, Challenge, StepKind};

/// What the MCP server says about itself as a protected resource.
#[derive(Debug, Clone, Default)]
pub struct ResourceMetadata {
    pub resource: Option<String>,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
    /// False when no metadata was found and the server's origin is taken as its authorization
    /// server, as 2025-03-26 did.
    pub found: bool,
}

/// The authorization server's metadata, the fields the flow uses.
#[derive(Debug, Clone, Default)]
pub struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Vec<String>,
    pub code_challenge_methods: Vec<String>,
    pub token_auth_methods: Vec<String>,
    pub client_id_metadata_documents: bool,
    pub iss_parameter_supported: bool,
}

fn strings(value: &Value, name: &str) -> Vec<String> {
    value
        .get(name)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn string(value: &Value, name: &str) -> Option<String> {
    value.get(name).and_then(Value::as_str).map(str::to_string)
}

/// `scheme://host[:port]` of `url`.
pub fn origin(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

/// The well-known URLs to try for `server`, with the challenge's `resource_metadata` first.
pub fn resource_metadata_urls(server: &url::Url, challenge: &Challenge) -> Vec<String> {
    let mut urls: Vec<String> = challenge.resource_metadata.iter().cloned().collect();
    let root = format!("{}/.well-known/oauth-protected-resource", origin(server));
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        urls.push(format!("{root}{path}"));
    }
    urls.push(root);
    urls
}

/// Protected resource metadata for `server`; without any, the server's origin stands in as the
/// authorization server (2025-03-26 servers publish none).
pub async fn resource(
    http: &OAuthHttp,
    server: &url::Url,
    challenge: &Challenge,
) -> Result<ResourceMetadata, AuthError> {
    let step = "protected resource metadata";
    for url in resource_metadata_urls(server, challenge) {
        let answer = match http.get(step, &url, &[]).await {
            Ok(answer) => answer,
            Err(AuthError::Unreachable { .. }) => continue,
            // A challenge's `resource_metadata` that is no URL, or plain http to another host: not
            // asked (the rule), and the well-known URLs on the server itself are tried instead.
            Err(e @ AuthError::Insecure { .. }) => {
                http.log.push(StepKind::Skipped, e.to_string());
                continue;
            }
            Err(e) => return Err(e),
        };
        if !answer.ok() {
            continue;
        }
        let value = match answer.json(step, &url) {
            Ok(value) => value,
            Err(e) => {
                http.log.push(StepKind::Skipped, e.to_string());
                continue;
            }
        };
        let metadata = ResourceMetadata {
            resource: string(&value, "resource"),
            authorization_servers: strings(&value, "authorization_servers"),
            scopes_supported: strings(&value, "scopes_supported"),
            found: true,
        };
        if metadata.authorization_servers.is_empty() {
            http.log.push(
                StepKind::Skipped,
                format!("{step}: {} names no authorization server", crate::redact::oauth_url(&url)),
            );
            continue;
        }
        check_resource(server, metadata.resource.as_deref())?;
        // The one used is checked here, so the refusal names it rather than its metadata URL.
        if let Some(issuer) = metadata.authorization_servers.first() {
            http.check("authorization server", issuer)?;
        }
        http.log.push(
            StepKind::Found,
            format!(
                "{step}: resource {}, authorization servers {}, scopes {}",
                metadata.resource.as_deref().unwrap_or("(not given)"),
                metadata.authorization_servers.join(", "),
                list_or_none(&metadata.scopes_supported)
            ),
        );
        return Ok(metadata);
    }
    http.log
        .push(StepKind::Skipped, format!("{step}: none found; trying the server's origin as its authorization server"));
    Ok(ResourceMetadata { authorization_servers: vec![origin(server)], ..ResourceMetadata::default() })
}

pub fn list_or_none(items: &[String]) -> String {
    if items.is_empty() { "(none)".to_string() } else { items.join(" ") }
}

/// The metadata's `resource` must name this server: same origin, and the server's path within
/// the resource's path. A server that claims another resource is not trusted with a token.
pub fn check_resource(server: &url::Url, resource: Option<&str>) -> Result<(), AuthError> {
    let Some(resource) = resource else { return Ok(()) };
    let parsed = url::Url::parse(resource)
        .map_err(|_| AuthError::Discovery(format!("the resource {resource:?} in the metadata is not a URL")))?;
    let resource_path = parsed.path().trim_end_matches('/');
    let server_path = server.path().trim_end_matches('/');
    let within = server_path == resource_path || server_path.starts_with(&format!("{resource_path}/"));
    if origin(&parsed) == origin(server) && within {
        return Ok(());
    }
    Err(AuthError::Discovery(format!(
        "the metadata is for the resource {}, not for {}; no token is asked for it",
        crate::redact::oauth_url(resource),
        crate::redact::oauth_url(server.as_str())
    )))
}

/// The URLs to find `issuer`'s metadata at, in the 2025-11-25 order.
pub fn server_metadata_urls(issuer: &url::Url) -> Vec<String> {
    let root = origin(issuer);
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        return vec![
            format!("{root}/.well-known/oauth-authorization-server"),
            format!("{root}/.well-known/openid-configuration"),
        ];
    }
    vec![
        format!("{root}/.well-known/oauth-authorization-server{path}"),
        format!("{root}/.well-known/openid-configuration{path}"),
        format!("{root}{path}/.well-known/openid-configuration"),
    ]
}

/// The metadata of the authorization server `issuer`. Its `issuer` must be exactly the one asked
/// for; a server without S256 PKCE is not used. `legacy` allows the 2025-03-26 default endpoints
/// when there is no metadata at all.
pub async fn server(http: &OAuthHttp, issuer: &str, legacy: bool) -> Result<ServerMetadata, AuthError> {
    let step = "authorization server metadata";
    let parsed = url::Url::parse(issuer)
        .map_err(|_| AuthError::Discovery(format!("the authorization server {issuer:?} is not a URL")))?;
    http.check("authorization server", issuer)?;
    let urls = server_metadata_urls(&parsed);
    // Each URL tried and why it gave nothing, for the message when none does.
    let mut tried = Vec::new();
    for url in &urls {
        let answer = match http.get(step, url, &[]).await {
            Ok(answer) if answer.ok() => answer,
            Ok(answer) => {
                tried.push(format!("{}: HTTP {}", crate::redact::oauth_url(url), answer.status));
                continue;
            }
            Err(AuthError::Unreachable { reason, .. }) => {
                tried.push(format!("{}: {reason}", crate::redact::oauth_url(url)));
                continue;
            }
            Err(e) => return Err(e),
        };
        let value = answer.json(step, url)?;
        let metadata = read_server_metadata(&value);
        if metadata.issuer != issuer {
            return Err(AuthError::Discovery(format!(
                "the metadata at {} names the issuer {:?}, not {issuer:?}; it is not used",
                crate::redact::oauth_url(url),
                crate::text::visible(&metadata.issuer)
            )));
        }
        check_usable(&metadata, url)?;
        // Refused now, before a client is registered or the browser opened: the person is not
        // asked to sign in for a code that would then go over plain http.
        http.check("authorization endpoint", &metadata.authorization_endpoint)?;
        http.check("token endpoint", &metadata.token_endpoint)?;
        http.log.push(
            StepKind::Found,
            format!(
                "{step}: issuer {}, authorize {}, token {}, registration {}, scopes {}",
                metadata.issuer,
                metadata.authorization_endpoint,
                metadata.token_endpoint,
                metadata.registration_endpoint.as_deref().unwrap_or("(none)"),
                list_or_none(&metadata.scopes_supported)
            ),
        );
        return Ok(metadata);
    }
    if legacy {
        let root = origin(&parsed);
        http.log.push(StepKind::Skipped, format!("{step}: none found; using {root}/authorize, /token and /register"));
        return Ok(ServerMetadata {
            issuer: issuer.to_string(),
            authorization_endpoint: format!("{root}/authorize"),
            token_endpoint: format!("{root}/token"),
            registration_endpoint: Some(format!("{root}/register")),
            code_challenge_methods: vec!["S256".into()],
            ..ServerMetadata::default()
        });
    }
    Err(AuthError::NoServerMetadata { tried: tried.join("; ") })
}

fn read_server_metadata(value: &Value) -> ServerMetadata {
    let flag = |name: &str| value.get(name).and_then(Value::as_bool).unwrap_or(false);
    ServerMetadata {
        issuer: string(value, "issuer").unwrap_or_default(),
        authorization_endpoint: string(value, "authorization_endpoint").unwrap_or_default(),
        token_endpoint: string(value, "token_endpoint").unwrap_or_default(),
        registration_endpoint: string(value, "registration_endpoint"),
        scopes_supported: strings(value, "scopes_supported"),
        code_challenge_methods: strings(value, "code_challenge_methods_supported"),
        token_auth_methods: strings(value, "token_endpoint_auth_methods_supported"),
        client_id_metadata_documents: flag("client_id_metadata_document_supported"),
        iss_parameter_supported: flag("authorization_response_iss_parameter_supported"),
    }
}

fn check_usable(metadata: &ServerMetadata, url: &str) -> Result<(), AuthError> {
    let bad = |reason: &str| AuthError::BadAnswer {
        step: "authorization server metadata",
        url: crate::redact::oauth_url(url),
        reason: reason.to_string(),
    };
    if metadata.authorization_endpoint.is_empty() || metadata.token_endpoint.is_empty() {
        return Err(bad("it names no authorization_endpoint or token_endpoint"));
    }
    if !metadata.code_challenge_methods.iter().any(|m| m == "S256") {
        return Err(bad("code_challenge_methods_supported does not list S256, so PKCE cannot protect the sign-in"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).unwrap()
    }

    #[test]
    fn probe_orders() {
        let challenge = Challenge { resource_metadata: Some("http://h/prm".into()), ..Challenge::default() };
        assert_eq!(
            resource_metadata_urls(&url("http://h:1/a/mcp"), &challenge),
            [
                "http://h/prm",
                "http://h:1/.well-known/oauth-protected-resource/a/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls(&url("http://h/"), &Challenge::default()),
            ["http://h/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            server_metadata_urls(&url("https://as/tenant1")),
            [
                "https://as/.well-known/oauth-authorization-server/tenant1",
                "https://as/.well-known/openid-configuration/tenant1",
                "https://as/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(server_metadata_urls(&url("https://as")).len(), 2);
    }

    #[test]
    fn the_resource_must_name_this_server() {
        let server = url("http://127.0.0.1:5/mcp");
        assert!(check_resource(&server, Some("http://127.0.0.1:5/mcp")).is_ok());
        assert!(check_resource(&server, Some("http://127.0.0.1:5/")).is_ok());
        assert!(check_resource(&server, None).is_ok());
        assert!(check_resource(&server, Some("http://127.0.0.1:5/other")).is_err());
        assert!(check_resource(&server, Some("https://evil.example.com/mcp")).is_err());
        assert!(check_resource(&server, Some("http://127.0.0.1:5/mc")).is_err(), "a path prefix is not enough");
    }

    #[test]
    fn metadata_without_s256_is_refused() {
        let value = serde_json::json!({"issuer": "x", "authorization_endpoint": "a", "token_endpoint": "t"});
        assert!(check_usable(&read_server_metadata(&value), "u").unwrap_err().to_string().contains("S256"));
    }
}
