//! What an MCP server said of itself in `initialize`, for the server pane: name, title, version,
//! icons (as text), the protocol version agreed on, capabilities, instructions, and the HTTP
//! session id.

use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerInfo {
    pub name: String,
    pub title: Option<String>,
    pub version: String,
    pub description: Option<String>,
    pub website: Option<String>,
    /// Each icon as `src (mime, sizes, theme)`; a `data:` URI is shortened to its type and size.
    pub icons: Vec<String>,
    pub protocol_version: String,
    /// The capabilities object, pretty-printed.
    pub capabilities: String,
    /// The capabilities in one line: `tools (listChanged) · logging · resources (subscribe)`.
    pub capability_summary: String,
    /// True when the server offers `logging` (so `logging/setLevel` may be sent).
    pub logging: bool,
    pub instructions: Option<String>,
    pub session_id: Option<String>,
}

impl ServerInfo {
    /// Read from rmcp's record of the handshake (as JSON: `ServerPeerInfo`).
    pub fn from_peer(peer: &Value, session_id: Option<String>) -> ServerInfo {
        let implementation = &peer["serverInfo"];
        let text = |v: &Value| v.as_str().map(str::to_string);
        let icons =
            implementation["icons"].as_array().map(|icons| icons.iter().map(icon).collect()).unwrap_or_default();
        let capabilities = &peer["capabilities"];
        ServerInfo {
            name: text(&implementation["name"]).unwrap_or_else(|| "(no name given)".into()),
            title: text(&implementation["title"]),
            version: text(&implementation["version"]).unwrap_or_default(),
            description: text(&implementation["description"]),
            website: text(&implementation["websiteUrl"]),
            icons,
            protocol_version: text(&peer["protocolVersion"]).unwrap_or_default(),
            capabilities: serde_json::to_string_pretty(capabilities).unwrap_or_default(),
            capability_summary: summary(capabilities),
            logging: capabilities.get("logging").is_some_and(|l| !l.is_null()),
            instructions: text(&peer["instructions"]).filter(|i| !i.trim().is_empty()),
            session_id,
        }
    }
}

fn summary(capabilities: &Value) -> String {
    let Some(map) = capabilities.as_object() else { return String::new() };
    let parts: Vec<String> = map
        .iter()
        .map(|(name, value)| {
            let flags: Vec<&str> = value
                .as_object()
                .map(|o| o.iter().filter(|(_, v)| **v != Value::Bool(false)).map(|(k, _)| k.as_str()).collect())
                .unwrap_or_default();
            if flags.is_empty() { name.clone() } else { format!("{name} ({})", flags.join(", ")) }
        })
        .collect();
    if parts.is_empty() { "none".into() } else { parts.join(" · ") }
}

fn icon(icon: &Value) -> String {
    let src = icon["src"].as_str().unwrap_or_default();
    let src = match src.strip_prefix("data:") {
        Some(data) => {
            let kind = data.split([';', ',']).next().unwrap_or_default();
            format!("data:{kind} ({} bytes inline)", data.len())
        }
        None => src.to_string(),
    };
    let mut about: Vec<String> = Vec::new();
    if let Some(mime) = icon["mimeType"].as_str() {
        about.push(mime.to_string());
    }
    if let Some(sizes) = icon["sizes"].as_array() {
        about.push(sizes.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "));
    }
    if let Some(theme) = icon["theme"].as_str() {
        about.push(format!("{theme} theme"));
    }
    if about.is_empty() { src } else { format!("{src} ({})", about.join(", ")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_handshake_is_read_whole() {
        let peer = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": true}, "logging": {}},
            "serverInfo": {"name": "everything", "title": "Everything", "version": "2.0.0",
                "icons": [{"src": "data:image/png;base64,AAAA", "sizes": ["48x48"]}, {"src": "https://x/i.svg", "mimeType": "image/svg+xml"}]},
            "instructions": "Be kind."
        });
        let info = ServerInfo::from_peer(&peer, Some("s-1".into()));
        assert_eq!(
            (info.name.as_str(), info.title.as_deref(), info.version.as_str()),
            ("everything", Some("Everything"), "2.0.0")
        );
        assert_eq!(info.icons, ["data:image/png (21 bytes inline) (48x48)", "https://x/i.svg (image/svg+xml)"]);
        assert!(info.logging);
        assert_eq!(info.protocol_version, "2025-06-18");
        assert!(info.capabilities.contains("listChanged"));
        assert_eq!(info.capability_summary, "tools (listChanged) · logging");
        assert_eq!(info.instructions.as_deref(), Some("Be kind."));
    }
}
