//! What a server asks during a call (elicitation in form and URL mode, sampling, roots, tasks),
//! answered by tooldeck's client at each protocol revision rmcp 3.9 speaks: servers built here
//! with rmcp, pinned to 2025-06-18, 2025-11-25 (server-initiated requests) and 2026-07-28
//! (multi-round `input_required` results and SEP-2663 tasks). 2025-11-25's task-augmented
//! `tools/call` has no rmcp server (rmcp 3.9 models only SEP-2663's tasks), so it is met by a
//! small JSON-RPC server written out by hand.
#![allow(deprecated)] // sampling and roots: rmcp marks them deprecated (SEP-2577)

use std::borrow::Cow;
use std::collections::BTreeMap;

use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateTaskResult, DetailedTask, ElicitRequest,
    ElicitRequestParams, GetTaskParams, GetTaskResult, InputRequest, InputRequiredResult, ListRootsRequest,
    ProtocolVersion, ServerRequest, Task, TaskPayload, TaskStatus,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tooldeck::invoke::mcp::asks::{Asks, ClientSetup, ElicitAnswer, Headless};

use super::*;

/// A server that asks back, speaking only `version`.
#[derive(Clone)]
struct AskServer {
    version: ProtocolVersion,
    /// How many `notifications/roots/list_changed` it heard.
    roots_changed: Arc<std::sync::atomic::AtomicUsize>,
}

impl AskServer {
    fn at(version: ProtocolVersion) -> AskServer {
        AskServer { version, roots_changed: Default::default() }
    }
}

fn form_params() -> ElicitRequestParams {
    serde_json::from_value(json!({
        "mode": "form",
        "message": "Who are you?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name"},
                "age": {"type": "integer", "minimum": 0},
                "color": {"type": "string", "enum": ["red", "green"]}
            },
            "required": ["name"]
        }
    }))
    .unwrap()
}

fn url_params() -> ElicitRequestParams {
    serde_json::from_value(json!({
        "mode": "url", "message": "Log in first", "url": "https://auth.example/login", "elicitationId": "e-1"
    }))
    .unwrap()
}

fn sample_params() -> CreateMessageRequestParams {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is 2+2?"}}],
        "systemPrompt": "Be brief", "maxTokens": 20
    }))
    .unwrap()
}

/// What tool `name` asks of the client.
fn input_request(name: &str) -> Option<InputRequest> {
    Some(match name {
        "form" => InputRequest::Elicitation(ElicitRequest::new(form_params())),
        "url" => InputRequest::Elicitation(ElicitRequest::new(url_params())),
        "sample" => InputRequest::CreateMessage(CreateMessageRequest::new(sample_params())),
        "roots" => InputRequest::ListRoots(ListRootsRequest::default()),
        _ => return None,
    })
}

fn ask_tools() -> Vec<Tool> {
    ["form", "url", "sample", "roots", "loop", "task"]
        .iter()
        .map(|name| Tool::new(*name, "asks the client", schema(json!({"type": "object"}))))
        .collect()
}

fn echo(value: Value) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(value.to_string())])
}

