//! MCP Apps (#38): tools with a `ui://` view seen by `list`, `resources` and lint, and hosted:
//! the bridge spoken to directly over loopback, and the whole app driven in a real headless
//! chromium through chromedriver (WebDriver over reqwest). Without chromium and chromedriver the
//! browser tests say why and skip; `.ci/run` installs them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use tooldeck::app::{InputMsg, ServerEffect};
use tooldeck::apps::AppEvent;
use tooldeck::invoke::Endpoint;
use tooldeck::invoke::endpoint::EndpointOptions;

#[path = "apps_browser.rs"]
pub mod browser;

/// The view: shows the time its tool's result gave it; its button gets a new time through the
/// host, then tries what it may not (a model-only tool, a javascript: link) and what it may.
pub const VIEW: &str = r#"<!doctype html><html><body>
<div id="time">waiting</div><button id="more">more</button><div id="status">-</div>
<script>
let next = 1; const pending = {};
function request(method, params) {
  const id = next++; parent.postMessage({jsonrpc: "2.0", id, method, params}, "*");
  return new Promise((done) => { pending[id] = done; });
}
function notify(method, params) { parent.postMessage({jsonrpc: "2.0", method, params}, "*"); }
let inputs = 0;
window.addEventListener("message", (e) => {
  if (e.source !== parent) return;
  const m = e.data;
  if (m.method === "ui/resource-teardown") { parent.postMessage({jsonrpc: "2.0", id: m.id, result: {}}, "*"); return; }
  if (m.id !== undefined && pending[m.id]) { pending[m.id](m); delete pending[m.id]; return; }
  if (m.method === "ui/notifications/tool-input") document.body.dataset.inputs = ++inputs;
  if (m.method === "ui/notifications/tool-result") document.getElementById("time").textContent = m.params.structuredContent.time;
});
document.getElementById("more").onclick = async () => {
  const r = await request("tools/call", {name: "refresh", arguments: {}});
  document.getElementById("time").textContent = r.result.structuredContent.time;
  const bad = await request("tools/call", {name: "model-only", arguments: {}});
  await request("ui/message", {role: "user", content: [{type: "text", text: "hello from the app"}]});
  await request("ui/open-link", {url: "https://example.com/docs"});
  const js = await request("ui/open-link", {url: "javascript:alert(1)"});
  let fetched = "blocked";
  try { await fetch("https://example.com/"); fetched = "reached"; } catch (_) {}
  document.getElementById("status").textContent = (bad.error ? "refused" : "allowed") + " " + (js.error ? "refused" : "opened") + " " + fetched;
};
(async () => {
  const init = await request("ui/initialize", {appInfo: {name: "clock", version: "1.0"}, appCapabilities: {}, protocolVersion: "2026-01-26"});
  document.body.dataset.theme = init.result.hostContext.theme;
  document.body.dataset.background = init.result.hostContext.styles.variables["--color-background-primary"];
  notify("notifications/message", {level: "info", data: "clock ready"});
  notify("ui/notifications/initialized", {});
})();
</script></body></html>"#;

/// A view that floods the host with messages and never starts the handshake.
pub const FLOOD: &str = r#"<!doctype html><html><body><script>
for (let i = 0; i < 5000; i++) parent.postMessage({jsonrpc: "2.0", method: "notifications/message", params: {level: "info", data: "x" + i}}, "*");
</script></body></html>"#;

/// Calls answered by every test server, so that each answer's time differs from every other's,
/// whichever MCP session it came over.
static CALLS: AtomicU64 = AtomicU64::new(0);

/// Tools with views, an app-only tool, a model-only tool, and views that are bad on purpose.
#[derive(Clone, Default)]
pub struct AppServer;

fn typed<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid rmcp value")
}

fn app_tool(name: &str, uri: &str, visibility: Value) -> Value {
    json!({"name": name, "description": format!("{name}, with a view"), "inputSchema": {"type": "object"},
           "_meta": {"ui": {"resourceUri": uri, "visibility": visibility}}})
}

