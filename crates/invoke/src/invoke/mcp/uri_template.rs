//! URI templates (RFC 6570, levels 1 to 4) as MCP resource templates use them: parsed once into
//! literals and expressions, their variables listed for a form, expanded with the values a person
//! gave. A template that does not parse says where and why.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("the expression at character {at} has no closing }}")]
    Unclosed { at: usize },
    #[error("a }} at character {at} closes nothing")]
    StrayClose { at: usize },
    #[error("the expression at character {at} names no variable")]
    Empty { at: usize },
    #[error("{name:?} at character {at} is not a variable name")]
    BadName { at: usize, name: String },
    #[error("the prefix length in {spec:?} is not a number from 1 to 9999")]
    BadPrefix { spec: String },
}

/// One variable of an expression: its name, and `:N` (the first N characters) if given.
#[derive(Debug, Clone, PartialEq, Eq)]
struct VarSpec {
    name: String,
    prefix: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression { operator: Option<char>, vars: Vec<VarSpec> },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

impl Template {
    /// One pass over `text`: each brace is looked at once, so a template of 100,000 expressions
    /// parses in time linear in its length.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let mut parts = Vec::new();
        let mut at = 0;
        while let Some(found) = memchr::memchr2(b'{', b'}', &text.as_bytes()[at..]) {
            let open = at + found;
            if text.as_bytes()[open] == b'}' {
                return Err(TemplateError::StrayClose { at: open });
            }
            if open > at {
                parts.push(Part::Literal(text[at..open].to_string()));
            }
            // The body ends at the next brace, which must close it.
            let body_start = open + 1;
            let close = memchr::memchr2(b'{', b'}', &text.as_bytes()[body_start..]).map(|i| body_start + i);
            let Some(close) = close.filter(|&close| text.as_bytes()[close] == b'}') else {
                return Err(TemplateError::Unclosed { at: open });
            };
            parts.push(parse_expression(&text[body_start..close], open)?);
            at = close + 1;
        }
        if at < text.len() {
            parts.push(Part::Literal(text[at..].to_string()));
        }
        Ok(Template { parts })
    }

    /// The variables' names, each once, in the order they first appear (a set remembers the
    /// names seen, so 100,000 of them are listed in linear time).
    pub fn variables(&self) -> Vec<String> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut names: Vec<String> = Vec::new();
        for part in &self.parts {
            if let Part::Expression { vars, .. } = part {
                for var in vars {
                    if seen.insert(&var.name) {
                        names.push(var.name.clone());
                    }
                }
            }
        }
        names
    }

    /// The URI with `values` put in; a variable without a value is left out, as RFC 6570 says.
    pub fn expand(&self, values: &HashMap<String, String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(&encode(text, true)),
                Part::Expression { operator, vars } => expand_expression(*operator, vars, values, &mut out),
            }
        }
        out
    }
}

fn parse_expression(body: &str, at: usize) -> Result<Part, TemplateError> {
    let (operator, list) = match body.chars().next() {
        Some(op @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(op), &body[1..]),
        Some(op @ ('=' | ',' | '!' | '@' | '|')) => {
            return Err(TemplateError::BadName { at, name: op.to_string() });
        }
        _ => (None, body),
    };
    if list.is_empty() {
        return Err(TemplateError::Empty { at });
    }
    let mut vars = Vec::new();
    for spec in list.split(',') {
        let (name, prefix) = match spec.split_once(':') {
            Some((name, length)) => match length.parse::<usize>() {
                Ok(n) if (1..10_000).contains(&n) => (name, Some(n)),
                _ => return Err(TemplateError::BadPrefix { spec: spec.to_string() }),
            },
            None => (spec.strip_suffix('*').unwrap_or(spec), None),
        };
        let valid = !name.is_empty()
            && name.split('.').all(|piece| {
                !piece.is_empty() && piece.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
            });
        if !valid {
            return Err(TemplateError::BadName { at, name: spec.to_string() });
        }
        vars.push(VarSpec { name: name.to_string(), prefix });
    }
    Ok(Part::Expression { operator, vars })
}

