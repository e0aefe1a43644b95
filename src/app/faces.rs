//! A server's resources, templates and prompts in the app. Each becomes an entry of the tool
//! list, under its server's tools (`resources`, `templates`, `prompts` sections), so the list,
//! the filter, forms, results, history and the raw view serve them as they serve tools: a
//! template's variables and a prompt's arguments are a form of string fields; a run sends
//! `resources/read` or `prompts/get` instead of `tools/call` (`ServerEffect::Face`), and the answer is
//! shown with a tool result's content rendering. Typing in such a field asks the server for
//! suggestions (`completion/complete`, `ServerEffect::Complete`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{App, DesktopEffect, Effect, ServerEffect};
use crate::catalog::{Face, Format, SessionId, Source, Tool, ToolUi, Written};
use crate::form::build::MAX_FIELDS;
use crate::invoke::Faces;
use crate::invoke::mcp::prompts::Prompt;
use crate::invoke::mcp::resources::{Resource, ResourceTemplate};
use crate::invoke::mcp::uri_template::Template;
use crate::text::{human_bytes, truncate, visible};

/// What a run of a resource, template or prompt sends.
#[derive(Debug, Clone, PartialEq)]
pub enum FaceRequest {
    Read { uri: String },
    GetPrompt { name: String, arguments: Map<String, Value> },
}

/// What the app knows of each server's faces besides the list entries.
/// Its fields are private: read through getters, changed only through its methods.
#[derive(Debug, Default)]
pub struct FaceState {
    /// Sessions whose servers answer `completion/complete`.
    completes: HashSet<SessionId>,
    /// Sessions whose servers take `resources/subscribe`.
    subscribes: HashSet<SessionId>,
    /// Resources subscribed to, by URI.
    subscribed: HashSet<String>,
    /// When a resource last said it changed (local `HH:MM:SS`), by URI.
    updated: HashMap<String, String>,
    /// The completion last asked: entry id, argument, text typed.
    asked: Option<(String, String, String)>,
}

/// How much of a template each of its fields repeats in its description.
const DESCRIBED_TEMPLATE: usize = 200;

const OBJECT_OF_NOTHING: fn() -> Value = || json!({"type": "object", "properties": {}});

fn entry(label: &str, id: String, name: &str, title: Option<&str>, description: String, face: Face) -> Tool {
    Tool {
        id,
        name: name.to_string(),
        title: title.map(str::to_string),
        description: Some(description).filter(|d| !d.is_empty()),
        format: Format::Mcp,
        source: Source::server(label),
        input_schema: OBJECT_OF_NOTHING(),
        output_schema: None,
        ui: ToolUi::default(),
        examples: Vec::new(),
        requirements: Default::default(),
        annotations: None,
        task_support: None,
        written: Written { face, ..Written::default() },
    }
}

