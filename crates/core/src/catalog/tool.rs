//! The one normalised tool model every format is read into.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Unique within a catalog: the format's own id where it has one (`ns.toolId` for gloodata,
    /// `Toolkit.Tool@version` for OTC), the name otherwise.
    pub id: String,
    /// The name a model or server calls the tool by.
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub format: Format,
    pub source: Source,
    /// Always a JSON Schema object schema, local `$ref`s inlined where that terminates.
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub ui: ToolUi,
    pub examples: Vec<Example>,
    pub requirements: Requirements,
    /// MCP annotations (`readOnlyHint`, ...) as the server sent them.
    pub annotations: Option<Value>,
    /// MCP `execution.taskSupport`: `forbidden`, `optional` or `required` (as given).
    pub task_support: Option<String>,
    /// What the definition said where reading it changed it: lint checks what each provider
    /// receives, not the repaired model.
    pub written: Written,
}

/// A tool as `list --json` reports it. The input schema is the one the definition or server
/// gave (`$schema`, `$defs`, `$anchor` and the rest kept as sent, SEP-1613): inlining `$ref`s is
/// for forms and validation, and a report, or a tool echoed back to its server, must not carry
/// tooldeck's reading instead of the server's words.
#[derive(Serialize)]
struct ToolReport<'a> {
    id: &'a str,
    name: &'a str,
    title: &'a Option<String>,
    description: &'a Option<String>,
    format: &'a Format,
    source: &'a Source,
    input_schema: &'a Value,
    output_schema: &'a Option<Value>,
    ui: &'a ToolUi,
    examples: &'a [Example],
    requirements: &'a Requirements,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_support: Option<&'a String>,
    /// MCP Apps: the tool's `ui://` view (`_meta.ui`).
    #[serde(skip_serializing_if = "Option::is_none")]
    app: Option<&'a super::app_ui::AppUi>,
}

impl Serialize for Tool {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ToolReport {
            id: &self.id,
            name: &self.name,
            title: &self.title,
            description: &self.description,
            format: &self.format,
            source: &self.source,
            input_schema: self.sent_input_schema(),
            output_schema: &self.output_schema,
            ui: &self.ui,
            examples: &self.examples,
            requirements: &self.requirements,
            annotations: self.annotations.as_ref(),
            task_support: self.task_support.as_ref(),
            app: self.written.app.as_ref(),
        }
        .serialize(serializer)
    }
}

/// The parts of a definition as written that the tool model reads differently.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Written {
    /// The input schema as written, kept only when reading changed it (`$ref`s inlined, draft-4
    /// forms or other spellings repaired, `type: "object"` added at the root).
    pub input_schema: Option<Value>,
    pub naming: Naming,
    /// The format has no `default` for its parameters (Arcade's `value_schema`).
    pub no_defaults: bool,
    /// The definition exactly as an MCP server sent it in `tools/list` (schema, annotations,
    /// `_meta`, `execution`), for the raw view; none for a tool read from a file.
    pub raw: Option<std::sync::Arc<Value>>,
    /// Which face of an MCP server the entry is: a tool, unless the app made it from one of the
    /// server's resources, templates or prompts (so the list, forms and results serve them too).
    pub face: Face,
    /// MCP Apps: the interactive view `_meta.ui.resourceUri` names, if any.
    pub app: Option<super::app_ui::AppUi>,
    /// The id the server listed the tool under, when the catalog gave it another (two servers
    /// list one name: the later one's entry is `name #2`); a call goes out under this one.
    pub listed_id: Option<String>,
}

/// A face of an MCP server besides its tools, as the app lists it beside them: what a run
/// sends instead of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Face {
    #[default]
    Tool,
    /// `resources/read` of this URI.
    Resource { uri: String },
    /// `resources/read` of this RFC 6570 template, its variables filled from the form.
    Template { uri_template: String },
    /// `prompts/get` of this prompt, its arguments from the form.
    Prompt { name: String },
    /// Stands for a server whose tools could not be listed (`why`), so that it stays in the
    /// list, its pane and its reason in reach, until it is connected again.
    Offline { why: String },
}

