//! Signing in to an MCP server over HTTP end to end, with no Node: an OAuth authorization server
//! written with axum (metadata, dynamic registration, an authorize endpoint that redirects at once,
//! a token endpoint that checks PKCE and the resource, refresh) in front of an rmcp server that
//! wants a bearer token, and a tool that needs a scope the first sign-in does not ask for
//! (`403 insufficient_scope`). `$BROWSER` is a script that follows the redirect with curl.

#[path = "support/oauth_server.rs"]
mod oauth_server;

use oauth_server::start;
use serde_json::{Value, json};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs tooldeck with its own token store and a `$BROWSER` that follows the redirect.
async fn tooldeck(dir: &std::path::Path, args: &[&str]) -> Run {
    let browser = oauth_server::browser_script(dir);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (tokens, history) = (dir.join("state/tokens.json"), dir.join("history.jsonl"));
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(args)
            .env("TOOLDECK_TOKENS", tokens)
            .env("TOOLDECK_HISTORY", history)
            .env("BROWSER", browser)
            .output()
            .expect("tooldeck runs")
    })
    .await
    .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

use oauth_server::curl_available;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_step_up_keep_and_refresh() {
    if !curl_available() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let (base, auth) = start(3600, None).await;
    let url = format!("{base}/mcp");
    let dir = tempfile::tempdir().unwrap();

    // No token kept and no --login: exit 4, naming the command that signs in.
    let run = tooldeck(dir.path(), &["list", "--mcp-url", &url]).await;
    assert_eq!(run.code, Some(4), "{}", run.stderr);
    assert!(run.stderr.contains("tooldeck auth login --mcp-url"), "{}", run.stderr);

    // --login: discovery, registration, the browser, the token; then the call needs
    // tools:write, so a step-up asks for the union of the scopes.
    let run =
        tooldeck(dir.path(), &["call", "add", "--mcp-url", &url, "--login", "--arg", "a=1", "--arg", "b=2"]).await;
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let printed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(printed["value"], json!({"sum": 3.0}));
    {
        let seen = auth.seen.lock().unwrap();
        assert_eq!(seen.authorizations, ["tools:read offline_access", "tools:read tools:write offline_access"]);
        assert!(seen.resources.iter().all(|r| *r == url), "{:?}", seen.resources);
        assert!(seen.registrations >= 1);
    }
    assert!(run.stderr.contains("step-up"), "each step is shown: {}", run.stderr);
    assert!(!run.stderr.contains("token-"), "no token is printed: {}", run.stderr);

    // The token kept (privately) is used without asking.
    let store = dir.path().join("state/tokens.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let run = tooldeck(dir.path(), &["call", "add", "--mcp-url", &url, "--arg", "a=2", "--arg", "b=2"]).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(auth.seen.lock().unwrap().authorizations.len(), 2, "no new sign-in");
    let history = std::fs::read_to_string(dir.path().join("history.jsonl")).unwrap_or_default();
    assert!(!history.contains("token-"), "history holds no token: {history}");

    // The server forgets its tokens: the refresh token is used silently, no browser.
    auth.seen.lock().unwrap().tokens.clear();
    let run = tooldeck(dir.path(), &["list", "--mcp-url", &url]).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(auth.seen.lock().unwrap().refreshes, 1);
    assert_eq!(auth.seen.lock().unwrap().authorizations.len(), 2);

    let status = tooldeck(dir.path(), &["auth", "status", "--mcp-url", &url]).await;
    assert!(status.stdout.contains("tooldeck-test-client") && status.stdout.contains("••••"), "{}", status.stdout);
    assert!(!status.stdout.contains("token-"), "{}", status.stdout);
    let out = tooldeck(dir.path(), &["auth", "logout", "--mcp-url", &url]).await;
    assert!(out.stdout.contains("signed out"), "{}", out.stdout);
    let run = tooldeck(dir.path(), &["list", "--mcp-url", &url]).await;
    assert_eq!(run.code, Some(4), "signed out: {}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_tokens_are_refreshed_before_use_and_auth_login_signs_in() {
    if !curl_available() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let (base, auth) = start(0, None).await;
    let url = format!("{base}/mcp");
    let dir = tempfile::tempdir().unwrap();
    let run = tooldeck(dir.path(), &["auth", "login", "--mcp-url", &url]).await;
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("signed in to"), "{}", run.stdout);
    let run = tooldeck(dir.path(), &["list", "--mcp-url", &url]).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(auth.seen.lock().unwrap().refreshes >= 1, "an expired token is refreshed first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_with_a_wrong_issuer_is_refused_in_words() {
    let (base, auth) = start(3600, Some("https://attacker.example.com")).await;
    let url = format!("{base}/mcp");
    let dir = tempfile::tempdir().unwrap();
    let run = tooldeck(dir.path(), &["list", "--mcp-url", &url, "--login"]).await;
    assert_eq!(run.code, Some(4), "{}", run.stderr);
    assert!(run.stderr.contains("names the issuer"), "{}", run.stderr);
    assert!(run.stderr.contains("attacker.example.com"), "{}", run.stderr);
    assert_eq!(auth.seen.lock().unwrap().registrations, 0, "nothing is sent to the poisoned endpoints");
}

/// The test's browser: follows the authorization URL's redirects with curl, as `$BROWSER` does
/// for the binary.
fn follow_redirects(url: &str) -> std::io::Result<()> {
    let status =
        std::process::Command::new("curl").args(["-s", "-L", "--max-redirs", "5", "-o", "/dev/null", url]).status()?;
    if status.success() { Ok(()) } else { Err(std::io::Error::other(format!("curl ended with {status}"))) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_oauth_request_is_in_the_traffic_log_with_no_secret() {
    use tooldeck::invoke::auth::{AuthLog, Authorizer, OAuthOptions, TokenStore};
    use tooldeck::invoke::mcp::http::McpHttpEndpoint;
    use tooldeck::invoke::otc::CallRequest;
    if !curl_available() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let (base, auth) = start(3600, None).await;
    let url = format!("{base}/mcp");
    let options = OAuthOptions { login: true, ..OAuthOptions::default() };
    let authorizer = Authorizer::new(options, AuthLog::default(), TokenStore::memory()).with_opener(follow_redirects);
    let setup = tooldeck::invoke::mcp::asks::ClientSetup::default();
    let timeout = std::time::Duration::from_secs(20);
    let endpoint = McpHttpEndpoint::connect_signing_in(&url, Vec::new(), timeout, setup, Some(authorizer.into()))
        .await
        .expect("signs in");
    // A call that needs tools:write steps up; then the server forgets its tokens, so the next
    // request refreshes.
    let (outcome, _) =
        endpoint.call_with_progress(&CallRequest::new("add", json!({"a": 1, "b": 2})), |_| {}).await.unwrap();
    assert!(format!("{outcome:?}").contains("3"), "{outcome:?}");
    auth.seen.lock().unwrap().tokens.clear();
    endpoint.list_tools().await.expect("lists after a refresh");
    assert_eq!(auth.seen.lock().unwrap().refreshes, 1);

    let (entries, _) = endpoint.events().traffic().since(0);
    let oauth: Vec<_> =
        entries.iter().filter(|e| e.method.as_deref().is_some_and(|m| m.starts_with("OAuth "))).collect();
    let summaries: Vec<String> = oauth.iter().map(|e| e.summary()).collect();
    let has = |what: &str| summaries.iter().filter(|s| s.contains(what)).count();
    assert!(has("protected resource metadata: GET") >= 2, "{summaries:#?}");
    assert!(has("authorization server metadata: GET") >= 2, "{summaries:#?}");
    assert!(has("dynamic registration: POST") >= 1, "{summaries:#?}");
    assert_eq!(has("OAuth authorization (browser): GET"), 2, "the sign-in and the step-up: {summaries:#?}");
    assert_eq!(has("OAuth token: POST"), 2, "{summaries:#?}");
    assert_eq!(has("OAuth refresh: POST"), 1, "{summaries:#?}");
    assert!(summaries.iter().all(|s| s.contains(&base)), "each names its URL: {summaries:#?}");
    assert!(summaries.iter().any(|s| s.contains("HTTP 200")), "{summaries:#?}");
    // What each request carried and what came back, bodies included, its secrets masked.
    let token = oauth.iter().find(|e| e.summary().contains("OAuth token")).unwrap();
    for shown in
        ["grant_type=authorization_code", "code=••••", "code_verifier=••••", "HTTP 200", "\"access_token\": \"••••"]
    {
        assert!(token.text.contains(shown), "{shown} in\n{}", token.text);
    }
    let redirect = oauth.iter().find(|e| e.summary().contains("OAuth authorization (browser): GET")).unwrap();
    assert!(redirect.text.contains("/callback?code=••••"), "{}", redirect.text);
    let metadata = oauth.iter().find(|e| e.summary().contains("authorization server metadata")).unwrap();
    assert!(metadata.text.contains(&format!("\"token_endpoint\": \"{base}/token\"")), "{}", metadata.text);
    // No token, refresh token, code or bearer header anywhere in the log.
    for entry in &entries {
        let shown = format!("{}\n{}\n{:?}", entry.summary(), entry.shown_text(), entry.http);
        for secret in ["token-", "refresh-", "code-", "Bearer t"] {
            assert!(!shown.contains(secret), "{secret} in\n{shown}");
        }
    }
}
