//! A call as a shell command that makes it again (`c` in the result pane), for both protocols.
//! An MCP call over HTTP: a curl command for the same live session (the JSON-RPC body, both
//! Accept types, the session and protocol headers); over stdio a pipeline that starts the
//! server's command and sends it `initialize`, `notifications/initialized` and the call. An
//! OTC call: a curl command that posts the request body to the server's call path. Secrets are
//! masked by `redact`.

use serde_json::{Value, json};

use crate::invoke::Exchange;
use crate::invoke::request::CallRequest;
use crate::redact;
use crate::text::shell_quote as quote;

/// A call made again, by the kind of command it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// An MCP call over HTTP, in the same session.
    McpCurl(String),
    /// An MCP call to a server started as a command.
    McpPipeline(String),
    /// An OTC call.
    OtcCurl(String),
}

impl Replay {
    pub fn command(&self) -> &str {
        match self {
            Replay::McpCurl(c) | Replay::McpPipeline(c) | Replay::OtcCurl(c) => c,
        }
    }
}

/// The command that makes `request` again. `exchange` is what went over the wire for it, when
/// anything did (its URL holds the call path the server was given, `--call-path`);
/// `fallback_url` is where an OTC call goes when nothing went out yet; `protocol` is the
/// revision the server agreed to, which a stdio pipeline asks for again.
pub fn replay(
    exchange: Option<&Exchange>,
    request: &CallRequest,
    fallback_url: &str,
    protocol: Option<&str>,
) -> Replay {
    if let Some(command) = exchange.and_then(|e| command_at(e, protocol)) {
        return match command.starts_with("curl") {
            true => Replay::McpCurl(command),
            false => Replay::McpPipeline(command),
        };
    }
    let url = match exchange {
        Some(exchange) if !exchange.url.is_empty() => redact::url(&exchange.url),
        _ => redact::url(fallback_url),
    };
    Replay::OtcCurl(otc_curl(&url, request))
}

/// `curl` posting `request`'s OTC body to `url`, its tokens masked.
pub fn otc_curl(url: &str, request: &CallRequest) -> String {
    let sent = Exchange { method: "POST".into(), request_body: line(&request.body()), ..Exchange::default() };
    let body = line(&sent.request_json()["body"]);
    format!("curl -sS -X POST {} -H 'content-type: application/json' --data {}", quote(url), quote(&body))
}

/// `value` as one line of JSON by [`crate::json_out`]: a command is shown and pasted into a
/// terminal, so a server's U+009B or U+202E in it is written as `\u` escapes (the same JSON).
fn line(value: &Value) -> String {
    crate::json_out::to_line(value).unwrap_or_default()
}

/// The JSON-RPC request of `exchange` in one line, when it is one (an MCP call's exchange).
fn json_rpc(exchange: &Exchange) -> Option<Value> {
    let body: Value = serde_json::from_str(&exchange.request_body).ok()?;
    (body.get("jsonrpc").is_some() && body.get("method").is_some()).then_some(body)
}

/// The command that sends `exchange`'s call again: curl for HTTP, a pipeline for stdio.
/// `None` when the exchange is not an MCP call's.
pub fn command(exchange: &Exchange) -> Option<String> {
    command_at(exchange, None)
}

/// [`command`], a stdio pipeline initializing at `protocol` (the revision the server agreed to;
/// the last revision both sides surely know when it is not known).
pub fn command_at(exchange: &Exchange, protocol: Option<&str>) -> Option<String> {
    let body = json_rpc(exchange)?;
    if let Some(command) = exchange.url.strip_prefix("mcp:stdio ") {
        return Some(pipeline(command, &body, protocol.unwrap_or(FALLBACK_REVISION)));
    }
    let mut parts = vec!["curl -sS -N -X POST".to_string(), quote(&redact::url(&exchange.url))];
    let mut has_accept = false;
    for (name, value) in &exchange.request_headers {
        let masked = exchange.masked_headers.iter().any(|m| m.eq_ignore_ascii_case(name));
        let shown = if masked { redact::MASK.to_string() } else { redact::header_value(name, value) };
        has_accept |= name.eq_ignore_ascii_case("accept");
        parts.push(format!("-H {}", quote(&format!("{name}: {shown}"))));
    }
    if !has_accept {
        parts.push(format!("-H {}", quote("Accept: application/json, text/event-stream")));
        parts.push(format!("-H {}", quote("Content-Type: application/json")));
    }
    parts.push(format!("--data {}", quote(&line(&body))));
    Some(parts.join(" "))
}

/// The revision a pipeline asks for when the agreed one is not known.
const FALLBACK_REVISION: &str = "2025-06-18";

