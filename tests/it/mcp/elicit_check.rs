//! `--elicit-json` checked against the form the server asks for: content the form refuses is not
//! sent, the field is named, and `call` exits 3.

use serde_json::Value;

#[test]
fn an_elicit_json_the_form_refuses_exits_3_naming_the_field() {
    let server = super::stdio_command_with(&format!("{}=1", super::ASKS_ENV));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "form", "--mcp", &server, "--elicit-json", r#"{"name": "Ada", "age": "forty"}"#])
        .env("TOOLDECK_HISTORY", std::env::temp_dir().join(format!("tooldeck-elicit-{}.jsonl", std::process::id())))
        .output()
        .expect("tooldeck runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(3), "{stdout}{stderr}");
    assert!(stderr.contains("--elicit-json does not match the form") && stderr.contains("age: "), "{stderr}");
    let outcome: Value = serde_json::from_str(&stdout).expect("the outcome is still printed");
    assert_eq!(outcome["asked"][0]["answer"], "cancelled", "{outcome}");
    assert!(outcome["asked"][0]["mismatch"].as_str().unwrap_or_default().contains("age: "), "{outcome}");
}
