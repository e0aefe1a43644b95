//! `WWW-Authenticate: Bearer resource_metadata="…", scope="…", error="…"` (RFC 6750, RFC 9728).

/// What a `401` or `403` challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
}

impl Challenge {
    /// The Bearer challenge's parameters; a header that does not parse gives an empty challenge
    /// (discovery then falls back to the well-known URLs).
    pub fn parse(header: &str) -> Challenge {
        let params = parameters(header);
        let get =
            |name: &str| params.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.clone());
        Challenge {
            resource_metadata: get("resource_metadata").filter(|v| !v.is_empty()),
            scope: get("scope").filter(|v| !v.trim().is_empty()),
            error: get("error"),
        }
    }

    pub fn scopes(&self) -> Vec<String> {
        self.scope.as_deref().map(split_scopes).unwrap_or_default()
    }

    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

pub fn split_scopes(scope: &str) -> Vec<String> {
    scope.split_whitespace().map(str::to_string).collect()
}

/// `name=value` and `name="quoted \" value"` pairs after the scheme names.
fn parameters(header: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = header.chars().peekable();
    let mut word = String::new();
    while let Some(c) = chars.next() {
        match c {
            '=' if !word.trim().is_empty() => {
                // The scheme name may precede the first parameter ("Bearer scope").
                let name = word.split_whitespace().last().unwrap_or_default().to_string();
                word.clear();
                while chars.peek() == Some(&' ') {
                    chars.next();
                }
                let value = if chars.peek() == Some(&'"') {
                    chars.next();
                    quoted(&mut chars)
                } else {
                    let mut value = String::new();
                    while let Some(&c) = chars.peek() {
                        if c == ',' || c == ' ' {
                            break;
                        }
                        value.push(c);
                        chars.next();
                    }
                    value
                };
                out.push((name, value));
            }
            ',' => word.clear(),
            c => word.push(c),
        }
    }
    out
}

fn quoted(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut value = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            '"' => break,
            c => value.push(c),
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters_quoted_or_not() {
        let c = Challenge::parse(
            r#"Bearer realm="mcp", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", scope="a b", error=insufficient_scope"#,
        );
        assert_eq!(c.resource_metadata.as_deref(), Some("http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c.scopes(), ["a", "b"]);
        assert!(c.insufficient_scope());
    }

    #[test]
    fn escapes_and_garbage() {
        let c = Challenge::parse(r#"Bearer scope="say \"hi\"""#);
        assert_eq!(c.scope.as_deref(), Some(r#"say "hi""#));
        assert_eq!(Challenge::parse("Bearer"), Challenge::default());
        assert_eq!(Challenge::parse("=== ,,, \"").resource_metadata, None);
        assert_eq!(Challenge::parse(r#"Bearer scope="unterminated"#).scope.as_deref(), Some("unterminated"));
    }
}