impl ServerHandler for AppServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(typed(json!({"tools": [
            app_tool("get-time", "ui://clock/view", json!(["model", "app"])),
            app_tool("refresh", "ui://clock/view", json!(["app"])),
            {"name": "model-only", "description": "Only a model calls this one.", "inputSchema": {"type": "object"},
             "_meta": {"ui": {"resourceUri": "ui://clock/view", "visibility": ["model"]}}},
            app_tool("flood", "ui://flood/view", json!(["model", "app"])),
            app_tool("huge", "ui://huge/view", json!(["model", "app"])),
            app_tool("plain", "ui://plain/view", json!(["model", "app"])),
            app_tool("orphan", "ui://nowhere/view", json!(["model", "app"])),
            {"name": "legacy", "description": "Named by the old key.", "inputSchema": {"type": "object"},
             "_meta": {"ui/resourceUri": "ui://clock/view"}},
        ]})))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let n = CALLS.fetch_add(1, Ordering::SeqCst) + 1;
        let time = format!("T{n}-{}", request.name);
        let result: rmcp::model::CallToolResult =
            typed(json!({"content": [{"type": "text", "text": time}], "structuredContent": {"time": time}}));
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(typed(json!({"resources": [
            {"uri": "ui://clock/view", "name": "clock", "mimeType": "text/html;profile=mcp-app"},
            {"uri": "ui://flood/view", "name": "flood", "mimeType": "text/html;profile=mcp-app"},
            {"uri": "ui://huge/view", "name": "huge", "mimeType": "text/html;profile=mcp-app"},
            {"uri": "ui://plain/view", "name": "plain", "mimeType": "text/plain"},
            {"uri": "test://notes", "name": "notes", "mimeType": "text/plain"},
        ]})))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        let mime = "text/html;profile=mcp-app";
        let csp = json!({"ui": {"csp": {"connectDomains": ["*", "http://plain.example"], "resourceDomains": ["https://cdn.example.com"]}}});
        let content = match uri {
            "ui://clock/view" => json!({"uri": uri, "mimeType": mime, "text": VIEW, "_meta": csp}),
            "ui://flood/view" => json!({"uri": uri, "mimeType": mime, "text": FLOOD}),
            "ui://huge/view" => json!({"uri": uri, "mimeType": mime, "text": "<p>".repeat(50 * 1024 * 1024 / 3)}),
            "ui://plain/view" => json!({"uri": uri, "mimeType": "text/plain", "text": "not an app"}),
            _ => return Err(ErrorData::resource_not_found(format!("no resource {uri}"), None)),
        };
        Ok(typed::<rmcp::model::ReadResourceResult>(json!({"contents": [content]})).into())
    }
}

/// The server on 127.0.0.1 over Streamable HTTP; its URL.
pub async fn serve_http() -> String {
    crate::mcp::serve_http_with(|| AppServer).await
}

pub async fn connect(url: &str) -> Arc<Endpoint> {
    let options = EndpointOptions { mcp_url: Some(url.into()), ..EndpointOptions::default() };
    Arc::new(options.connect(Vec::new(), None).await.expect("connects"))
}

pub async fn tools(endpoint: &Endpoint) -> Vec<tooldeck::catalog::Tool> {
    let options = tooldeck::invoke::endpoint::to_call();
    tooldeck::invoke::endpoint::list_catalog(endpoint, "apps", &options).await.expect("listed").0
}

/// Starts `name`'s app with a short wait for the handshake.
pub async fn start(url: &str, name: &str) -> Result<tooldeck::apps::Started, tooldeck::apps::AppError> {
    let endpoint = connect(url).await;
    let tools = tools(&endpoint).await;
    let tool = tools.iter().find(|t| t.name == name).expect("the tool").clone();
    tooldeck::apps::start(endpoint, tools, &tool, json!({}), &tooldeck::apps::Options::new(Duration::from_secs(2)))
        .await
}

/// Every event heard within `wait`, or until `done` holds for them.
pub async fn heard(
    events: &mut tokio::sync::mpsc::Receiver<AppEvent>,
    wait: Duration,
    done: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    let mut lines = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    while !done(&lines) {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Some(event)) => lines.push(event.to_string()),
            _ => break,
        }
    }
    lines
}

