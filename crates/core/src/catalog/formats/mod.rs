//! One adapter per definition format. Each reads a parsed document (or one item of a list) into
//! [`Draft`]s; the loader then normalises their schemas the same way for every format.

pub mod genaiscript;
pub mod gloodata;
pub mod jsonschema;
pub mod marketplace;
pub mod mcp;
pub mod openai;
pub mod otc;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Issue;
use super::document::{Document, Segment};
use super::schema::{kind_of, looks_like_json_schema, member};
use super::tool::{Example, FieldCue, Format, Naming, Requirements, Tile};

/// A tool as an adapter read it, before schema normalisation.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// Where the definition starts in the document.
    pub at: Vec<Segment>,
    /// The line `at` starts on, set by the loader (which has the text).
    pub line: usize,
    pub format: Format,
    pub id: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Value,
    /// Where `input_schema` sits verbatim in the document, when it does (not when it was built
    /// from another form), so schema problems can point inside it.
    pub input_schema_at: Option<Vec<Segment>>,
    /// The input schema is the document's own value at `input_schema_at`: the loader moves it out
    /// of the document instead of the adapter copying it (loading is mostly this copying).
    pub input_from_document: bool,
    pub output_from_document: bool,
    /// Where the input schema's `properties` came from, for formats that build the schema around
    /// a map of their own (gloodata `schema.fields`, marketplace field maps).
    pub properties_at: Option<Vec<Segment>>,
    pub output_schema: Option<Value>,
    pub output_schema_at: Option<Vec<Segment>>,
    pub tile: Option<Tile>,
    /// Cues the format gives outside the schema (gloodata enum labels), by JSON pointer.
    pub cues: BTreeMap<String, FieldCue>,
    pub examples: Vec<Example>,
    pub requirements: Requirements,
    pub annotations: Option<Value>,
    /// MCP `execution.taskSupport`.
    pub task_support: Option<String>,
    pub naming: Naming,
    /// The format has no `default` for its parameters.
    pub no_defaults: bool,
    /// MCP Apps: the view `_meta.ui` names.
    pub app: Option<crate::catalog::app_ui::AppUi>,
}

impl Draft {
    pub fn new(at: Vec<Segment>, format: Format, name: String) -> Self {
        Draft {
            at,
            line: 1,
            format,
            id: name.clone(),
            name,
            title: None,
            description: None,
            input_schema: Value::Null,
            input_schema_at: None,
            input_from_document: false,
            output_from_document: false,
            properties_at: None,
            output_schema: None,
            output_schema_at: None,
            tile: None,
            cues: BTreeMap::new(),
            examples: Vec::new(),
            requirements: Requirements::default(),
            annotations: None,
            task_support: None,
            naming: Naming::Given,
            no_defaults: false,
            app: None,
        }
    }
}

/// What an adapter may read besides the value: the positioned tree (GenAIScript needs `NaN`) and
/// the file's name (a bare `parameters` file is one tool named after it).
pub struct Context<'a> {
    pub doc: &'a Document,
    pub file_stem: &'a str,
    /// JSON5 files may hold a bare shorthand `parameters` object.
    pub json5: bool,
    /// Whether the user named this file (an unrecognised one is then an error) or a folder walk
    /// found it (then a warning: the folder may hold other JSON).
    pub named_by_user: bool,
    /// A long list's items may be read on all cores (off when several files are read at once).
    pub parallel: bool,
    pub issues: Vec<Issue>,
}

impl Context<'_> {
    pub fn shorthand_allowed(&self) -> bool {
        self.json5 || self.doc.has_non_finite()
    }

    fn unrecognised(&mut self, at: &[Segment], message: String) {
        if self.named_by_user {
            self.error(at, message);
        } else {
            self.warning(at, format!("skipped: {message}"));
        }
    }

    pub fn error(&mut self, at: &[Segment], message: impl Into<String>) {
        self.issues.push(Issue::error(at.to_vec(), message));
    }

    pub fn warning(&mut self, at: &[Segment], message: impl Into<String>) {
        self.issues.push(Issue::warning(at.to_vec(), message));
    }
}

/// Reads every tool in a document. `forced` skips detection (`--format`).
pub fn extract(value: &Value, forced: Option<Format>, cx: &mut Context) -> Vec<Draft> {
    let mut drafts = Vec::new();
    document(value, &[], forced, cx, &mut drafts);
    drafts
}

