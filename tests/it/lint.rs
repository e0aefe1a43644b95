//! `tooldeck lint`: every rule (tests/it/lint/rules.rs), findings at path:line:column, JSON, SARIF
//! 2.1.0's required shape, exit codes, the config file, a live MCP server, and the corpus.

#[path = "support/corpus.rs"]
mod corpus_dir;
#[path = "lint/rules.rs"]
mod rules;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Value, json};

const SERVER_ENV: &str = "TOOLDECK_TEST_LINT_SERVER";

fn tooldeck(args: &[&str]) -> Output {
    tooldeck_with(args, &[])
}

/// The binary, with no user config file in the way unless one is given.
fn tooldeck_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tooldeck"));
    command.args(args).env("TOOLDECK_CONFIG", "/nonexistent/tooldeck-lint-test.toml");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited normally")
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", stdout(output), String::from_utf8_lossy(&output.stderr)))
}

fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// 1-based line and column of the value after `key` in a file.
fn position_of_value(path: &Path, key: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    let at = text.find(key).expect("the key is in the file") + key.len();
    let line = text[..at].matches('\n').count() as u64 + 1;
    let column = text[..at].rsplit('\n').next().unwrap().chars().count() as u64 + 1;
    (line, column)
}

/// One tool with one impossible bound (an error) and nothing else to say.
fn broken_bounds() -> Value {
    json!({"tools": [{
        "name": "count_products",
        "description": "Count the products in the catalog whose name matches a text.",
        "inputSchema": {"type": "object", "additionalProperties": false, "required": ["n"], "properties": {
            "n": {"type": "integer", "minimum": 10, "maximum": 1, "description": "How many products at most"}
        }}
    }]})
}

fn clean() -> Value {
    json!({"tools": [{
        "name": "count_products",
        "description": "Count the products in the catalog whose name matches a text.",
        "inputSchema": {"type": "object", "additionalProperties": false, "required": ["text"], "properties": {
            "text": {"type": "string", "description": "Words to match in product names, e.g. 'red shoes'"}
        }}
    }]})
}

#[test]
fn findings_name_path_line_column_rule_severity_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "tools.json", &broken_bounds());
    let output = tooldeck(&["lint", arg(&file)]);
    assert_eq!(code(&output), 1, "{}", stdout(&output));
    let text = stdout(&output);
    let (l, c) = position_of_value(&file, "\"minimum\": ");
    let line = text.lines().find(|l| l.contains("schema/min-above-max")).expect("the finding");
    let expected = format!("{}:{l}:{c}: error[schema/min-above-max]: ", file.display());
    assert!(line.starts_with(&expected), "{line}");
    assert!(text.contains("    fix: swap or correct `minimum` and `maximum`"), "{text}");
    assert!(text.contains("context: about "), "{text}");
    assert!(text.lines().last().unwrap().starts_with("linted 1 tool from 1 file: 1 error"), "{text}");
}

#[test]
fn exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let clean = write(dir.path(), "clean.json", &clean());
    let broken = write(dir.path(), "broken.json", &broken_bounds());
    assert_eq!(code(&tooldeck(&["lint", arg(&clean)])), 0);
    assert_eq!(code(&tooldeck(&["lint", arg(&broken)])), 1);
    assert_eq!(code(&tooldeck(&["lint", arg(&broken), "--allow", "schema/min-above-max"])), 0);
    assert_eq!(
        code(&tooldeck(&["lint", arg(&clean), "--deny", "gemini"])),
        1,
        "additionalProperties is refused by Gemini"
    );
    let typo = tooldeck(&["lint", arg(&clean), "--allow", "schema/no-such-rule"]);
    assert_eq!(code(&typo), 2);
    assert!(String::from_utf8_lossy(&typo.stderr).contains("no lint rule matches"));
    assert_eq!(code(&tooldeck(&["lint", arg(&clean), "--target", "cohere"])), 2);
    // A provider named with --target: what it refuses is an error.
    let dotted = write(
        dir.path(),
        "dotted.json",
        &json!({"tools": [{"name": "shop.count", "description": "Count the products in the catalog whose name matches a text.", "inputSchema": {"type": "object"}}]}),
    );
    assert_eq!(code(&tooldeck(&["lint", arg(&dotted), "--allow", "openai-strict", "--allow", "gemini"])), 0);
    assert_eq!(code(&tooldeck(&["lint", arg(&dotted), "--target", "openai"])), 1);
    assert_eq!(code(&tooldeck(&["lint", arg(&dotted), "--target", "gemini,mcp"])), 0);
}