fn tooldeck(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(args).output().expect("tooldeck runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_marks_apps_and_names_their_resource() {
    let url = serve_http().await;
    let out = tokio::task::spawn_blocking(move || {
        let table = tooldeck(&["list", "--mcp-url", &url]);
        let json = tooldeck(&["list", "--json", "--mcp-url", &url]);
        let resources = tooldeck(&["resources", "--mcp-url", &url]);
        let lint = tooldeck(&["lint", "--mcp-url", &url]);
        (table, json, resources, lint)
    })
    .await
    .unwrap();
    let table = String::from_utf8_lossy(&out.0.stdout).to_string();
    assert!(table.lines().any(|l| l.starts_with("get-time") && l.contains("[app] ")), "{table}");
    assert!(table.lines().any(|l| l.starts_with("refresh") && l.contains("[app-only] ")), "{table}");
    let listed: Value = serde_json::from_slice(&out.1.stdout).expect("JSON");
    let get_time = listed.as_array().unwrap().iter().find(|t| t["name"] == "get-time").unwrap();
    assert_eq!(get_time["app"]["resource_uri"], "ui://clock/view");
    assert_eq!(get_time["app"]["visibility"], json!(["model", "app"]));
    let legacy = listed.as_array().unwrap().iter().find(|t| t["name"] == "legacy").unwrap();
    assert_eq!(legacy["app"]["resource_uri"], "ui://clock/view", "the legacy key is read");
    let resources = String::from_utf8_lossy(&out.2.stdout).to_string();
    assert!(resources.lines().any(|l| l.starts_with("ui://clock/view") && l.ends_with("[app]")), "{resources}");
    assert!(resources.lines().any(|l| l.starts_with("ui://plain/view") && l.contains("should be")), "{resources}");
    assert!(resources.lines().any(|l| l.starts_with("test://notes") && !l.contains("[app")), "{resources}");
    let lint = String::from_utf8_lossy(&out.3.stdout).to_string();
    assert!(lint.contains("apps/missing-resource") && lint.contains("ui://nowhere/view"), "{lint}");
    assert!(lint.contains("apps/resource-mime") && lint.contains("ui://plain/view"), "{lint}");
    assert!(lint.contains("apps/legacy-key"), "{lint}");
    assert!(lint.lines().any(|l| l.contains("refresh") && l.contains("apps/app-only")), "{lint}");
    // An app-only tool is no model's: its short description gets no tip.
    assert!(!lint.lines().any(|l| l.starts_with("refresh") && l.contains("tips/")), "{lint}");
    assert_eq!(out.3.status.code(), Some(1), "a missing resource is an error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_views_are_refused_with_a_line() {
    let url = serve_http().await;
    let huge = start(&url, "huge").await.err().expect("refused").to_string();
    assert!(huge.contains("more than") || huge.contains("could not be read"), "{huge}");
    let plain = start(&url, "plain").await.err().expect("refused").to_string();
    assert!(plain.contains("not HTML"), "{plain}");
    let orphan = start(&url, "orphan").await.err().expect("refused").to_string();
    assert!(orphan.contains("could not be read"), "{orphan}");
}

/// The bridge without a browser: what a view would post, posted to the host page's endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_answers_as_the_spec_says() {
    let url = serve_http().await;
    let mut started = start(&url, "get-time").await.expect("started");
    assert!(started.notes.iter().any(|n| n.contains("\"*\" refused")), "{:?}", started.notes);
    assert!(started.notes.iter().any(|n| n.contains("http: origins")), "{:?}", started.notes);
    let client = tooldeck::invoke::http::client_builder().build().unwrap();
    let rpc = format!("{}rpc", started.hosted.url);
    let post = |body: Value| {
        let (client, rpc) = (client.clone(), rpc.clone());
        async move {
            let response = client.post(&rpc).json(&body).send().await.unwrap();
            if response.status() == 204 { Value::Null } else { response.json::<Value>().await.unwrap() }
        }
    };
    let init =
        post(json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {"appInfo": {"name": "t"}}})).await;
    assert_eq!(init["result"]["hostContext"]["toolInfo"]["tool"]["name"], "get-time");
    assert_eq!(init["result"]["hostContext"]["displayMode"], "inline");
    post(json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"})).await;
    let next: Value = client.get(format!("{}next", started.hosted.url)).send().await.unwrap().json().await.unwrap();
    assert_eq!(next[0]["method"], "ui/notifications/tool-input");
    assert_eq!(next[1]["method"], "ui/notifications/tool-result");
    assert!(next[1]["params"]["structuredContent"]["time"].as_str().unwrap().ends_with("get-time"), "{next}");
    let refused =
        post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "model-only"}})).await;
    assert!(refused["error"]["message"].as_str().unwrap().contains("visibility"), "{refused}");
    let called = post(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "refresh"}})).await;
    assert!(called["result"]["structuredContent"]["time"].as_str().unwrap().ends_with("refresh"), "{called}");
    let file =
        post(json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "test://notes"}})).await;
    assert!(file["error"].is_object(), "{file}");
    let view =
        post(json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "ui://clock/view"}}))
            .await;
    assert!(view["result"]["contents"][0]["text"].as_str().unwrap().contains("ui/initialize"), "{view}");
    for (id, url) in [(6, "file:///etc/passwd"), (7, "javascript:alert(1)"), (8, "mailto:a@example.com")] {
        post(json!({"jsonrpc": "2.0", "id": id, "method": "ui/open-link", "params": {"url": url}})).await;
    }
    let unknown = post(json!({"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage", "params": {}})).await;
    assert_eq!(unknown["error"]["code"], -32601);
    let lines = heard(&mut started.events, Duration::from_secs(5), |l| l.len() >= 10).await;
    let said = lines.join("\n");
    for expected in [
        "app: started (t)",
        "app: refused tools/call model-only",
        "app: called tool refresh",
        "app: refused resources/read test://notes",
        "app: read resource ui://clock/view",
        "app: refused to open file:///etc/passwd",
        "app: refused to open javascript:alert(1)",
        "app: asks to open mailto:a@example.com (not opened",
        "sampling/createMessage is not carried out",
    ] {
        assert!(said.contains(expected), "{expected:?} not in:\n{said}");
    }
    // Outside the secret path there is nothing.
    let origin = started.hosted.url.trim_end_matches('/').rsplit_once('/').unwrap().0.to_string();
    assert_eq!(client.get(format!("{origin}/")).send().await.unwrap().status(), 404);
    assert_eq!(client.get(format!("{}/view", started.hosted.sandbox_origin)).send().await.unwrap().status(), 404);
}

