//! The bad input for signing in, against a small axum authorization server broken one
//! way at a time: each ends with a message naming the step and the URL, nothing hangs, no
//! secret is shown, and signing in again works once the server is mended.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use tooldeck::invoke::auth::{AuthLog, Authorizer, OAuthOptions, TokenStore};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Broken {
    Nothing,
    TokenHtml,
    TokenError,
    WrongState,
    RegistrationRefused,
    NeverAnswers,
}

#[derive(Clone)]
struct Server {
    base: String,
    broken: Arc<Mutex<Broken>>,
}

impl Server {
    fn broken(&self) -> Broken {
        *self.broken.lock().unwrap()
    }
}

async fn resource(State(s): State<Server>) -> Json<serde_json::Value> {
    Json(json!({"resource": format!("{}/mcp", s.base), "authorization_servers": [s.base]}))
}

async fn metadata(State(s): State<Server>) -> Response {
    if s.broken() == Broken::NeverAnswers {
        tokio::time::sleep(Duration::from_secs(60)).await;
    }
    let base = &s.base;
    Json(json!({
        "issuer": base, "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"), "registration_endpoint": format!("{base}/register"),
        "code_challenge_methods_supported": ["S256"],
    }))
    .into_response()
}

async fn register(State(s): State<Server>) -> Response {
    if s.broken() == Broken::RegistrationRefused {
        let refusal =
            json!({"error": "invalid_client_metadata", "error_description": "loopback redirects are not allowed"});
        return (StatusCode::BAD_REQUEST, Json(refusal)).into_response();
    }
    (StatusCode::CREATED, Json(json!({"client_id": "c1", "client_secret": "client-secret-1"}))).into_response()
}

async fn authorize(State(s): State<Server>, Query(q): Query<HashMap<String, String>>) -> Response {
    let state = if s.broken() == Broken::WrongState { "forged".to_string() } else { q["state"].clone() };
    Redirect::to(&format!("{}?code=code-1&state={state}", q["redirect_uri"])).into_response()
}

async fn token(State(s): State<Server>) -> Response {
    match s.broken() {
        Broken::TokenHtml => (StatusCode::OK, [("content-type", "text/html")], "<html>Sign in</html>").into_response(),
        Broken::TokenError => {
            let refusal = json!({"error": "invalid_grant", "error_description": "the code expired"});
            (StatusCode::BAD_REQUEST, Json(refusal)).into_response()
        }
        _ => Json(json!({"access_token": "token-1", "token_type": "Bearer", "expires_in": 60})).into_response(),
    }
}

async fn start(broken: Broken) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server =
        Server { base: format!("http://{}", listener.local_addr().unwrap()), broken: Arc::new(Mutex::new(broken)) };
    let router = Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(resource))
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(server.clone());
    tokio::spawn(async move { axum::serve(listener, router).await });
    server
}

fn follow_redirects(url: &str) -> std::io::Result<()> {
    std::process::Command::new("curl").args(["-s", "-L", "--max-redirs", "5", "-o", "/dev/null", url]).status()?;
    Ok(())
}

/// Signs in to the broken server: the error's text, then (mended) a sign-in that works.
async fn sign_in_fails(broken: Broken, challenge: Option<&str>) -> (String, Server, AuthLog) {
    let server = start(broken).await;
    let log = AuthLog::default();
    let authorizer =
        Authorizer::new(OAuthOptions { login: true, ..OAuthOptions::default() }, log.clone(), TokenStore::memory())
            .with_opener(follow_redirects)
            .with_request_timeout(Duration::from_millis(500))
            .with_redirect_timeout(Duration::from_secs(10));
    let url = format!("{}/mcp", server.base);
    let started = std::time::Instant::now();
    let error = authorizer.sign_in(&url, challenge).await.expect_err("the sign-in fails").to_string();
    assert!(started.elapsed() < Duration::from_secs(10), "{broken:?} took {:?}", started.elapsed());
    *server.broken.lock().unwrap() = Broken::Nothing;
    assert!(authorizer.sign_in(&url, challenge).await.is_ok(), "{broken:?}: a retry works once mended");
    for step in log.steps() {
        for secret in ["token-1", "code-1", "client-secret-1"] {
            assert!(!step.text.contains(secret), "{secret} shown: {}", step.text);
        }
    }
    assert!(!error.contains("client-secret-1") && !error.contains("code-1"), "{error}");
    (error, server, log)
}

fn curl() -> bool {
    std::process::Command::new("curl").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_endpoint_answering_html_or_an_error_is_named() {
    if !curl() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let (error, server, _) = sign_in_fails(Broken::TokenHtml, None).await;
    assert!(error.starts_with("token:") && error.contains(&format!("{}/token", server.base)), "{error}");
    assert!(error.contains("not JSON") && error.contains("text/html"), "{error}");
    let (error, server, _) = sign_in_fails(Broken::TokenError, None).await;
    assert!(error.starts_with("token:") && error.contains(&format!("{}/token", server.base)), "{error}");
    assert!(error.contains("HTTP 400") && error.contains("invalid_grant: the code expired"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_with_another_state_is_refused() {
    if !curl() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let (error, _, log) = sign_in_fails(Broken::WrongState, None).await;
    assert!(error.starts_with("authorization:") && error.contains("another state"), "{error}");
    let steps: Vec<String> = log.steps().into_iter().map(|s| s.text).collect();
    assert!(steps.iter().any(|s| s.starts_with("authorize: http://127.0.0.1:")), "the URL is named: {steps:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_registration_is_named() {
    let (error, server, _) = sign_in_fails(Broken::RegistrationRefused, None).await;
    assert!(error.contains("registration") && error.contains(&format!("{}/register", server.base)), "{error}");
    assert!(error.contains("invalid_client_metadata"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_server_that_never_answers_times_out() {
    let (error, server, _) = sign_in_fails(Broken::NeverAnswers, None).await;
    assert!(error.contains("authorization server metadata"), "{error}");
    assert!(error.contains(&server.base) && error.contains("no answer within 0.5 s"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_www_authenticate_that_does_not_parse_falls_back_to_the_well_known_urls() {
    if !curl() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let server = start(Broken::Nothing).await;
    let log = AuthLog::default();
    let authorizer =
        Authorizer::new(OAuthOptions { login: true, ..OAuthOptions::default() }, log.clone(), TokenStore::memory())
            .with_opener(follow_redirects);
    let url = format!("{}/mcp", server.base);
    let token = authorizer.sign_in(&url, Some("Bearer resource_metadata=\"unterminated, ,,= scope")).await;
    assert_eq!(token.expect("signs in by the well-known URL"), "token-1");
    let steps: Vec<String> = log.steps().into_iter().map(|s| s.text).collect();
    assert!(steps.iter().any(|s| s.contains("/.well-known/oauth-protected-resource/mcp")), "{steps:#?}");
}
