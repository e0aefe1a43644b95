//! Every rule `tooldeck lint` knows: its id, how serious it is unless the user says otherwise,
//! one line on what it checks, and where to read more (a provider's own documentation for the
//! provider rules, so a user can check the limit for themselves).

use super::Severity;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// `group/name`; `--allow group/*` or `--allow group` switches a whole group.
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
    pub url: &'static str,
}

/// The tips rules come from PIE's tool-parameter guidance (a tool-writing guide, whose address
/// we do not have); Anthropic's best practices for tool definitions give the same advice.
const TIPS: &str = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#best-practices-for-tool-definitions";
const SCHEMA: &str = "https://json-schema.org/draft/2020-12/json-schema-validation";

pub const OPENAI_FUNCTIONS: &str = "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools";
pub const OPENAI_STRICT: &str = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas";
pub const ANTHROPIC_TOOLS: &str = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use";
pub const GEMINI_FUNCTIONS: &str = "https://ai.google.dev/api/caching#FunctionDeclaration";
pub const GEMINI_SCHEMA: &str = "https://ai.google.dev/api/caching#Schema";
pub const MCP_TOOL_NAMES: &str = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names";
pub const MCP_APPS: &str =
    "https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx";
pub const MCP_TOOLS: &str = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool";

const fn rule(id: &'static str, severity: Severity, summary: &'static str, url: &'static str) -> Rule {
    Rule { id, severity, summary, url }
}

use Severity::{Error, Note, Warning};

pub const RULES: &[Rule] = &[
    // PIE's tool-parameter tips: advice, so warnings.
    rule(
        "tips/required-after-optional",
        Warning,
        "Required parameters come after optional ones; list the commonly used required ones first",
        TIPS,
    ),
    rule(
        "tips/undocumented-optional",
        Warning,
        "An optional parameter without a `default` whose description does not say what happens when it is left out",
        TIPS,
    ),
    rule("tips/opaque-enum", Warning, "Enum values that are opaque codes, with nothing saying what each means", TIPS),
    rule("tips/missing-description", Warning, "A tool or parameter without a description", TIPS),
    rule(
        "tips/short-description",
        Warning,
        "A description too short to say what the tool does or which values are valid",
        TIPS,
    ),
    rule("tips/deep-nesting", Warning, "Objects nested more than two deep; flat parameters are easier to fill", TIPS),
    // A definition that contradicts itself: errors.
    rule("schema/invalid-default", Error, "A `default` that its own schema rejects", SCHEMA),
    rule(
        "schema/null-default",
        Warning,
        "`default: null` on a parameter whose type does not allow null (leaving it out already means no value)",
        SCHEMA,
    ),
    rule("schema/invalid-example", Error, "An example that the schema it illustrates rejects", SCHEMA),
    rule("schema/invalid-enum", Error, "An enum member that the rest of its schema rejects", SCHEMA),
    rule(
        "schema/description-default",
        Warning,
        "A description that names a default which `default` does not hold",
        SCHEMA,
    ),
    rule("schema/required-missing", Error, "`required` names a property the object does not define", SCHEMA),
    rule("schema/min-above-max", Error, "A lower bound above its upper bound: no value is valid", SCHEMA),
    rule("schema/invalid-pattern", Error, "A `pattern` that is not a valid ECMA-262 regular expression", SCHEMA),
    rule("schema/unknown-format", Warning, "A `format` no JSON Schema or OpenAPI registry defines", SCHEMA),
    rule(
        "schema/open-object",
        Warning,
        "An object with no `properties` and no `additionalProperties` rule: the model has to guess its shape",
        SCHEMA,
    ),
    rule("catalog/duplicate-name", Error, "Two tools share a name; a model can only call one of them", MCP_TOOL_NAMES),
    rule(
        "catalog/name-collision",
        Warning,
        "Two names become one once a provider's name rules are applied",
        OPENAI_FUNCTIONS,
    ),
    // Provider compatibility: warnings while every provider is checked, errors for the ones the
    // user names with --target.
    rule("openai/name", Warning, "OpenAI function names match ^[a-zA-Z0-9_-]{1,64}$", OPENAI_FUNCTIONS),
    rule(
        "openai/root-type",
        Warning,
        "OpenAI refuses parameters that are not declared `type: \"object\"`",
        OPENAI_FUNCTIONS,
    ),
    rule("openai/too-many-tools", Warning, "OpenAI takes at most 128 functions in one request", OPENAI_FUNCTIONS),
    rule(
        "openai-strict/optional-property",
        Warning,
        "Strict mode needs every property listed in `required` (optional ones are nullable instead)",
        OPENAI_STRICT,
    ),
    rule(
        "openai-strict/open-object",
        Warning,
        "Strict mode needs `additionalProperties: false` on every object",
        OPENAI_STRICT,
    ),
    rule("openai-strict/keyword", Warning, "A keyword strict mode does not support", OPENAI_STRICT),
    rule("openai-strict/root", Warning, "Strict mode's root must be an object, not `anyOf`", OPENAI_STRICT),
    rule(
        "openai-strict/untyped",
        Warning,
        "Strict mode needs a `type` on every schema (`items: {}` has none)",
        OPENAI_STRICT,
    ),
    rule(
        "openai-strict/draft4",
        Warning,
        "Draft-4 forms (`exclusiveMinimum: true`, a property's `required: true`) that strict mode refuses",
        OPENAI_STRICT,
    ),
    rule("openai-strict/format", Warning, "A string `format` strict mode does not support", OPENAI_STRICT),
    rule(
        "openai-strict/limits",
        Warning,
        "Over strict mode's limits (5,000 properties, 10 levels, 1,000 enum values, 120,000 characters)",
        OPENAI_STRICT,
    ),
    rule("anthropic/name", Warning, "Claude tool names match ^[a-zA-Z0-9_-]{1,64}$", ANTHROPIC_TOOLS),
    rule(
        "anthropic/root",
        Warning,
        "Claude refuses `oneOf`, `allOf` or `anyOf` at the top of `input_schema`",
        ANTHROPIC_TOOLS,
    ),
    rule(
        "anthropic/root-type",
        Warning,
        "Claude refuses an `input_schema` that is not `type: \"object\"`",
        ANTHROPIC_TOOLS,
    ),
    rule(
        "anthropic/draft4",
        Warning,
        "Claude refuses draft-4 forms (`exclusiveMinimum: true`, a property's `required: true`): it takes 2020-12",
        ANTHROPIC_TOOLS,
    ),
    rule(
        "gemini/name",
        Warning,
        "Gemini function names are a-z, A-Z, 0-9, `_`, `:`, `.`, `-`, at most 64 characters",
        GEMINI_FUNCTIONS,
    ),
    rule(
        "gemini/keyword",
        Warning,
        "A keyword outside the OpenAPI subset Gemini's `parameters` accepts",
        GEMINI_SCHEMA,
    ),
    rule(
        "gemini/json-schema-only",
        Note,
        "`$schema` or `additionalProperties`: refused in Gemini's `parameters`, taken in `parametersJsonSchema`",
        GEMINI_SCHEMA,
    ),
    rule("gemini/format", Warning, "Gemini's string `format` is `enum` or `date-time` only", GEMINI_SCHEMA),
    rule("gemini/type-list", Warning, "Gemini's `type` is one type, not a list (use `nullable`)", GEMINI_SCHEMA),
    rule("gemini/enum", Warning, "Gemini's `enum` holds strings only", GEMINI_SCHEMA),
    rule("mcp/name", Warning, "MCP tool names SHOULD be 1-128 characters of A-Z a-z 0-9 _ - .", MCP_TOOL_NAMES),
    rule("mcp/input-root", Warning, "An MCP `inputSchema` is `type: \"object\"`", MCP_TOOLS),
    rule("mcp/output-root", Warning, "An MCP `outputSchema` describes an object", MCP_TOOLS),
    // MCP Apps (SEP-1865): a tool's interactive view.
    rule("apps/resource-scheme", Error, "An app's `_meta.ui.resourceUri` that is not a ui:// URI", MCP_APPS),
    rule("apps/legacy-key", Note, "An app named by the legacy `_meta[\"ui/resourceUri\"]` key", MCP_APPS),
    rule(
        "apps/visibility",
        Warning,
        "`_meta.ui.visibility` empty or naming other than \"model\" and \"app\"",
        MCP_APPS,
    ),
    rule(
        "apps/app-only",
        Note,
        "A tool only its app may call: not offered to a model, so model-facing checks skip it",
        MCP_APPS,
    ),
    rule(
        "apps/missing-resource",
        Error,
        "An app whose ui:// resource the server does not list (with a server)",
        MCP_APPS,
    ),
    rule(
        "apps/resource-mime",
        Warning,
        "An app resource not listed as `text/html;profile=mcp-app` (with a server)",
        MCP_APPS,
    ),
    // What a catalog costs in a model's context.
    rule(
        "cost/large-tool",
        Note,
        "A tool whose definition alone takes many tokens of every request's context",
        "https://github.com/openai/tiktoken",
    ),
];

pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// True for rules that say what a provider would refuse: their severity follows `--target`.
pub fn is_provider_rule(id: &str) -> bool {
    ["openai/", "openai-strict/", "anthropic/", "gemini/", "mcp/"].iter().any(|p| id.starts_with(p))
}

/// Whether a user's pattern (`group/name`, `group/*` or `group`) names the rule.
pub fn matches(pattern: &str, id: &str) -> bool {
    let pattern = pattern.trim();
    if pattern == id {
        return true;
    }
    let group = pattern.strip_suffix("/*").unwrap_or(pattern);
    id.strip_prefix(group).is_some_and(|rest| rest.starts_with('/'))
}

/// A pattern that names no rule is a typo the user wants to hear about.
pub fn check_pattern(pattern: &str) -> Result<(), super::OptionsError> {
    if RULES.iter().any(|r| matches(pattern, r.id)) {
        Ok(())
    } else {
        Err(super::OptionsError::NoRule(pattern.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("tips/opaque-enum", "tips/opaque-enum"));
        assert!(matches("tips/*", "tips/opaque-enum"));
        assert!(matches("tips", "tips/opaque-enum"));
        assert!(!matches("openai", "openai-strict/keyword"));
        assert!(matches("openai-strict", "openai-strict/keyword"));
        assert!(check_pattern("nope").is_err());
        assert!(check_pattern("gemini").is_ok());
    }

    #[test]
    fn ids_are_unique_and_provider_rules_cite_their_provider() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        for rule in RULES.iter().filter(|r| is_provider_rule(r.id)) {
            let host = match rule.id.split('/').next() {
                Some("openai" | "openai-strict") => "platform.openai.com",
                Some("anthropic") => "platform.claude.com",
                Some("gemini") => "ai.google.dev",
                _ => "modelcontextprotocol.io",
            };
            assert!(rule.url.contains(host), "{} cites {}", rule.id, rule.url);
        }
    }
}