/// A view that bursts past the rate after a quiet second and then goes quiet: every drop is
/// said when its second ends, not when the view next sends (it never does). Posted straight to
/// the bridge: its own counter is what is tried, not the host page's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_then_silence_has_its_drops_said_on_the_next_tick() {
    let url = serve_http().await;
    let mut started = start(&url, "get-time").await.expect("started");
    let client = tooldeck::invoke::http::client_builder().build().unwrap();
    let rpc = format!("{}rpc", started.hosted.url);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let pings = (0..300).map(|id| {
        let request = client.post(&rpc).json(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    });
    let answers = futures_util::future::join_all(pings).await;
    let refused =
        answers.iter().filter(|a| a["error"]["message"].as_str().is_some_and(|m| m.contains("too many"))).count();
    assert!(refused > 0, "300 at once are more than {} a second", tooldeck::apps::bridge::MAX_PER_SECOND);
    let said_dropped = |lines: &[String]| -> usize {
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("app: ")?.split_once(" messages dropped")?.0.parse::<usize>().ok())
            .sum()
    };
    let lines = heard(&mut started.events, Duration::from_secs(5), |l| said_dropped(l) >= refused).await;
    assert_eq!(said_dropped(&lines), refused, "every drop said once, with nothing sent after: {lines:?}");
}

