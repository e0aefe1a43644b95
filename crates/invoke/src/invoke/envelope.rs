//! What a tool server answered, as one [`Outcome`]: every response form of Open Tool Calling and
//! whatever a broken server sends instead, MCP `CallToolResult`s, the tool's output schema. Pure
//! functions (the transports do the I/O), tolerant in what they accept and precise in what they
//! report: a response that breaks its format still becomes the closest outcome, each deviation a warning.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind as Kind};
use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value};

use super::mcp::content::{ContentItem, read_items};
use super::{Artifact, AuthPrompt, MAX_BODY_BYTES, Outcome, Status, ToolError};
use crate::catalog::schema::kind_of;
use crate::text::truncate;

/// The earlier OTC draft's result envelope (`invocation_id`, `finished_at`, `success`, `output`) without its comments and line noise, plus what the RFC draft's `execute_tool_response`
/// (corpus/otc-spec) adds, as older `/execute` servers send it: `execution_id`, `call_id`, `duration`,
/// `error`'s retry fields, its `requires_authorization {id, url, scopes, status}`. The draft's comment
/// allows a null `output`: [`schemas`] compiles it so. `otc_result`: OTC 1.0's `CallToolResponse`
/// (otc-1.0-draft-openapi) minus its `value`-or-`error` `oneOf`, checked by hand for a clearer warning.
const ENVELOPE_SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
  "properties": {
    "$schema": { "type": "string", "format": "uri" }, "invocation_id": { "type": "string" },
    "execution_id": { "type": "string" }, "call_id": { "type": "string" }, "duration": { "type": "number", "minimum": 0 },
    "finished_at": { "type": "string", "format": "date-time" }, "success": { "type": "boolean" },
    "output": { "type": "object", "oneOf": [
      { "properties": { "value": { "oneOf": [{ "type": "object", "additionalProperties": true }, { "type": "number" },
          { "type": "string" }, { "type": "boolean" }] } }, "required": ["value"], "additionalProperties": false },
      { "properties": { "error": { "type": "object", "properties": { "message": { "type": "string" },
            "developer_message": { "type": "string" }, "can_retry": { "type": "boolean" },
            "retry_after_ms": { "type": "integer", "minimum": 0 }, "additional_prompt_content": { "type": "string" } },
          "required": ["message"], "additionalProperties": false } }, "required": ["error"], "additionalProperties": false },
      { "properties": { "requires_authorization": { "type": "object", "properties": { "message": { "type": "string" },
            "oauth2": { "type": "object", "properties": { "url": { "type": "string", "format": "uri" },
              "scope": { "type": "string" } }, "required": ["url"], "additionalProperties": false } },
          "required": ["message"], "additionalProperties": false } },
        "required": ["requires_authorization"], "additionalProperties": false },
      { "properties": { "artifact": { "type": "object", "properties": { "url": { "type": "string", "format": "uri" },
            "content_type": { "type": "string" }, "size": { "type": "integer" }, "meta": { "type": "object",
              "properties": { "description": { "type": "string" } }, "required": ["description"],
              "additionalProperties": false } },
          "required": ["url", "content_type", "size", "meta"], "additionalProperties": false } },
        "required": ["artifact"], "additionalProperties": false }
    ] }
  },
  "required": ["invocation_id", "finished_at", "success"], "additionalProperties": false,
  "$defs": {
    "older_requires_authorization": { "properties": { "requires_authorization": { "type": "object", "properties": {
          "id": { "type": "string" }, "url": { "type": "string", "format": "uri" }, "status": { "type": "string" },
          "scopes": { "type": "array", "items": { "type": "string" } } },
        "required": ["id", "status"], "additionalProperties": false } },
      "required": ["requires_authorization"], "additionalProperties": false },
    "otc_result": { "type": "object", "properties": { "call_id": { "type": "string" }, "success": { "type": "boolean" },
        "duration": { "type": "number", "minimum": 0 }, "value": true, "error": { "type": "object", "properties": {
          "message": { "type": "string" }, "developer_message": { "type": "string" }, "can_retry": { "type": "boolean" },
          "retry_after_ms": { "type": "integer", "minimum": 0 }, "additional_prompt_content": { "type": "string" } },
        "required": ["message"] } }, "required": ["call_id", "success"], "additionalProperties": false }
  }
}"#;