/// A form of string fields, `required` as given, each described.
fn string_fields<'a>(fields: impl Iterator<Item = (&'a str, Option<String>, bool)>) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, description, needed) in fields {
        let mut field = json!({"type": "string"});
        if let Some(description) = description {
            field["description"] = Value::String(description);
        }
        properties.insert(name.to_string(), field);
        if needed {
            required.push(Value::String(name.to_string()));
        }
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// A template's variables or a prompt's arguments past what a form holds: nobody fills 100,000
/// fields one by one, so the form is a map of the names the person gives to their values.
fn by_name() -> Value {
    json!({"type": "object", "additionalProperties": {"type": "string"}})
}

fn too_many(count: usize, what: &str) -> String {
    format!("⚠ {count} {what}, more than a form holds ({MAX_FIELDS}): add the ones to send by name")
}

fn resource_entry(label: &str, resource: &Resource) -> Tool {
    let mut about: Vec<String> = resource.description.iter().cloned().collect();
    let mut read = format!("resources/read {}", resource.uri);
    read.extend(resource.mime_type.as_ref().map(|m| format!(" · {m}")));
    read.extend(resource.size.map(|s| format!(" · {}", human_bytes(s))));
    about.push(read);
    let face = Face::Resource { uri: resource.uri.clone() };
    let id = format!("resource:{}", resource.uri);
    let mut tool = entry(label, id, &resource.name, resource.title.as_deref(), about.join("\n\n"), face);
    tool.written.raw = Some(Arc::new(resource.raw.clone()));
    tool
}

fn template_entry(label: &str, template: &ResourceTemplate) -> Tool {
    let mut about: Vec<String> = template.description.iter().cloned().collect();
    let face = Face::Template { uri_template: template.uri_template.clone() };
    let id = format!("template:{}", template.uri_template);
    let schema = match &template.parsed {
        Ok(parsed) => {
            about.push(format!("resources/read {} with its variables filled in", template.uri_template));
            let variables = parsed.variables();
            if variables.len() > MAX_FIELDS {
                about.push(too_many(variables.len(), "variables"));
                by_name()
            } else {
                // Each field names the template, cut: a field per variable each holding the whole
                // template made 100,000 variables of an 800 KB template 80 GB.
                let shown = truncate(&template.uri_template, DESCRIBED_TEMPLATE);
                let described = |v: &String| Some(format!("{{{v}}} in {shown}"));
                string_fields(variables.iter().map(|v| (v.as_str(), described(v), true)))
            }
        }
        Err(why) => {
            about.push(format!("⚠ the template {} does not parse: {why}", template.uri_template));
            OBJECT_OF_NOTHING()
        }
    };
    let mut tool = entry(label, id, &template.name, template.title.as_deref(), about.join("\n\n"), face);
    tool.input_schema = schema;
    tool.written.raw = Some(Arc::new(template.raw.clone()));
    tool
}

fn prompt_entry(label: &str, prompt: &Prompt) -> Tool {
    let face = Face::Prompt { name: prompt.name.clone() };
    let mut about: Vec<String> = prompt.description.iter().cloned().collect();
    let required = prompt.arguments.iter().filter(|a| a.required).count();
    about.push(format!(
        "prompts/get {} · {} argument{} ({required} required)",
        prompt.name,
        prompt.arguments.len(),
        if prompt.arguments.len() == 1 { "" } else { "s" }
    ));
    let schema = if prompt.arguments.len() > MAX_FIELDS {
        about.push(too_many(prompt.arguments.len(), "arguments"));
        by_name()
    } else {
        string_fields(prompt.arguments.iter().map(|a| (a.name.as_str(), a.description.clone(), a.required)))
    };
    let about = about.join("\n\n");
    let mut tool = entry(label, format!("prompt:{}", prompt.name), &prompt.name, prompt.title.as_deref(), about, face);
    tool.input_schema = schema;
    tool.written.raw = Some(Arc::new(prompt.raw.clone()));
    tool
}

/// The list entries of a server's faces: resources, then templates, then prompts.
pub fn face_entries(label: &str, faces: &Faces) -> Vec<Tool> {
    let resources = faces.listing.resources.iter().map(|r| resource_entry(label, r));
    let templates = faces.listing.templates.iter().map(|t| template_entry(label, t));
    let prompts = faces.prompts.iter().map(|p| prompt_entry(label, p));
    resources.chain(templates).chain(prompts).collect()
}

/// The values of a form's arguments as strings (a prompt's arguments and a template's
/// variables are strings; anything else typed as JSON is sent as its text).
pub(super) fn strings(arguments: &Value) -> Map<String, Value> {
    let Some(given) = arguments.as_object() else { return Map::new() };
    given
        .iter()
        .map(|(k, v)| {
            let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            (k.clone(), Value::String(text))
        })
        .collect()
}

/// Why a run of a resource, template or prompt cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaceError {
    #[error("a tool is called, not read")]
    NotAFace,
    #[error("the template {} does not parse: {why}", visible(.template))]
    TemplateDoesNotParse { template: String, why: String },
    #[error("the server is not connected: {}", visible(.why))]
    Offline { why: String },
}

/// What a run of `face` with `arguments` sends, or why it cannot be sent.
pub fn request_for(face: &Face, arguments: &Value) -> Result<FaceRequest, FaceError> {
    match face {
        Face::Tool => Err(FaceError::NotAFace),
        Face::Resource { uri } => Ok(FaceRequest::Read { uri: uri.clone() }),
        Face::Template { uri_template } => {
            let template = Template::parse(uri_template).map_err(|why| FaceError::TemplateDoesNotParse {
                template: uri_template.clone(),
                why: why.to_string(),
            })?;
            let values: HashMap<String, String> = strings(arguments)
                .into_iter()
                .filter_map(|(k, v)| Some((k, v.as_str()?.to_string())))
                .filter(|(_, v)| !v.is_empty())
                .collect();
            Ok(FaceRequest::Read { uri: template.expand(&values) })
        }
        Face::Prompt { name } => Ok(FaceRequest::GetPrompt { name: name.clone(), arguments: strings(arguments) }),
        Face::Offline { why } => Err(FaceError::Offline { why: why.clone() }),
    }
}

