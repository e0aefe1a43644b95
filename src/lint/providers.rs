//! What each model provider would refuse, from its own documentation (the rule's URL):
//!
//! - OpenAI: function names `^[a-zA-Z0-9_-]{1,64}$` and at most 128 functions per request (the
//!   Chat Completions reference, `tools`). Strict mode (the Structured Outputs guide, "Supported
//!   schemas"): every property required, `additionalProperties: false` on every object, the root
//!   an object and not `anyOf`, the string formats it lists, at most 5,000 properties, 10 levels
//!   of nesting, 1,000 enum values, 120,000 characters of names and enum values, 15,000
//!   characters for one enum of more than 250 strings; `allOf`, `not`, `dependentRequired`,
//!   `dependentSchemas`, `if`/`then`/`else` unsupported. The guide's earlier editions also listed
//!   `minLength`, `maxLength`, `patternProperties`, `unevaluatedProperties`, `propertyNames`,
//!   `minProperties`, `maxProperties`, `unevaluatedItems`, `contains`, `minContains`,
//!   `maxContains` and `uniqueItems` as unsupported, and its current one lists them nowhere among
//!   the supported keywords; `oneOf` is not among them either. We could not confirm from the
//!   guide that each of these is refused rather than ignored: the API's "is not permitted"
//!   errors say so for those reported to us.
//! - Anthropic: tool names `^[a-zA-Z0-9_-]{1,64}$` (the tool-use guide). The API answers
//!   "input_schema does not support oneOf, allOf, or anyOf at the top level"; the guide does not
//!   say so, the error does.
//! - Gemini API: function names of a-z, A-Z, 0-9, `_`, `:`, `.`, `-`, at most 64 characters
//!   (`FunctionDeclaration.name`). Vertex AI's reference adds "must start with a letter or an
//!   underscore"; the Gemini API's does not, so we do not check it. `parameters` is the `Schema`
//!   object, "a select subset of an OpenAPI 3.0 schema object": any other field is refused
//!   ("Unknown name ... Cannot find field"), `type` is one value, `enum` holds strings. Vertex's
//!   rule on parameter names (letters, digits, `_`, at most 64) is not in the Gemini API
//!   reference and is not checked.
//! - MCP (2025-11-25): tool names SHOULD be 1-128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`;
//!   `outputSchema` describes an object.

use std::collections::HashMap;

use serde_json::Value;

use super::tips::shown_pointer;
use super::walk::{Visit, is_object, walk};
use super::{Finding, Options, Part, Sink, Target};
use crate::catalog::Tool;

/// A provider's rule for tool names.
struct NameRule {
    rule: &'static str,
    provider: &'static str,
    allowed: fn(char) -> bool,
    allowed_text: &'static str,
    max: usize,
}

fn openai_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn gemini_char(c: char) -> bool {
    openai_char(c) || c == ':' || c == '.'
}

fn mcp_char(c: char) -> bool {
    openai_char(c) || c == '.'
}

const OPENAI_NAMES: NameRule = NameRule {
    rule: "openai/name",
    provider: "OpenAI",
    allowed: openai_char,
    allowed_text: "a-z A-Z 0-9 _ -",
    max: 64,
};
const ANTHROPIC_NAMES: NameRule = NameRule { rule: "anthropic/name", provider: "Anthropic", ..OPENAI_NAMES };
const GEMINI_NAMES: NameRule = NameRule {
    rule: "gemini/name",
    provider: "Gemini",
    allowed: gemini_char,
    allowed_text: "a-z A-Z 0-9 _ : . -",
    max: 64,
};
const MCP_NAMES: NameRule =
    NameRule { rule: "mcp/name", provider: "MCP", allowed: mcp_char, allowed_text: "A-Z a-z 0-9 _ - .", max: 128 };

fn name_rules(options: &Options) -> Vec<&'static NameRule> {
    let mut rules = Vec::new();
    if options.targets(Target::OpenAi) || options.targets(Target::OpenAiStrict) {
        rules.push(&OPENAI_NAMES);
    }
    if options.targets(Target::Anthropic) {
        rules.push(&ANTHROPIC_NAMES);
    }
    if options.targets(Target::Gemini) {
        rules.push(&GEMINI_NAMES);
    }
    if options.targets(Target::Mcp) {
        rules.push(&MCP_NAMES);
    }
    rules
}