/// `(printf '%s\n' INIT INITIALIZED CALL; sleep 2) | COMMAND`: the server reads the three lines,
/// answers both requests on its stdout, and has two seconds before its input closes.
fn pipeline(command: &str, call: &Value, protocol: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": protocol, "capabilities": {},
        "clientInfo": {"name": "tooldeck", "version": env!("CARGO_PKG_VERSION")}
    }});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    format!(
        "(printf '%s\\n' {} {} {}; sleep 2) | {}",
        quote(&line(&initialize)),
        quote(&line(&initialized)),
        quote(&line(call)),
        redact::command(command)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_body() -> String {
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"m": "it's"}}})
            .to_string()
    }

    #[test]
    fn over_http_a_curl_for_the_same_session_with_the_token_masked() {
        let exchange = Exchange {
            method: "POST".into(),
            url: "http://127.0.0.1:9/mcp".into(),
            request_headers: vec![
                ("Accept".into(), "application/json, text/event-stream".into()),
                ("Content-Type".into(), "application/json".into()),
                ("Authorization".into(), "Bearer SECRET".into()),
                ("MCP-Protocol-Version".into(), "2025-06-18".into()),
                ("Mcp-Session-Id".into(), "abc-123".into()),
            ],
            request_body: call_body(),
            status: Some(200),
            ..Exchange::default()
        };
        let curl = command(&exchange).unwrap();
        assert!(curl.starts_with("curl -sS -N -X POST http://127.0.0.1:9/mcp "), "{curl}");
        for needed in ["'Mcp-Session-Id: abc-123'", "'MCP-Protocol-Version: 2025-06-18'", "text/event-stream"] {
            assert!(curl.contains(needed), "{needed} in {curl}");
        }
        assert!(!curl.contains("SECRET"), "{curl}");
        let words = shlex::split(&curl).unwrap();
        let data: Value = serde_json::from_str(words.last().unwrap()).unwrap();
        assert_eq!(data["params"]["arguments"]["m"], "it's");
    }

    #[test]
    fn an_otc_call_goes_to_the_call_path_the_server_was_given() {
        let mut request = CallRequest::new("weather", json!({"city": "it's"}));
        request.tokens = vec![("google".into(), "SECRET".into())];
        let sent = Exchange { url: "http://h:1/execute".into(), ..Exchange::default() };
        let Replay::OtcCurl(curl) = replay(Some(&sent), &request, "http://h:1/tools/call", None) else { panic!() };
        assert!(curl.starts_with("curl -sS -X POST http://h:1/execute -H "), "{curl}");
        assert!(!curl.contains("SECRET"), "{curl}");
        let words = shlex::split(&curl).unwrap();
        let data: Value = serde_json::from_str(words.last().unwrap()).unwrap();
        assert_eq!(data["request"]["input"]["city"], "it's");
        assert_eq!(data["request"]["tool_id"], "weather");
        // Nothing went out yet: where calls go; a password in it masked.
        let curl = replay(None, &request, "http://u:pw@h:1/v1/run", None);
        assert!(curl.command().contains("/v1/run"), "{curl:?}");
        assert!(!curl.command().contains(":pw@"), "{curl:?}");
    }

    #[test]
    fn over_stdio_a_pipeline_into_the_command() {
        let exchange = Exchange {
            method: "JSON-RPC".into(),
            url: "mcp:stdio node server.js --api-key k3y".into(),
            request_body: call_body(),
            ..Exchange::default()
        };
        let pipeline = command(&exchange).unwrap();
        assert!(pipeline.ends_with("| node server.js --api-key ••••"), "{pipeline}");
        let inner = pipeline.trim_start_matches('(').split("; sleep").next().unwrap();
        let words = shlex::split(inner).unwrap();
        assert_eq!(words[..2], ["printf", "%s\\n"]);
        let methods: Vec<String> = words[2..]
            .iter()
            .map(|w| serde_json::from_str::<Value>(w).unwrap()["method"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(methods, ["initialize", "notifications/initialized", "tools/call"]);
        assert!(command(&Exchange { request_body: "{}".into(), ..Exchange::default() }).is_none());
    }

    #[test]
    fn a_stdio_pipeline_asks_for_the_revision_agreed() {
        let exchange = Exchange { url: "mcp:stdio server".into(), request_body: call_body(), ..Exchange::default() };
        let pipeline = command_at(&exchange, Some("2025-11-25")).unwrap();
        assert!(pipeline.contains("\"protocolVersion\":\"2025-11-25\""), "{pipeline}");
        assert!(!pipeline.contains("2025-06-18"), "{pipeline}");
    }
}