#[test]
fn the_app_command_needs_a_tool_with_an_app() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = runtime.block_on(serve_http());
    let missing = tooldeck(&["app", "nope", "--mcp-url", &url, "--no-browser"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no tool nope"));
    let plain = tooldeck(&["app", "plain", "--mcp-url", &url, "--no-browser"]);
    assert_eq!(plain.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&plain.stderr).contains("not HTML"), "{plain:?}");
    drop(runtime);
}

/// The whole app in a real browser: the view shows the time the tool's result gave it; its
/// button gets a new time through tooldeck; what it may not do is refused, and each request
/// is a line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_runs_in_a_real_browser() {
    let Some(driver) = browser::Driver::start("the_app_runs_in_a_real_browser").await else { return };
    let url = serve_http().await;
    let mut started = start(&url, "get-time").await.expect("started");
    driver.goto(&started.hosted.url).await;
    let frame = driver.find("iframe#view", Duration::from_secs(10)).await.expect("the view's frame");
    driver.enter_frame(&frame).await;
    let time = driver.find("#time", Duration::from_secs(10)).await.expect("the view");
    let first = driver.text_until(&time, Duration::from_secs(15), |t| t.ends_with("get-time")).await;
    assert!(first.starts_with('T') && first.ends_with("get-time"), "the view shows the tool's result: {first:?}");
    assert_eq!(driver.script("return document.body.dataset.theme").await, "dark");
    let button = driver.find("#more", Duration::from_secs(5)).await.expect("the button");
    driver.click(&button).await;
    let second = driver.text_until(&time, Duration::from_secs(15), |t| t.ends_with("refresh")).await;
    assert!(second.ends_with("refresh") && second != first, "the button got a new time: {second:?}");
    let status = driver.find("#status", Duration::from_secs(5)).await.unwrap();
    let status = driver.text_until(&status, Duration::from_secs(15), |t| t != "-").await;
    assert_eq!(status, "refused refused blocked", "model-only tool, javascript: link, a fetch the CSP does not allow");
    let lines = heard(&mut started.events, Duration::from_secs(15), |l| {
        l.iter().any(|x| x.contains("refused to open javascript:"))
    })
    .await;
    let said = lines.join("\n");
    for expected in [
        "app: started (clock 1.0)",
        "app: log info: clock ready",
        "app: called tool refresh",
        "app: refused tools/call model-only",
        "app: message: hello from the app",
        "app: asks to open https://example.com/docs (not opened",
        "app: refused to open javascript:alert(1)",
    ] {
        assert!(said.contains(expected), "{expected:?} not in:\n{said}");
    }
    driver.quit().await;
}

/// A view that floods the host and never starts the handshake: both said, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_view_is_cut_off_and_its_silence_said() {
    let Some(driver) = browser::Driver::start("a_flooding_view_is_cut_off_and_its_silence_said").await else { return };
    let url = serve_http().await;
    let mut started = start(&url, "flood").await.expect("started");
    driver.goto(&started.hosted.url).await;
    let lines = heard(&mut started.events, Duration::from_secs(20), |l| {
        l.iter().any(|x| x.contains("no ui/initialize")) && l.iter().any(|x| x.contains("dropped"))
    })
    .await;
    let logs = lines.iter().filter(|l| l.starts_with("app: log")).count();
    assert!(logs <= tooldeck::apps::bridge::MAX_PER_SECOND as usize * 2, "{logs} log lines got through");
    assert!(lines.iter().any(|l| l.contains("messages dropped: more than")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("sent no ui/initialize in 2 s")), "{lines:?}");
    driver.quit().await;
}

