//! What the tools cost in a model's context: each definition as a provider receives it (name,
//! description, parameters as compact JSON) counted in tokens of OpenAI's o200k_base encoding.
//! Other models' tokenizers differ by some percent and each provider wraps tools in framing of
//! its own, so this is an estimate; a character count would be off by far more for non-English
//! text and JSON punctuation.

use serde::Serialize;
use serde_json::json;

use super::{Finding, Options, Part, Sink};
use crate::catalog::Tool;

pub const TOKENIZER: &str = "o200k_base";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    pub tokenizer: &'static str,
    /// The whole catalog, every tool in one request.
    pub total: usize,
    /// Every tool, largest first.
    pub tools: Vec<ToolCost>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCost {
    pub tool: String,
    pub name: String,
    pub tokens: usize,
}

/// The text a provider receives for one tool.
pub fn definition_text(tool: &Tool) -> String {
    json!({
        "name": tool.name,
        "description": tool.description.as_deref().unwrap_or_default(),
        "parameters": tool.input_schema,
    })
    .to_string()
}

/// Tokens of `text` in o200k_base. The encoder is built once per process on first use (~0.2 s
/// in release builds: 200,000 tokens hashed, the pattern compiled).
pub fn tokens(text: &str) -> usize {
    super::o200k::encoder().encode_ordinary(text).len()
}

/// Builds the encoder now, so that a caller can do it on another thread while it loads.
pub fn warm_up() {
    let _ = super::o200k::encoder();
}

pub fn measure(tools: &[Tool]) -> Cost {
    let counts = crate::sync::in_parallel(tools.iter().collect(), |tool| tokens(&definition_text(tool)));
    let mut costs: Vec<ToolCost> = tools
        .iter()
        .zip(counts)
        .map(|(tool, tokens)| ToolCost { tool: tool.id.clone(), name: tool.name.clone(), tokens })
        .collect();
    let total = costs.iter().map(|c| c.tokens).sum();
    costs.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.tool.cmp(&b.tool)));
    Cost { tokenizer: TOKENIZER, total, tools: costs }
}

pub fn large_tools(tools: &[Tool], cost: &Cost, options: &Options) -> Vec<Finding> {
    let by_id: std::collections::HashMap<&str, usize> =
        cost.tools.iter().map(|c| (c.tool.as_str(), c.tokens)).collect();
    let mut findings = Vec::new();
    for tool in tools {
        let Some(&tokens) = by_id.get(tool.id.as_str()) else { continue };
        if tokens <= options.max_tool_tokens {
            continue;
        }
        let mut sink = Sink::new(tool, options);
        sink.push(
            "cost/large-tool",
            Part::Tool,
            "",
            format!(
                "tool \"{}\" puts about {} tokens ({TOKENIZER}) into every request's context (over {})",
                tool.name, tokens, options.max_tool_tokens
            ),
            "shorten long descriptions and enums, drop rarely used parameters, or split the tool".into(),
        );
        findings.extend(sink.findings);
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_real_tokens() {
        // o200k_base: "hello world" is two tokens; a character count would say 11.
        assert_eq!(tokens("hello world"), 2);
        assert!(tokens("{\"type\":\"object\",\"properties\":{}}") < 20);
    }
}