/// The four things an envelope's `output` can hold; exactly one is allowed.
const OUTPUT_KEYS: [&str; 4] = ["value", "error", "requires_authorization", "artifact"];
/// At most this many schema violations are listed: a huge broken value must not flood the view.
const MAX_VIOLATIONS: usize = 50;

/// Reads a `POST /tools/call` (or `/execute`) answer to the call id `sent`. `truncated`: the transport
/// stopped at [`MAX_BODY_BYTES`]. `duration_ms` is the server's own `duration` if it gave one, else 0.
pub fn read_otc_response(status: u16, content_type: Option<&str>, body: &[u8], truncated: bool, sent: &str) -> Outcome {
    let (mut w, http, empty) = (Vec::new(), format!("HTTP {status}"), body.iter().all(u8::is_ascii_whitespace));
    w.extend(truncated.then(|| format!("the response was larger than {} MiB and was cut off", MAX_BODY_BYTES >> 20)));
    let essence = content_type.map(|c| c.split(';').next().unwrap_or("").trim().to_ascii_lowercase());
    if !empty && !essence.as_deref().is_some_and(|e| e == "application/json" || e.ends_with("+json")) {
        w.push(format!("expected application/json, got {}", essence.as_deref().unwrap_or("no content type")));
    }
    let mut outcome = match serde_json::from_slice::<Value>(body) {
        _ if empty && status == 401 => bearer_prompt(None, sent),
        _ if empty => {
            w.push("the body is empty".into());
            error_outcome(format!("{http}: the body is empty"), None, sent)
        }
        Ok(mut json) => read_json(status, &http, &mut json, sent, &mut w),
        Err(e) => {
            // Keep the message short and readable: a page's title, a text's first line, or where
            // the JSON broke (serde_json says at which line and column).
            let text = String::from_utf8_lossy(&body[..body.len().min(64 * 1024)]).trim_start().to_string();
            let html = essence.as_deref().is_some_and(|e| e.contains("html")) || text.starts_with('<');
            let not_json = format!("the body is not JSON{}", if html { " but an HTML page" } else { "" });
            w.push(format!("{not_json} ({e})"));
            let looks_json = text.starts_with(['{', '[', '"']);
            let line = if html { html_headline(&text) } else { text.lines().map(clean).find(|l| !l.is_empty()) };
            let detail = match line {
                _ if truncated && looks_json => "the response was cut off, so its JSON is incomplete".to_string(),
                _ if looks_json => format!("the body is not valid JSON ({e})"),
                line => line.unwrap_or(not_json),
            };
            if status == 401 {
                bearer_prompt(Some(detail), sent)
            } else {
                error_outcome(format!("{http}: {detail}"), None, sent)
            }
        }
    };
    w.append(&mut outcome.warnings);
    Outcome { warnings: w, ..outcome }
}

