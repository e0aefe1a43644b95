//! An OAuth authorization server written with axum (metadata, dynamic registration, an authorize
//! endpoint that redirects at once, a token endpoint that checks PKCE and the resource, refresh)
//! in front of an rmcp server that wants a bearer token and `tools:write` for a call (`403
//! insufficient_scope` otherwise). Shared by `tests/oauth.rs` and the PTY test.

// Each test binary uses a part of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use sha2::Digest;

#[derive(Default)]
pub struct Seen {
    pub registrations: usize,
    /// The scope of each authorization request.
    pub authorizations: Vec<String>,
    pub resources: Vec<String>,
    pub refreshes: usize,
    /// token → scopes
    pub tokens: HashMap<String, Vec<String>>,
    /// code → (PKCE challenge, scopes)
    pub codes: HashMap<String, (String, Vec<String>)>,
    pub next: usize,
}

#[derive(Clone)]
pub struct Auth {
    pub base: String,
    pub seen: Arc<Mutex<Seen>>,
    /// `expires_in` of the tokens given.
    pub expires_in: u64,
    /// The issuer the metadata names (a wrong one for the bad-input test).
    pub issuer: Option<String>,
}

async fn resource_metadata(State(auth): State<Auth>) -> Json<Value> {
    Json(json!({
        "resource": format!("{}/mcp", auth.base),
        "authorization_servers": [auth.base],
        "scopes_supported": ["tools:read", "tools:write"],
    }))
}

async fn server_metadata(State(auth): State<Auth>) -> Json<Value> {
    let base = &auth.base;
    Json(json!({
        "issuer": auth.issuer.clone().unwrap_or_else(|| base.clone()),
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": ["tools:read", "tools:write", "offline_access"],
        "token_endpoint_auth_methods_supported": ["none"],
    }))
}

async fn register(State(auth): State<Auth>, Json(body): Json<Value>) -> Response {
    assert_eq!(body["grant_types"], json!(["authorization_code", "refresh_token"]));
    assert_eq!(body["application_type"], "native");
    auth.seen.lock().unwrap().registrations += 1;
    (StatusCode::CREATED, Json(json!({"client_id": "tooldeck-test-client", "token_endpoint_auth_method": "none"})))
        .into_response()
}

/// Redirects at once, as a person who is already signed in and consents would.
async fn authorize(State(auth): State<Auth>, Query(query): Query<HashMap<String, String>>) -> Response {
    assert_eq!(query.get("code_challenge_method").map(String::as_str), Some("S256"));
    assert!(query["redirect_uri"].starts_with("http://127.0.0.1:"), "{query:?}");
    let scope = query.get("scope").cloned().unwrap_or_default();
    let mut seen = auth.seen.lock().unwrap();
    seen.authorizations.push(scope.clone());
    seen.resources.push(query.get("resource").cloned().unwrap_or_default());
    seen.next += 1;
    let code = format!("code-{}", seen.next);
    let scopes = scope.split_whitespace().map(str::to_string).collect();
    seen.codes.insert(code.clone(), (query["code_challenge"].clone(), scopes));
    Redirect::to(&format!("{}?code={code}&state={}", query["redirect_uri"], query["state"])).into_response()
}

async fn token(State(auth): State<Auth>, Form(form): Form<HashMap<String, String>>) -> Response {
    let mut seen = auth.seen.lock().unwrap();
    let refused =
        |what: &str| (StatusCode::BAD_REQUEST, Json(json!({"error": "invalid_grant", "error_description": what})));
    assert_eq!(form.get("resource"), Some(&format!("{}/mcp", auth.base)), "RFC 8707 resource on every token request");
    let scopes = match form.get("grant_type").map(String::as_str) {
        Some("authorization_code") => {
            let Some((challenge, scopes)) = seen.codes.remove(&form["code"]) else {
                return refused("unknown code").into_response();
            };
            let verifier = form.get("code_verifier").cloned().unwrap_or_default();
            let computed =
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
            if computed != challenge {
                return refused("PKCE verifier does not match").into_response();
            }
            scopes
        }
        Some("refresh_token") if form.get("refresh_token").is_some_and(|r| r.starts_with("refresh-")) => {
            seen.refreshes += 1;
            vec!["tools:read".to_string(), "tools:write".to_string()]
        }
        _ => return refused("unsupported grant").into_response(),
    };
    seen.next += 1;
    let access = format!("token-{}", seen.next);
    seen.tokens.insert(access.clone(), scopes.clone());
    Json(json!({
        "access_token": access, "token_type": "Bearer", "expires_in": auth.expires_in,
        "refresh_token": format!("refresh-{}", seen.next), "scope": scopes.join(" "),
    }))
    .into_response()
}

/// The MCP server's guard: a known token, and `tools:write` for a call.
async fn guard(State(auth): State<Auth>, request: Request, next: Next) -> Response {
    let challenge = |error: &str, scope: &str| {
        format!(
            r#"Bearer error="{error}", scope="{scope}", resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
            auth.base
        )
    };
    let given =
        request.headers().get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    let scopes = given.and_then(|t| auth.seen.lock().unwrap().tokens.get(t).cloned());
    let Some(scopes) = scopes else {
        let header = challenge("invalid_token", "tools:read");
        return (StatusCode::UNAUTHORIZED, [("www-authenticate", header)], "sign in first").into_response();
    };
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap_or_default();
    let calls = String::from_utf8_lossy(&bytes).contains("\"tools/call\"");
    if calls && !scopes.iter().any(|s| s == "tools:write") {
        let header = challenge("insufficient_scope", "tools:write");
        return (StatusCode::FORBIDDEN, [("www-authenticate", header)], "more scope needed").into_response();
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

#[derive(Clone, Default)]
struct Adder;

impl ServerHandler for Adder {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}});
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "add",
            "Adds",
            Arc::new(schema.as_object().cloned().unwrap()),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let number = |key: &str| arguments.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        Ok(CallToolResult::structured(json!({"sum": number("a") + number("b")})).into())
    }
}

/// The authorization server and the MCP server on one ephemeral port: `(base URL, state)`.
pub async fn start(expires_in: u64, issuer: Option<&str>) -> (String, Auth) {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let auth = Auth { base: base.clone(), seen: Arc::default(), expires_in, issuer: issuer.map(str::to_string) };
    let mcp = StreamableHttpService::new(
        || Ok(Adder),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let guarded =
        Router::new().nest_service("/mcp", mcp).layer(axum::middleware::from_fn_with_state(auth.clone(), guard));
    let router = Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(resource_metadata))
        .route("/.well-known/oauth-authorization-server", get(server_metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(auth.clone())
        .merge(guarded);
    tokio::spawn(async move { axum::serve(listener, router).await });
    (base, auth)
}

/// A stand-in for a browser (`$BROWSER`): follows the authorization URL's redirects with curl,
/// back to tooldeck's loopback listener. Written into `dir`.
pub fn browser_script(dir: &std::path::Path) -> std::path::PathBuf {
    let browser = dir.join("browser.sh");
    if !browser.exists() {
        std::fs::write(&browser, "#!/bin/sh\nexec curl -s -L --max-redirs 5 -o /dev/null \"$1\"\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    browser
}

pub fn curl_available() -> bool {
    std::process::Command::new("curl").arg("--version").output().is_ok_and(|o| o.status.success())
}