fn document(value: &Value, at: &[Segment], forced: Option<Format>, cx: &mut Context, out: &mut Vec<Draft>) {
    match value {
        Value::Array(items) => list(items, at, forced, cx, out),
        Value::Object(object) => {
            if let Some(format) = forced {
                return forced_document(format, object, at, cx, out);
            }
            // A JSON-RPC response around a tools/list result.
            if let (Some(result @ Value::Object(_)), Some(_)) = (object.get("result"), object.get("jsonrpc")) {
                return document(result, &child(at, "result"), None, cx, out);
            }
            if gloodata::detect(object) {
                return gloodata::document(object, at, cx, out);
            }
            if marketplace::detect_capabilities(object) {
                return marketplace::capabilities(object, at, cx, out);
            }
            for key in ["tools", "items", "functions"] {
                // In shorthand, `tools: ["fs"]` is a parameter, not a list of tools.
                if let Some(Value::Array(items)) = object.get(key)
                    && !(cx.shorthand_allowed() && items.iter().any(|i| !i.is_object()))
                {
                    return list(items, &child(at, key), None, cx, out);
                }
            }
            if let Some(what) = marketplace::describes_results(object) {
                return cx.warning(at, format!("skipped: {what} describes results or an API, not tools"));
            }
            match detect_item(object) {
                Some(format) => out.extend(item(format, object, at, cx)),
                None if cx.shorthand_allowed() && genaiscript::looks_like_parameters(cx.doc) => {
                    genaiscript::bare(cx, out)
                }
                None => cx.unrecognised(at, unrecognised(object)),
            }
        }
        other => {
            cx.unrecognised(at, format!("expected tool definitions (an object or a list), found {}", kind_of(other)))
        }
    }
}

fn forced_document(
    format: Format,
    object: &Map<String, Value>,
    at: &[Segment],
    cx: &mut Context,
    out: &mut Vec<Draft>,
) {
    match format {
        Format::Gloodata => gloodata::document(object, at, cx, out),
        Format::Marketplace if object.contains_key("capabilities") => marketplace::capabilities(object, at, cx, out),
        Format::GenAiScript if !object.contains_key("parameters") => genaiscript::bare(cx, out),
        _ => {
            for key in ["tools", "items", "functions"] {
                if let Some(Value::Array(items)) = object.get(key) {
                    return list(items, &child(at, key), Some(format), cx, out);
                }
            }
            out.extend(item(format, object, at, cx))
        }
    }
}

fn list(items: &[Value], at: &[Segment], forced: Option<Format>, cx: &mut Context, out: &mut Vec<Draft>) {
    // A list in which nothing is a tool is some other JSON: one message for it, not one per item.
    let any_tool = forced.is_some() || items.iter().any(|v| v.as_object().is_some_and(|o| detect_item(o).is_some()));
    if !any_tool && !items.is_empty() {
        let first = items.first().map_or("nothing", kind_of);
        return cx.unrecognised(at, format!("a list with no tool definition in it (its first item is {first})"));
    }
    if !cx.parallel || items.len() < PARALLEL_ITEMS {
        out.reserve(items.len());
        for (i, value) in items.iter().enumerate() {
            out.extend(list_item(value, &child(at, i), forced, cx));
        }
        return;
    }
    // The items on all cores, each with its own issues, in order; a draft is moved once more,
    // in place (no copy into fresh memory: the drafts of 69,000 tools are 44 MB).
    let read = super::load::run_in_parallel(items.iter().enumerate().collect(), |(i, value)| {
        let mut own = Context { issues: Vec::new(), ..*cx };
        let draft = list_item(value, &child(at, i), forced, &mut own);
        (draft, own.issues)
    });
    let issues = &mut cx.issues;
    let drafts = read.into_iter().filter_map(|(draft, mut own)| {
        issues.append(&mut own);
        draft
    });
    if out.is_empty() {
        *out = drafts.collect();
    } else {
        out.extend(drafts);
    }
}

/// From this many items, a list is read on all cores: a minified `tools/list` of 69,000 tools
/// spent a fifth of its loading here, on one core.
const PARALLEL_ITEMS: usize = 512;

/// The draft of one item of a list (at `at`), or the issue that says why there is none.
fn list_item(value: &Value, at: &[Segment], forced: Option<Format>, cx: &mut Context) -> Option<Draft> {
    let Value::Object(object) = value else {
        cx.error(at, format!("expected a tool definition (an object), found {}", kind_of(value)));
        return None;
    };
    match forced.or_else(|| detect_item(object)) {
        Some(format) => item(format, object, at, cx),
        None => {
            cx.error(at, unrecognised(object));
            None
        }
    }
}

