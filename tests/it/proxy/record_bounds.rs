//! A record that stays in bounds, through the real proxy binary between tooldeck's own client
//! and this binary's stdio test server: `--max-record-size` rotates it (FILE, FILE.1 …, the
//! newest alone listing the tools), `--trim-payload` cuts long strings in the record while the
//! client gets them whole, and the server's stderr is in the record as lines of its own.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::otc::CallRequest;

use super::{proxied, record_lines, tooldeck};

fn numbered(path: &Path, n: usize) -> std::path::PathBuf {
    tooldeck::wire::numbered(path, n)
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn a_bounded_record_rotates_and_the_newest_file_alone_lists_the_tools() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("session.jsonl");
    let options = format!("--record '{}' --max-record-size 12KB --keep-records 2", record.display());
    let endpoint = McpEndpoint::connect_stdio(&proxied(&options)).await.unwrap();
    assert!(!endpoint.list_tools().await.unwrap().is_empty());
    for n in 0..120 {
        let (outcome, _) = endpoint.call(&CallRequest::new("add", json!({"a": n, "b": 1}))).await.unwrap();
        assert_eq!(outcome.value, Some(json!({"sum": f64::from(n) + 1.0})), "every call answered");
    }
    endpoint.close().await;
    tooldeck::invoke::mcp::process::wait_for_endings();

    assert!(numbered(&record, 2).exists(), "rotated at least twice");
    assert!(!numbered(&record, 3).exists(), "two old files kept, older removed");
    for file in [record.clone(), numbered(&record, 1), numbered(&record, 2)] {
        #[cfg(unix)]
        assert_eq!(mode(&file), 0o600, "{}", file.display());
        let lines = record_lines(&file);
        let carried = lines.iter().filter(|l| l["carried"] == true).count();
        let size = std::fs::metadata(&file).unwrap().len();
        let carried_bytes: usize = lines.iter().filter(|l| l["carried"] == true).map(|l| l.to_string().len() + 1).sum();
        assert!(size <= 12_000 + carried_bytes as u64, "{}: {size} bytes, {carried} carried", file.display());
    }
    // The newest file alone: the server's name and tools, and the last call.
    let newest = record_lines(&record);
    // How the client met the server (`server/discover` at revision 2026-07-28), carried over.
    assert_eq!(newest[0]["message"]["method"], "server/discover", "{:#?}", &newest[..2]);
    assert_eq!(newest[0]["carried"], true);
    assert!(newest.iter().any(|l| l["message"]["params"]["arguments"] == json!({"a": 119, "b": 1})));
    let listed = Command::new(tooldeck()).arg("list").arg(&record).output().unwrap();
    let shown = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success() && shown.contains("add"), "{shown}{}", String::from_utf8_lossy(&listed.stderr));
    // And served back on its own, it answers as the server did.
    let mock = format!("'{}' serve-mock --record '{}'", tooldeck(), record.display());
    let endpoint = McpEndpoint::connect_stdio(&mock).await.unwrap();
    assert!(!endpoint.list_tools().await.unwrap().is_empty());
    endpoint.close().await;
}

#[tokio::test]
async fn trim_cuts_the_record_but_the_client_gets_the_whole_string() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("session.jsonl");
    let endpoint = McpEndpoint::connect_stdio(&proxied(&format!("--record '{}' --trim-payload 1KB", record.display())))
        .await
        .unwrap();
    let long = "é".repeat(30_000);
    let (outcome, _) = endpoint.call(&CallRequest::new("echo", json!({"text": long}))).await.unwrap();
    let answered = serde_json::to_string(&outcome.value).unwrap_or_default() + &format!("{outcome:?}");
    assert!(answered.contains(&long), "the client got the string whole");
    endpoint.close().await;
    tooldeck::invoke::mcp::process::wait_for_endings();

    let lines = record_lines(&record);
    let call = lines.iter().find(|l| l["message"]["method"] == "tools/call").expect("the call recorded");
    assert_eq!(call["trimmed"], true);
    let sent = call["message"]["params"]["arguments"]["text"].as_str().unwrap();
    assert_eq!(sent, format!("{}… [trimmed: 58.6 KiB]", "é".repeat(500)), "1,000 bytes, on a character");
    assert!(call["size"].as_u64().unwrap() > 60_000, "the size on the wire");
    let answer = lines.iter().find(|l| l["from"] == "server" && l["message"]["id"] == call["message"]["id"]);
    let answer = answer.expect("the answer recorded");
    assert_eq!(answer["trimmed"], true);
    assert!(std::fs::metadata(&record).unwrap().len() < 40_000, "the 120 KB of the call and answer are not kept");
    let first = lines.iter().find(|l| l["from"] == "client").unwrap();
    assert!(first.get("trimmed").is_none(), "a message with no long string is kept as it was");
}

/// The server's stderr: each line in the record (`from: stderr`, masked), still on the proxy's
/// own stderr, and never taken for the server's messages (`tooldeck list` still finds nothing
/// but what the server answered).
#[test]
fn the_servers_stderr_is_in_the_record_and_on_the_proxys_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("session.jsonl");
    let script = "echo 'starting, token Bearer srv0Token4567abcdef' >&2; \
                  echo '{\"level\":\"warn\",\"api_key\":\"k-123456789\"}' >&2; \
                  printf '%070000d\\n' 0 >&2; printf 'no end' >&2";
    let output = Command::new(tooldeck())
        .args(["proxy", "--record"])
        .arg(&record)
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("starting, token Bearer srv0Token4567abcdef\n"), "passed on as it came: {stderr}");
    let lines = record_lines(&record);
    let said: Vec<&Value> = lines.iter().filter(|l| l["from"] == "stderr").collect();
    assert_eq!(said.len(), 4, "{lines:#?}");
    assert_eq!(said[0]["text"], "starting, token Bearer ••••");
    assert_eq!(said[1]["text"], r#"{"level":"warn","api_key":"••••"}"#, "a JSON log is text, its secrets masked");
    assert!(said[1].get("message").is_none());
    assert_eq!(said[2]["size"], 70_000);
    assert_eq!(said[2]["text"].as_str().unwrap().len(), 64 * 1024);
    assert_eq!(said[2]["note"], "cut: the first 64.0 KiB of a 68.4 KiB line kept");
    assert_eq!(said[3]["text"], "no end");
    assert!(said.iter().all(|l| l.get("note").is_none_or(|n| n != tooldeck::wire::NOT_JSON_RPC)), "not junk");
}

#[test]
fn sizes_that_do_not_parse_are_refused_naming_them() {
    let refused = |args: &[&str]| {
        let output = Command::new(tooldeck()).arg("proxy").args(args).args(["--", "true"]).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let said = refused(&["--record", "r.jsonl", "--max-record-size", "lots"]);
    assert!(said.contains("\"lots\" is not a size") && said.contains("100MB"), "{said}");
    let said = refused(&["--trim-payload", "0"]);
    assert!(said.contains("would keep nothing"), "{said}");
    let said = refused(&["--max-record-size", "1MB"]);
    assert!(said.contains("--record"), "a size for no record: {said}");
    let said = refused(&["--record", "r.jsonl", "--keep-records", "5"]);
    assert!(said.contains("--max-record-size"), "{said}");
}