#[test]
fn definitions_that_do_not_load_are_reported_as_check_does_and_not_linted() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"tools\": [{\"name\": \"x\", \"inputSchema\": {\"type\": 5}}]}").unwrap();
    let clean = write(dir.path(), "clean.json", &clean());
    let output = tooldeck(&["lint", arg(&bad), arg(&clean)]);
    assert_eq!(code(&output), 1);
    let text = stdout(&output);
    let check = stdout(&tooldeck(&["check", arg(&bad)]));
    assert!(text.contains(check.lines().next().unwrap()), "{text}\n{check}");
    assert!(text.contains("linted 1 tool from 2 files"), "{text}");
    assert!(text.contains("did not load were not linted"), "{text}");
}

#[test]
fn config_file_switches_rules_off_and_raises_them() {
    let dir = tempfile::tempdir().unwrap();
    let broken = write(dir.path(), "broken.json", &broken_bounds());
    let clean = write(dir.path(), "clean.json", &clean());
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[lint]\noff = [\"schema/min-above-max\"]\nerror = [\"gemini/json-schema-only\"]\n")
        .unwrap();
    let config = arg(&config);
    assert_eq!(
        code(&tooldeck_with(&["lint", arg(&broken)], &[("TOOLDECK_CONFIG", config)])),
        1,
        "gemini/json-schema-only raised"
    );
    let output = tooldeck(&["lint", arg(&broken), "--config", config, "--allow", "gemini"]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
    // --deny wins over the file's off.
    assert_eq!(
        code(&tooldeck(&[
            "lint",
            arg(&broken),
            "--config",
            config,
            "--allow",
            "gemini",
            "--deny",
            "schema/min-above-max"
        ])),
        1
    );
    assert_eq!(code(&tooldeck(&["lint", arg(&clean), "--config", config, "--allow", "gemini/json-schema-only"])), 0);
    let broken_config = dir.path().join("bad.toml");
    std::fs::write(&broken_config, "[lint]\nof = []\n").unwrap();
    let output = tooldeck(&["lint", arg(&clean), "--config", arg(&broken_config)]);
    assert_eq!(code(&output), 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("bad.toml:2"));
}

#[test]
fn json_output() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "tools.json", &broken_bounds());
    let report = json_of(&tooldeck(&["lint", arg(&file), "--json"]));
    assert_eq!(report["tools"], 1);
    let finding = report["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "schema/min-above-max").unwrap();
    assert_eq!(finding["severity"], "error");
    let (line, column) = position_of_value(&file, "\"minimum\": ");
    assert_eq!(finding["line"], line);
    assert_eq!(finding["column"], column);
    assert_eq!(finding["pointer"], "/properties/n/minimum");
    assert!(finding["fix"].as_str().unwrap().contains("minimum"));
    assert_eq!(report["summary"]["errors"], 1);
    assert_eq!(report["cost"]["tokenizer"], "o200k_base");
    assert!(report["cost"]["total"].as_u64().unwrap() > 20);
    assert_eq!(report["cost"]["tools"][0]["name"], "count_products");
}

/// The fields SARIF 2.1.0's schema requires, and the ones code scanning needs to place a result.
fn assert_sarif_shape(log: &Value) {
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "tooldeck");
    let rules = driver["rules"].as_array().expect("driver.rules");
    for rule in rules {
        assert!(rule["id"].is_string());
        assert!(rule["shortDescription"]["text"].is_string());
    }
    for result in runs[0]["results"].as_array().expect("results") {
        let id = result["ruleId"].as_str().expect("ruleId");
        assert!(rules.iter().any(|r| r["id"] == id), "{id} is not among the rules");
        if let Some(i) = result["ruleIndex"].as_u64() {
            assert_eq!(rules[i as usize]["id"], id);
        }
        assert!(["error", "warning", "note", "none"].contains(&result["level"].as_str().unwrap()));
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        for location in result["locations"].as_array().expect("locations") {
            let physical = &location["physicalLocation"];
            assert!(!physical["artifactLocation"]["uri"].as_str().unwrap().is_empty());
            assert!(physical["region"]["startLine"].as_u64().unwrap() >= 1);
            assert!(physical["region"]["startColumn"].as_u64().unwrap() >= 1);
        }
    }
}

