//! The Content-Security-Policy and permissions an app runs under, built from what its resource
//! declares (`_meta.ui.csp`, `_meta.ui.permissions`): nothing reaches the network unless
//! declared, and a declaration that would open everything (`*`) or go in the clear (`http:`) is
//! refused with a line.

use serde_json::Value;

/// Origins kept per list: a declaration is outside input.
const MAX_ORIGINS: usize = 32;
const MAX_ORIGIN_LEN: usize = 256;

/// The sandbox an app gets: the policy sent as its page's header, the `allow` attribute of its
/// frame, and what was refused on the way.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sandbox {
    pub policy: String,
    /// `camera; microphone; ...`: only the permissions the resource declares.
    pub allow: String,
    /// One line per refused origin or unknown permission.
    pub refused: Vec<String>,
}

/// The four CSP lists of SEP-1865 and the directives each widens.
const LISTS: [(&str, &[&str]); 4] = [
    ("connectDomains", &["connect-src"]),
    ("resourceDomains", &["script-src", "style-src", "img-src", "font-src", "media-src"]),
    ("frameDomains", &["frame-src"]),
    ("baseUriDomains", &["base-uri"]),
];

/// The permissions the spec names, with their Permissions Policy feature names.
const PERMISSIONS: [(&str, &str); 4] = [
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboardWrite", "clipboard-write"),
];

/// The sandbox for `ui` (a resource's `_meta.ui`; none declares nothing).
pub fn sandbox(ui: Option<&Value>) -> Sandbox {
    let mut refused = Vec::new();
    let csp = ui.and_then(|ui| ui.get("csp"));
    let mut extra: Vec<(&str, Vec<String>)> = Vec::new();
    for (list, directives) in LISTS {
        let origins = origins(csp.and_then(|c| c.get(list)), list, &mut refused);
        for directive in directives {
            extra.push((directive, origins.clone()));
        }
    }
    let with = |directive: &str, base: &str| {
        let added: Vec<String> = extra.iter().filter(|(d, _)| *d == directive).flat_map(|(_, o)| o.clone()).collect();
        match (base, added.is_empty()) {
            ("'none'", false) => format!("{directive} {}", added.join(" ")),
            (_, true) => format!("{directive} {base}"),
            (_, false) => format!("{directive} {base} {}", added.join(" ")),
        }
    };
    let policy = [
        "default-src 'none'".to_string(),
        with("script-src", "'self' 'unsafe-inline'"),
        with("style-src", "'self' 'unsafe-inline'"),
        with("img-src", "'self' data: blob:"),
        with("font-src", "'self' data:"),
        with("media-src", "'self' data: blob:"),
        with("connect-src", "'none'"),
        with("frame-src", "'none'"),
        with("base-uri", "'self'"),
        "form-action 'none'".to_string(),
        "object-src 'none'".to_string(),
    ]
    .join("; ");
    let allow = permissions(ui.and_then(|ui| ui.get("permissions")), &mut refused);
    Sandbox { policy, allow, refused }
}

/// The origins of one list that may be allowed: `https://` or `wss://` with a host; `*`, `http:`
/// and anything that could end the directive are refused.
fn origins(list: Option<&Value>, name: &str, refused: &mut Vec<String>) -> Vec<String> {
    let Some(list) = list else { return Vec::new() };
    let Some(items) = list.as_array() else {
        refused.push(format!("CSP: {name} is not a list of origins; nothing of it is allowed"));
        return Vec::new();
    };
    let mut kept = Vec::new();
    for item in items.iter().take(MAX_ORIGINS) {
        let origin = item.as_str().unwrap_or_default().trim();
        match why_refused(origin) {
            Some(why) => refused.push(format!("CSP: {name} \"{}\" refused: {why}", crate::text::visible(origin))),
            None => kept.push(origin.to_string()),
        }
    }
    if items.len() > MAX_ORIGINS {
        refused.push(format!("CSP: {name} has {} origins; the first {MAX_ORIGINS} are kept", items.len()));
    }
    kept
}

fn why_refused(origin: &str) -> Option<&'static str> {
    let bare = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    if origin.is_empty() || origin.len() > MAX_ORIGIN_LEN {
        Some("not an origin")
    } else if origin == "*" || bare == "*" || bare.starts_with("*:") {
        Some("`*` would let the app reach any site")
    } else if origin.to_ascii_lowercase().starts_with("http:") || origin.to_ascii_lowercase().starts_with("ws:") {
        Some("http: origins go in the clear; only https: and wss: are allowed")
    } else if !(origin.starts_with("https://") || origin.starts_with("wss://")) {
        Some("only https:// and wss:// origins are allowed")
    } else if origin.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, ';' | ',' | '\'' | '"')) {
        Some("it holds characters that would change the policy")
    } else {
        None
    }
}

fn permissions(declared: Option<&Value>, refused: &mut Vec<String>) -> String {
    let Some(declared) = declared.and_then(Value::as_object) else { return String::new() };
    let mut allow = Vec::new();
    for key in declared.keys().take(MAX_ORIGINS) {
        match PERMISSIONS.iter().find(|(name, _)| name == key) {
            Some((_, feature)) => allow.push(*feature),
            None => refused
                .push(format!("permission \"{}\" is not one the spec names; not given", crate::text::visible(key))),
        }
    }
    allow.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nothing_declared_reaches_nothing() {
        let sandbox = sandbox(None);
        assert!(sandbox.policy.contains("connect-src 'none'"), "{}", sandbox.policy);
        assert!(sandbox.policy.starts_with("default-src 'none'"));
        assert!(sandbox.allow.is_empty() && sandbox.refused.is_empty());
    }

    #[test]
    fn declared_origins_are_added_and_wide_ones_refused() {
        let ui = json!({"csp": {"connectDomains": ["https://api.example.com", "*", "http://plain.example", "https://x; script-src *"],
            "resourceDomains": ["https://cdn.example.com"]}, "permissions": {"camera": {}, "teleport": {}}});
        let sandbox = sandbox(Some(&ui));
        assert!(sandbox.policy.contains("connect-src https://api.example.com;"), "{}", sandbox.policy);
        assert!(sandbox.policy.contains("script-src 'self' 'unsafe-inline' https://cdn.example.com"));
        assert!(!sandbox.policy.contains("plain.example") && !sandbox.policy.contains(" *"), "{}", sandbox.policy);
        assert_eq!(sandbox.allow, "camera");
        assert_eq!(sandbox.refused.len(), 4, "{:?}", sandbox.refused);
        assert!(sandbox.refused.iter().any(|r| r.contains("`*`")));
        assert!(sandbox.refused.iter().any(|r| r.contains("http: origins")));
    }
}