/// The entry that keeps a server in the list while its tools cannot be listed (`why`).
pub fn offline_entry(label: &str, why: &str) -> Tool {
    let description = format!("{why}\n\nIts pane shows what it said; reconnecting tries again.");
    let face = Face::Offline { why: why.to_string() };
    entry(label, format!("{label} · not connected"), "not connected", Some("not connected"), description, face)
}

impl App {
    /// A server's resources, templates and prompts, listed: they replace the ones it listed
    /// before, after its tools. A face the server does not offer shows nothing.
    pub(super) fn faces_listed(&mut self, session: SessionId, label: &str, faces: Faces) {
        let entries = face_entries(label, &faces);
        let (_old, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.catalog)
            .into_tools()
            .into_iter()
            .partition(|t| t.source.session == Some(session) && !t.written.face.is_tool());
        for tool in keep {
            let _ = self.catalog.add(tool);
        }
        for mut entry in entries {
            entry.source.session = Some(session);
            self.unique_id(&mut entry, session);
            let _ = self.catalog.add(entry);
        }
        self.order_by_session();
        set(&mut self.faces.completes, session, faces.completes);
        set(&mut self.faces.subscribes, session, faces.subscribes);
        for warning in faces.warnings {
            self.sessions.pane_mut(session).note(warning);
        }
        let selected = self.selected_id();
        self.list.refresh(&self.catalog);
        if self.selected_id() != selected {
            self.tool_changed();
        }
    }

    /// Run on a resource, template or prompt: its read or get goes out as a call would.
    pub(super) fn send_face(&mut self, tool_id: String, arguments: Value, face: &Face) -> Vec<Effect> {
        match request_for(face, &arguments) {
            Ok(request) => {
                let session = self.catalog.get(&tool_id).map_or(self.sessions.current_id(), |t| self.session_of(t));
                let to = self.target(tool_id.clone());
                let effects = self.result.send_face(crate::invoke::CallRequest::new(tool_id, arguments), request, to);
                self.in_session(session, effects)
            }
            Err(why) => {
                self.tell(why.to_string());
                Vec::new()
            }
        }
    }

    /// `b`: subscribe to the selected resource's updates, or stop.
    pub(super) fn toggle_subscription(&mut self) -> Vec<Effect> {
        let Some(tool) = self.selected_tool() else { return Vec::new() };
        let Face::Resource { uri } = &tool.written.face else {
            self.tell("select a resource to subscribe to its updates");
            return Vec::new();
        };
        if !self.faces.subscribes.contains(&self.session_of(tool)) {
            self.tell("the server takes no subscriptions (it does not declare resources.subscribe)");
            return Vec::new();
        }
        let on = !self.faces.subscribed.contains(uri);
        let uri = uri.clone();
        self.tell(format!("{} {}…", if on { "subscribing to" } else { "unsubscribing from" }, visible(&uri)));
        vec![Effect::Server(ServerEffect::Subscribe { uri, on })]
    }

    /// The server answered a subscribe or an unsubscribe.
    pub(super) fn subscribed(&mut self, uri: String, on: bool, result: Result<(), super::EffectError>) {
        let shown = visible(&uri).into_owned();
        let said = match result {
            Ok(()) if on => {
                self.faces.subscribed.insert(uri);
                format!("subscribed to {shown}: its updates show here and re-read it when it is on screen")
            }
            Ok(()) => {
                self.faces.subscribed.remove(&uri);
                format!("unsubscribed from {shown}")
            }
            Err(why) => format!("{} {shown} failed: {why}", if on { "subscribing to" } else { "unsubscribing from" }),
        };
        self.tell(said);
    }