fn expand_expression(operator: Option<char>, vars: &[VarSpec], values: &HashMap<String, String>, out: &mut String) {
    let (first, separator, named, if_empty, reserved) = match operator {
        None => ("", ",", false, "", false),
        Some('+') => ("", ",", false, "", true),
        Some('#') => ("#", ",", false, "", true),
        Some('.') => (".", ".", false, "", false),
        Some('/') => ("/", "/", false, "", false),
        Some(';') => (";", ";", true, "", false),
        Some('?') => ("?", "&", true, "=", false),
        _ => ("&", "&", true, "=", false),
    };
    let mut wrote_any = false;
    for var in vars {
        let Some(value) = values.get(&var.name) else { continue };
        out.push_str(if wrote_any { separator } else { first });
        wrote_any = true;
        let value: String = match var.prefix {
            Some(n) => value.chars().take(n).collect(),
            None => value.clone(),
        };
        if named {
            out.push_str(&var.name);
            if value.is_empty() {
                out.push_str(if_empty);
                continue;
            }
            out.push('=');
        }
        out.push_str(&encode(&value, reserved));
    }
}

/// Percent-encodes all but the unreserved characters (and, with `reserved`, the reserved ones
/// and percent-encoded triplets already there).
fn encode(text: &str, reserved: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let triplet = b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        let unreserved = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        let keep_reserved = reserved && (b":/?#[]@!$&'()*+,;=".contains(&b) || triplet);
        if unreserved || keep_reserved {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn rfc_6570_examples_expand() {
        let v = values(&[
            ("var", "value"),
            ("hello", "Hello World!"),
            ("path", "/foo/bar"),
            ("x", "1024"),
            ("y", "768"),
            ("empty", ""),
        ]);
        let cases = [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("{#path}", "#/foo/bar"),
            ("map?{x,y}", "map?1024,768"),
            ("{.var}", ".value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{var:3}", "val"),
            ("{undef}", ""),
            ("X{.undef}", "X"),
            ("test://static/resource/{id}", "test://static/resource/"),
        ];
        for (template, expected) in cases {
            assert_eq!(Template::parse(template).unwrap().expand(&v), expected, "{template}");
        }
    }

    #[test]
    fn variables_are_listed_once_in_order() {
        let template = Template::parse("file:///{+path}/{name}{?name,version}").unwrap();
        assert_eq!(template.variables(), ["path", "name", "version"]);
        assert_eq!(template.expand(&values(&[("path", "a b/c"), ("name", "n")])), "file:///a%20b/c/n?name=n");
    }

    #[test]
    fn a_template_of_100k_variables_parses_and_lists_each_once() {
        // 800 KB, as a hostile server sent it; a second mention of each name adds none.
        let mut text = String::from("test://x/");
        for i in 0..100_000 {
            text.push_str(&format!("{{v{i:05}}}"));
        }
        text.push_str("{?v00000,v99999}");
        let template = Template::parse(&text).unwrap();
        let variables = template.variables();
        assert_eq!(variables.len(), 100_000);
        assert_eq!((variables[0].as_str(), variables[99_999].as_str()), ("v00000", "v99999"));
        let uri = template.expand(&values(&[("v00001", "a"), ("v99999", "z")]));
        assert_eq!(uri, "test://x/az?v99999=z");
    }

    #[test]
    fn templates_that_do_not_parse_say_why() {
        for (bad, expected) in [
            ("test://{id", "no closing"),
            ("test://id}", "closes nothing"),
            ("test://{}", "names no variable"),
            ("test://{a b}", "not a variable name"),
            ("test://{a:0}", "prefix length"),
            ("test://{a{b}}", "no closing"),
            ("{=x}", "not a variable name"),
            ("a{b}c}", "closes nothing"),
            ("a{b}{", "no closing"),
        ] {
            let error = Template::parse(bad).unwrap_err().to_string();
            assert!(error.contains(expected), "{bad}: {error}");
        }
    }
}
