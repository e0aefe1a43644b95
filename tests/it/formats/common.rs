//! What every format's tests share: loading a document as the app does, and picking its
//! diagnostics apart.

use tooldeck::catalog::{Diagnostic, Example, LoadOptions, Severity, Syntax, Tool, load_text};

/// Loads one document; JSON5 and YAML are chosen by the label's extension, as the loader does.
pub fn load_with(label: &str, text: &str, options: &LoadOptions) -> (Vec<Tool>, Vec<Diagnostic>) {
    load_text(label, text, &LoadOptions { syntax: Syntax::of_name(label), ..*options })
}

pub fn load(label: &str, text: &str) -> (Vec<Tool>, Vec<Diagnostic>) {
    load_with(label, text, &LoadOptions::default())
}

/// Loads a document that must give tools and no diagnostic at all.
pub fn clean(label: &str, text: &str) -> Vec<Tool> {
    let (tools, diagnostics) = load(label, text);
    assert!(diagnostics.is_empty(), "unexpected diagnostics: {diagnostics:#?}");
    assert!(!tools.is_empty(), "no tools loaded from {label}");
    tools
}

/// Loads a document that must hold exactly one tool and no diagnostic.
pub fn one(label: &str, text: &str) -> Tool {
    let mut tools = clean(label, text);
    assert_eq!(tools.len(), 1, "expected one tool, got {:?}", tools.iter().map(|t| &t.id).collect::<Vec<_>>());
    tools.remove(0)
}

pub fn errors(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    diagnostics.iter().filter(|d| d.severity == Severity::Error).collect()
}

pub fn warnings(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    diagnostics.iter().filter(|d| d.severity == Severity::Warning).collect()
}

pub fn ids(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.id.as_str()).collect()
}

/// 1-based line of the first line containing `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not in the text")) + 1
}

pub fn prompts(items: &[&str]) -> Vec<Example> {
    items.iter().map(|s| Example::Prompt(s.to_string())).collect()
}
