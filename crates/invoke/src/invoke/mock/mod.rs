//! The built-in demo tool server: a real HTTP server speaking Open Tool Calling 1.0 on 127.0.0.1,
//! answering for the sample tools so every kind of result can be tried without a
//! server of one's own. tooldeck starts it in-process when no endpoint is given, and
//! `tooldeck serve-mock [--port N]` runs it alone for other clients.
//!
//! Routes: `GET /health`, `GET /tools`, `POST /tools/call` (and `POST /execute`, the path older
//! servers use), `GET /artifacts/{name}` for the files tools produce, and
//! `GET /oauth/authorize?provider=X&scope=Y`, the page the authorization prompts link to.
//!
//! Every answer is deterministic for the same input (apart from timestamps and durations), so tests
//! can rely on it; what each sample tool answers is in [`tools`].

mod guard;
pub mod png;
mod tools;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use jsonschema::error::ValidationErrorKind;
use serde_json::{Value, json};

use crate::catalog::{Authorization, Catalog, Tool};
use crate::loopback::LoopbackServer;

/// Artifacts are kept in memory; only the newest this many stay fetchable.
pub const MAX_ARTIFACTS: usize = 100;

/// A running demo server (a [`LoopbackServer`]). Dropping it stops the server (requests already
/// being answered finish first); [`MockServer::shutdown`] does the same and waits for it.
#[derive(Debug)]
pub struct MockServer {
    /// `http://127.0.0.1:PORT`, without a trailing slash: the endpoint to give an OTC client.
    pub url: String,
    server: LoopbackServer,
}

impl MockServer {
    /// Binds 127.0.0.1:`port` (0 picks a free port) and starts answering on the current Tokio
    /// runtime; must be called from within one. Fails only when the port cannot be bound.
    pub async fn start(catalog: Catalog, port: u16) -> io::Result<MockServer> {
        // The router needs the URL its links name, known once the port is bound: a slot the
        // handlers read.
        let shared = Arc::new(Shared {
            url: OnceLock::new(),
            catalog,
            validators: Mutex::new(HashMap::new()),
            artifacts: Mutex::new(VecDeque::new()),
        });
        let bound = crate::loopback::Bound::bind(port).await?;
        let server = bound.serve_answering(router(Arc::clone(&shared)), guard::refused);
        let url = server.url().to_string();
        let _ = shared.url.set(url.clone());
        Ok(MockServer { url, server })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Runs until the server stops: an accept error, or [`MockServer::shutdown`] / drop of a clone
    /// of the stop signal (see [`serve_forever`]). Returns the error that stopped it, if any.
    pub async fn wait(self) -> io::Result<()> {
        self.server.wait().await
    }

    /// Stops accepting, lets calls in progress finish for up to two seconds, then ends them.
    pub async fn shutdown(self) {
        self.server.shutdown().await
    }
}

/// For `tooldeck serve-mock`: starts the server, calls `on_ready` with it once it is listening
/// (the caller prints `server.url()`; this function prints nothing), then serves until Ctrl-C
/// (SIGINT) or an accept error. After Ctrl-C, calls in progress get two seconds to finish.
///
/// ```text
/// serve_forever(catalog, port, |server| println!("{}", server.url())).await?;
/// ```
pub async fn serve_forever(catalog: Catalog, port: u16, on_ready: impl FnOnce(&MockServer)) -> io::Result<()> {
    let server = MockServer::start(catalog, port).await?;
    on_ready(&server);
    let stop = server.server.stop_token();
    let interrupt = stop.clone();
    let watcher = tokio::spawn(async move {
        // No signal handling available: serve until killed.
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupt.cancel();
        }
    });
    let result = tokio::select! {
        result = server.wait() => result,
        () = async { stop.cancelled().await; tokio::time::sleep(Duration::from_secs(2)).await } => Ok(()),
    };
    watcher.abort();
    result
}

/// What every handler shares: the tools, the server's own URL (for the links it hands out), the
/// compiled input schemas and the artifacts produced so far.
struct Shared {
    /// Set once the port is bound, before the first request can arrive.
    url: OnceLock<String>,
    catalog: Catalog,
    /// Compiled on a tool's first call, so a large catalog costs nothing up front. `None`: the
    /// schema does not compile, and the input is taken as it is.
    validators: Mutex<HashMap<String, Arc<Option<jsonschema::Validator>>>>,
    artifacts: Mutex<VecDeque<Stored>>,
}