/// A JSON body, by status and shape.
fn read_json(status: u16, http: &str, json: &mut Value, sent: &str, w: &mut Vec<String>) -> Outcome {
    let Some(obj) = json.as_object() else {
        w.push(format!("the body is {}, not an object", kind_of(json)));
        let text = json.as_str().map_or_else(|| format!("{http}: the body is not a tool result"), str::to_string);
        return if status == 401 { bearer_prompt(Some(text), sent) } else { error_outcome(text, None, sent) };
    };
    let (has, ok) = (|key: &str| obj.contains_key(key), (200..300).contains(&status));
    let mut expect = |what: &str, wanted: u16| {
        if status != wanted && !(wanted == 200 && ok) {
            w.push(format!("{http} with {what} (expected {wanted})"));
        }
    };
    let (wrapped, bare) = (has("result"), ["call_id", "success", "value", "duration"].into_iter().any(has));
    // Seed keys beside a top-level `value`/`error`: a bare result with a stray key (keep its value).
    let envelope_keys = ["invocation_id", "execution_id", "finished_at"].into_iter().any(has);
    let envelope = !wrapped && (has("output") || envelope_keys && !has("value") && !has("error"));
    if status == 401 {
        bearer_prompt(server_message(obj).map(|m| m.0), sent)
    } else if has("missing_requirements") {
        expect("missing_requirements", 400);
        read_missing_requirements(obj, sent, w)
    } else if has("parameter_errors") || status == 422 {
        expect("parameter errors", 422);
        read_parameter_errors(obj, sent, w)
    } else if wrapped || envelope || bare {
        // OTC 1.0 `{result: {...}}`, the earlier draft's envelope, or the RFC's bare result.
        expect("a tool result", 200);
        let (at, result) = if wrapped { ("result", &json["result"]) } else { ("", &*json) };
        if envelope {
            check_envelope(json, w);
        } else {
            let words = |p: &str, e| envelope_words(&format!("{at}{p}"), e);
            w.extend(violations(&schemas().otc_result, result, &|_| false, &words));
            if result.get("value").is_some() && result.get("error").is_some() {
                w.push(envelope_words(at, ("has both \"value\" and \"error\"".into(), None)));
            }
        }
        let holder = if wrapped { json.get_mut("result") } else { Some(json) };
        let Some(obj) = holder.and_then(Value::as_object_mut) else {
            return error_outcome(format!("{http}: \"result\" is not a tool result"), None, sent);
        };
        let draft = match obj.get_mut("output") {
            _ if !envelope => None,
            Some(Value::Object(out)) => Some(draft_of(out)),
            // Not an object (a schema warning already): the server surely meant it as the value.
            Some(other) => Some(Outcome { value: Some(other.take()), ..Outcome::new(Status::Null, "") }),
            None => Some(Outcome::new(Status::Null, "")),
        };
        let draft = draft.unwrap_or_else(|| draft_of(obj));
        finish(draft, obj, if wrapped { "result/" } else { "" }, sent, w)
    } else {
        // Neither a result nor an OTC error response: say what it holds, show its message if any.
        if ok {
            let keys: Vec<&str> = obj.keys().map(String::as_str).take(10).collect();
            w.push(format!("the body is none of the known result forms (its keys: {})", keys.join(", ")));
        } else if !has("message") {
            w.push("the error body has no \"message\"".into());
        }
        let (message, developer) =
            server_message(obj).unwrap_or((format!("{http}: the body is not a tool result"), None));
        error_outcome(message, developer, sent)
    }
}

/// What a result holds, in a draft [`finish`] settles: `value` (null = nothing), `error`, and in the
/// envelope's `output` also `requires_authorization` or `artifact`.
fn draft_of(holder: &mut Map<String, Value>) -> Outcome {
    let mut draft = Outcome::new(Status::Null, "");
    draft.value = holder.get_mut("value").map(Value::take);
    draft.error = holder.get("error").map(read_error);
    draft.authorization = holder.get("requires_authorization").map(read_envelope_auth);
    draft.artifacts.extend(holder.get("artifact").map(|a| Artifact {
        url: str_at(a, "url").unwrap_or_default(),
        content_type: str_at(a, "content_type"),
        size: a.get("size").and_then(Value::as_u64),
        description: a.get("meta").and_then(|m| str_at(m, "description")),
    }));
    draft
}

