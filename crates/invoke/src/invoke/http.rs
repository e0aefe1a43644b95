//! The one way tooldeck builds an HTTP client, so that every path (MCP over HTTP, OTC, artifacts,
//! downloads, the authorization check) follows redirects by the same rule: only within the origin
//! the request was meant for. A call carries arguments, headers and tokens meant for that server
//! alone, and a redirect must not hand them to another.

use reqwest::Url;

/// Redirects followed within one origin before the chain counts as a loop.
pub const MAX_REDIRECTS: usize = 10;

/// Why a redirect was not followed.
#[derive(Debug, thiserror::Error)]
#[error("it redirected more than {MAX_REDIRECTS} times within its own origin (a redirect loop?)")]
pub struct RedirectLoop;

/// A client builder with tooldeck's user agent and redirect rule; callers add timeouts and headers.
/// Every reqwest client is made from it: it also installs the TLS provider reqwest needs.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_tls_provider();
    reqwest::Client::builder()
        .user_agent(concat!("tooldeck/", env!("CARGO_PKG_VERSION")))
        .redirect(same_origin_redirects())
}

/// rustls' ring provider as the process's TLS provider, once: reqwest is built without one
/// (ring builds in seconds, aws-lc in minutes), and building a client without one panics.
fn install_tls_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Err only when a provider is already installed, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Redirects are followed only within the first request's origin (scheme, host and port); one to
/// another origin is not followed, and its 3xx answer comes back to the caller to be named
/// ([`refused_redirect`]). A 307/308 keeps its body, so this is what keeps the body at home.
pub fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt.previous().first().is_some_and(|first| same_origin(first, attempt.url()));
        if !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(RedirectLoop)
        } else {
            attempt.follow()
        }
    })
}

/// The TLS error `cause` is, or wraps in io::Errors (the TLS connector wraps it in two): an
/// io::Error's `source` skips what it wraps, so the chain alone never reaches it.
fn tls_error<'a>(cause: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    match cause.downcast_ref::<std::io::Error>() {
        Some(io) => tls_error(io.get_ref()?),
        None => cause.downcast_ref::<rustls::Error>(),
    }
}

/// A TLS failure in words: rustls' own text names its enums (`Other(OtherError(CaUsedAsEndEntity))`).
fn tls_refused(error: &rustls::Error) -> String {
    use rustls::CertificateError as Cert;
    let certificate = match error {
        rustls::Error::InvalidCertificate(why) => why,
        rustls::Error::AlertReceived(_) => {
            return "the server refused the TLS handshake (does it want a client certificate?)".into();
        }
        _ => return "the TLS handshake failed (is it an HTTPS server, on that port?)".into(),
    };
    let why = match certificate {
        Cert::Expired | Cert::ExpiredContext { .. } => "it has expired",
        Cert::NotValidYet | Cert::NotValidYetContext { .. } => "it is not valid yet",
        Cert::NotValidForName | Cert::NotValidForNameContext { .. } => "it was issued for another host name",
        Cert::Revoked => "it was revoked",
        Cert::UnknownIssuer => "no trusted authority issued it (self-signed, or a private CA?)",
        _ => "it is not one this system trusts (self-signed, or a private CA?)",
    };
    format!("the server's TLS certificate was refused: {why}")
}

/// Why a request got no answer, in words a person acts on (no type names): a refused
/// connection, a name that does not resolve, a server that hung up, a timeout, else what each
/// cause says.
pub fn why_unanswered(error: &reqwest::Error) -> String {
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(tls) = tls_error(cause) {
            return format!("cannot reach the server: {}", tls_refused(tls));
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    return "cannot reach the server: connection refused, nothing listens there (is the server \
                            running, on that port?)"
                        .into();
                }
                std::io::ErrorKind::ConnectionReset => return "the server reset the connection".into(),
                _ => {}
            }
        }
        let text = cause.to_string();
        // hyper's wrappers ("client error (SendRequest)") name its internals, not what happened.
        if !text.starts_with("client error (") {
            causes.push(text);
        }
        source = cause.source();
    }
    let said = causes.join(": ");
    if error.is_timeout() {
        "no answer in time".into()
    } else if said.contains("connection closed before message completed") {
        "the server closed the connection without answering (did it exit or crash?)".into()
    } else if said.contains("dns error") || said.contains("failed to lookup address") {
        format!("cannot reach the server: the host name does not resolve ({said})")
    } else if error.is_connect() {
        format!("cannot reach the server: {said}")
    } else if said.is_empty() {
        format!("the request failed: {error}")
    } else {
        format!("the request failed: {said}")
    }
}