impl Face {
    pub fn is_tool(&self) -> bool {
        *self == Face::Tool
    }

    /// The section of the list it is shown in ("tools", "resources", "templates", "prompts").
    pub fn section(&self) -> &'static str {
        match self {
            Face::Tool => "tools",
            Face::Resource { .. } => "resources",
            Face::Template { .. } => "templates",
            Face::Prompt { .. } => "prompts",
            Face::Offline { .. } => "tools",
        }
    }
}

/// Where a tool's name came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Naming {
    /// The definition names the tool, and a model sees that name.
    #[default]
    Given,
    /// tooldeck made it up from the file's name; no model sees it as it is.
    FromFile,
    /// A model sees the tool under another name (Arcade's `Toolkit_Name`).
    SeenAs(String),
}

impl Tool {
    /// Number of top-level parameters.
    pub fn parameter_count(&self) -> usize {
        self.input_schema.get("properties").and_then(Value::as_object).map_or(0, |p| p.len())
    }

    pub fn display_title(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// The input schema as a provider receives it: as written, before tooldeck's repairs.
    pub fn sent_input_schema(&self) -> &Value {
        self.written.input_schema.as_ref().unwrap_or(&self.input_schema)
    }

    /// The name a model sees, or `None` when tooldeck made the name up.
    pub fn model_name(&self) -> Option<&str> {
        match &self.written.naming {
            Naming::Given => Some(&self.name),
            Naming::FromFile => None,
            Naming::SeenAs(name) => Some(name),
        }
    }

    /// The definition asks OpenAI for strict mode (`strict: true`).
    pub fn asks_strict(&self) -> bool {
        self.annotations.as_ref().and_then(|a| a.get("strict")).and_then(Value::as_bool) == Some(true)
    }

    /// MCP's behaviour hints, from the annotations (any format may carry them).
    pub fn hints(&self) -> Hints {
        let hint = |key: &str| self.annotations.as_ref()?.get(key)?.as_bool();
        Hints {
            read_only: hint("readOnlyHint"),
            destructive: hint("destructiveHint"),
            idempotent: hint("idempotentHint"),
            open_world: hint("openWorldHint"),
        }
    }
}

/// MCP's tool behaviour hints; `None`: not given, so the spec's default holds (not read-only,
/// destructive, not idempotent, open world). Hints, not promises: a server says them of itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

impl Hints {
    /// `destructiveHint: true` on a tool not marked read-only (on a read-only one it means nothing).
    pub fn marked_destructive(&self) -> bool {
        self.read_only != Some(true) && self.destructive == Some(true)
    }

