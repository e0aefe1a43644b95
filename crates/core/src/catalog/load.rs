//! One file's bytes or text → its tools and diagnostics (reading paths and folders is in
//! [`super::paths`]). One bad file or tool never stops the others.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::document::{self, Document, Segment};
use super::formats::{self, Context, Draft};
use super::schema::{self, escape_pointer};
use super::tool::{EnumLabel, FieldCue, Source, Tool, ToolUi, Widget, Written};
use super::{Diagnostic, Issue, Loaded, Severity};
use crate::text::LineIndex;

/// Definition files larger than this are refused with a message instead of being parsed: the
/// largest real definition we know of is 1.4 MB.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// How a text is written. YAML is read as YAML; JSON5 (also JSONC) allows what JSON5 allows in
/// the formats that care (comments, unquoted names); JSON is JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    #[default]
    Json,
    Json5,
    Yaml,
}

impl Syntax {
    /// What a file's name says about its syntax (`.json5`, `.jsonc`, `.yaml`, `.yml`).
    pub fn of_name(name: &str) -> Syntax {
        let lower = name.to_ascii_lowercase();
        if [".yaml", ".yml"].iter().any(|e| lower.ends_with(e)) {
            Syntax::Yaml
        } else if [".json5", ".jsonc"].iter().any(|e| lower.ends_with(e)) {
            Syntax::Json5
        } else {
            Syntax::Json
        }
    }
}

/// How definitions are read. `syntax` and `named_by_user` describe one text (`load_text`,
/// `load_bytes`); reading paths sets them for each file from its name and how it was found.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// How the text is written (a file's name decides it for files read from paths).
    pub syntax: Syntax,
    /// The person named this text themselves (not found in a folder): a file of another kind
    /// is then an error rather than skipped quietly.
    pub named_by_user: bool,
    /// Skip detection and read every file as this format (`--format`).
    pub format: Option<super::Format>,
    pub max_file_bytes: u64,
    /// Check schemas against the JSON Schema meta-schema. Commands that only need a server's
    /// tools to call them (and show no diagnostics) skip it: the first check costs ~2 ms.
    pub meta_check: bool,
    /// A file's many tools are finished on all cores. Off when several files are read at once:
    /// the files already keep the cores busy, and threads within threads only cost.
    pub parallel_tools: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            syntax: Syntax::Json,
            named_by_user: true,
            format: None,
            max_file_bytes: MAX_FILE_BYTES,
            meta_check: true,
            parallel_tools: true,
        }
    }
}

/// What one file gave.
pub struct FileOutcome {
    tools: Vec<Tool>,
    diagnostics: Vec<Diagnostic>,
    /// False for problems that are not about a file read (a folder that cannot be opened).
    file: bool,
}

impl FileOutcome {
    pub(super) fn problem(diagnostic: Diagnostic) -> Self {
        FileOutcome { tools: Vec::new(), diagnostics: vec![diagnostic], file: true }
    }

    /// A problem that is not about a file read (a folder that cannot be opened).
    pub(super) fn not_a_file(diagnostic: Diagnostic) -> Self {
        FileOutcome { file: false, ..FileOutcome::problem(diagnostic) }
    }
}

impl Loaded {
    /// Adds one file's tools (renaming clashing ids, with a warning) and diagnostics.
    pub(super) fn merge(&mut self, outcome: FileOutcome) {
        self.files += usize::from(outcome.file);
        let mut diagnostics = outcome.diagnostics;
        let tools = if self.catalog.is_empty() {
            // The first file's tools become the catalog's list as they are, without moving.
            self.catalog.adopt(outcome.tools)
        } else {
            outcome.tools
        };
        self.catalog.reserve(tools.len());
        for tool in tools {
            let source = tool.source.clone();
            if let Some(message) = self.catalog.add(tool) {
                let warning = Diagnostic {
                    path: source.path,
                    line: source.line,
                    column: 1,
                    severity: Severity::Warning,
                    message,
                };
                diagnostics.push(warning);
            }
        }
        diagnostics.sort_by_key(|d| (d.line, d.column));
        self.diagnostics.extend(diagnostics);
    }
}

