//! `eval --from-record RECORD`: an eval file drafted from a proxy record. Each `tools/call` a
//! real client made becomes a case expecting that call; the prompt, what a person would have
//! asked, is left for the person to write (`TODO`), as are the server and the model.

use std::path::Path;

use serde_json::Value;

use crate::wire::Side;
use crate::wire::{RecordError, read_record};

/// Why no draft could be made.
#[derive(Debug, thiserror::Error)]
pub enum DraftError {
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("{path} holds no tools/call a client made: nothing to draft cases from")]
    NoCalls { path: String },
}

/// The draft, as YAML text.
pub fn draft(record: &Path) -> Result<String, DraftError> {
    let lines = read_record(record)?;
    let mut calls: Vec<(String, Value)> = Vec::new();
    for line in lines.iter().filter(|l| l.from == Side::Client) {
        if line.message.get("method").and_then(Value::as_str) != Some("tools/call") {
            continue;
        }
        let params = line.message.get("params").unwrap_or(&Value::Null);
        let Some(tool) = params.get("name").and_then(Value::as_str) else { continue };
        let args = params.get("arguments").cloned().unwrap_or_else(|| Value::Object(Default::default()));
        // The same call made again is one case.
        if !calls.iter().any(|(t, a)| t == tool && *a == args) {
            calls.push((tool.to_string(), args));
        }
    }
    if calls.is_empty() {
        return Err(DraftError::NoCalls { path: record.display().to_string() });
    }
    Ok(yaml(&record.display().to_string(), &calls))
}

fn yaml(source: &str, calls: &[(String, Value)]) -> String {
    let quoted = |text: &str| crate::json_out::to_line(text).unwrap_or_default();
    let mut out = String::new();
    out.push_str(&format!(
        "# Drafted by `tooldeck eval --from-record` from {}: each tools/call a client made\n",
        quoted(source)
    ));
    out.push_str("# is a case expecting that call. Write each prompt (TODO), the server and the model.\n");
    out.push_str("mcp: \"TODO: the server's command (or mcp_url: its URL)\"\n");
    out.push_str("model:\n  url: http://127.0.0.1:11434/v1\n  name: \"TODO: the model\"\n");
    out.push_str("iterations: 5\ncases:\n");
    let mut count: std::collections::HashMap<&str, usize> = Default::default();
    for (tool, args) in calls {
        let n = count.entry(tool).or_default();
        *n += 1;
        out.push_str(&format!("  - name: {}\n", quoted(&format!("{tool} {n}"))));
        out.push_str(&format!(
            "    prompt: {}\n",
            quoted(&format!("TODO: what a person asks that should call {tool}"))
        ));
        out.push_str("    expect:\n      calls:\n");
        let args = crate::json_out::to_line(args).unwrap_or_default();
        out.push_str(&format!("        - tool: {}\n          args: {args}\n", quoted(tool)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_a_client_made_becomes_a_case_that_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("r.jsonl");
        let lines = [
            r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}"#,
            r#"{"from":"client","message":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"to_kelvin","arguments":{"celsius":25}}}}"#,
            r#"{"from":"server","message":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}"#,
            r#"{"from":"client","message":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"to_kelvin","arguments":{"celsius":25}}}}"#,
            r#"{"from":"client","message":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"say","arguments":{"text":"a \"quoted\": word"}}}}"#,
        ];
        std::fs::write(&record, lines.join("\n")).unwrap();
        let text = draft(&record).unwrap();
        assert_eq!(text.matches("TODO: what a person asks").count(), 2, "{text}");
        let file = crate::file::parse(Path::new("d.yaml"), "d.yaml", &text);
        assert!(file.problems.is_empty(), "{:?}\n{text}", file.problems);
        assert_eq!(file.cases[0].expect.calls[0].args["celsius"], 25);
        assert_eq!(file.cases[1].expect.calls[0].args["text"], "a \"quoted\": word");
    }

    #[test]
    fn a_record_without_calls_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("r.jsonl");
        std::fs::write(&record, r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}"#)
            .unwrap();
        assert!(draft(&record).unwrap_err().to_string().contains("holds no tools/call"));
    }
}
