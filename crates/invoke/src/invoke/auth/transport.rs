//! The one rule for where a sign-in may send anything: https, or plain http between two places on
//! this machine. An authorization code, a PKCE verifier, a client secret or a token sent over
//! plain http to another host can be read by anyone on the way, so every endpoint of the flow
//! (protected resource metadata, the authorization server and its metadata, authorization, token,
//! registration, refresh) is checked here before a byte goes to it.

use url::{Host, Url};

/// Why an endpoint is not used; said with the step and the masked URL by [`super::AuthError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not a URL with a host.
    NotAUrl,
    /// Neither https nor http.
    NotWeb,
    /// Plain http, and not between two loopback places.
    PlainHttp,
}

impl Refusal {
    /// The rule, in the words a person reads after the endpoint.
    pub fn rule(self) -> &'static str {
        match self {
            Refusal::NotAUrl => "not an http(s) URL with a host; signing in talks only to https endpoints",
            Refusal::NotWeb => "not https; signing in talks only to https endpoints",
            Refusal::PlainHttp => {
                "plain http; signing in talks only to https endpoints (http only when the MCP server and \
                 the endpoint are both loopback: localhost, 127.0.0.1, [::1])"
            }
        }
    }
}

/// Whether a sign-in for the MCP server at `server` may talk to `endpoint`: https always; http
/// only when the server itself is a loopback http URL and the endpoint is loopback too. With no
/// server known, https only.
pub fn allowed(server: Option<&Url>, endpoint: &str) -> Result<(), Refusal> {
    let parsed = Url::parse(endpoint.trim()).map_err(|_| Refusal::NotAUrl)?;
    if parsed.host().is_none() {
        return Err(Refusal::NotAUrl);
    }
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if server.is_some_and(|s| s.scheme() == "http" && is_loopback(s)) && is_loopback(&parsed) => Ok(()),
        "http" => Err(Refusal::PlainHttp),
        _ => Err(Refusal::NotWeb),
    }
}

/// A host that never leaves this machine: `localhost` (RFC 6761 keeps it here), 127.0.0.0/8, ::1.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(server: &str, endpoint: &str) -> Result<(), Refusal> {
        allowed(Some(&Url::parse(server).unwrap()), endpoint)
    }

    #[test]
    fn https_is_always_allowed() {
        assert_eq!(check("https://mcp.example.com/mcp", "https://as.example.com/token"), Ok(()));
        assert_eq!(check("http://127.0.0.1:5/mcp", "https://as.example.com/token"), Ok(()));
        assert_eq!(allowed(None, "https://as.example.com/token"), Ok(()));
    }

    #[test]
    fn an_https_server_never_downgrades() {
        assert_eq!(check("https://mcp.example.com/mcp", "http://as.example.com/token"), Err(Refusal::PlainHttp));
        assert_eq!(check("https://mcp.example.com/mcp", "http://127.0.0.1:9/token"), Err(Refusal::PlainHttp));
        assert_eq!(check("https://localhost/mcp", "http://localhost/token"), Err(Refusal::PlainHttp));
        assert_eq!(allowed(None, "http://127.0.0.1/token"), Err(Refusal::PlainHttp));
    }

    #[test]
    fn a_loopback_server_may_use_loopback_http_only() {
        for server in ["http://localhost:3/mcp", "http://127.0.0.1:3/mcp", "http://[::1]:3/mcp", "http://127.9.9.9/"] {
            for endpoint in ["http://localhost:4/token", "http://LOCALHOST/t", "http://127.0.0.1:4/t", "http://[::1]/t"]
            {
                assert_eq!(check(server, endpoint), Ok(()), "{server} → {endpoint}");
            }
            for endpoint in ["http://example.com/token", "http://10.0.0.1/t", "http://0.0.0.0:4/t", "http://[::2]/t"] {
                assert_eq!(check(server, endpoint), Err(Refusal::PlainHttp), "{server} → {endpoint}");
            }
        }
        assert_eq!(check("http://localhost.example.com/mcp", "http://localhost/t"), Err(Refusal::PlainHttp));
        assert_eq!(check("http://mcp.example.com/mcp", "http://localhost/t"), Err(Refusal::PlainHttp));
    }

    #[test]
    fn other_schemes_are_refused() {
        let server = "http://127.0.0.1:3/mcp";
        assert_eq!(check(server, "javascript:alert(1)"), Err(Refusal::NotAUrl));
        assert_eq!(check(server, "file:///etc/passwd"), Err(Refusal::NotAUrl));
        assert_eq!(check(server, "ftp://127.0.0.1/t"), Err(Refusal::NotWeb));
        assert_eq!(check(server, "/token"), Err(Refusal::NotAUrl));
        assert_eq!(check(server, ""), Err(Refusal::NotAUrl));
    }
}