/// The name as a client would rewrite it for this provider: refused characters become `_`,
/// and it is cut to the longest name allowed.
fn sanitised(name: &str, rule: &NameRule) -> String {
    let mut out: String = name.chars().map(|c| if (rule.allowed)(c) { c } else { '_' }).collect();
    if out.is_empty() {
        out.push('_');
    }
    out.chars().take(rule.max).collect()
}

pub fn check(sink: &mut Sink) {
    let options = sink.options;
    for rule in name_rules(options) {
        name(sink, rule);
    }
    if options.targets(Target::OpenAiStrict) {
        strict(sink);
    }
    if options.targets(Target::Anthropic) && sink.on("anthropic/root") {
        let root = &sink.tool.input_schema;
        let found: Vec<&str> = ["oneOf", "allOf", "anyOf"].into_iter().filter(|k| root.get(*k).is_some()).collect();
        if let Some(first) = found.first() {
            sink.push(
                "anthropic/root",
                Part::Input,
                &format!("/{first}"),
                format!("the input schema has `{}` at its top level, which Claude's API refuses", found.join("`, `")),
                "move the alternatives into the properties, or check the combination in the tool itself".into(),
            );
        }
    }
    if options.targets(Target::Gemini) {
        gemini(sink);
    }
    if options.targets(Target::Mcp)
        && sink.on("mcp/output-root")
        && let Some(Value::Object(output)) = &sink.tool.output_schema
        && let Some(kind) = output.get("type").filter(|t| t.as_str() != Some("object"))
    {
        sink.push(
            "mcp/output-root",
            Part::Output,
            "/type",
            format!("the output schema's type is {kind}; an MCP outputSchema describes an object"),
            "wrap the result in an object (e.g. {\"type\": \"object\", \"properties\": {\"result\": ...}})".into(),
        );
    }
}

fn name(sink: &mut Sink, rule: &NameRule) {
    if !sink.on(rule.rule) {
        return;
    }
    let name = &sink.tool.name;
    let mut refused: Vec<char> = name.chars().filter(|c| !(rule.allowed)(*c)).collect();
    refused.dedup();
    let length = name.chars().count();
    let mut problems = Vec::new();
    if !refused.is_empty() {
        let shown: String = refused.iter().take(8).map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(" ");
        problems
            .push(format!("has characters {} does not allow ({shown}; allowed: {})", rule.provider, rule.allowed_text));
    }
    if length > rule.max {
        problems.push(format!("is {length} characters long ({} allows {})", rule.provider, rule.max));
    }
    if length == 0 {
        problems.push("is empty".to_string());
    }
    if problems.is_empty() {
        return;
    }
    let should = if rule.rule == "mcp/name" { " (the MCP specification says SHOULD)" } else { "" };
    sink.push(
        rule.rule,
        Part::Name,
        "",
        format!("tool name \"{name}\" {}{should}", problems.join(" and ")),
        format!("rename the tool, e.g. to \"{}\"", sanitised(name, rule)),
    );
}

/// Findings of one kind in one tool, reported once at the first place with a count of the rest.
#[derive(Default)]
struct Grouped {
    /// key → (first pointer, count), in the order first met.
    seen: Vec<(String, String, usize)>,
}

impl Grouped {
    fn add(&mut self, key: &str, pointer: &str) {
        match self.seen.iter_mut().find(|(k, _, _)| k == key) {
            Some((_, _, n)) => *n += 1,
            None => self.seen.push((key.to_string(), pointer.to_string(), 1)),
        }
    }

    fn places(n: usize) -> String {
        if n == 1 { String::new() } else { format!(" (in {n} places)") }
    }
}

/// Keywords strict mode refuses (see the module comment for which the guide names).
const STRICT_UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
    "oneOf",
    "minLength",
    "maxLength",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
];
const STRICT_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