    /// `notifications/resources/updated`: noted with the time; a read of it on screen is read
    /// again.
    pub(super) fn resource_updated(&mut self, uri: &str, at: &str) -> Vec<Effect> {
        self.faces.updated.insert(uri.to_string(), at.to_string());
        let on_screen = self.result.run().filter(|_| !self.result.running()).and_then(|run| {
            let tool = self.catalog.get(run.tool_id())?;
            let read = request_for(&tool.written.face, &run.request().arguments).ok()?;
            (read == FaceRequest::Read { uri: uri.to_string() })
                .then(|| (run.tool_id().to_string(), tool.written.face.clone()))
        });
        let shown = visible(uri).into_owned();
        match on_screen {
            Some((tool_id, face)) => {
                let arguments = self.result.last_call().map(|(_, a)| a).unwrap_or_default();
                let effects = self.send_face(tool_id, arguments, &face);
                self.tell(format!("{shown} updated at {at}: read again"));
                effects
            }
            None => {
                self.tell(format!("{shown} updated at {at}"));
                Vec::new()
            }
        }
    }
}

impl App {
    /// The runtime's answers about faces: a listing, suggestions, a subscription.
    pub(super) fn face_msg(&mut self, session: SessionId, msg: super::FaceMsg) -> Vec<Effect> {
        match msg {
            super::FaceMsg::Listed { label, faces } => self.faces_listed(session, &label, *faces),
            super::FaceMsg::Completed { tool_id, argument, typed, result } => {
                self.completed((tool_id, argument, typed), result)
            }
            super::FaceMsg::Subscribed { uri, on, result } => self.subscribed(uri, on, result),
        }
        Vec::new()
    }

    /// `y`: a read or a prompt on screen is copied as shown (each item's header and text);
    /// anything else as a tool's result is.
    pub(super) fn copy_result(&self) -> super::Reply {
        let run = self.result.run().filter(|_| self.result.shows_items());
        let face = run.and_then(|run| self.catalog.get(run.tool_id())).is_some_and(|t| !t.written.face.is_tool());
        if !face {
            return self.result.copy_link_or_value();
        }
        use super::result::content::DocLine;
        let doc = super::result::content::document(self);
        let lines: Vec<&str> = doc
            .iter()
            .filter(|l| !matches!(l, DocLine::Heading(_) | DocLine::Muted(_) | DocLine::Picture(_)))
            .map(DocLine::words)
            .collect();
        let text = lines.join("\n");
        let size = human_bytes(text.len() as u64);
        super::Reply::effect(Effect::Desktop(DesktopEffect::Copy(text)))
            .with_status(format!("what is shown is on the clipboard ({size})"))
    }

    /// The resources among `events` that said they changed.
    pub(super) fn resources_updated(&mut self, events: &[crate::invoke::mcp::events::ServerEvent]) -> Vec<Effect> {
        let mut effects = Vec::new();
        for event in events {
            if let crate::invoke::mcp::events::ServerEvent::ResourceUpdated { uri, at } = event {
                effects.extend(self.resource_updated(uri, at));
            }
        }
        effects
    }
}

fn set(sessions: &mut HashSet<SessionId>, session: SessionId, on: bool) {
    if on {
        sessions.insert(session);
    } else {
        sessions.remove(&session);
    }
}

impl FaceState {
    /// True when session `session`'s server answers `completion/complete`.
    pub fn completes(&self, session: SessionId) -> bool {
        self.completes.contains(&session)
    }

    /// Notes `asked` (entry id, argument, text typed) as the question for suggestions now; false
    /// when it is the one asked already.
    pub(super) fn ask(&mut self, asked: (String, String, String)) -> bool {
        let new = self.asked.as_ref() != Some(&asked);
        self.asked = Some(asked);
        new
    }

    /// True when `asked` is the last question for suggestions: an answer to any other is stale.
    pub(super) fn is_asked(&self, asked: &(String, String, String)) -> bool {
        self.asked.as_ref() == Some(asked)
    }

    /// Resources subscribed to, by URI.
    pub fn subscribed(&self) -> &HashSet<String> {
        &self.subscribed
    }