/// An envelope's schema violations as warnings. The `oneOf` of `output` is checked branch by branch
/// (picked by the key present), so that each warning names what is wrong rather than "no option".
fn check_envelope(json: &Value, w: &mut Vec<String>) {
    let s = schemas();
    let alias = json.get("execution_id").is_some() || json.get("call_id").is_some();
    let skip = |p: &Problem| alias && p.1.as_deref() == Some("invocation_id");
    w.extend(violations(&s.top, json, &skip, &|at, p| envelope_words(at, p)));
    let Some(output) = json.get("output").and_then(Value::as_object) else { return };
    let present: Vec<&str> = OUTPUT_KEYS.into_iter().filter(|k| output.contains_key(*k)).collect();
    match present.as_slice() {
        [] => w.push("\"output\" has none of \"value\", \"error\", \"requires_authorization\", \"artifact\"".into()),
        [_] => {}
        [a, b] => w.push(format!("\"output\" has both \"{a}\" and \"{b}\"")),
        [rest @ .., last] => w.push(format!("\"output\" has \"{}\" and \"{last}\"", rest.join("\", \""))),
    }
    // With two keys present, each branch would call the other one unexpected: said once above.
    let skip = |p: &Problem| p.0 == "unexpected" && p.1.as_deref().is_some_and(|n| present.contains(&n));
    let words = |at: &str, p| envelope_words(&format!("/output{at}"), p);
    for (key, branch) in OUTPUT_KEYS.iter().zip(&s.branches).filter(|(k, _)| present.contains(k)) {
        let auth = &output[*key];
        let older = *key == "requires_authorization" && auth.get("message").is_none() && auth.get("id").is_some();
        w.extend(older.then(|| "\"output/requires_authorization\" has the older draft's form".into()));
        let branch = if older { &s.older_auth } else { branch };
        w.extend(violations(branch, &json["output"], &skip, &words));
    }
}

struct Schemas {
    top: Validator,
    branches: Vec<Validator>, // one per `OUTPUT_KEYS` entry, in that order
    older_auth: Validator,
    otc_result: Validator,
}

/// [`ENVELOPE_SCHEMA`] compiled once: the envelope without its `output` `oneOf`, and each part.
fn schemas() -> &'static Schemas {
    static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let mut root: Value = serde_json::from_str(ENVELOPE_SCHEMA).expect("the embedded schema is JSON");
        let build = |s: &Value| jsonschema::options().should_validate_formats(true).build(s).expect("it compiles");
        let output = root["properties"]["output"].take();
        root["properties"]["output"] = serde_json::json!({ "type": ["object", "null"] });
        Schemas {
            branches: output["oneOf"].as_array().map(|b| b.iter().map(build).collect()).unwrap_or_default(),
            older_auth: build(&root["$defs"]["older_requires_authorization"]),
            otc_result: build(&root["$defs"]["otc_result"]),
            top: build(&root),
        }
    })
}

/// Settles a draft of what the result carried: the status from what is present (nothing with
/// `success: false` is an error), a warning when `success` disagrees, the call id and duration.
fn finish(draft: Outcome, obj: &Map<String, Value>, at: &str, sent: &str, w: &mut Vec<String>) -> Outcome {
    let success = obj.get("success").and_then(Value::as_bool);
    let value = draft.value.filter(|v| !v.is_null());
    let status = first_of(&[
        (draft.error.is_some(), Status::Error),
        (draft.authorization.is_some(), Status::RequiresAuthorization),
        (!draft.artifacts.is_empty(), Status::Artifact),
        (value.is_some(), Status::Value),
        (success == Some(false), Status::Error),
    ]);
    let contradiction = match (success, status) {
        (Some(true), Status::Error) => "true but the result is an error",
        (Some(false), Status::Error) if draft.error.is_none() => "false but there is no \"error\"",
        (Some(false), Status::Value | Status::Artifact) => "false but the tool returned something",
        _ => "",
    };
    w.extend((!contradiction.is_empty()).then(|| format!("\"{at}success\" is {contradiction}")));
    let id = ["invocation_id", "execution_id", "call_id"].into_iter().find_map(|k| obj.get(k)).and_then(Value::as_str);
    if let Some(id) = id.filter(|id| *id != sent && !sent.is_empty()) {
        w.push(format!("the response is for call \"{id}\", not \"{sent}\""));
    }
    let fresh = Outcome::new(status, id.unwrap_or(sent));
    let failure = ToolError { message: "the tool reported a failure without an error".into(), ..ToolError::default() };
    let error = draft.error.or((status == Status::Error).then_some(failure));
    let duration_ms = obj.get("duration").and_then(Value::as_f64).filter(|d| *d >= 0.0).map_or(0, |d| d.round() as u64);
    Outcome { value, error, duration_ms, artifacts: draft.artifacts, authorization: draft.authorization, ..fresh }
}

