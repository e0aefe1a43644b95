//! Issue 33, items 1–3, against hostile authorization servers on 127.0.0.1: a sign-in never
//! sends anything over plain http to another host (the MCP server is loopback http, so a
//! metadata naming `http://example.com/…` reproduces the downgrade without TLS; a counting
//! proxy stands where example.com would be, so a request that went out is seen), a URL that is
//! no web link never reaches `$BROWSER`, and a token answer that fails to parse is never quoted.

use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use tooldeck::invoke::auth::{AuthLog, Authorizer, OAuthOptions, TokenStore};

const ACCESS: &str = "at-SECRET-1111";
const REFRESH: &str = "rt-SECRET-2222";

/// What the hostile server names and answers; `None` is its own loopback endpoint.
#[derive(Clone, Default)]
struct Hostile {
    authorization_server: Option<String>,
    authorization_endpoint: Option<String>,
    token_endpoint: Option<String>,
    registration_endpoint: Option<String>,
    /// The token endpoint's status, content type and body.
    token_answer: Option<(u16, &'static str, String)>,
    /// The `resource_metadata` of the MCP server's 401 challenge.
    challenge_metadata: Option<String>,
}

#[derive(Clone)]
struct Server {
    base: String,
    hostile: Hostile,
}

async fn resource(State(s): State<Server>) -> Json<serde_json::Value> {
    let issuer = s.hostile.authorization_server.clone().unwrap_or_else(|| s.base.clone());
    Json(json!({"resource": format!("{}/mcp", s.base), "authorization_servers": [issuer]}))
}

async fn metadata(State(s): State<Server>) -> Json<serde_json::Value> {
    let (base, h) = (&s.base, &s.hostile);
    Json(json!({
        "issuer": base,
        "authorization_endpoint": h.authorization_endpoint.clone().unwrap_or(format!("{base}/authorize")),
        "token_endpoint": h.token_endpoint.clone().unwrap_or(format!("{base}/token")),
        "registration_endpoint": h.registration_endpoint.clone().unwrap_or(format!("{base}/register")),
        "code_challenge_methods_supported": ["S256"],
    }))
}

async fn mcp(State(s): State<Server>) -> Response {
    let at = s.hostile.challenge_metadata.clone().unwrap_or_default();
    (StatusCode::UNAUTHORIZED, [("www-authenticate", format!(r#"Bearer resource_metadata="{at}""#))]).into_response()
}

async fn register() -> Response {
    (StatusCode::CREATED, Json(json!({"client_id": "c1", "token_endpoint_auth_method": "none"}))).into_response()
}

async fn authorize(Query(q): Query<HashMap<String, String>>) -> Response {
    Redirect::to(&format!("{}?code=code-1&state={}", q["redirect_uri"], q["state"])).into_response()
}

async fn token(State(s): State<Server>) -> Response {
    let (status, kind, body) = s.hostile.token_answer.clone().unwrap_or((
        200,
        "application/json",
        json!({"access_token": ACCESS, "token_type": "Bearer"}).to_string(),
    ));
    (StatusCode::from_u16(status).unwrap(), [("content-type", kind)], body).into_response()
}

/// The hostile authorization server (and the MCP server's metadata) on 127.0.0.1; its base URL.
async fn start(hostile: Hostile) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(resource))
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/mcp", get(mcp).post(mcp))
        .with_state(Server { base: base.clone(), hostile });
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

/// A proxy that answers nothing but counts: every plain-http request to another host goes
/// through it (`http_proxy`), so what would have reached example.com is seen here.
async fn counting_proxy() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    let router = Router::new().fallback(move |request: Request| {
        let log = log.clone();
        async move {
            log.lock().unwrap().push(format!("{} {}", request.method(), request.uri()));
            StatusCode::BAD_GATEWAY
        }
    });
    tokio::spawn(async move { axum::serve(listener, router).await });
    (address, seen)
}

/// A `$BROWSER` that writes down each URL it is given, then follows it with curl when there is
/// one (so a flow that should have stopped goes on to its end and is seen).
fn recording_browser(dir: &Path) -> (PathBuf, PathBuf) {
    let record = dir.join("opened.txt");
    let script = dir.join("browser.sh");
    let text = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\ncommand -v curl >/dev/null && exec curl -s -L --max-redirs 5 -o /dev/null \"$1\"\nexit 0\n",
        record.display()
    );
    std::fs::write(&script, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (script, record)
}

struct Run {
    code: Option<i32>,
    stderr: String,
    /// What `$BROWSER` was given, one URL a line.
    opened: String,
}

/// `tooldeck auth login` for the server at `base`, with its own token store, the recording
/// browser and every plain-http request to another host sent to `proxy`. A run still going after
/// a minute (the redirect wait is five) is killed and fails the test: the login must end at once.
async fn login(base: &str, proxy: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let (browser, record) = recording_browser(dir.path());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"));
    command
        .args(["auth", "login", "--mcp-url", &format!("{base}/mcp")])
        .env("TOOLDECK_TOKENS", dir.path().join("tokens.json"))
        .env("TOOLDECK_HISTORY", dir.path().join("history.jsonl"))
        .env("BROWSER", browser)
        .env("http_proxy", proxy)
        .env("HTTP_PROXY", proxy)
        .env("no_proxy", "127.0.0.1,localhost")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("https_proxy")
        .env_remove("HTTPS_PROXY")
        .env_remove("all_proxy")
        .env_remove("ALL_PROXY")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().expect("tooldeck runs");
        let started = Instant::now();
        while child.try_wait().expect("waits").is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("auth login was still waiting after a minute");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().expect("its output")
    })
    .await
    .unwrap();
    Run {
        code: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        opened: std::fs::read_to_string(record).unwrap_or_default(),
    }
}

/// The refusal for `endpoint`: exit non-zero, the rule and the endpoint named, nothing sent to
/// it (the proxy saw nothing) and no browser opened.
async fn refused(hostile: Hostile, step: &str, endpoint: &str) {
    let base = start(hostile).await;
    let (proxy, seen) = counting_proxy().await;
    let run = login(&base, &proxy).await;
    assert!(seen.lock().unwrap().is_empty(), "sent over plain http: {:?}", seen.lock().unwrap());
    assert!(run.opened.is_empty(), "the browser was opened: {}", run.opened);
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    let line = run.stderr.lines().find(|l| l.contains("refused before anything was sent")).unwrap_or_default();
    assert!(line.contains(step) && line.contains(endpoint) && line.contains("https"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_http_token_endpoint_is_refused_before_anything_is_sent() {
    let endpoint = "http://example.com/token";
    refused(Hostile { token_endpoint: Some(endpoint.into()), ..Hostile::default() }, "token endpoint", endpoint).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_http_registration_endpoint_is_refused_before_anything_is_sent() {
    let endpoint = "http://example.com/register";
    let hostile = Hostile { registration_endpoint: Some(endpoint.into()), ..Hostile::default() };
    refused(hostile, "registration", endpoint).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_http_authorization_server_is_refused_before_anything_is_sent() {
    let issuer = "http://example.com";
    let hostile = Hostile { authorization_server: Some(issuer.into()), ..Hostile::default() };
    refused(hostile, "authorization server", issuer).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_endpoint_that_is_no_web_link_never_reaches_the_browser() {
    for endpoint in ["javascript:alert(document.cookie)", "file:///etc/passwd"] {
        let hostile = Hostile { authorization_endpoint: Some(endpoint.into()), ..Hostile::default() };
        refused(hostile, "authorization endpoint", endpoint).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_http_resource_metadata_in_the_challenge_is_not_asked() {
    if std::process::Command::new("curl").arg("--version").output().is_err() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let at = "http://example.com/.well-known/oauth-protected-resource";
    let base = start(Hostile { challenge_metadata: Some(at.into()), ..Hostile::default() }).await;
    let (proxy, seen) = counting_proxy().await;
    let run = login(&base, &proxy).await;
    assert!(seen.lock().unwrap().is_empty(), "sent over plain http: {:?}", seen.lock().unwrap());
    let line = run.stderr.lines().find(|l| l.contains("refused before anything was sent")).unwrap_or_default();
    assert!(line.contains("protected resource metadata") && line.contains(at), "{}", run.stderr);
    assert_eq!(run.code, Some(0), "the well-known URL on the server itself is used instead: {}", run.stderr);
}

/// A browser without curl: reads the authorization URL's `redirect_uri` and `state`, and sends
/// the redirect the authorization server would have, over a plain socket.
fn deliver_redirect(address: &str) -> std::io::Result<()> {
    let parsed = url::Url::parse(address).map_err(std::io::Error::other)?;
    let query: HashMap<String, String> = parsed.query_pairs().into_owned().collect();
    let back = url::Url::parse(&query["redirect_uri"]).map_err(std::io::Error::other)?;
    let state: String = url::form_urlencoded::byte_serialize(query["state"].as_bytes()).collect();
    let (host, port) = (back.host_str().unwrap_or("127.0.0.1"), back.port().unwrap_or(80));
    let mut socket = std::net::TcpStream::connect((host, port))?;
    // As a browser does: the listener answers only requests that name it by a loopback Host.
    write!(
        socket,
        "GET {}?code=code-1&state={state} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n",
        back.path()
    )?;
    socket.read_to_end(&mut Vec::new())?;
    Ok(())
}

/// Signs in to a server whose token endpoint gives `answer`: the error, and every step logged.
async fn token_answer_fails(answer: (u16, &'static str, String)) -> (String, Vec<String>) {
    let base = start(Hostile { token_answer: Some(answer), ..Hostile::default() }).await;
    let log = AuthLog::default();
    let authorizer =
        Authorizer::new(OAuthOptions { login: true, ..OAuthOptions::default() }, log.clone(), TokenStore::memory())
            .with_opener(deliver_redirect)
            .with_redirect_timeout(Duration::from_secs(20));
    let error = authorizer.sign_in(&format!("{base}/mcp"), None).await.expect_err("the sign-in fails");
    (error.to_string(), log.steps().into_iter().map(|s| s.text).collect())
}

fn assert_no_token(text: &str) {
    assert!(!text.contains(ACCESS) && !text.contains(REFRESH), "a token is shown: {text}");
    assert!(!text.contains("SECRET"), "part of a token is shown: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_answer_that_is_almost_json_is_never_quoted() {
    let almost = format!(r#"{{"access_token": "{ACCESS}", "refresh_token": "{REFRESH}", "token_type": "Bearer",}}"#);
    let (error, steps) = token_answer_fails((200, "application/json", almost.clone())).await;
    assert_no_token(&error);
    steps.iter().for_each(|s| assert_no_token(s));
    assert!(error.starts_with("token:") && error.contains("not JSON"), "{error}");
    assert!(error.contains("application/json") && error.contains(&format!("{} B", almost.len())), "{error}");
    // Refused with a body that is not JSON, or JSON without an OAuth error: neither quoted raw.
    let (error, _) = token_answer_fails((400, "text/plain", almost)).await;
    assert_no_token(&error);
    assert!(error.contains("HTTP 400") && error.contains("text/plain"), "{error}");
    let json = json!({"access_token": ACCESS, "refresh_token": REFRESH, "note": "kept"}).to_string();
    let (error, _) = token_answer_fails((500, "application/json", json)).await;
    assert_no_token(&error);
    assert!(error.contains("HTTP 500") && error.contains("kept"), "the rest is shown: {error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_login_prints_no_token_of_an_almost_json_answer() {
    if std::process::Command::new("curl").arg("--version").output().is_err() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let almost = format!(r#"{{"access_token": "{ACCESS}", "refresh_token": "{REFRESH}",}}"#);
    let base = start(Hostile { token_answer: Some((200, "application/json", almost)), ..Hostile::default() }).await;
    let (proxy, _) = counting_proxy().await;
    let run = login(&base, &proxy).await;
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("not JSON"), "{}", run.stderr);
    assert_no_token(&run.stderr);
}
