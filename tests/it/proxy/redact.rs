//! What a proxy's record and saved cases keep of a real call's secrets: words that only look like
//! secrets (`author`, `max_tokens`, `code`...) in clear and with their types, credentials
//! (`api_key`, `password`, a Bearer token, a secret the server echoes) never.

use std::process::Command;

use serde_json::json;
use tooldeck::invoke::Status;
use tooldeck::invoke::mcp::McpEndpoint;
use tooldeck::invoke::otc::CallRequest;

use super::{proxied, record_lines, tooldeck};

const API_KEY: &str = "my-api-key-123456";
const PASSWORD: &str = "hunter2-pass";
/// The server's own credential, which it says in its answer (tests/it/mcp.rs, `echo`).
const SERVER_TOKEN: &str = "srv0Token4567abcdef";

fn arguments() -> serde_json::Value {
    json!({
        "author": "ann", "max_tokens": 300, "keyword": "rust", "code": "print(1)", "zip_code": "75001",
        "session_name": "morning", "api_key": API_KEY, "password": PASSWORD,
    })
}

#[tokio::test]
async fn a_record_keeps_look_alikes_in_clear_and_masks_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("session.jsonl");
    let cases = dir.path().join("cases.yaml");
    let options = format!("--record '{}' --save-cases '{}'", record.display(), cases.display());
    let endpoint = McpEndpoint::connect_stdio(&proxied(&options)).await.unwrap();
    endpoint.call(&CallRequest::new("echo", arguments())).await.unwrap();
    // An unknown tool is a JSON-RPC error, whose `code` is a number.
    assert!(endpoint.call(&CallRequest::new("no-such-tool", json!({}))).await.is_err());
    endpoint.close().await;
    tooldeck::invoke::mcp::process::wait_for_endings();

    let text = std::fs::read_to_string(&record).unwrap();
    for secret in [API_KEY, PASSWORD, SERVER_TOKEN] {
        assert!(!text.contains(secret), "{secret} in the record:\n{text}");
    }
    let lines = record_lines(&record);
    let call = lines.iter().find(|l| l["message"]["params"]["name"] == "echo").expect("the call recorded");
    let sent = &call["message"]["params"]["arguments"];
    for kept in ["author", "max_tokens", "keyword", "code", "zip_code", "session_name"] {
        assert_eq!(sent[kept], arguments()[kept], "{kept} in {sent}");
    }
    assert_eq!(sent["api_key"], "••••");
    assert_eq!(sent["password"], "••••");
    let id = &call["message"]["id"];
    let answer = lines.iter().find(|l| l["from"] == "server" && &l["message"]["id"] == id).expect("the answer");
    let said = answer["message"]["result"]["content"][0]["text"].as_str().expect("the echo");
    assert!(said.contains("\"author\":\"ann\"") && said.contains("\"max_tokens\":300"), "{said}");
    assert!(said.contains("\"api_key\":\"••••\"") && said.contains("Bearer ••••"), "{said}");
    let error = lines.iter().find(|l| l["message"].get("error").is_some()).expect("the error recorded");
    assert_eq!(error["message"]["error"]["code"], -32602, "a number, as sent: {error}");

    // The record served back answers the same call: the client's key is masked as the record's was.
    let mock = format!("'{}' serve-mock --record '{}'", tooldeck(), record.display());
    let endpoint = McpEndpoint::connect_stdio(&mock).await.unwrap();
    let (outcome, _) = endpoint.call(&CallRequest::new("echo", arguments())).await.unwrap();
    assert_eq!(outcome.status, Status::Value, "{outcome:?}");
    endpoint.close().await;
    tooldeck::invoke::mcp::process::wait_for_endings();

    // The saved case names the secrets as variables, and runs green once they are set.
    let saved = std::fs::read_to_string(&cases).unwrap();
    for secret in [API_KEY, PASSWORD, SERVER_TOKEN] {
        assert!(!saved.contains(secret), "{secret} in the cases:\n{saved}");
    }
    for placeholder in ["${TOOLDECK_API_KEY}", "${TOOLDECK_PASSWORD}", "${TOOLDECK_TOKEN}"] {
        assert!(saved.contains(placeholder), "{placeholder} in:\n{saved}");
    }
    assert!(saved.contains("author: \"ann\"") && saved.contains("max_tokens: 300"), "{saved}");
    let output = Command::new(tooldeck())
        .arg("test")
        .arg(&cases)
        .env("TOOLDECK_API_KEY", API_KEY)
        .env("TOOLDECK_PASSWORD", PASSWORD)
        .env("TOOLDECK_TOKEN", SERVER_TOKEN)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