/// The status of the first condition that holds, in order of precedence; none: the tool returned nothing.
fn first_of(precedence: &[(bool, Status)]) -> Status {
    precedence.iter().find(|(holds, _)| *holds).map_or(Status::Null, |(_, status)| *status)
}

/// `{message, developer_message, can_retry, retry_after_ms, additional_prompt_content}`, read
/// leniently (the schemas say what is wrong with it); a bare string is the message.
fn read_error(e: &Value) -> ToolError {
    let text = |key: &str| e.get(key).map(text_of);
    let fallback = || if e.is_object() { "the tool reported an error without a message".into() } else { text_of(e) };
    ToolError {
        message: text("message").unwrap_or_else(fallback),
        developer_message: text("developer_message"),
        can_retry: e.get("can_retry").and_then(Value::as_bool),
        retry_after_ms: e.get("retry_after_ms").and_then(Value::as_u64),
        additional_prompt_content: text("additional_prompt_content"),
        ..ToolError::default()
    }
}

fn str_at(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn strings_at(v: &Value, key: &str) -> Vec<String> {
    v.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

/// `{message, oauth2 {url, scope}}` (scope: space-separated), or the older `{id, url, scopes, status}`
/// whose `id` is taken as the provider, as in a 400's `missing_requirements`.
fn read_envelope_auth(a: &Value) -> AuthPrompt {
    let oauth2 = a.get("oauth2").unwrap_or(&Value::Null);
    let scope = str_at(oauth2, "scope").unwrap_or_default();
    // A scope given both ways is one scope.
    let mut scopes: Vec<String> = Vec::new();
    for scope in scope.split_whitespace().map(str::to_string).chain(strings_at(a, "scopes")) {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    let status = str_at(a, "status").map_or_else(String::new, |s| format!(" (status: {s})"));
    let message = str_at(a, "message").unwrap_or(format!("the tool needs authorization{status}"));
    // `id` may be this authorization attempt's id ("auth-7bcbd920"): a named provider wins.
    let provider = str_at(a, "provider_id").or_else(|| str_at(a, "provider")).or_else(|| str_at(a, "id"));
    AuthPrompt { message, provider, url: str_at(oauth2, "url").or_else(|| str_at(a, "url")), scopes }
}

/// `400 {message, developer_message, missing_requirements: {authorization: [{id, url}]}}`: an auth
/// prompt for the first provider; `error` keeps the pair too (`AuthPrompt` has no `developer_message`).
fn read_missing_requirements(obj: &Map<String, Value>, sent: &str, w: &mut Vec<String>) -> Outcome {
    let (message, developer_message) = message_or(obj, "the tool has missing requirements", w);
    let requirements = &obj["missing_requirements"];
    let auths = requirements.get("authorization").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let Some(first) = auths.first() else {
        if requirements.get("user_id") == Some(&Value::Bool(true)) {
            return error_outcome(format!("{message} (the tool needs a user_id)"), developer_message, sent);
        }
        w.push("\"missing_requirements\" names no authorization and no user_id".into());
        return error_outcome(message, developer_message, sent);
    };
    w.extend(first.get("url").is_none().then(|| "missing \"missing_requirements/authorization/0/url\"".into()));
    let others: Vec<String> = auths[1..].iter().filter_map(|a| str_at(a, "id")).collect();
    let prompt = if others.is_empty() { message.clone() } else { format!("{message} (also: {})", others.join(", ")) };
    let (provider, url, scopes) = (str_at(first, "id"), str_at(first, "url"), strings_at(first, "scopes"));
    let authorization = Some(AuthPrompt { message: prompt, provider, url, scopes });
    let error = Some(ToolError { message, developer_message, ..ToolError::default() });
    Outcome { authorization, error, ..Outcome::new(Status::RequiresAuthorization, sent) }
}

/// `422 {message, parameter_errors: {param: message}}`; a list of messages is joined with "; ".
fn read_parameter_errors(obj: &Map<String, Value>, sent: &str, w: &mut Vec<String>) -> Outcome {
    let (message, developer_message) = message_or(obj, "the server rejected the input", w);
    let params = obj.get("parameter_errors").unwrap_or(&Value::Null);
    if !params.is_object() && !params.is_null() {
        w.push(format!("\"parameter_errors\" is {}, not an object", kind_of(params)));
    }
    let text =
        |m: &Value| m.as_array().map_or_else(|| text_of(m), |l| l.iter().map(text_of).collect::<Vec<_>>().join("; "));
    let parameter_errors = params.as_object().into_iter().flatten().map(|(k, m)| (k.clone(), text(m))).collect();
    let error = ToolError { message, developer_message, parameter_errors, ..ToolError::default() };
    Outcome { error: Some(error), ..Outcome::new(Status::Error, sent) }
}

/// The body's message, or `default` with a warning that it has none.
fn message_or(obj: &Map<String, Value>, default: &str, w: &mut Vec<String>) -> (String, Option<String>) {
    w.extend((!obj.get("message").is_some_and(Value::is_string)).then(|| "missing \"message\"".to_string()));
    server_message(obj).unwrap_or((default.to_string(), None))
}

/// A string as is, anything else as compact JSON.
fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// `401`: the server's message, if any, after ours.
fn bearer_prompt(detail: Option<String>, sent: &str) -> Outcome {
    let detail = detail.filter(|d| !d.is_empty()).map_or_else(String::new, |d| format!(": {d}"));
    let authorization =
        Some(AuthPrompt { message: format!("the endpoint wants a bearer token{detail}"), ..Default::default() });
    Outcome { authorization, ..Outcome::new(Status::RequiresAuthorization, sent) }
}

fn error_outcome(message: String, developer_message: Option<String>, call_id: &str) -> Outcome {
    let error = ToolError { message, developer_message, ..ToolError::default() };
    Outcome { error: Some(error), ..Outcome::new(Status::Error, call_id) }
}

/// An error body's message: `message` (with `developer_message`), else the `error` (a string or
/// `{message}`) or `detail` that other frameworks send.
fn server_message(obj: &Map<String, Value>) -> Option<(String, Option<String>)> {
    let error = obj.get("error").map(|e| e.get("message").unwrap_or(e));
    let message = [obj.get("message"), error, obj.get("detail")].into_iter().flatten().find_map(Value::as_str)?;
    Some((message.to_string(), obj.get("developer_message").and_then(Value::as_str).map(str::to_string)))
}

/// An HTML page's `<title>`, else the first line of text of its `<body>`; cleaned and cut.
fn html_headline(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase(); // the same byte offsets as `html`
    let after = |from: usize, pat: &str| lower[from..].find(pat).map(|i| from + i);
    let open = after(0, "<title").and_then(|t| after(t, ">"));
    let title = open.map(|o| clean(&strip_tags(&html[o + 1..after(o, "</title").unwrap_or(html.len())])));
    let text = || strip_tags(&html[after(0, "<body").unwrap_or(0)..]).lines().map(clean).find(|l| !l.is_empty());
    title.filter(|t| !t.is_empty()).or_else(text)
}

/// Tags removed (each ends a line, so that headings and paragraphs stay apart), a few entities decoded.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        out.push('\n');
        rest = rest[lt..].find('>').map_or("", |gt| &rest[lt + gt + 1..]);
    }
    out.push_str(rest);
    let entities = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")];
    entities.iter().fold(out, |s, (from, to)| s.replace(from, to))
}

/// Control characters and runs of whitespace become one space; cut to about 200 characters.
fn clean(text: &str) -> String {
    let words = text.split(|c: char| c.is_whitespace() || c.is_control()).filter(|s| !s.is_empty());
    truncate(&words.collect::<Vec<_>>().join(" "), 200).into_owned()
}

/// A violation apart from where: ("missing"/"unexpected", the property) or (the words, None).
type Problem = (String, Option<String>);
type Words<'a> = &'a dyn Fn(&str, Problem) -> String;

/// Readable words for a violation. The library's own messages quote the whole instance (which may
/// be a 50 MB value), so they are used only for scalars.
fn describe(error: &ValidationError<'_>) -> Vec<Problem> {
    let (instance, other) = (error.instance(), |text: String| vec![(text, None)]);
    let is = |expected: String| other(format!("is {}, expected {expected}", kind_of(instance)));
    match error.kind() {
        Kind::Required { property } => vec![("missing".into(), property.as_str().map(str::to_string))],
        Kind::AdditionalProperties { unexpected } | Kind::UnevaluatedProperties { unexpected } => {
            unexpected.iter().map(|u| ("unexpected".into(), Some(u.clone()))).collect()
        }
        Kind::Type { kind } => is(type_names(&[kind])),
        Kind::OneOfNotValid { context } | Kind::AnyOf { context } => {
            // Every option wanting another type, and only that: name them all ("is an array, expected
            // object, number, string or boolean") rather than "matches none".
            match context.iter().map(|option| type_only(option)).collect::<Option<Vec<_>>>() {
                Some(kinds) if !kinds.is_empty() => is(type_names(&kinds)),
                _ => other(format!("matches none of the {} allowed forms", context.len())),
            }
        }
        Kind::Format { format } => other(format!("is not a {format}")),
        _ if !instance.is_object() && !instance.is_array() => other(truncate(&error.to_string(), 200).into_owned()),
        kind => other(format!("fails \"{}\"", kind.keyword())),
    }
}

/// The type an option of a `oneOf`/`anyOf` wanted, when that is all it failed on.
fn type_only<'e>(option: &'e [ValidationError<'_>]) -> Option<&'e TypeKind> {
    match option {
        [only] => match only.kind() {
            Kind::Type { kind } => Some(kind),
            _ => None,
        },
        _ => None,
    }
}

/// "boolean", "object or null", "object, number, string or boolean".
fn type_names(kinds: &[&TypeKind]) -> String {
    let names: Vec<String> = kinds
        .iter()
        .flat_map(|k| match k {
            TypeKind::Single(t) => vec![t.to_string()],
            TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
        })
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// One line per violation (`words` puts it in words, given its pointer), at most [`MAX_VIOLATIONS`].
fn violations(v: &Validator, of: &Value, skip: &dyn Fn(&Problem) -> bool, words: Words) -> Vec<String> {
    let mut all = v.iter_errors(of).flat_map(|error| {
        let at = error.instance_path().as_str().to_string();
        describe(&error).into_iter().filter(|p| !skip(p)).map(move |p| (at.clone(), p)).collect::<Vec<_>>()
    });
    let mut found: Vec<String> = all.by_ref().take(MAX_VIOLATIONS).map(|(at, p)| words(&at, p)).collect();
    let more = all.count();
    found.extend((more > 0).then(|| format!("… and {more} more violations")));
    found
}

/// An envelope violation in words, pointers without their leading slash: `missing "finished_at"`,
/// `"output/artifact/size" is a string, not an integer`, `unexpected "output/extra"`.
fn envelope_words(at: &str, (words, property): Problem) -> String {
    match (at.trim_start_matches('/'), property) {
        ("", Some(name)) => format!("{words} \"{name}\""),
        (at, Some(name)) => format!("{words} \"{at}/{name}\""),
        ("", None) => format!("the response {words}"),
        (at, None) => format!("\"{at}\" {words}"),
    }
}

/// Validates `outcome.value` against the tool's output schema (formats checked; for MCP, the
/// `structuredContent`, which must be there); one warning per violation, `output schema: <pointer>: <message>` (pointer "/" is the value itself).
pub fn check_output(outcome: &mut Outcome, output_schema: &Value) {
    // MCP: the structured content is what the schema describes; the text beside it is for people.
    if !outcome.content.is_empty() && !outcome.structured && outcome.status != Status::Error {
        outcome.warnings.push("output schema: the tool declares one, but the result has no structuredContent".into());
        return;
    }
    let Some(value) = &outcome.value else { return };
    let found = match jsonschema::options().should_validate_formats(true).build(output_schema) {
        Err(e) => vec![format!("cannot be used to check the value: {e}")],
        Ok(validator) => violations(&validator, value, &|_| false, &|at, (words, property)| {
            let name = property.map_or_else(String::new, |name| format!(" \"{name}\""));
            format!("{}: {words}{name}", if at.is_empty() { "/" } else { at })
        }),
    };
    outcome.warnings.extend(found.into_iter().map(|f| format!("output schema: {f}")));
}

/// An MCP `tools/call` result: every `content` item in order (see [`super::mcp::content`]);
/// `isError` → error (text items as the message); else `structuredContent`, else one text item
/// that is JSON, else the text → value; else images, audio, links or resources → artifact; nothing
/// at all → null.
pub fn read_mcp_result(result: &Value, call_id: &str) -> Outcome {
    read_mcp_owned(result.clone(), call_id)
}

/// [`read_mcp_result`] taking the answer apart instead of copying it: inline data is moved into
/// the items.
pub fn read_mcp_owned(result: Value, call_id: &str) -> Outcome {
    let Value::Object(mut obj) = result else {
        let mut outcome = error_outcome("the MCP server's result is not an object".into(), None, call_id);
        outcome.warnings.push(format!("the result is {}, not an object", kind_of(&result)));
        return outcome;
    };
    let mut w = Vec::new();
    let blocks = match obj.remove("content") {
        Some(Value::Array(blocks)) => blocks,
        other => {
            w.push(format!("\"content\" is {}, not an array", kind_of(other.as_ref().unwrap_or(&Value::Null))));
            Vec::new()
        }
    };
    let content = read_items(blocks, &mut w);
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|item| match item {
            ContentItem::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    for (key, wanted) in [("structuredContent", "an object"), ("isError", "a boolean")] {
        if let Some(v) = obj.get(key).filter(|v| !v.is_null() && kind_of(v) != wanted) {
            w.push(format!("\"{key}\" is {}, not {wanted}", kind_of(v)));
        }
    }
    let structured = obj.remove("structuredContent").filter(|s| !s.is_null());
    let is_error = obj.get("isError") == Some(&Value::Bool(true));
    let from_structured = structured.is_some();
    let value = match (structured, texts.as_slice()) {
        (Some(s), _) => Some(s),
        (None, []) => None,
        _ if is_error => None,
        // A text of `null` is the tool returning nothing, as an OTC `value` of null is.
        (None, [only]) => match serde_json::from_str(only) {
            Ok(Value::Null) => None,
            parsed => Some(parsed.unwrap_or_else(|_| Value::String(only.to_string()))),
        },
        (None, many) => Some(Value::String(many.join("\n"))),
    };
    let found = content.iter().any(|i| !matches!(i, ContentItem::Text(_) | ContentItem::Unreadable(_)));
    let status = first_of(&[(is_error, Status::Error), (value.is_some(), Status::Value), (found, Status::Artifact)]);
    let message =
        if texts.is_empty() { "the tool reported an error without a message".into() } else { texts.join("\n") };
    let error = is_error.then(|| ToolError { message, ..ToolError::default() });
    Outcome { value, error, content, structured: from_structured, warnings: w, ..Outcome::new(status, call_id) }
}

/// Standard base64, padded.
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