/// `work` over every item on all cores ([`crate::sync::in_parallel`]), with the expansion
/// budgets in force here holding on the workers too.
pub(super) fn run_in_parallel<T: Send, R: Send>(items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let budgets = super::budget::current();
    crate::sync::in_parallel(items, |item| super::budget::install(budgets.clone(), || work(item)))
}

/// Loads one file's bytes into `loaded`; `label` names it in diagnostics and in each tool's `source`.
/// A label that ends in `.yaml` or `.yml` is read as YAML whatever `options.syntax` says.
pub fn load_bytes(loaded: &mut Loaded, label: &str, bytes: &[u8], options: &LoadOptions) {
    loaded.merge(parse_bytes(label, bytes, options));
}

pub(super) fn parse_bytes(label: &str, bytes: &[u8], options: &LoadOptions) -> FileOutcome {
    if bytes.len() as u64 > options.max_file_bytes {
        let limit = crate::text::human_bytes(options.max_file_bytes);
        let message = format!("the file is larger than {limit}; tool definitions are far smaller, so it is not loaded");
        return FileOutcome::problem(whole_file(label, message));
    }
    let text = match decode(bytes) {
        Ok(text) => text,
        Err(diagnostic) => return FileOutcome::problem(Diagnostic { path: label.to_string(), ..diagnostic }),
    };
    // A proxy's record (JSON Lines) stands for the last tools/list answer in it.
    match super::record::tools_of_record(text) {
        super::record::RecordTools::NotARecord => {}
        super::record::RecordTools::Listed(listed) => return parse_listing(label, &listed, options),
        super::record::RecordTools::NoListing => {
            let message =
                "this proxy record holds no tools/list answer: the client never asked the server for its tools";
            return FileOutcome::problem(whole_file(label, message.to_string()));
        }
    }
    let options = match Syntax::of_name(label) {
        Syntax::Yaml => LoadOptions { syntax: Syntax::Yaml, ..*options },
        _ => *options,
    };
    let (tools, diagnostics) = load_text(label, text, &options);
    FileOutcome { tools, diagnostics, file: true }
}

/// A record's last `tools/list` answer, read as the MCP result it is.
fn parse_listing(label: &str, listed: &str, options: &LoadOptions) -> FileOutcome {
    let options = LoadOptions { syntax: Syntax::Json, ..*options };
    let (tools, diagnostics) = load_text(label, listed, &options);
    FileOutcome { tools, diagnostics, file: true }
}

/// Text → UTF-8, or the diagnostic that says why not (path left empty for the caller).
fn decode(bytes: &[u8]) -> Result<&str, Diagnostic> {
    let fail = |line, column, message: String| Diagnostic {
        path: String::new(),
        line,
        column,
        severity: Severity::Error,
        message,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(fail(1, 1, "the file is empty: expected tool definitions".into()));
    }
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(fail(1, 1, "the file is UTF-16 encoded; save it as UTF-8".into()));
    }
    if let Some(at) = bytes.iter().take(8192).position(|&b| b == 0) {
        return Err(fail(1, 1, format!("this is a binary file (a NUL byte at offset {at}), not tool definitions")));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
        let (line, column) = LineIndex::new(valid).line_col(valid.len());
        fail(
            line,
            column,
            format!("the file is not valid UTF-8 (byte 0x{:02X} here); save it as UTF-8", bytes[e.valid_up_to()]),
        )
    })
}

/// From this many tools in one file, they are checked on all cores.
const PARALLEL_TOOLS: usize = 64;

/// Parses and reads one document's text: its tools and its diagnostics. Its schemas share one
/// budget for expanding `$ref`s, and the catalog's ([`super::budget`]).
pub fn load_text(label: &str, text: &str, options: &LoadOptions) -> (Vec<Tool>, Vec<Diagnostic>) {
    super::budget::for_file(|| read_text(label, text, options))
}