impl ServerHandler for AskServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build());
        config.protocol_version = self.version.clone();
        config
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(vec![self.version.clone()])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(ask_tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if name == "task" {
            let task = Task::new("task-7", TaskStatus::Working, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
                .with_status_message("thinking")
                .with_poll_interval_ms(100);
            return Ok(CreateTaskResult::new(task).into());
        }
        if self.version >= ProtocolVersion::V_2026_07_28 {
            // 2026-07-28: no server-initiated requests; ask with an input_required result.
            if let Some(responses) = request.input_responses {
                return Ok(echo(json!(responses.get("q"))).into());
            }
            if name == "loop" {
                let requests = BTreeMap::from([("q".to_string(), input_request("form").unwrap())]);
                return Ok(InputRequiredResult::new(Some(requests), None).into());
            }
            let Some(asked) = input_request(&name) else { return Err(ErrorData::invalid_params("no such tool", None)) };
            let requests = BTreeMap::from([("q".to_string(), asked)]);
            return Ok(InputRequiredResult::new(Some(requests), None).into());
        }
        let peer = &context.peer;
        let ask = |request: ServerRequest| async move { peer.send_request(request).await };
        let answer = match name.as_str() {
            "form" => ask(ServerRequest::ElicitRequest(ElicitRequest::new(form_params()))).await,
            "url" => ask(ServerRequest::ElicitRequest(ElicitRequest::new(url_params()))).await,
            "sample" => ask(ServerRequest::CreateMessageRequest(CreateMessageRequest::new(sample_params()))).await,
            "roots" => ask(ServerRequest::ListRootsRequest(ListRootsRequest::default())).await,
            "loop" => {
                let mut last = None;
                for _ in 0..100 {
                    last = Some(ask(ServerRequest::ElicitRequest(ElicitRequest::new(form_params()))).await);
                }
                last.unwrap()
            }
            _ => return Err(ErrorData::invalid_params("no such tool", None)),
        };
        Ok(match answer {
            Ok(ClientResult::ElicitResult(r)) => echo(json!(r)),
            Ok(ClientResult::CreateMessageResult(r)) => echo(json!(r)),
            Ok(ClientResult::ListRootsResult(r)) => echo(json!(r)),
            Ok(other) => echo(json!({"other": format!("{other:?}")})),
            Err(e) => echo(json!({"error": e.to_string()})),
        }
        .into())
    }

    async fn on_roots_list_changed(&self, _context: rmcp::service::NotificationContext<RoleServer>) {
        self.roots_changed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let task = Task::new(request.task_id, TaskStatus::Completed, "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z");
        let result = json!({"content": [{"type": "text", "text": "the task is done"}]});
        let payload = TaskPayload::Completed { result: result.as_object().cloned().unwrap() };
        Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
    }
}

/// An endpoint to an `AskServer` at `version`, answering with `answers` and offering `roots`.
async fn ask_endpoint(version: ProtocolVersion, answers: Headless, roots: Vec<String>) -> McpEndpoint {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(server) = AskServer::at(version).serve(server_side).await {
            let _ = server.waiting().await;
        }
    });
    let setup = ClientSetup { asks: Asks::headless(answers, roots), ..ClientSetup::default() };
    McpEndpoint::connect_io_with(client_side, "mcp:asks", setup).await.expect("connect")
}