/// An HTTP error answer in one line: the status, and the start of the body (an HTML page named
/// as such: it is not what an API answers).
pub fn error_answer(status: reqwest::StatusCode, content_type: &str, body: &str) -> String {
    let text = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let start: String = crate::text::visible(&text).chars().take(200).collect();
    let more = if text.chars().count() > 200 { "…" } else { "" };
    match (content_type.starts_with("text/html"), start.is_empty()) {
        (true, _) => format!("HTTP {status} with an HTML page, not an API answer: {start}{more}"),
        (false, true) => format!("HTTP {status} with an empty body"),
        (false, false) => format!("HTTP {status}: {start}{more}"),
    }
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
}

/// For a 3xx answer (one the policy did not follow): where it pointed, masked, and that nothing
/// went there. `None` for any other answer.
pub fn refused_redirect(response: &reqwest::Response) -> Option<String> {
    let status = response.status();
    if !status.is_redirection() {
        return None;
    }
    let location = response.headers().get(reqwest::header::LOCATION).map(|v| String::from_utf8_lossy(v.as_bytes()));
    Some(match location {
        Some(location) => {
            let target = response.url().join(&location).map_or_else(|_| location.to_string(), |url| url.to_string());
            let shown = crate::text::visible(&crate::redact::url(&target)).into_owned();
            format!(
                "HTTP {}: the server redirected to {shown} (another origin); not followed, so neither the \
                 request body nor any header or token went there",
                status.as_u16()
            )
        }
        None => format!("HTTP {}: the server answered with a redirect that names no location", status.as_u16()),
    })
}

/// True for a reqwest error that is the redirect rule refusing a loop.
pub fn is_redirect_loop(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.is::<RedirectLoop>() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// True for a link tooldeck may hand to the browser: http(s) only. A server's link to any other
/// scheme (`file:`, a custom handler) could make the system launch something.
pub fn is_web_link(link: &str) -> bool {
    Url::parse(link.trim()).is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let url = |s: &str| Url::parse(s).expect("test URL");
        assert!(same_origin(&url("http://h:80/a"), &url("http://h/b?x")));
        assert!(!same_origin(&url("http://h/a"), &url("https://h/a")));
        assert!(!same_origin(&url("http://h:1/a"), &url("http://h:2/a")));
        assert!(!same_origin(&url("http://h/a"), &url("http://evil/a")));
    }

    #[test]
    fn only_web_links_open() {
        assert!(is_web_link("https://auth.example/start?state=1"));
        assert!(is_web_link("HTTP://h/x"));
        for link in ["x-hostile-scheme://pwn/run", "file:///etc/passwd", "javascript:alert(1)", "", "ms-settings:"] {
            assert!(!is_web_link(link), "{link}");
        }
    }

    /// reqwest is built without a TLS provider: a client made here has one (building it would
    /// panic otherwise) and tries a handshake, which a server speaking plain HTTP fails.
    #[tokio::test]
    async fn clients_speak_tls() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("its address").port();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let (mut socket, _) = listener.accept().await.expect("the client");
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await;
        });
        let client = client_builder().build().expect("a client");
        let answer = client.get(format!("https://127.0.0.1:{port}/")).send().await;
        let error = answer.expect_err("plain HTTP is no TLS handshake");
        assert!(error.is_connect(), "{error:?}");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        let said = why_unanswered(&error);
        assert_eq!(said, "cannot reach the server: the TLS handshake failed (is it an HTTPS server, on that port?)");
    }

    /// The TLS connector wraps rustls' error in an io::Error in an io::Error; what a person reads
    /// names the fault in words, not rustls' enums.
    #[test]
    fn certificate_faults_are_said_in_words() {
        use std::io::{Error, ErrorKind};
        let refused = |why| rustls::Error::InvalidCertificate(why);
        let wrapped =
            Error::other(Error::new(ErrorKind::InvalidData, refused(rustls::CertificateError::UnknownIssuer)));
        let tls = tls_error(&wrapped).expect("the TLS error inside");
        assert_eq!(
            tls_refused(tls),
            "the server's TLS certificate was refused: no trusted authority issued it (self-signed, or a private CA?)"
        );
        assert!(tls_refused(&refused(rustls::CertificateError::Expired)).ends_with("it has expired"));
        assert!(tls_refused(&refused(rustls::CertificateError::NotValidForName)).ends_with("for another host name"));
        assert!(tls_error(&Error::other("not TLS")).is_none());
        for said in
            [tls_refused(&refused(rustls::CertificateError::BadSignature)), tls_refused(&rustls::Error::DecryptError)]
        {
            assert!(!said.contains("Error") && !said.contains("Signature"), "no enum names: {said}");
        }
    }
}