fn read_text(label: &str, text: &str, options: &LoadOptions) -> (Vec<Tool>, Vec<Diagnostic>) {
    let yaml = options.syntax == Syntax::Yaml;
    let (json5, named_by_user) = (options.syntax != Syntax::Json, options.named_by_user);
    let lines = LineIndex::new(text);
    let diagnostic = |offset: usize, severity, message: String| {
        let (line, column) = lines.line_col(offset);
        Diagnostic { path: label.to_string(), line, column, severity, message }
    };
    let mut doc = match parse_document(label, text, yaml) {
        Ok(doc) => doc,
        Err(diagnostic) => return (Vec::new(), vec![diagnostic]),
    };
    let file_stem = file_stem(label);
    let parallel = options.parallel_tools;
    let mut cx = Context { doc: &doc, file_stem: &file_stem, json5, named_by_user, parallel, issues: Vec::new() };
    let mut drafts = formats::extract(doc.value(), options.format, &mut cx);
    let mut issues = std::mem::take(&mut cx.issues);
    let mut moved = false;
    for draft in &mut drafts {
        draft.line = lines.line(doc.offset_of(&draft.at));
        if let (true, Some(at)) = (draft.input_from_document, &draft.input_schema_at) {
            draft.input_schema = doc.take(at);
            moved = true;
        }
        if let (true, Some(at)) = (draft.output_from_document, &draft.output_schema_at) {
            draft.output_schema = Some(doc.take(at));
            moved = true;
        }
    }
    // Each tool is checked on its own: a file of thousands of tools uses every core.
    let finish_one = |draft: Draft| {
        let mut tool_issues = Vec::new();
        let tool = finish(draft, label, options.meta_check, &mut tool_issues);
        (tool, tool_issues)
    };
    let mut finished: Vec<_> = if drafts.len() < PARALLEL_TOOLS || !options.parallel_tools {
        drafts.into_iter().map(finish_one).collect()
    } else {
        run_in_parallel(drafts, finish_one)
    };
    for (_, tool_issues) in &mut finished {
        issues.append(tool_issues);
    }
    // Collected in place: the tools stay where they were finished.
    let tools: Vec<Tool> = finished.into_iter().filter_map(|(tool, _)| tool).collect();
    // Schemas were moved out of `doc`; only a file with something to report pays for a second
    // parse to find where in them each problem is.
    let positions = if moved && !issues.is_empty() { parse_document(label, text, yaml).unwrap_or(doc) } else { doc };
    let mut lookup = super::document::Lookup::new(&positions);
    let diagnostics = issues
        .into_iter()
        .map(|issue| diagnostic(lookup.offset_of(&issue.at), issue.severity, issue.message))
        .collect();
    (tools, diagnostics)
}

fn parse_document(label: &str, text: &str, yaml: bool) -> Result<Document, Diagnostic> {
    let lines = LineIndex::new(text);
    if yaml {
        match serde_saphyr::from_str::<Value>(text) {
            Ok(value) => Ok(Document::from_yaml(text, value)),
            Err(e) => {
                let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
                let message = e.to_string().lines().next().unwrap_or("invalid YAML").to_string();
                Err(Diagnostic {
                    path: label.into(),
                    line,
                    column,
                    severity: Severity::Error,
                    message: format!("invalid YAML: {message}"),
                })
            }
        }
    } else {
        Document::parse(text).map_err(|e| {
            let (line, column) = lines.line_col(e.offset);
            Diagnostic {
                path: label.into(),
                line,
                column,
                severity: Severity::Error,
                message: format!("invalid JSON: {}", e.message),
            }
        })
    }
}

fn file_stem(label: &str) -> String {
    let name = Path::new(label).file_name().and_then(|n| n.to_str()).unwrap_or("tool");
    let mut stem = name;
    for ext in super::paths::EXTENSIONS {
        if let Some(s) = stem.strip_suffix(&format!(".{ext}")) {
            stem = s;
            break;
        }
    }
    if stem.is_empty() || label == "<stdin>" { "stdin".to_string() } else { stem.to_string() }
}