impl Shared {
    /// The server's own URL, for the links it hands out.
    fn url(&self) -> &str {
        self.url.get().map_or("", String::as_str)
    }
}

struct Stored {
    name: String,
    content_type: &'static str,
    bytes: Bytes,
}

impl Shared {
    /// Keeps an artifact under `<call_id>.<extension>` and returns its URL and size.
    fn store(&self, call_id: &str, extension: &str, content_type: &'static str, bytes: Vec<u8>) -> (String, usize) {
        // The call id comes from the client: keep it to characters that are safe in a URL path.
        let mut stem: String =
            call_id.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
        stem.truncate(100);
        if stem.trim_matches('.').is_empty() {
            stem = uuid::Uuid::new_v4().to_string();
        }
        let name = format!("{stem}.{extension}");
        let size = bytes.len();
        let mut artifacts = crate::sync::lock(&self.artifacts);
        artifacts.retain(|a| a.name != name);
        artifacts.push_back(Stored { name: name.clone(), content_type, bytes: Bytes::from(bytes) });
        while artifacts.len() > MAX_ARTIFACTS {
            artifacts.pop_front();
        }
        (format!("{}/artifacts/{name}", self.url()), size)
    }

    /// The page a provider's authorization prompt links to.
    fn authorize_url(&self, requirement: &Authorization) -> String {
        let mut url = format!("{}/oauth/authorize?provider={}", self.url(), percent_encode(&requirement.id));
        if !requirement.scopes.is_empty() {
            url.push_str("&scope=");
            url.push_str(&percent_encode(&requirement.scopes.join(" ")));
        }
        url
    }