const REVISIONS: [ProtocolVersion; 3] =
    [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

fn text_of(outcome: &tooldeck::invoke::Outcome) -> String {
    // A text that is JSON comes back parsed; compact JSON either way.
    match &outcome.value {
        Some(Value::String(text)) => text.clone(),
        Some(value) => value.to_string(),
        None => String::new(),
    }
}

#[tokio::test]
async fn a_form_elicitation_is_answered_with_the_content_given_at_every_revision() {
    for version in REVISIONS {
        let answers =
            Headless { elicit: Some(ElicitAnswer::Accept(json!({"name": "Ada", "age": 36}))), ..Default::default() };
        let endpoint = ask_endpoint(version.clone(), answers, vec![]).await;
        assert_eq!(endpoint.protocol_version().as_deref(), Some(version.as_str()), "the revision is the server's");
        let (outcome, _) = endpoint.call(&CallRequest::new("form", json!({}))).await.unwrap();
        let text = text_of(&outcome);
        assert!(text.contains(r#""action":"accept""#) && text.contains(r#""name":"Ada""#), "{version}: {text}");
        assert_eq!(outcome.asked.len(), 1, "{version}");
        assert_eq!(outcome.asked[0]["request"]["mode"], "form");
        assert_eq!(outcome.asked[0]["request"]["requestedSchema"]["required"], json!(["name"]));
        assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
        assert_eq!(outcome.protocol.as_deref(), Some(version.as_str()));
    }
}

#[tokio::test]
async fn unanswered_asks_are_declined_and_the_outcome_says_what_was_asked() {
    for version in REVISIONS {
        let endpoint = ask_endpoint(version.clone(), Headless::default(), vec![]).await;
        let (outcome, _) = endpoint.call(&CallRequest::new("form", json!({}))).await.unwrap();
        assert!(text_of(&outcome).contains(r#""action":"decline""#), "{version}: {}", text_of(&outcome));
        assert!(
            outcome.warnings.iter().any(|w| w.contains("Who are you?") && w.contains("--elicit-json")),
            "{:?}",
            outcome.warnings
        );
    }
}

#[tokio::test]
async fn url_mode_sampling_and_roots_at_every_revision() {
    for version in REVISIONS {
        let answers =
            Headless { elicit: Some(ElicitAnswer::Accept(json!({}))), sample_text: Some("4".into()), roots: None };
        let endpoint = ask_endpoint(version.clone(), answers, vec!["/tmp".into()]).await;
        let (outcome, _) = endpoint.call(&CallRequest::new("url", json!({}))).await.unwrap();
        let text = text_of(&outcome);
        assert!(text.contains(r#""action":"accept""#) && !text.contains("content"), "{version}: {text}");
        assert_eq!(outcome.asked[0]["request"]["url"], "https://auth.example/login");
        let (outcome, _) = endpoint.call(&CallRequest::new("sample", json!({}))).await.unwrap();
        let text = text_of(&outcome);
        assert!(text.contains(r#""text":"4""#) && text.contains(r#""role":"assistant""#), "{version}: {text}");
        let (outcome, _) = endpoint.call(&CallRequest::new("roots", json!({}))).await.unwrap();
        assert!(text_of(&outcome).contains("file:///tmp"), "{version}: {}", text_of(&outcome));
    }
}

#[tokio::test]
async fn a_server_asking_in_a_loop_is_refused_after_a_bound() {
    // 2025-x: the server asks 100 times in one call; 2026-07-28: it answers every round with
    // another input_required, and rmcp's round cap ends the call.
    let answers = Headless { elicit: Some(ElicitAnswer::Cancel), ..Default::default() };
    let endpoint = ask_endpoint(ProtocolVersion::V_2025_11_25, answers.clone(), vec![]).await;
    let (outcome, _) = endpoint.call(&CallRequest::new("loop", json!({}))).await.unwrap();
    assert!(outcome.warnings.iter().any(|w| w.contains("more than")), "{:?}", outcome.warnings);
    // Past the cap, asks are counted, not kept: 25 answered, the first refusal, and a count.
    assert_eq!(outcome.asked.len(), 26);
    assert!(outcome.warnings.iter().any(|w| w.starts_with("74 more asks")), "{:?}", outcome.warnings);
}

#[tokio::test]
async fn a_2026_task_is_polled_to_its_result() {
    let endpoint = ask_endpoint(ProtocolVersion::V_2026_07_28, Headless::default(), vec![]).await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_by = Arc::clone(&seen);
    let (outcome, _) = endpoint
        .call_with_progress(&CallRequest::new("task", json!({})), move |p| {
            seen_by.lock().unwrap().push(p.message.unwrap_or_default())
        })
        .await
        .unwrap();
    assert_eq!(text_of(&outcome), "the task is done");
    assert!(seen.lock().unwrap().iter().any(|m| m.contains("task task-7: completed")), "{:?}", seen.lock().unwrap());
}

#[tokio::test]
async fn a_pinned_revision_is_asked_for_and_a_server_without_it_is_an_error() {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(server) = AskServer::at(ProtocolVersion::V_2025_11_25).serve(server_side).await {
            let _ = server.waiting().await;
        }
    });
    let setup = ClientSetup { protocol: Some("2025-06-18".into()), ..ClientSetup::default() };
    let error = McpEndpoint::connect_io_with(client_side, "mcp:asks", setup).await.unwrap_err().to_string();
    assert!(error.contains("2025-11-25") && error.contains("--protocol"), "{error}");
    let (_, client_side) = tokio::io::duplex(1024);
    let setup = ClientSetup { protocol: Some("1999-01-01".into()), ..ClientSetup::default() };
    let error = McpEndpoint::connect_io_with(client_side, "mcp:asks", setup).await.unwrap_err().to_string();
    assert!(error.contains("not a revision tooldeck knows"), "{error}");
}

/// A 2025-11-25 server with a task-only tool, written out by hand: `tools/call` with `task`
/// makes a task, `tasks/get` says it is done, `tasks/result` gives the result. A call without
/// `task` is refused the way the TypeScript SDK refuses it.
async fn legacy_task_server(stream: tokio::io::DuplexStream, methods: Arc<std::sync::Mutex<Vec<String>>>) {
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).unwrap_or_default();
        let Some(id) = message.get("id").cloned() else { continue };
        let method = message["method"].as_str().unwrap_or_default().to_string();
        methods.lock().unwrap().push(method.clone());
        let result = match method.as_str() {
            "initialize" => {
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}, "serverInfo": {"name": "legacy", "version": "1"}})
            }
            "tools/list" => {
                json!({"tools": [{"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}]})
            }
            "tools/call" if message["params"].get("task").is_some() => {
                json!({"task": {"taskId": "t-1", "status": "working", "createdAt": "2025-01-01T00:00:00Z", "lastUpdatedAt": "2025-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 100}})
            }
            "tools/call" => {
                json!({"isError": true, "content": [{"type": "text", "text": "MCP error -32601: Tool research requires task augmentation (taskSupport: 'required')"}]})
            }
            "tasks/get" => {
                json!({"taskId": "t-1", "status": "completed", "createdAt": "2025-01-01T00:00:00Z", "lastUpdatedAt": "2025-01-01T00:00:01Z", "ttl": 60000})
            }
            "tasks/result" => json!({"content": [{"type": "text", "text": "researched"}]}),
            _ => {
                let error =
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}});
                let _ = write.write_all(format!("{error}\n").as_bytes()).await;
                continue;
            }
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        let _ = write.write_all(format!("{answer}\n").as_bytes()).await;
    }
}

#[tokio::test]
async fn a_2025_11_25_task_only_tool_runs_as_a_task() {
    for as_task in [true, false] {
        let methods = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (server_side, client_side) = tokio::io::duplex(64 * 1024);
        tokio::spawn(legacy_task_server(server_side, Arc::clone(&methods)));
        let endpoint = McpEndpoint::connect_io(client_side, "mcp:legacy").await.expect("connect");
        assert_eq!(endpoint.protocol_version().as_deref(), Some("2025-11-25"));
        let mut request = CallRequest::new("research", json!({}));
        request.as_task = as_task;
        let (outcome, _) = endpoint.call(&request).await.unwrap();
        assert_eq!(text_of(&outcome), "researched", "as_task {as_task}");
        let methods = methods.lock().unwrap().clone();
        assert!(methods.contains(&"tasks/result".to_string()), "{methods:?}");
        // Without --task, the refusal is heard and the call made again as a task.
        assert_eq!(methods.iter().filter(|m| *m == "tools/call").count(), if as_task { 1 } else { 2 }, "{methods:?}");
    }
}

/// The stdio server `ASKS_ENV` asks for.
pub async fn stdio_ask_server() -> rmcp::service::RunningService<RoleServer, impl ServerHandler> {
    AskServer::at(ProtocolVersion::V_2025_11_25).serve(rmcp::transport::stdio()).await.expect("serve stdio")
}

/// `tooldeck call` headless, end to end: the server's elicitation is answered with
/// `--elicit-json`, its echo comes back with exit 0, and what was asked is in the JSON.
#[test]
fn call_answers_an_elicitation_from_the_command_line() {
    let server = stdio_command_with(&format!("{ASKS_ENV}=1"));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "form", "--mcp", &server, "--elicit-json", r#"{"name": "Ada"}"#])
        .env("TOOLDECK_HISTORY", std::env::temp_dir().join(format!("tooldeck-asks-{}.jsonl", std::process::id())))
        .output()
        .expect("tooldeck runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let outcome: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(outcome["value"]["content"]["name"], "Ada", "{outcome}");
    assert_eq!(outcome["asked"][0]["answer"], "accepted");
    assert_eq!(outcome["protocol"], "2025-11-25");
    // Nothing given: declined, said in the warnings, still exit 0 (the tool answered).
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "sample", "--mcp", &server])
        .env("TOOLDECK_HISTORY", std::env::temp_dir().join(format!("tooldeck-asks-{}.jsonl", std::process::id())))
        .output()
        .expect("tooldeck runs");
    let outcome: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert!(outcome["warnings"][0].as_str().unwrap_or_default().contains("--sample-text"), "{outcome}");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["call", "form", "--mcp", &server, "--elicit-json", "[1]"])
        .output()
        .expect("tooldeck runs");
    assert_eq!(output.status.code(), Some(2), "a bad --elicit-json is a usage error");
}

/// `tooldeck test`: a case answers the server's questions with `elicit:` and `sample:`, and
/// `expect.elicited` checks what was asked; a case that expects a question never asked fails.
#[test]
fn test_cases_answer_and_expect_what_was_elicited() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = dir.path().join("asks.yaml");
    let yaml = format!(
        r#"mcp: "{}"
cases:
  - name: signs up
    tool: form
    elicit: {{name: Ada}}
    expect:
      status: value
      pointer: {{/content/name: Ada}}
      elicited: {{message: "Who are you?", requestedSchema: {{required: [name]}}}}
  - name: declines
    tool: form
    elicit: decline
    expect: {{pointer: {{/action: decline}}}}
  - name: samples
    tool: sample
    sample: "4"
    expect: {{contains: {{content: {{text: "4"}}}}}}
  - name: expects a question never asked
    tool: roots
    expect: {{elicited: {{mode: url}}}}
"#,
        stdio_command_with(&format!("{ASKS_ENV}=1")).replace('\\', "\\\\").replace('"', "\\\"")
    );
    std::fs::write(&cases, yaml).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["test", cases.to_str().unwrap(), "--json"])
        .output()
        .expect("tooldeck runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_default();
    let verdict = |name: &str| {
        report["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == name)
            .map(|v| v.get("result").and_then(Value::as_str).unwrap_or_default().to_string())
    };
    for passing in ["signs up", "declines", "samples"] {
        assert_eq!(verdict(passing).as_deref(), Some("passed"), "{passing}: {stdout}");
    }
    assert_eq!(verdict("expects a question never asked").as_deref(), Some("failed"), "{stdout}");
    assert!(stdout.contains("nothing was asked"), "{stdout}");
}

/// Changing the roots (R in the app) tells the server once; setting the same roots again does not.
#[tokio::test]
async fn a_change_of_roots_is_announced_to_the_server() {
    let server = AskServer::at(ProtocolVersion::V_2025_11_25);
    let heard = Arc::clone(&server.roots_changed);
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let setup = ClientSetup { asks: Asks::headless(Headless::default(), vec!["/a".into()]), ..ClientSetup::default() };
    let connected = McpEndpoint::connect_io_with(client_side, "mcp:asks", setup.clone()).await.unwrap();
    let timeout = std::time::Duration::from_secs(30);
    let stdio = tooldeck::invoke::mcp::stdio::McpStdio::from_endpoint(connected, "mcp:asks", timeout, setup);
    let endpoint = tooldeck::invoke::Endpoint::Mcp(stdio.into());
    endpoint.set_roots(vec!["/a".into(), "/b".into()]).await;
    endpoint.set_roots(vec!["/a".into(), "/b".into()]).await;
    let (outcome, _) = endpoint.call(&CallRequest::new("roots", json!({}))).await.unwrap();
    assert!(text_of(&outcome).contains("file:///b"), "{}", text_of(&outcome));
    // The server handles notifications on tasks of its own: give it a moment.
    for _ in 0..250 {
        if heard.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(heard.load(std::sync::atomic::Ordering::SeqCst), 1, "one change, one notification");
}