fn strict(sink: &mut Sink) {
    let tool = sink.tool;
    if sink.on("openai-strict/root") && tool.input_schema.get("anyOf").is_some() {
        sink.push(
            "openai-strict/root",
            Part::Input,
            "/anyOf",
            "the input schema is an `anyOf` at its root; strict mode needs a plain object there".into(),
            "make the root an object with properties; put the alternatives inside one property".into(),
        );
    }
    let mut keywords = Grouped::default();
    let mut formats = Grouped::default();
    let (mut properties, mut deepest, mut enum_values, mut characters) = (0usize, 0usize, 0usize, 0usize);
    let mut big_enum: Option<String> = None;
    let mut objects: Vec<(String, Vec<String>, bool)> = Vec::new();
    walk(&tool.input_schema, &mut |visit: &Visit| {
        let schema = visit.schema;
        for key in schema.keys().filter(|k| STRICT_UNSUPPORTED.contains(&k.as_str())) {
            keywords.add(key, &format!("{}/{}", visit.pointer, crate::catalog::schema::escape_pointer(key)));
        }
        if let Some(Value::String(f)) = schema.get("format")
            && !STRICT_FORMATS.contains(&f.as_str())
        {
            formats.add(f, &format!("{}/format", visit.pointer));
        }
        if let Some(Value::Object(props)) = schema.get("properties") {
            properties += props.len();
            characters += props.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = schema.get(key) {
                characters += defs.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(members)) = schema.get("enum") {
            enum_values += members.len();
            let length: usize = members.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum();
            characters += length;
            if members.len() > 250 && length > 15_000 && big_enum.is_none() {
                big_enum = Some(visit.pointer.to_string());
            }
        }
        if let Some(Value::String(c)) = schema.get("const") {
            characters += c.chars().count();
        }
        if is_object(schema) {
            deepest = deepest.max(visit.objects_above + 1);
            let required: Vec<&str> = match schema.get("required") {
                Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let optional: Vec<String> = match schema.get("properties") {
                Some(Value::Object(props)) => {
                    props.keys().filter(|k| !required.contains(&k.as_str())).cloned().collect()
                }
                _ => Vec::new(),
            };
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
            objects.push((visit.pointer.to_string(), optional, closed));
        }
    });
    let with_optional: Vec<&(String, Vec<String>, bool)> = objects.iter().filter(|(_, o, _)| !o.is_empty()).collect();
    if let Some((pointer, optional, _)) = with_optional.first() {
        let shown: Vec<String> = optional.iter().take(6).map(|n| format!("\"{n}\"")).collect();
        let more = if optional.len() > 6 { format!(" and {} more", optional.len() - 6) } else { String::new() };
        let others = match with_optional.len() {
            1 => String::new(),
            n => format!(" (and optional properties in {} more objects)", n - 1),
        };
        sink.push(
            "openai-strict/optional-property",
            Part::Input,
            pointer,
            format!(
                "at {}, {}{more} not in `required`{others}; strict mode needs every property required",
                shown_pointer(pointer),
                shown.join(", ")
            ),
            "list every property in `required`; give the optional ones a null type ([\"string\", \"null\"])".into(),
        );
    }
    let open: Vec<&str> = objects.iter().filter(|(_, _, closed)| !closed).map(|(p, _, _)| p.as_str()).collect();
    if let Some(first) = open.first() {
        let shown: Vec<String> = open.iter().take(4).map(|p| shown_pointer(p)).collect();
        let more = if open.len() > 4 { format!(" and {} more", open.len() - 4) } else { String::new() };
        sink.push(
            "openai-strict/open-object",
            Part::Input,
            first,
            format!(
                "{} {} ({}{more}) {} not say `additionalProperties: false`, which strict mode needs",
                open.len(),
                if open.len() == 1 { "object" } else { "objects" },
                shown.join(", "),
                if open.len() == 1 { "does" } else { "do" }
            ),
            "add \"additionalProperties\": false to every object".into(),
        );
    }
    for (keyword, pointer, n) in keywords.seen {
        sink.push(
            "openai-strict/keyword",
            Part::Input,
            &pointer,
            format!("`{keyword}`{} is not supported in strict mode", Grouped::places(n)),
            format!("remove `{keyword}` (check it in the tool itself), or do not mark the tool strict"),
        );
    }
    for (format, pointer, n) in formats.seen {
        sink.push(
            "openai-strict/format",
            Part::Input,
            &pointer,
            format!(
                "format \"{format}\"{} is not one strict mode supports ({})",
                Grouped::places(n),
                STRICT_FORMATS.join(", ")
            ),
            "drop the format and describe it in the description, or use a supported one".into(),
        );
    }
    let mut over = Vec::new();
    if properties > 5_000 {
        over.push(format!("{properties} properties (limit 5,000)"));
    }
    if deepest > 10 {
        over.push(format!("{deepest} levels of nesting (limit 10)"));
    }
    if enum_values > 1_000 {
        over.push(format!("{enum_values} enum values (limit 1,000)"));
    }
    if characters > 120_000 {
        over.push(format!("{characters} characters of names and enum values (limit 120,000)"));
    }
    if let Some(pointer) = &big_enum {
        over.push(format!("an enum at {} of over 250 values and 15,000 characters", shown_pointer(pointer)));
    }
    if !over.is_empty() {
        sink.push(
            "openai-strict/limits",
            Part::Input,
            big_enum.as_deref().unwrap_or(""),
            format!("the input schema is over strict mode's limits: {}", over.join(", ")),
            "split the tool, or shorten its enums".into(),
        );
    }
}

/// The fields of the Gemini API's `Schema` object.
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

fn gemini(sink: &mut Sink) {
    let mut keywords = Grouped::default();
    let mut type_lists = Grouped::default();
    let mut enums = Grouped::default();
    walk(&sink.tool.input_schema, &mut |visit: &Visit| {
        for key in visit.schema.keys().filter(|k| !GEMINI_FIELDS.contains(&k.as_str())) {
            keywords.add(key, &format!("{}/{}", visit.pointer, crate::catalog::schema::escape_pointer(key)));
        }
        if let Some(Value::Array(_)) = visit.schema.get("type") {
            type_lists.add("type", &format!("{}/type", visit.pointer));
        }
        if let Some(Value::Array(members)) = visit.schema.get("enum")
            && members.iter().any(|m| !m.is_string())
        {
            enums.add("enum", &format!("{}/enum", visit.pointer));
        }
    });
    for (keyword, pointer, n) in keywords.seen {
        sink.push(
            "gemini/keyword",
            Part::Input,
            &pointer,
            format!("`{keyword}`{} is not a field of Gemini's `parameters` schema (an OpenAPI subset); Gemini refuses the request", Grouped::places(n)),
            format!("remove `{keyword}`, or send the schema as `parametersJsonSchema`, which takes JSON Schema"),
        );
    }
    for (_, pointer, n) in type_lists.seen {
        sink.push(
            "gemini/type-list",
            Part::Input,
            &pointer,
            format!("`type` is a list{}; Gemini's `type` is a single type", Grouped::places(n)),
            "use one type, with \"nullable\": true for null".into(),
        );
    }
    for (_, pointer, n) in enums.seen {
        sink.push(
            "gemini/enum",
            Part::Input,
            &pointer,
            format!("an enum with members that are not strings{}; Gemini's `enum` holds strings", Grouped::places(n)),
            "make the members strings (\"1\", \"2\"), or drop the enum and state the values in the description".into(),
        );
    }
}

/// The rules that compare tools: duplicate names (also once a provider's name rules are
/// applied) and the number of tools one request can carry.
pub fn check_catalog(tools: &[Tool], options: &Options) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut push = |tool: &Tool, rule: &'static str, part: Part, message: String, fix: String| {
        let mut sink = Sink::new(tool, options);
        sink.push(rule, part, "", message, fix);
        findings.extend(sink.findings);
    };
    let mut by_name: HashMap<&str, &Tool> = HashMap::new();
    for tool in tools {
        match by_name.get(tool.name.as_str()) {
            Some(first) => push(
                tool,
                "catalog/duplicate-name",
                Part::Name,
                format!("tool name \"{}\" is also the name of the tool at {}", tool.name, first.source),
                "give each tool its own name; a model calls tools by name".into(),
            ),
            None => {
                by_name.insert(&tool.name, tool);
            }
        }
    }
    let rules = name_rules(options);
    let mut collided: HashMap<(String, String), Vec<&str>> = HashMap::new();
    for tool in tools {
        for rule in &rules {
            let key = (rule.allowed_text.to_string(), sanitised(&tool.name, rule));
            let names = collided.entry(key).or_default();
            if let Some(other) = names.iter().find(|n| **n != tool.name).copied() {
                let providers: Vec<&str> =
                    rules.iter().filter(|r| r.allowed_text == rule.allowed_text).map(|r| r.provider).collect();
                push(
                    tool,
                    "catalog/name-collision",
                    Part::Name,
                    format!(
                        "tool name \"{}\" and \"{other}\" both become \"{}\" under {}'s name rules",
                        tool.name,
                        sanitised(&tool.name, rule),
                        providers.join("'s and ")
                    ),
                    "rename one so that they differ in letters, digits, _ or -".into(),
                );
                names.push(&tool.name);
                break;
            }
            names.push(&tool.name);
        }
    }
    if (options.targets(Target::OpenAi) || options.targets(Target::OpenAiStrict))
        && let Some(tool) = tools.get(128)
    {
        push(
            tool,
            "openai/too-many-tools",
            Part::Tool,
            format!(
                "the catalog has {} tools; OpenAI takes at most 128 functions in one request (this is the 129th)",
                tools.len()
            ),
            "send a subset per request, chosen for the task".into(),
        );
    }
    findings
}