fn item(format: Format, object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Option<Draft> {
    match format {
        Format::JsonSchema => jsonschema::item(object, at, cx),
        Format::OpenAi => openai::item(object, at, cx),
        Format::Mcp => mcp::item(object, at, cx),
        Format::GenAiScript => genaiscript::item(object, at, cx),
        Format::Otc => otc::item(object, at, cx),
        Format::Marketplace => marketplace::item(object, at, cx),
        Format::Gloodata => {
            cx.error(at, "a gloodata extension info needs `ns` and a `tools` map at its top level");
            None
        }
    }
}

/// Which format one tool definition is in, from the keys it has.
pub fn detect_item(object: &Map<String, Value>) -> Option<Format> {
    if member(object, "type").and_then(Value::as_str) == Some("function") {
        return Some(Format::OpenAi);
    }
    if member(object, "inputSchema").is_some() {
        return Some(Format::Mcp);
    }
    if otc::detect(object) {
        return Some(Format::Otc);
    }
    if let Some(Value::Object(tool)) = member(object, "tool") {
        return detect_item(tool).or(Some(Format::JsonSchema));
    }
    if let Some(schema) = member(object, "input_schema") {
        return Some(if looks_like_json_schema(schema) { Format::JsonSchema } else { Format::Marketplace });
    }
    if let Some(parameters) = member(object, "parameters") {
        return Some(if looks_like_json_schema(parameters) { Format::JsonSchema } else { Format::GenAiScript });
    }
    if marketplace::detect_actor_input(object) {
        return Some(Format::Marketplace);
    }
    None
}

fn unrecognised(object: &Map<String, Value>) -> String {
    let keys: Vec<&str> = object.keys().take(8).map(String::as_str).collect();
    format!(
        "not a tool definition in any known format (keys: {}); expected e.g. `name` + `parameters`, `inputSchema`, `input_schema`, or `ns` + `tools`",
        if keys.is_empty() { "none".to_string() } else { keys.join(", ") }
    )
}

pub fn child(at: &[Segment], segment: impl Into<Segment>) -> Vec<Segment> {
    let mut path = at.to_vec();
    path.push(segment.into());
    path
}

/// A non-empty string field.
pub fn text(object: &Map<String, Value>, key: &str) -> Option<String> {
    member(object, key).and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(str::to_string)
}

/// The tool's name, or an error naming what is missing.
pub fn required_name(object: &Map<String, Value>, key: &str, at: &[Segment], cx: &mut Context) -> Option<String> {
    match member(object, key) {
        Some(Value::String(name)) if !name.trim().is_empty() => Some(name.clone()),
        Some(Value::String(_)) => {
            cx.error(&child(at, key), format!("the tool's `{key}` is empty"));
            None
        }
        Some(other) => {
            cx.error(&child(at, key), format!("the tool's `{key}` must be a string, not {}", kind_of(other)));
            None
        }
        None => {
            cx.error(at, format!("this tool has no `{key}`"));
            None
        }
    }
}

/// `requirements.authorization` / `secrets` in the OTC list form or Arcade's object form.
pub fn requirements(value: Option<&Value>) -> Requirements {
    let mut requirements = Requirements::default();
    let Some(Value::Object(object)) = value else { return requirements };
    let authorizations: Vec<&Value> = match object.get("authorization") {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(single @ Value::Object(_)) => vec![single],
        _ => Vec::new(),
    };
    for auth in authorizations.into_iter().filter_map(Value::as_object) {
        let Some(id) = text(auth, "id").or_else(|| text(auth, "provider_id")) else { continue };
        // `tooldeck list --json` writes the scopes beside the id.
        let scopes = auth
            .get("oauth2")
            .and_then(|o| o.get("scopes"))
            .or_else(|| auth.get("scopes"))
            .and_then(Value::as_array)
            .map(|s| s.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        let provider_type =
            text(auth, "provider_type").or_else(|| auth.contains_key("oauth2").then(|| "oauth2".into()));
        requirements.authorization.push(super::tool::Authorization { id, provider_type, scopes });
    }
    if let Some(Value::Array(secrets)) = object.get("secrets") {
        requirements.secrets = secrets
            .iter()
            .filter_map(|s| match s {
                Value::String(name) => Some(name.clone()),
                Value::Object(o) => text(o, "id").or_else(|| text(o, "key")),
                _ => None,
            })
            .collect();
    }
    requirements
}