/// `A` in the TUI: a tool with an app asks the runtime to host it with the form's arguments; a
/// tool without one gets a line saying so.
#[test]
fn the_tui_key_hosts_the_selected_tools_app() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use tooldeck::app::{App, Effect, Msg, update};
    let listing = json!({"tools": [
        {"name": "plain", "description": "No view here.", "inputSchema": {"type": "object"}},
        app_tool("get-time", "ui://clock/view", json!(["model", "app"])),
    ]});
    let text = serde_json::to_string(&listing).unwrap();
    let (tools, _) = tooldeck::catalog::load_text("tools.json", &text, &Default::default());
    let mut catalog = tooldeck::catalog::Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    let mut app = App::new(catalog, &[], (120, 40));
    let _ = update(&mut app, Msg::Input(InputMsg::Resize(120, 40)));
    let key =
        |app: &mut App, code: KeyCode| update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    while app.selected_tool().map(|t| t.name.as_str()) != Some("plain") {
        key(&mut app, KeyCode::Down);
    }
    assert!(key(&mut app, KeyCode::Char('A')).is_empty());
    assert!(app.status().unwrap_or_default().contains("has no app"), "{:?}", app.status());
    while app.selected_tool().map(|t| t.name.as_str()) != Some("get-time") {
        key(&mut app, KeyCode::Down);
    }
    // The list and the tool's header mark it; the plain tool's row has no mark.
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
    terminal.draw(|frame| tooldeck::ui::render(&app, &tooldeck::theme::Styles::default(), frame)).unwrap();
    let screen = terminal.backend().to_string();
    // A list row: the marker column, then the name; only the list's half of the line.
    let row = |name: &str| {
        let line = screen.lines().find(|l| l.contains(&format!("│› {name}")) || l.contains(&format!("│  {name}")));
        line.unwrap_or_default().split("││").next().unwrap_or_default().to_string()
    };
    assert!(row("get-time").trim_end_matches('│').ends_with(" app"), "{screen}");
    assert!(!row("plain").contains(" app"), "{screen}");
    assert!(screen.contains("get-time · mcp · app · "), "the header says it: {screen}");
    match key(&mut app, KeyCode::Char('A')).as_slice() {
        [Effect::Server(ServerEffect::HostApp { tool, arguments })] => {
            assert_eq!(tool.name, "get-time");
            assert_eq!(arguments, &json!({}));
        }
        other => panic!("{other:?}"),
    }
}

/// The origin of a loopback URL (`http://127.0.0.1:PORT`), and whether anything listens there.
pub fn listening(url: &str) -> bool {
    let address = url.trim_start_matches("http://").split('/').next().unwrap_or_default();
    std::net::TcpStream::connect_timeout(&address.parse().expect("an address"), Duration::from_secs(1)).is_ok()
}

/// Later calls of the tool reach the running view (tool-input, tool-result); its own calls are
/// marked as the app's in the session's traffic; its host context carries the style given;
/// teardown is answered by the view, said on its page, and nothing listens afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn later_calls_reach_the_view_and_teardown_ends_it() {
    let test = "later_calls_reach_the_view_and_teardown_ends_it";
    let Some(driver) = browser::Driver::start(test).await else { return };
    let url = serve_http().await;
    let endpoint = connect(&url).await;
    let tools = tools(&endpoint).await;
    let tool = tools.iter().find(|t| t.name == "get-time").expect("the tool").clone();
    let style = tooldeck::apps::HostStyle {
        theme: "light".into(),
        variables: vec![("--color-background-primary".into(), "#fafafa".into())],
    };
    let options = tooldeck::apps::Options { init_wait: Duration::from_secs(2), style };
    let started = tooldeck::apps::start(Arc::clone(&endpoint), tools, &tool, json!({}), &options).await.unwrap();
    let (host, sandbox) = (started.hosted.url.clone(), started.hosted.sandbox_origin.clone());
    driver.goto(&host).await;
    let frame = driver.find("iframe#view", Duration::from_secs(10)).await.expect("the view's frame");
    driver.enter_frame(&frame).await;
    let time = driver.find("#time", Duration::from_secs(10)).await.expect("the view");
    let first = driver.text_until(&time, Duration::from_secs(15), |t| t.ends_with("get-time")).await;
    assert!(first.ends_with("get-time"), "{first:?}");
    assert_eq!(driver.script("return document.body.dataset.theme").await, "light");
    assert_eq!(driver.script("return document.body.dataset.background").await, "#fafafa");

    // The view's own call goes through the session and is marked as the app's.
    let button = driver.find("#more", Duration::from_secs(5)).await.expect("the button");
    driver.click(&button).await;
    driver.text_until(&time, Duration::from_secs(15), |t| t.ends_with("refresh")).await;
    let traffic = endpoint.traffic().expect("an MCP session records its traffic");
    let summaries: Vec<String> = traffic.since(0).0.iter().map(|e| e.summary()).collect();
    assert!(summaries.iter().any(|s| s.starts_with("app → tools/call")), "{summaries:#?}");
    assert!(summaries.iter().any(|s| s.starts_with("app ← tools/call")), "{summaries:#?}");
    assert!(
        summaries.iter().any(|s| s.starts_with("→ tools/call")),
        "tooldeck's first call is its own: {summaries:#?}"
    );

    // A later call of the tool (the TUI's form) reaches the view.
    let later = json!({"content": [{"type": "text", "text": "later"}], "structuredContent": {"time": "T99-later"}});
    started.bridge.tool_input(json!({"city": "Paris"}));
    started.bridge.tool_result(later);
    let shown = driver.text_until(&time, Duration::from_secs(15), |t| t == "T99-later").await;
    assert_eq!(shown, "T99-later", "the view shows the later call's result");
    assert_eq!(driver.script("return document.body.dataset.inputs").await, "2", "a tool-input for each call");

    // Teardown: the view answers, the page says why, the servers stop.
    let answered = started.bridge.teardown("another tool was selected", Duration::from_secs(5)).await;
    assert!(answered, "the view answered ui/resource-teardown");
    started.hosted.shutdown().await;
    driver.command_parent().await;
    let ended = driver.find("#ended", Duration::from_secs(5)).await.expect("the page's note");
    let said = driver.text_until(&ended, Duration::from_secs(10), |t| t.contains("ended")).await;
    assert!(said.contains("This app has ended: another tool was selected"), "{said:?}");
    assert!(driver.find("iframe#view", Duration::from_millis(100)).await.is_none(), "the view is gone");
    assert!(!listening(&host) && !listening(&sandbox), "nothing listens on {host} or {sandbox}");
    driver.quit().await;
}

