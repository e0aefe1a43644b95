//! Findings as SARIF 2.1.0, the format code-scanning services read to show findings on the lines
//! of a pull request.

use serde_json::{Value, json};

use super::{RULES, Severity};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// One result with where it is. `uri` is the file as the user named it (relative paths stay
/// relative, which is what code scanning resolves against the repository); a server's tool has
/// its name as a logical location and the server's label as its artifact.
pub struct Located<'a> {
    pub rule: &'a str,
    pub severity: Severity,
    pub message: String,
    pub uri: String,
    pub line: usize,
    pub column: usize,
    /// The tool's name, for a logical location.
    pub tool: Option<&'a str>,
}

/// Rules outside the lint table: a definition the loader refused, or warned about.
const LOAD_RULES: &[(&str, &str)] = &[
    ("load/error", "The definition does not load; it is not linted further"),
    ("load/warning", "The loader repaired or skipped something in the definition"),
];

pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A path as a SARIF URI reference: characters a URI cannot hold are percent-encoded,
/// separators made forward slashes, absolute paths given the file scheme.
pub fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' | b'@' | b'+' | b'=' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    if out.starts_with('/') { format!("file://{out}") } else { out }
}

/// The whole log: one run, tooldeck as its tool with every rule, the results in order.
pub fn log(results: &[Located]) -> Value {
    let mut rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.summary},
                "helpUri": r.url,
                "defaultConfiguration": {"level": level(r.severity)},
            })
        })
        .collect();
    rules.extend(LOAD_RULES.iter().map(|(id, text)| {
        let severity = if id.ends_with("error") { "error" } else { "warning" };
        json!({"id": id, "shortDescription": {"text": text}, "defaultConfiguration": {"level": severity}})
    }));
    let index = |id: &str| {
        RULES
            .iter()
            .position(|r| r.id == id)
            .or_else(|| LOAD_RULES.iter().position(|(l, _)| *l == id).map(|i| RULES.len() + i))
    };
    let results: Vec<Value> = results
        .iter()
        .map(|r| {
            let mut location = json!({
                "physicalLocation": {
                    "artifactLocation": {"uri": uri(&r.uri)},
                    "region": {"startLine": r.line.max(1), "startColumn": r.column.max(1)},
                }
            });
            if let Some(tool) = r.tool {
                location["logicalLocations"] = json!([{"name": tool, "kind": "function"}]);
            }
            let mut result = json!({
                "ruleId": r.rule,
                "level": level(r.severity),
                "message": {"text": r.message},
                "locations": [location],
            });
            if let Some(i) = index(r.rule) {
                result["ruleIndex"] = json!(i);
            }
            result
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "tooldeck",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(uri("tools/a b.json"), "tools/a%20b.json");
        assert_eq!(uri("/abs/x.json"), "file:///abs/x.json");
        assert_eq!(uri("dir\\x.json"), "dir/x.json");
    }
}
