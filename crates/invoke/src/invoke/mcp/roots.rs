//! Roots as MCP wants them: `file://` URIs for the folders a person offers a server
//! (`--root`, the app's roots prompt).

// Roots are deprecated by a newer revision (SEP-2577) that servers of the older ones still use.
#![allow(deprecated)]

use rmcp::model::Root;

/// A root as MCP wants it: a `file://` URI (a path is made absolute first).
pub fn root(given: &str) -> Root {
    let uri = if given.contains("://") {
        given.to_string()
    } else {
        let path = std::path::Path::new(given);
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        file_uri(&absolute.to_string_lossy())
    };
    let name = std::path::Path::new(given.trim_end_matches('/'))
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty() && !given.contains("://"));
    let mut root = Root::new(uri);
    root.name = name;
    root
}

/// `file://` and the path, each byte outside the URI's unreserved set percent-encoded.
fn file_uri(path: &str) -> String {
    let mut uri = String::from("file://");
    if !path.starts_with('/') {
        uri.push('/');
    }
    for byte in path.replace('\\', "/").bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => uri.push(byte as char),
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}