/// The TUI's side without a browser: each thing the app does is a line (status and server
/// pane), a link waits for a yes and only a yes opens it, and the app ends when the
/// selection moves to another tool.
#[test]
fn the_tui_says_what_the_app_does_and_asks_before_a_link() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use tooldeck::app::{App, DesktopEffect, Effect, Msg, Popup, ServerMsg, TaskEffect, update};
    let listing = json!({"tools": [
        app_tool("get-time", "ui://clock/view", json!(["model", "app"])),
        {"name": "plain", "description": "No view here.", "inputSchema": {"type": "object"}},
    ]});
    let text = serde_json::to_string(&listing).unwrap();
    let (tools, _) = tooldeck::catalog::load_text("tools.json", &text, &Default::default());
    let mut catalog = tooldeck::catalog::Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    let mut app = App::new(catalog, &[], (120, 40));
    let _ = update(&mut app, Msg::Input(InputMsg::Resize(120, 40)));
    let key =
        |app: &mut App, code: KeyCode| update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    let event = |app: &mut App, event: AppEvent| update(app, Msg::Server(ServerMsg::App(event)));
    while app.selected_tool().map(|t| t.name.as_str()) != Some("get-time") {
        key(&mut app, KeyCode::Down);
    }
    assert!(matches!(key(&mut app, KeyCode::Char('A')).as_slice(), [Effect::Server(ServerEffect::HostApp { .. })]));
    assert_eq!(app.app_host.hosted_tool(), Some("get-time"));

    for (said, line) in [
        (AppEvent::Message { text: "hello from the app".into() }, "app: message: hello from the app"),
        (AppEvent::ModelContext { text: "the time is 3".into() }, "app: model context: the time is 3"),
        (AppEvent::Log { level: "info".into(), text: "clock ready".into() }, "app: log info: clock ready"),
        (AppEvent::Size { width: 400, height: 300 }, "app: size 400x300"),
    ] {
        assert!(event(&mut app, said).is_empty());
        assert_eq!(app.status(), Some(line));
        assert!(app.server_pane().log().iter().any(|l| l.text() == line), "{line:?} in the server pane");
    }

    // A link waits for a yes: any other key leaves it unopened.
    event(&mut app, AppEvent::OpenLink { url: "https://example.com/docs".into() });
    assert_eq!(app.prompts.popup(), Some(&Popup::ConfirmLink { url: "https://example.com/docs".into() }));
    assert!(key(&mut app, KeyCode::Char('n')).is_empty());
    assert!(app.status().unwrap_or_default().contains("was not opened"), "{:?}", app.status());
    // Two at once: asked one after the other; the yes goes to the browser gate.
    event(&mut app, AppEvent::OpenLink { url: "https://example.com/a".into() });
    event(&mut app, AppEvent::OpenLink { url: "https://example.com/b".into() });
    assert_eq!(
        key(&mut app, KeyCode::Char('y')),
        vec![Effect::Desktop(DesktopEffect::Open("https://example.com/a".into()))]
    );
    assert_eq!(app.prompts.popup(), Some(&Popup::ConfirmLink { url: "https://example.com/b".into() }));
    assert!(key(&mut app, KeyCode::Esc).is_empty());
    // mailto: passes the app's rule, not the browser gate's: said, not asked.
    event(&mut app, AppEvent::OpenLink { url: "mailto:a@example.com".into() });
    assert_eq!(app.prompts.popup(), None);
    assert!(app.status().unwrap_or_default().contains("web links only"), "{:?}", app.status());
    // A refused link is a line (the bridge never asks for it).
    event(&mut app, AppEvent::LinkRefused { url: "javascript:alert(1)".into() });
    assert!(app.status().unwrap_or_default().contains("refused to open javascript:"), "{:?}", app.status());

    // Another tool selected: the app ends.
    let effects = key(&mut app, KeyCode::Down);
    assert!(
        effects.contains(&Effect::Task(TaskEffect::EndApp { why: "another tool was selected".into() })),
        "{effects:?}"
    );
    assert_eq!(app.app_host.hosted_tool(), None);
    event(&mut app, AppEvent::OpenLink { url: "https://example.com/late".into() });
    assert_eq!(app.prompts.popup(), None, "an app that ended is not asked for");
}