/// Normalises a draft's schemas and gathers its cues. A schema error drops the tool.
fn finish(draft: Draft, label: &str, meta_check: bool, issues: &mut Vec<Issue>) -> Option<Tool> {
    let mut schema_issues = Vec::new();
    let written_input = schema::reading_may_change(&draft.input_schema).then(|| draft.input_schema.clone());
    let input_schema = schema::normalise_input(draft.input_schema, meta_check, &mut schema_issues);
    let written_input = written_input.filter(|written| *written != input_schema);
    let input_place = SchemaPlace {
        tool: &draft.id,
        which: "input",
        schema_at: draft.input_schema_at.as_deref(),
        properties_at: draft.properties_at.as_deref(),
        tool_at: &draft.at,
    };
    let mut failed = input_place.relocate(schema_issues, issues);
    let output_schema = draft.output_schema.map(|schema| {
        let mut schema_issues = Vec::new();
        let schema = schema::normalise_output(schema, meta_check, &mut schema_issues);
        let output_place = SchemaPlace {
            which: "output",
            schema_at: draft.output_schema_at.as_deref(),
            properties_at: None,
            ..input_place
        };
        failed |= output_place.relocate(schema_issues, issues);
        schema
    });
    if failed {
        return None;
    }
    let mut fields = draft.cues;
    collect_cues(&input_schema, &mut String::new(), &mut fields, 0);
    Some(Tool {
        id: draft.id,
        name: draft.name,
        title: draft.title,
        description: draft.description,
        format: draft.format,
        source: Source::file(label, draft.line),
        input_schema,
        output_schema,
        ui: ToolUi { tile: draft.tile, fields },
        examples: draft.examples,
        requirements: draft.requirements,
        annotations: draft.annotations,
        task_support: draft.task_support,
        written: Written {
            input_schema: written_input,
            naming: draft.naming,
            no_defaults: draft.no_defaults,
            raw: None,
            face: crate::catalog::Face::Tool,
            app: draft.app,
            listed_id: None,
        },
    })
}

/// Where one of a tool's schemas sits in its document.
#[derive(Clone, Copy)]
struct SchemaPlace<'a> {
    tool: &'a str,
    which: &'static str,
    schema_at: Option<&'a [Segment]>,
    properties_at: Option<&'a [Segment]>,
    tool_at: &'a [Segment],
}

impl SchemaPlace<'_> {
    /// Moves schema issues into document coordinates, one warning for each kind of repair (with
    /// the count of further places) so a file full of `"type": "dict"` stays readable. True when
    /// any issue is an error.
    fn relocate(&self, schema_issues: Vec<Issue>, issues: &mut Vec<Issue>) -> bool {
        let failed = schema_issues.iter().any(|i| i.severity == Severity::Error);
        let mut grouped: Vec<(Issue, usize)> = Vec::new();
        // Where each warning's message was first seen: a search of the groups for each issue was
        // quadratic in a server's schema of 100,000 properties, each with its own message.
        let mut first_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for issue in schema_issues {
            let repeat = match issue.severity {
                Severity::Warning => first_of.get(&issue.message).copied(),
                _ => None,
            };
            match repeat {
                Some(first) => grouped[first].1 += 1,
                None => {
                    if issue.severity == Severity::Warning {
                        first_of.insert(issue.message.clone(), grouped.len());
                    }
                    grouped.push((issue, 0));
                }
            }
        }
        for (issue, more) in grouped {
            let pointer: String = issue.at.iter().map(|s| format!("/{}", segment_text(s))).collect();
            let at = self.document_path(&issue.at);
            let mut place = if pointer.is_empty() { String::new() } else { format!(" at {pointer}") };
            if more > 0 {
                place.push_str(&format!(" (and {more} more {})", if more == 1 { "place" } else { "places" }));
            }
            let consequence = if issue.severity == Severity::Error { "; the tool is not loaded" } else { "" };
            issues.push(Issue {
                at,
                severity: issue.severity,
                message: format!(
                    "tool \"{}\", {} schema{place}: {}{consequence}",
                    self.tool, self.which, issue.message
                ),
            });
        }
        failed
    }

    fn document_path(&self, schema_path: &[Segment]) -> Vec<Segment> {
        match (schema_path.first(), self.properties_at, self.schema_at) {
            (Some(Segment::Key(k)), Some(properties), _) if k == "properties" => {
                properties.iter().chain(&schema_path[1..]).cloned().collect()
            }
            (_, _, Some(base)) => base.iter().chain(schema_path).cloned().collect(),
            _ => self.tool_at.to_vec(),
        }
    }
}

