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

use super::{Finding, Options, Part, Sink, Target, gemini, refusals, strict};
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
    if sink.tool.model_name().is_some() {
        for rule in name_rules(options) {
            name(sink, rule);
        }
    }
    if options.targets(Target::OpenAi) || options.targets(Target::OpenAiStrict) {
        refusals::openai_root(sink);
    }
    if options.targets(Target::OpenAiStrict) {
        strict::check(sink);
        refusals::draft4(sink, "openai-strict/draft4", "strict mode checks the schema as JSON Schema and refuses it");
    }
    if options.targets(Target::Anthropic) {
        refusals::anthropic(sink);
    }
    if options.targets(Target::Gemini) {
        gemini::check(sink);
    }
    if options.targets(Target::Mcp) {
        refusals::mcp(sink);
    }
}

fn name(sink: &mut Sink, rule: &NameRule) {
    if !sink.on(rule.rule) {
        return;
    }
    let Some(name) = sink.tool.model_name() else { return };
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
    // Names tooldeck made up from file names are seen by no model: they cannot clash.
    let named: Vec<(&str, &Tool)> = tools.iter().filter_map(|t| Some((t.model_name()?, t))).collect();
    for &(name, tool) in &named {
        match by_name.get(name) {
            Some(first) => push(
                tool,
                "catalog/duplicate-name",
                Part::Name,
                format!("tool name \"{name}\" is also the name of the tool at {}", first.source),
                "give each tool its own name; a model calls tools by name".into(),
            ),
            None => {
                by_name.insert(name, tool);
            }
        }
    }
    let rules = name_rules(options);
    let mut collided: HashMap<(String, String), Vec<&str>> = HashMap::new();
    for &(name, tool) in &named {
        for rule in &rules {
            let key = (rule.allowed_text.to_string(), sanitised(name, rule));
            let names = collided.entry(key).or_default();
            if let Some(other) = names.iter().find(|n| **n != name).copied() {
                let providers: Vec<&str> =
                    rules.iter().filter(|r| r.allowed_text == rule.allowed_text).map(|r| r.provider).collect();
                push(
                    tool,
                    "catalog/name-collision",
                    Part::Name,
                    format!(
                        "tool name \"{name}\" and \"{other}\" both become \"{}\" under {}'s name rules",
                        sanitised(name, rule),
                        providers.join("'s and ")
                    ),
                    "rename one so that they differ in letters, digits, _ or -".into(),
                );
                names.push(name);
                break;
            }
            names.push(name);
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