/// `tooldeck app` stopped by a signal ends the app as the TUI does: the view told, its page
/// told, nothing left listening.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_command_ends_the_app_on_a_signal() {
    use std::io::BufRead;
    let Some(driver) = browser::Driver::start("the_app_command_ends_the_app_on_a_signal").await else { return };
    let url = serve_http().await;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(["app", "get-time", "--mcp-url", &url, "--no-browser"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("tooldeck runs");
    let stdout = child.stdout.take().unwrap();
    let host = tokio::task::spawn_blocking(move || {
        let mut lines = std::io::BufReader::new(stdout).lines();
        let host = lines.find_map(|l| l.ok()?.strip_prefix("app host: http").map(|rest| format!("http{rest}")));
        // Drained from here on: a full pipe would hold tooldeck up.
        std::thread::spawn(move || lines.for_each(drop));
        host
    })
    .await
    .unwrap()
    .expect("the host page's URL");
    driver.goto(&host).await;
    let frame = driver.find("iframe#view", Duration::from_secs(10)).await.expect("the view's frame");
    let src = driver.script("return document.getElementById('view').src").await;
    let sandbox = src.as_str().unwrap_or_default().splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
    driver.enter_frame(&frame).await;
    let time = driver.find("#time", Duration::from_secs(10)).await.expect("the view");
    driver.text_until(&time, Duration::from_secs(15), |t| t.ends_with("get-time")).await;
    // One process, by its id: SIGINT, as Ctrl-C sends.
    let signalled = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(signalled.success());
    let status = tokio::task::spawn_blocking(move || child.wait()).await.unwrap().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    driver.command_parent().await;
    let ended = driver.find("#ended", Duration::from_secs(10)).await.expect("the page's note");
    let said = driver.text_until(&ended, Duration::from_secs(10), |t| t.contains("ended")).await;
    assert!(said.contains("This app has ended: tooldeck app was stopped"), "{said:?}");
    assert!(!listening(&host) && !listening(&sandbox), "nothing listens after tooldeck app ended");
    driver.quit().await;
}