fn segment_text(segment: &Segment) -> String {
    match segment {
        Segment::Key(k) => escape_pointer(k),
        Segment::Index(i) => i.to_string(),
    }
}

/// UI cues written into schemas (GenAIScript `uiType`, `uiSuggestions`, `uiGroup`; Apify
/// `editor`, `enumTitles`, `sectionCaption`) → the tool's field cues, by JSON pointer.
fn collect_cues(schema: &Value, pointer: &mut String, cues: &mut BTreeMap<String, FieldCue>, depth: usize) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
    if depth > document::MAX_DEPTH {
        return;
    }
    for (name, property) in properties {
        // A boolean schema has no cues and nothing inside.
        let Some(property_map) = property.as_object() else { continue };
        let len = pointer.len();
        pointer.push('/');
        schema::push_escaped(pointer, name);
        let keyword = |key: &str| schema::member(property_map, key);
        let mut cue = cues.remove(pointer.as_str()).unwrap_or_default();
        let ui_type = keyword("uiType").or_else(|| keyword("editor")).and_then(Value::as_str);
        match ui_type {
            Some("textarea") | Some("javascript") | Some("python") | Some("json") => {
                cue.widget = Some(Widget::Textarea)
            }
            Some("runOption") => cue.widget = Some(Widget::RunOption),
            _ => {}
        }
        if let Some(Value::Array(suggestions)) = keyword("uiSuggestions") {
            cue.suggestions = suggestions.clone();
        }
        if let Some(group) = keyword("uiGroup").or_else(|| keyword("sectionCaption")).and_then(Value::as_str) {
            cue.group = Some(group.to_string());
        }
        if let (Some(Value::Array(values)), Some(Value::Array(titles))) = (keyword("enum"), keyword("enumTitles")) {
            cue.enum_labels = values
                .iter()
                .zip(titles)
                .map(|(value, title)| EnumLabel {
                    value: value.clone(),
                    label: title.as_str().unwrap_or_default().to_string(),
                })
                .collect();
        }
        if !cue.is_empty() {
            cues.insert(pointer.clone(), cue);
        }
        collect_cues(property, pointer, cues, depth + 1);
        pointer.truncate(len);
    }
}

/// A diagnostic about a whole file or path (no line): shown as `path: error: ...`.
pub(super) fn whole_file(label: &str, message: String) -> Diagnostic {
    Diagnostic { path: label.to_string(), line: 0, column: 0, severity: Severity::Error, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long list is read on all cores: the same tools, in the same order, with the same
    /// problems at the same places as when it is read on one.
    #[test]
    fn a_long_list_reads_the_same_on_all_cores() {
        let items: Vec<Value> = (0..2_000)
            .map(|i| match i % 97 {
                0 => serde_json::json!(i),
                1 => serde_json::json!({"nameless": i}),
                2 => serde_json::json!({"name": format!("t{i}")}),
                _ => serde_json::json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}),
            })
            .collect();
        let text = serde_json::json!({ "tools": items }).to_string();
        let read =
            |parallel_tools| load_text("many.json", &text, &LoadOptions { parallel_tools, ..LoadOptions::default() });
        let (serial_tools, serial_problems) = read(false);
        let (parallel_tools, parallel_problems) = read(true);
        let ids = |tools: &[Tool]| tools.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&serial_tools), ids(&parallel_tools));
        assert!(serial_tools.len() > 1_900, "{}", serial_tools.len());
        let said = |problems: &[Diagnostic]| problems.iter().map(|d| (d.column, d.message.clone())).collect::<Vec<_>>();
        assert_eq!(said(&serial_problems), said(&parallel_problems));
        assert!(serial_problems.len() >= 60, "{serial_problems:#?}");
    }
}
