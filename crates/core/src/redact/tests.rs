use super::*;

#[test]
fn links_in_prose_are_masked_and_the_words_kept() {
    let said = text("Open https://auth.example.com/login?api_key=S3CRET&state=1 to go on,\tthen come back.");
    assert_eq!(said, "Open https://auth.example.com/login?api_key=••••&state=1 to go on,\tthen come back.");
    assert!(matches!(text("no link here: api_key=x"), Cow::Borrowed(_)), "prose without a URL is kept");
    assert_eq!(text("at http://u:pw@h/x\n"), "at http://u:••••@h/x\n");
}

#[test]
fn expanded_values_are_secrets_in_urls_commands_headers_and_prose() {
    assert!(matches!(text("before hunter2xyz"), Cow::Borrowed(_)), "nothing remembered, nothing masked");
    remember_expanded("SECRET", "hunter2xyz");
    remember_expanded("QUOTED", "it's-Q");
    remember_expanded("EMPTY", "");
    assert_eq!(url("http://h/mcp?k=hunter2xyz&page=2"), "http://h/mcp?k=••••&page=2");
    assert_eq!(url("http://h/hunter2xyz/mcp"), "http://h/••••/mcp");
    assert_eq!(command("srv --k hunter2xyz 'a hunter2xyz b'"), "srv --k •••• 'a •••• b'");
    assert_eq!(command("srv --q 'it'\"'\"'s-Q' -v"), "srv --q •••• -v");
    assert_eq!(header_value("X-Team", "Bearer hunter2xyz"), "Bearer ••••");
    assert_eq!(header_value("X-Team", "blue"), "blue");
    assert_eq!(
        expanded("cannot connect to http://h/?k=hunter2xyz: refused"),
        "cannot connect to http://h/?k=••••: refused"
    );
    assert_eq!(urls_in("see hunter2xyz"), "see ••••");
    let message = serde_json::json!({"note": "k=hunter2xyz", "n": 1});
    assert_eq!(json_message(&message), Some(serde_json::json!({"note": "k=••••", "n": 1})));
    // A case file names the variable again, so the case reaches the same server.
    let mut named = |name: &str, _: &str| format!("${{{name}}}");
    assert_eq!(url_with("http://h/mcp?k=hunter2xyz", &mut named), "http://h/mcp?k=${SECRET}");
    assert_eq!(command_with("srv --k hunter2xyz", &mut named), "srv --k \"${SECRET}\"");
}

#[test]
fn secret_headers_are_masked_and_learnt() {
    assert_eq!(header_value("X-Api-Key", "abc"), MASK);
    assert_eq!(header_value("Accept", "text/plain"), "text/plain");
    assert_eq!(header_value("Mcp-Session-Id", "5f2c-77aa-90"), "5f2c-77aa-90");
    assert_eq!(header_value("Authorization", "Bearer learnt-0n-the-wire"), MASK);
    assert_eq!(text("the server said learnt-0n-the-wire back"), "the server said •••• back");
    assert_eq!(header_value("Authorization", MASK), MASK, "no mask of a mask");
}

#[test]
fn urls_lose_passwords_and_secret_parameters() {
    assert_eq!(url("http://user:PW@host:8080/mcp"), "http://user:••••@host:8080/mcp");
    assert_eq!(url("https://TOKEN@host/x"), "https://••••@host/x");
    assert_eq!(url("http://h/mcp?api_key=S&page=2#top"), "http://h/mcp?api_key=••••&page=2#top");
    assert_eq!(url("http://h/mcp?q=1"), "http://h/mcp?q=1");
    assert_eq!(url("http://h/mcp?api_key=••••"), "http://h/mcp?api_key=••••", "no mask of a mask");
    assert_eq!(url("not a url"), "not a url");
}

#[test]
fn the_oauth_code_is_a_secret_in_oauth_urls_only() {
    let back = "http://127.0.0.1:9/callback?code=C0DE&state=s1";
    assert_eq!(oauth_url(back), "http://127.0.0.1:9/callback?code=••••&state=s1");
    assert_eq!(
        url("https://maps.example/lookup?code=75001&zip_code=75001"),
        "https://maps.example/lookup?code=75001&zip_code=75001"
    );
}

#[test]
fn percent_encoded_secret_names_are_masked_too() {
    assert_eq!(url("http://h/mcp?api%5Fkey=S&page=2"), "http://h/mcp?api%5Fkey=••••&page=2");
    assert_eq!(url("http://h/mcp?%61ccess_%74oken=S"), "http://h/mcp?%61ccess_%74oken=••••");
    assert_eq!(url("http://h/mcp?q%5F=1"), "http://h/mcp?q%5F=1");
    let mut named = |name: &str, _: &str| format!("${{{}}}", name.to_ascii_uppercase());
    assert_eq!(url_with("http://h/?api%5Fkey=S", &mut named), "http://h/?api%5Fkey=${API_KEY}");
}

#[test]
fn shapes_are_masked_in_any_text() {
    assert_eq!(text("failed with Bearer abc123def456 sent"), "failed with Bearer •••• sent");
    assert_eq!(text("task-1 and desk-lamp stay"), "task-1 and desk-lamp stay");
}

#[test]
fn oauth_bodies_lose_their_secrets_and_keep_their_addresses() {
    let answer = serde_json::json!({
        "access_token": "AT-1", "refresh_token": "RT-1", "id_token": "ID-1", "token_type": "Bearer",
        "expires_in": 3600, "client_secret": "CS-1", "client_secret_expires_at": 0,
        "token_endpoint": "http://as/token", "token_endpoint_auth_methods_supported": ["none"],
        "authorization_servers": ["http://as"], "nested": [{"registration_access_token": "RAT-1"}],
    });
    let shown = json_body(&answer).to_string();
    for secret in ["AT-1", "RT-1", "ID-1", "CS-1", "RAT-1"] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    for kept in ["Bearer", "3600", "http://as/token", "\"none\"", "http://as\""] {
        assert!(shown.contains(kept), "{kept} lost from {shown}");
    }
    let form = form_body(
        "grant_type=authorization_code&code=C0DE&code_verifier=V%2B1&client_secret=S&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback&refresh_token=R",
    );
    assert_eq!(
        form,
        "grant_type=authorization_code&code=••••&code_verifier=••••&client_secret=••••&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback&refresh_token=••••"
    );
}

#[test]
fn a_request_path_loses_its_secret_parameters() {
    assert_eq!(path_and_query("/mcp?api_key=S&token=T&page=2"), "/mcp?api_key=••••&token=••••&page=2");
    assert_eq!(path_and_query("/mcp"), "/mcp");
    assert_eq!(path_and_query("//x@y/mcp?access_token=S"), "//x@y/mcp?access_token=••••");
    assert_eq!(path_and_query("http://h/mcp?api_key=S"), "http://h/mcp?api_key=••••");
}