#[test]
fn sarif_has_the_required_shape() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "tools.json", &broken_bounds());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"tools\": [{\"name\": \"x\", \"inputSchema\": {\"type\": 5}}]}").unwrap();
    let sarif = dir.path().join("out.sarif");
    let output = tooldeck(&["lint", arg(&file), arg(&bad), "--sarif", arg(&sarif)]);
    assert_eq!(code(&output), 1);
    assert!(stdout(&output).contains("error[schema/min-above-max]"), "text still printed");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_sarif_shape(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let bounds = results.iter().find(|r| r["ruleId"] == "schema/min-above-max").unwrap();
    assert_eq!(bounds["level"], "error");
    assert_eq!(
        bounds["locations"][0]["physicalLocation"]["region"]["startLine"],
        position_of_value(&file, "\"minimum\": ").0
    );
    assert!(results.iter().any(|r| r["ruleId"] == "load/error"));
    // To standard output instead of the text.
    let piped = tooldeck(&["lint", arg(&file), "--sarif", "-"]);
    assert_sarif_shape(&json_of(&piped));
}

#[test]
fn rules_are_listed_with_their_sources() {
    let output = tooldeck(&["lint", "--rules"]);
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    assert!(text.contains("openai/name") && text.contains("https://platform.openai.com/"), "{text}");
    assert!(text.contains("mcp/name") && text.contains("modelcontextprotocol.io"), "{text}");
}

#[test]
fn sample_tools_lint() {
    let output = tooldeck(&["lint", "--json"]);
    let report = json_of(&output);
    assert!(report["tools"].as_u64().unwrap() > 20);
    assert_eq!(report["load"]["errors"].as_array().unwrap().len(), 0);
}

#[test]
fn the_corpus_lints_without_a_crash() {
    let Some(corpus) = corpus_dir::find() else { return };
    let output = tooldeck(&["lint", "--json", corpus.to_str().unwrap()]);
    let report = json_of(&output);
    assert!(report["tools"].as_u64().unwrap() > 250);
    assert_eq!(report["load"]["errors"].as_array().unwrap().len(), 0);
    for finding in report["findings"].as_array().unwrap() {
        assert!(finding["line"].as_u64().unwrap() >= 1, "{finding}");
    }
}

// --- a live MCP server: this test binary again, serving two tools over stdio ---

#[derive(Debug, Clone, Default)]
struct LintServer;

fn schema(value: Value) -> std::sync::Arc<serde_json::Map<String, Value>> {
    std::sync::Arc::new(value.as_object().cloned().unwrap())
}

impl ServerHandler for LintServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let bounds = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1, "description": "How many"}}});
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("shop.count", "Count the products in the catalog whose name matches a text.", schema(bounds)),
            Tool::new(
                "ping",
                "Answer pong, to check that the server is up and answering.",
                schema(json!({"type": "object"})),
            ),
        ]))
    }
}

/// Not a test: the stdio server `server_command` starts (does nothing in a normal run).
#[tokio::test]
async fn lint_server_mode() {
    if std::env::var(SERVER_ENV).is_err() {
        return;
    }
    {
        use std::io::Write;
        let mut out = std::io::stdout();
        let _ = out.write_all(b"\n").and_then(|()| out.flush());
    }
    let server = LintServer.serve(rmcp::transport::stdio()).await.expect("serve stdio");
    let _ = server.waiting().await;
    std::process::exit(0);
}

fn server_command() -> String {
    let exe = std::env::current_exe().unwrap();
    format!("env {SERVER_ENV}=1 '{}' --exact lint::lint_server_mode --nocapture --test-threads=1", exe.display())
}

#[test]
fn a_live_mcp_servers_tools_are_linted_by_name() {
    let server = server_command();
    let output = tooldeck(&["lint", "--mcp", &server, "--target", "openai"]);
    assert_eq!(code(&output), 1, "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.lines().any(|l| l.starts_with("shop.count: error[schema/min-above-max]")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("shop.count: error[openai/name]")), "{text}");
    assert!(text.lines().last().unwrap().starts_with("linted 2 tools from the server: "), "{text}");
    let sarif = tooldeck(&["lint", "--mcp", &server, "--sarif", "-"]);
    let log = json_of(&sarif);
    assert_sarif_shape(&log);
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["locations"][0]["logicalLocations"][0]["name"], "shop.count");
    let unreachable = tooldeck(&["lint", "--mcp", "no-such-command-for-tooldeck-lint"]);
    assert_eq!(code(&unreachable), 5);
}
