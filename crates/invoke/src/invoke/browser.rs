//! The one gate to the browser: every URL tooldeck opens (a result's link, a server's URL
//! elicitation, the sign-in's authorization URL) goes through [`open`] or [`open_with`], and only
//! an http(s) link with a host passes. Another scheme (`javascript:`, `file:///etc/passwd`, a
//! custom handler) could run something or show a local file, and comes from a server.
//! `tests/it/architecture.rs` checks that no other file names `webbrowser`.

/// Why a URL was not opened; the URL is masked (`crate::redact::url`) and made visible.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("{url} was not opened: only http and https links go to the browser")]
    NotWeb { url: String },
    #[error("the browser could not be opened for {url} ({reason}); open the link yourself")]
    Failed { url: String, reason: String },
}

/// What opens a URL that passed the gate: the system browser by default, a stand-in in tests.
pub type Opener = fn(&str) -> std::io::Result<()>;

/// `url` as messages show it: secrets masked, control characters visible.
pub fn shown(url: &str) -> String {
    crate::text::visible(&crate::redact::url(url)).into_owned()
}

/// Whether `url` may go to the browser: an http or https URL with a host, nothing else.
pub fn check(url: &str) -> Result<(), OpenError> {
    if crate::invoke::http::is_web_link(url) { Ok(()) } else { Err(OpenError::NotWeb { url: shown(url) }) }
}

/// Opens `url` in the system browser (`$BROWSER` honoured), if it passes [`check`].
pub fn open(url: &str) -> Result<(), OpenError> {
    open_with(url, None)
}

/// Opens `url` with `opener` (the system browser when `None`), if it passes [`check`]. The opener
/// is started directly, no shell, so a URL cannot smuggle in a command.
pub fn open_with(url: &str, opener: Option<Opener>) -> Result<(), OpenError> {
    check(url)?;
    let url = url.trim();
    let opened = match opener {
        Some(opener) => opener(url),
        None => webbrowser::open(url),
    };
    opened.map_err(|e| OpenError::Failed { url: shown(url), reason: crate::text::visible(&e.to_string()).into_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static OPENED: AtomicUsize = AtomicUsize::new(0);

    fn counting(_url: &str) -> std::io::Result<()> {
        OPENED.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    #[test]
    fn only_web_links_reach_the_opener() {
        let bad = [
            "javascript:alert(document.cookie)",
            "file:///etc/passwd",
            "data:text/html,<script>x</script>",
            "vscode://file/etc/passwd",
            "mailto:a@b",
            "/etc/passwd",
            "",
        ];
        for url in bad {
            let error = open_with(url, Some(counting)).unwrap_err();
            assert!(matches!(error, OpenError::NotWeb { .. }), "{url}: {error}");
            assert!(error.to_string().contains("only http and https"), "{error}");
        }
        assert_eq!(OPENED.load(Ordering::SeqCst), 0, "nothing reached the opener");
        assert_eq!(open_with("https://auth.example/authorize?x=1", Some(counting)), Ok(()));
        assert_eq!(open_with(" HTTP://127.0.0.1:5/a ", Some(counting)), Ok(()));
        assert_eq!(OPENED.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn the_refusal_shows_the_url_masked_and_visible() {
        let error = check("javascript://x/?access_token=abc123\u{1b}[2J").unwrap_err().to_string();
        assert!(!error.contains("abc123") && !error.contains('\u{1b}'), "{error}");
        assert!(error.starts_with("javascript://x/?access_token="), "{error}");
    }
}
