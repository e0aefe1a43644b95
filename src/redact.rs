//! The one rule that masks secrets wherever a request is shown or stored: the exchange view, curl
//! exports, dry runs, history, saved cases, error messages and reports all go through here.

/// A secret shown by its length only.
pub fn mask(secret: &str) -> String {
    format!("•••• ({} chars)", secret.chars().count())
}

/// Words that make a header, query parameter or command-line option name carry a secret.
const SECRET_WORDS: &[&str] =
    &["auth", "key", "token", "secret", "password", "passwd", "session", "cookie", "credential"];

/// True for names (headers, query parameters, options) whose values are secrets:
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `X-Auth-Token`,
/// `api_key`, `--client-secret`...
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    (SECRET_WORDS.iter().any(|word| name.contains(word)) && !NOT_SECRETS.contains(&name.as_str()))
        || SECRET_NAMES.contains(&name.as_str())
}

/// Whole names that are secrets without a secret word in them: an OAuth authorization code (in a
/// redirected URL) and the PKCE verifier that redeems it.
const SECRET_NAMES: &[&str] = &["code", "code_verifier"];

/// Names with a secret word that are not secrets: MCP forbids servers to take its session id as
/// authentication, and the exchange view and a curl for the live session need it shown.
const NOT_SECRETS: &[&str] = &["mcp-session-id"];

/// A header's value as it may be shown.
pub fn header_value(name: &str, value: &str) -> String {
    if is_secret_name(name) { mask(value) } else { value.to_string() }
}

/// A URL with its password and secret query parameters masked (`user:••••@host`,
/// `?api_key=••••`). Text that is not a URL comes back as it was.
pub fn url(text: &str) -> String {
    let Some(scheme_end) = text.find("://") else { return text.to_string() };
    let rest = &text[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            let shown =
                if userinfo.contains(':') { format!("{user}:••••") } else { "••••".to_string() };
            format!("{shown}@{host}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let (query, fragment) = query.split_once('#').map_or((query, None), |(q, f)| (q, Some(f)));
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) if is_secret_name(name) => format!("{name}=••••"),
                    _ => pair.to_string(),
                })
                .collect();
            let fragment = fragment.map(|f| format!("#{f}")).unwrap_or_default();
            format!("{path}?{}{fragment}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{}://{authority}{tail}", &text[..scheme_end])
}

/// A server's command line with the values of secret-looking options masked
/// (`--api-key=S`, `--token S`, `API_KEY=S node server.js`) and URLs in it redacted.
pub fn command(line: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut hide_next = false;
    for word in line.split(' ') {
        if hide_next && !word.is_empty() {
            words.push("••••".to_string());
            hide_next = false;
            continue;
        }
        let shown = match word.split_once('=') {
            _ if word.contains("://") => url(word),
            Some((name, value)) if is_secret_name(name) && !value.is_empty() => format!("{name}=••••"),
            _ if word.starts_with('-') && is_secret_name(word) => {
                hide_next = true;
                word.to_string()
            }
            _ => url(word),
        };
        words.push(shown);
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_header_names() {
        for name in ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token"] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["Content-Type", "Accept", "User-Agent", "Mcp-Protocol-Version"] {
            assert!(!is_secret_name(name), "{name}");
        }
        assert_eq!(header_value("X-Api-Key", "abc"), "•••• (3 chars)");
        assert_eq!(header_value("Accept", "text/plain"), "text/plain");
    }

    #[test]
    fn urls_lose_passwords_and_secret_parameters() {
        assert_eq!(url("http://user:PW@host:8080/mcp"), "http://user:••••@host:8080/mcp");
        assert_eq!(url("https://TOKEN@host/x"), "https://••••@host/x");
        assert_eq!(url("http://h/mcp?api_key=S&page=2#top"), "http://h/mcp?api_key=••••&page=2#top");
        assert_eq!(url("http://h/mcp?q=1"), "http://h/mcp?q=1");
        assert_eq!(url("not a url"), "not a url");
    }

    #[test]
    fn commands_lose_secret_options() {
        assert_eq!(command("server --api-key=S --port 1"), "server --api-key=•••• --port 1");
        assert_eq!(command("server --token S --port 1"), "server --token •••• --port 1");
        assert_eq!(command("API_KEY=S node s.js"), "API_KEY=•••• node s.js");
        assert_eq!(command("node s.js http://u:p@h/"), "node s.js http://u:••••@h/");
        assert_eq!(command("http://u:p@h/?api_key=k"), "http://u:••••@h/?api_key=••••");
        assert_eq!(command("node build/index.js /tmp"), "node build/index.js /tmp");
    }
}
