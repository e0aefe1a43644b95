//! Signing in from the app: the MCP server answers 401, the prompt left empty signs in (OAuth),
//! `$BROWSER` (a script that follows the redirect) completes the flow, the auth pane shows the
//! steps and the server's tools are listed with the new token.

use super::oauth_server::{browser_script, curl_available, start};
use super::*;

#[test]
fn the_401_prompt_signs_in_in_the_browser() {
    if !curl_available() {
        eprintln!("skipped: the browser stand-in needs curl");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base, auth) = runtime.block_on(start(3600, None));
    let url = format!("{base}/mcp");
    let dir = tempfile::tempdir().expect("temp dir");
    let browser = browser_script(dir.path());
    let tokens = dir.path().join("tokens.json");
    let envs: [(&str, &OsStr); 2] = [("BROWSER", browser.as_os_str()), ("TOOLDECK_TOKENS", tokens.as_os_str())];
    let mut tui = Tui::spawn_env(&["--mcp-url", url.as_str()], true, &envs);
    tui.wait_text("leave it empty to sign in");
    tui.send(ENTER);
    let screen = tui.wait_for("the sign-in to end", Duration::from_secs(30), |text| text.contains("signed in to"));
    assert!(screen.contains("authorization server metadata"), "each step is shown:\n{screen}");
    assert!(!screen.contains("token-"), "no token on screen:\n{screen}");
    assert_eq!(auth.seen.lock().unwrap().authorizations.len(), 1);
    assert!(tokens.exists(), "the token is kept");
    // Closing the pane shows the server's tool, listed with the token.
    tui.send("\x1b");
    tui.wait_for("the server's tool", Duration::from_secs(20), |text| text.contains("Adds"));
    quit_restored(&mut tui, CTRL_C);
}