    /// No hint either way on a tool not marked read-only: by the spec's default it may be destructive.
    pub fn may_be_destructive(&self) -> bool {
        self.read_only != Some(true) && self.destructive.is_none()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    JsonSchema,
    OpenAi,
    Mcp,
    GenAiScript,
    Gloodata,
    Otc,
    Marketplace,
}

impl Format {
    pub const ALL: [Format; 7] = [
        Format::JsonSchema,
        Format::OpenAi,
        Format::Mcp,
        Format::GenAiScript,
        Format::Gloodata,
        Format::Otc,
        Format::Marketplace,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::JsonSchema => "jsonschema",
            Format::OpenAi => "openai",
            Format::Mcp => "mcp",
            Format::GenAiScript => "genaiscript",
            Format::Gloodata => "gloodata",
            Format::Otc => "otc",
            Format::Marketplace => "marketplace",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One of the app's server sessions (several servers side by side, two copies of one server
/// among them): a tool a server listed names the session it came from, never its label alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub u32);

impl Tool {
    /// The id a call of the tool is sent under: the one its server knows it by.
    pub fn wire_id(&self) -> &str {
        self.written.listed_id.as_deref().unwrap_or(&self.id)
    }
}

impl SessionId {
    /// The session of the server named on the command line (or the built-in demo server).
    pub const FIRST: SessionId = SessionId(0);
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// As the user named it (or `<stdin>`, or `sample-tools/...` for the built-in tools).
    pub path: String,
    /// 1-based line where the tool's definition starts; 0 for a tool a server listed (`path`
    /// is then the server's label).
    pub line: usize,
    /// The app's session whose server listed the tool (the app sets it as the tools arrive;
    /// headless commands talk to one server and leave it unset).
    #[serde(skip)]
    pub session: Option<SessionId>,
}

impl Source {
    /// The source of a tool the server `label` listed.
    pub fn server(label: &str) -> Source {
        Source { path: label.to_string(), line: 0, session: None }
    }

    /// The source of a tool defined at `line` of the file `path`.
    pub fn file(path: &str, line: usize) -> Source {
        Source { path: path.to_string(), line, session: None }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A URL's `:1` would read like a port: a server's tools say whose they are instead.
        if self.line == 0 { write!(f, "server {}", self.path) } else { write!(f, "{}:{}", self.path, self.line) }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolUi {
    /// gloodata's tile line: "Show Map Of "Cairo" At Zoom Level 12".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile: Option<Tile>,
    /// Cues for single fields, keyed by the field's JSON pointer in the arguments ("/address/zip").
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, FieldCue>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tile {
    pub prefix: Option<String>,
    /// In display order.
    pub args: Vec<TileArg>,
    pub suffix: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TileArg {
    pub name: String,
    pub prefix: Option<String>,
    pub suffix: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FieldCue {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widget: Option<Widget>,
    /// Values offered in a dropdown; other values stay allowed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<Value>,
    /// Human labels for enum values, where the format gives them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub enum_labels: Vec<EnumLabel>,
    /// A section the field belongs to (GenAIScript `uiGroup`, Apify `sectionCaption`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

impl FieldCue {
    pub fn is_empty(&self) -> bool {
        self.widget.is_none() && self.suggestions.is_empty() && self.enum_labels.is_empty() && self.group.is_none()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Widget {
    /// A multi-line text editor.
    Textarea,
    /// A boolean shown beside the Run hint instead of in the form.
    RunOption,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnumLabel {
    pub value: Value,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Example {
    /// A prompt that should select the tool (gloodata).
    Prompt(String),
    /// A complete set of arguments.
    Arguments(Value),
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Requirements {
    pub authorization: Vec<Authorization>,
    pub secrets: Vec<String>,
}

impl Requirements {
    pub fn is_empty(&self) -> bool {
        self.authorization.is_empty() && self.secrets.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Authorization {
    /// The provider's id ("google", "arcade-slack").
    pub id: String,
    /// "oauth2" where the format says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_type: Option<String>,
    pub scopes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// The conformance suite's JSON Schema 2020-12 tool (SEP-1613, SEP-2106).
    fn schema() -> serde_json::Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"}, "email": {"type": "string"}},
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }

    #[test]
    fn a_report_keeps_the_input_schema_as_sent_and_the_model_inlines_it() {
        let text = json!({"tools": [{"name": "t", "inputSchema": schema()}]}).to_string();
        let options = crate::catalog::LoadOptions::default();
        let (tools, diagnostics) = crate::catalog::load_text("server", &text, &options);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let tool = &tools[0];
        // Forms and validation read one schema with the reference inlined.
        assert_eq!(tool.input_schema["properties"]["address"]["properties"]["city"]["type"], "string");
        // What is reported (list --json) is what the server sent, every 2020-12 keyword kept.
        let reported = serde_json::to_value(tool).unwrap();
        assert_eq!(reported["input_schema"], schema());
        assert_eq!(reported["name"], "t");
        assert!(reported.get("written").is_none() && reported.get("annotations").is_none());
    }
}