    /// When a resource last said it changed (local `HH:MM:SS`), by URI.
    pub fn updated(&self) -> &HashMap<String, String> {
        &self.updated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_fills_its_variables_and_a_prompt_sends_strings() {
        let template = Face::Template { uri_template: "test://items/{id}{?q}".into() };
        let read = request_for(&template, &json!({"id": "a b", "q": ""}));
        assert_eq!(read, Ok(FaceRequest::Read { uri: "test://items/a%20b".into() }));
        let broken = Face::Template { uri_template: "test://{id".into() };
        assert!(request_for(&broken, &json!({})).is_err_and(|why| why.to_string().contains("does not parse")));
        let prompt = Face::Prompt { name: "p".into() };
        let got = request_for(&prompt, &json!({"n": 3, "s": "x"}));
        let Ok(FaceRequest::GetPrompt { arguments, .. }) = got else { panic!("a prompt request") };
        assert_eq!(Value::Object(arguments), json!({"n": "3", "s": "x"}));
    }

    #[test]
    fn past_what_a_form_holds_a_template_or_prompt_takes_its_values_by_name_with_a_note() {
        let names: Vec<String> = (0..=MAX_FIELDS).map(|i| format!("v{i}")).collect();
        let uri_template = format!("test://x{{?{}}}", names.join(","));
        let arguments: Vec<Value> = names.iter().map(|n| json!({"name": n, "required": true})).collect();
        let mut warnings = Vec::new();
        let entry = json!({"uriTemplate": uri_template, "name": "wide"});
        let templates = crate::invoke::mcp::resources::read_templates(&[entry], &mut warnings);
        let prompts =
            crate::invoke::mcp::prompts::read_prompts(&[json!({"name": "p", "arguments": arguments})], &mut warnings);
        let listing = crate::invoke::ResourceListing { templates, ..Default::default() };
        let entries = face_entries("mcp:x", &Faces { listing, prompts, ..Faces::default() });
        for tool in &entries {
            assert_eq!(tool.input_schema, by_name(), "{}", tool.name);
            let about = tool.description.as_deref().unwrap_or_default();
            assert!(about.contains("2001") && about.contains("more than a form holds (2000)"), "{about}");
        }
        let template = request_for(&entries[0].written.face, &json!({"v7": "a", "v2000": "b"}));
        assert_eq!(template, Ok(FaceRequest::Read { uri: "test://x?v7=a&v2000=b".into() }));
    }

    #[test]
    fn a_long_template_is_cut_in_each_field_s_description() {
        let uri_template = format!("test://{}/{{id}}", "a".repeat(10_000));
        let templates = crate::invoke::mcp::resources::read_templates(
            &[json!({"uriTemplate": uri_template, "name": "long"})],
            &mut Vec::new(),
        );
        let listing = crate::invoke::ResourceListing { templates, ..Default::default() };
        let entries = face_entries("mcp:x", &Faces { listing, ..Faces::default() });
        let described = entries[0].input_schema["properties"]["id"]["description"].as_str().unwrap_or_default();
        assert!(described.starts_with("{id} in test://aaa") && described.ends_with('…'), "{described}");
        assert!(described.len() < DESCRIBED_TEMPLATE + 20, "{}", described.len());
    }

    #[test]
    fn a_template_that_does_not_parse_is_listed_with_why_and_not_sent() {
        let mut warnings = Vec::new();
        let templates = crate::invoke::mcp::resources::read_templates(
            &[json!({"uriTemplate": "test://{broken", "name": "broken"})],
            &mut warnings,
        );
        let faces = Faces {
            listing: crate::invoke::ResourceListing { templates, ..Default::default() },
            warnings,
            ..Faces::default()
        };
        let mut app = App::new(crate::catalog::Catalog::default(), &[], (120, 40));
        let named = app.sessions.server_mut(SessionId::FIRST).named("mcp:x".into(), true);
        let _ = app.apply(named);
        app.faces_listed(SessionId::FIRST, "mcp:x", faces);
        let tool = app.selected_tool().expect("the template is listed");
        assert!(tool.description.as_deref().is_some_and(|d| d.contains("does not parse")), "{tool:?}");
        assert_eq!(tool.parameter_count(), 0);
        let effects = app.start_run(false);
        assert!(effects.is_empty(), "{effects:?}");
        assert!(app.status().is_some_and(|s| s.contains("does not parse")), "{:?}", app.status());
        assert!(app.server_pane().log().iter().any(|l| l.text().contains("test://{broken")), "the warning is noted");
    }
}