    /// Parameter name → what is wrong with it; empty when the input is valid.
    fn check_input(&self, tool: &Tool, input: &Value) -> BTreeMap<String, String> {
        let validator = {
            let mut validators = crate::sync::lock(&self.validators);
            let entry = validators.entry(tool.id.clone()).or_insert_with(|| {
                Arc::new(jsonschema::options().should_validate_formats(true).build(&tool.input_schema).ok())
            });
            Arc::clone(entry)
        };
        let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let Some(validator) = validator.as_ref() else { return BTreeMap::new() };
        for error in validator.iter_errors(input) {
            let pointer = error.instance_path().as_str().to_string();
            let top = error.instance_path().iter().next().map(|segment| segment.to_string());
            let (params, message) = match (error.kind(), top) {
                (ValidationErrorKind::Required { property }, top) => {
                    let name = property.as_str().map_or_else(|| property.to_string(), str::to_string);
                    match top {
                        // A missing top-level parameter is reported on that parameter.
                        None => (vec![name], "required".to_string()),
                        Some(top) => (vec![top], format!("{pointer}/{name}: required")),
                    }
                }
                (
                    ValidationErrorKind::AdditionalProperties { unexpected }
                    | ValidationErrorKind::UnevaluatedProperties { unexpected },
                    None,
                ) => (unexpected.clone(), "not a parameter of this tool".to_string()),
                (_, None) => (vec![String::new()], error.to_string()),
                (_, Some(top)) if pointer.matches('/').count() == 1 => (vec![top], error.to_string()),
                (_, Some(top)) => (vec![top], format!("{pointer}: {error}")),
            };
            for param in params {
                let messages = problems.entry(param).or_default();
                if !messages.contains(&message) {
                    messages.push(message.clone());
                }
            }
        }
        problems.into_iter().map(|(param, messages)| (param, messages.join("; "))).collect()
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/health", get(|| async { Json(json!({"status": "ok"})) }))
        .route("/tools", get(list_tools))
        .route("/tools/call", post(call))
        .route("/execute", post(call))
        .route("/artifacts/{name}", get(artifact))
        .route("/oauth/authorize", get(authorize))
        .fallback(|| async { error_json(StatusCode::NOT_FOUND, "no such route on tooldeck's demo server", None) })
        .method_not_allowed_fallback(|| async {
            error_json(StatusCode::METHOD_NOT_ALLOWED, "this route does not take that method", None)
        })
        // Bodies up to what tooldeck itself reads, rather than axum's 2 MB default, so large
        // inputs (a whole file for `write_file`) can be tried.
        .layer(DefaultBodyLimit::max(super::MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(guard::json_posts_only))
        .with_state(shared)
}

/// A status with `{"message", "developer_message"?}`.
fn error_json(status: StatusCode, message: &str, developer_message: Option<String>) -> Response {
    let mut body = json!({ "message": message });
    if let Some(developer_message) = developer_message {
        body["developer_message"] = json!(developer_message);
    }
    (status, Json(body)).into_response()
}

/// What is there, for someone who opens the server's URL in a browser or with curl.
async fn index(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(json!({
        "name": "tooldeck demo server",
        "protocol": "Open Tool Calling over HTTP",
        "tools": shared.catalog.len(),
        "endpoints": ["GET /health", "GET /tools", "POST /tools/call", "POST /execute",
            "GET /artifacts/{name}", "GET /oauth/authorize?provider=...&scope=..."],
    }))
}

/// One OTC tool definition per catalog tool (the later revision, where `input_schema` is the JSON
/// Schema itself), under the catalog id so any of them can be called by it.
async fn list_tools(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let tools: Vec<Value> = shared
        .catalog
        .tools()
        .iter()
        .map(|tool| {
            let version = tool.id.rsplit_once('@').map_or("1.0.0", |(_, v)| v);
            let authorization: Vec<Value> = tool
                .requirements
                .authorization
                .iter()
                .map(|a| json!({"id": a.id, "oauth2": {"scopes": a.scopes}}))
                .collect();
            let secrets: Vec<Value> = tool.requirements.secrets.iter().map(|s| json!({ "id": s })).collect();
            json!({
                "id": tool.id,
                "name": tool.name,
                "description": tool.description.as_deref().or(tool.title.as_deref()).unwrap_or_default(),
                "version": version,
                "input_schema": tool.input_schema,
                "output_schema": tool.output_schema,
                "requirements": {"authorization": authorization, "secrets": secrets},
            })
        })
        .collect();
    Json(json!({ "tools": tools }))
}

/// One parsed `POST /tools/call` request.
struct Call {
    call_id: String,
    tool_id: String,
    /// Always an object (`{}` when the request had none).
    input: Value,
    /// `context.authorization`: provider id → token, empty tokens left out.
    tokens: Vec<(String, String)>,
}

impl Call {
    fn token(&self, provider: &str) -> Option<&str> {
        self.tokens.iter().find(|(id, _)| id == provider).map(|(_, token)| token.as_str())
    }
}

const EXPECTED_SHAPE: &str = r#"expected {"request": {"call_id": "...", "tool_id": "...", "input": {...}, "context": {"authorization": [{"id": "...", "token": "..."}]}}}"#;

/// What is wrong with a call the demo server was sent (its `developer_message`).
#[derive(Debug, thiserror::Error)]
enum CallError {
    #[error("the body is not JSON ({0}); {EXPECTED_SHAPE}")]
    NotJson(#[from] serde_json::Error),
    #[error("no \"request\" object; {EXPECTED_SHAPE}")]
    NoRequest,
    #[error("\"request.{0}\" must be a string; {EXPECTED_SHAPE}")]
    NotAString(&'static str),
    #[error("\"request.input\" must be an object, not {0}")]
    InputNotAnObject(Value),
    #[error("\"request.context\" must be an object")]
    ContextNotAnObject,
    #[error("\"request.context.authorization\" must be an array")]
    AuthorizationNotAnArray,
    #[error("each \"request.context.authorization\" entry needs a string \"id\", not {0}")]
    EntryWithoutId(Value),
}

/// The request as the OTC 1.0 specification documents it, or what is wrong with it.
fn parse_call(body: &[u8]) -> Result<Call, CallError> {
    let value: Value = serde_json::from_slice(body)?;
    let request = value.get("request").and_then(Value::as_object).ok_or(CallError::NoRequest)?;
    let text = |key: &'static str| {
        request.get(key).and_then(Value::as_str).map(str::to_string).ok_or(CallError::NotAString(key))
    };
    let (call_id, tool_id) = (text("call_id")?, text("tool_id")?);
    let input = match request.get("input") {
        None | Some(Value::Null) => json!({}),
        Some(input @ Value::Object(_)) => input.clone(),
        Some(other) => return Err(CallError::InputNotAnObject(other.clone())),
    };
    let mut tokens = Vec::new();
    let authorization = match request.get("context") {
        None | Some(Value::Null) => None,
        Some(Value::Object(context)) => context.get("authorization").filter(|a| !a.is_null()),
        Some(_) => return Err(CallError::ContextNotAnObject),
    };
    if let Some(authorization) = authorization {
        let entries = authorization.as_array().ok_or(CallError::AuthorizationNotAnArray)?;
        for entry in entries {
            let id = entry.get("id").and_then(Value::as_str).ok_or_else(|| CallError::EntryWithoutId(entry.clone()))?;
            // A provider listed without a token counts as not authorised.
            if let Some(token) = entry.get("token").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
                tokens.push((id.to_string(), token.to_string()));
            }
        }
    }
    Ok(Call { call_id, tool_id, input, tokens })
}

/// How a tool answers; turned into the HTTP response by [`Reply::into_response`].
enum Reply {
    /// OTC 1.0 success: `200 {"result": {"call_id", "duration", "success": true, "value"}}`.
    Value(Value),
    /// OTC 1.0 failure: `200 {"result": {..., "success": false, "error": {...}}}`.
    Failure { message: String, developer_message: String, can_retry: bool, retry_after_ms: Option<u64> },
    /// The earlier OTC draft's result envelope: `200 {"invocation_id", "finished_at", "success", "output"?}`;
    /// `output: None` is a tool that returned nothing.
    Envelope { success: bool, output: Option<Value> },
    /// Any other status and JSON body, as is.
    Raw(StatusCode, Value),
}

impl Reply {
    fn envelope_value(value: Value) -> Reply {
        Reply::Envelope { success: true, output: Some(json!({ "value": value })) }
    }

    fn envelope_error(message: impl Into<String>, developer_message: impl Into<String>) -> Reply {
        let error = json!({"message": message.into(), "developer_message": developer_message.into()});
        Reply::Envelope { success: false, output: Some(json!({ "error": error })) }
    }

    fn into_response(self, call_id: &str, started: Instant) -> Response {
        let duration = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let body = match self {
            Reply::Value(value) => {
                json!({"result": {"call_id": call_id, "duration": duration, "success": true, "value": value}})
            }
            Reply::Failure { message, developer_message, can_retry, retry_after_ms } => {
                let mut error =
                    json!({"message": message, "developer_message": developer_message, "can_retry": can_retry});
                if let Some(ms) = retry_after_ms {
                    error["retry_after_ms"] = json!(ms);
                }
                json!({"result": {"call_id": call_id, "duration": duration, "success": false, "error": error}})
            }
            Reply::Envelope { success, output } => {
                let mut body =
                    json!({"invocation_id": call_id, "finished_at": crate::text::rfc3339_now(), "success": success});
                if let Some(output) = output {
                    body["output"] = output;
                }
                body
            }
            Reply::Raw(status, body) => return (status, Json(body)).into_response(),
        };
        Json(body).into_response()
    }
}

/// `POST /tools/call` and `POST /execute`: parse, find the tool, validate, then answer as the tool.
async fn call(State(shared): State<Arc<Shared>>, body: Result<Bytes, BytesRejection>) -> Response {
    let started = Instant::now();
    let body = match body {
        Ok(body) => body,
        Err(e) => return error_json(e.status(), "the request body could not be read", Some(e.body_text())),
    };
    let call = match parse_call(&body) {
        Ok(call) => call,
        Err(problem) => {
            let problem = Some(problem.to_string());
            return error_json(StatusCode::BAD_REQUEST, "the request is not an Open Tool Calling call", problem);
        }
    };
    let Some(tool) = shared.catalog.find(&call.tool_id) else {
        let message = format!("unknown tool \"{}\"", call.tool_id);
        let developer = format!("GET {}/tools lists the {} tools this server has", shared.url(), shared.catalog.len());
        return error_json(StatusCode::NOT_FOUND, &message, Some(developer));
    };
    let problems = shared.check_input(tool, &call.input);
    if !problems.is_empty() {
        let body = json!({"message": "invalid input", "parameter_errors": problems});
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response();
    }
    tools::answer(&shared, tool, &call).await.into_response(&call.call_id, started)
}

async fn artifact(State(shared): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
    let found = {
        let artifacts = crate::sync::lock(&shared.artifacts);
        artifacts.iter().find(|a| a.name == name).map(|a| (a.content_type, a.bytes.clone()))
    };
    match found {
        Some((content_type, bytes)) => ([(header::CONTENT_TYPE, content_type)], bytes).into_response(),
        None => error_json(
            StatusCode::NOT_FOUND,
            &format!("no artifact \"{name}\""),
            Some(format!("only the last {MAX_ARTIFACTS} artifacts are kept, in memory, until the server stops")),
        ),
    }
}

/// Stands in for a provider's consent screen: says which token the demo tools accept.
async fn authorize(Query(query): Query<HashMap<String, String>>) -> Html<String> {
    let provider = query.get("provider").map_or("the provider", String::as_str);
    let scope = query.get("scope").map(|s| format!("<p>Scope requested: <code>{}</code></p>", html_escape(s)));
    let provider = html_escape(provider);
    Html(format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Authorize {provider} (demo)</title></head>\n\
         <body><h1>Authorize {provider} (demo)</h1>\n\
         <p>This is tooldeck's demo server: there is nothing to sign in to.</p>{}\n\
         <p>Back in tooldeck, use the token <code>demo-{provider}</code> (any non-empty token is accepted) \
         and run the tool again.</p></body></html>\n",
        scope.unwrap_or_default()
    ))
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// Query-string encoding: everything but RFC 3986's unreserved characters as `%XX`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The Julian day of 1970-01-01: the mock's dates are days since then.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

/// Days since 1970-01-01 → (year, month, day); `None` outside the years -9999 to 9999.
fn civil_from_days(days: i64) -> Option<(i64, u32, u32)> {
    let julian = i32::try_from(days.checked_add(UNIX_EPOCH_JULIAN_DAY)?).ok()?;
    let date = time::Date::from_julian_day(julian).ok()?;
    Some((i64::from(date.year()), u32::from(u8::from(date.month())), u32::from(date.day())))
}

/// The inverse of [`civil_from_days`]; `None` for a date the calendar does not have.
fn days_from_civil(year: i64, month: u32, day: u32) -> Option<i64> {
    let month = time::Month::try_from(u8::try_from(month).ok()?).ok()?;
    let date = time::Date::from_calendar_date(i32::try_from(year).ok()?, month, u8::try_from(day).ok()?).ok()?;
    Some(i64::from(date.to_julian_day()) - UNIX_EPOCH_JULIAN_DAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_round_trips_and_knows_leap_days() {
        assert_eq!(civil_from_days(0), Some((1970, 1, 1)));
        assert_eq!(days_from_civil(2024, 2, 29).and_then(civil_from_days), Some((2024, 2, 29)));
        assert_eq!(days_from_civil(2024, 3, 1).zip(days_from_civil(2024, 2, 28)).map(|(a, b)| a - b), Some(2));
        assert_eq!(days_from_civil(2000, 1, 1), Some(10_957));
        assert_eq!(days_from_civil(2023, 2, 29), None, "not a leap year");
        for days in [-800_000, -1, 0, 59, 11_016, 20_000, 2_000_000] {
            let (y, m, d) = civil_from_days(days).unwrap();
            assert_eq!(days_from_civil(y, m, d), Some(days));
        }
        assert_eq!(civil_from_days(i64::MAX), None);
    }

    #[test]
    fn now_is_rfc3339() {
        let now = crate::text::rfc3339_now();
        assert_eq!(now.len(), "2025-06-02T14:00:00.123Z".len(), "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
    }

    #[test]
    fn requests_are_read_as_documented() {
        let call = parse_call(
            br#"{"request":{"call_id":"c1","tool_id":"T","input":{"a":1},
                "context":{"authorization":[{"id":"google","token":"t"},{"id":"slack","token":""}],"user_id":"u"}}}"#,
        )
        .unwrap();
        assert_eq!((call.call_id.as_str(), call.tool_id.as_str()), ("c1", "T"));
        assert_eq!(call.input, json!({"a": 1}));
        assert_eq!(call.token("google"), Some("t"));
        assert_eq!(call.token("slack"), None, "an empty token is no token");
        assert_eq!(parse_call(br#"{"request":{"call_id":"c","tool_id":"T"}}"#).unwrap().input, json!({}));
        for bad in [
            &b"not json"[..],
            br#"{"call_id":"c","tool_id":"T"}"#,
            br#"{"request":{"tool_id":"T"}}"#,
            br#"{"request":{"call_id":"c","tool_id":"T","input":[1]}}"#,
            br#"{"request":{"call_id":"c","tool_id":"T","context":{"authorization":{"id":"x"}}}}"#,
        ] {
            assert!(parse_call(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(percent_encode("chat:write users:read"), "chat%3Awrite%20users%3Aread");
        assert_eq!(percent_encode("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(html_escape("<a href=\"x\">&</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
    }
}
