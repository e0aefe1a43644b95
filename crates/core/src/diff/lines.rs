//! A catalog diff as short lines a person reads after a restart (`--watch`): one per change,
//! each naming its tool and whether it breaks callers, breaking ones first. The app shows the
//! first on its status line and every one in the server pane; `list --watch` prints them.

use super::{CatalogDiff, Class};
use crate::text::visible;

/// Every change of `diff`, one line each: removed tools, then each changed tool's changes
/// (breaking first), then added tools.
pub fn lines(diff: &CatalogDiff) -> Vec<String> {
    let mut breaking = Vec::new();
    let mut others = Vec::new();
    for name in &diff.removed {
        breaking.push(format!("{}: tool removed, breaking", visible(name)));
    }
    for tool in &diff.changed {
        for change in &tool.changes {
            let line = format!("{}: {}, {}", visible(&tool.name), visible(&change.message), verdict(change.class));
            match change.class {
                Class::Breaking => breaking.push(line),
                Class::Compatible | Class::Docs => others.push(line),
            }
        }
    }
    for name in &diff.added {
        others.push(format!("{}: new tool, not breaking", visible(name)));
    }
    breaking.extend(others);
    breaking
}

/// The first line and how many more (`… (+2 more)`), or `None` when nothing changed.
pub fn first_and_more(lines: &[String]) -> Option<String> {
    let first = lines.first()?;
    Some(match lines.len() {
        1 => first.clone(),
        n => format!("{first} (+{} more)", n - 1),
    })
}

fn verdict(class: Class) -> &'static str {
    match class {
        Class::Breaking => "breaking",
        Class::Compatible => "not breaking",
        Class::Docs => "words only",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use serde_json::json;

    /// The tools an MCP server lists, each with this input schema.
    fn catalog(tools: &[(&str, serde_json::Value)]) -> Catalog {
        let listed: Vec<_> = tools.iter().map(|(name, schema)| json!({"name": name, "inputSchema": schema})).collect();
        let text = json!({"tools": listed}).to_string();
        let mut catalog = Catalog::default();
        let (tools, _) = crate::catalog::load_text("tools.json", &text, &Default::default());
        for tool in tools {
            catalog.add(tool);
        }
        catalog
    }

    #[test]
    fn an_added_parameter_is_one_line_naming_its_tool() {
        let old = catalog(&[("search", json!({"type": "object", "properties": {"q": {"type": "string"}}}))]);
        let new = catalog(&[(
            "search",
            json!({"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}}),
        )]);
        let lines = lines(&super::super::diff_catalogs(&old, &new));
        assert_eq!(lines, ["search: new optional parameter \"limit\", not breaking"]);
        assert_eq!(first_and_more(&lines).as_deref(), Some("search: new optional parameter \"limit\", not breaking"));
    }

    #[test]
    fn breaking_changes_come_first_and_the_rest_are_counted() {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let old = catalog(&[("search", schema.clone()), ("gone", schema.clone())]);
        let new = catalog(&[
            ("search", json!({"type": "object"})),
            ("fresh", json!({"type": "object", "properties": {"x": {"type": "integer"}}})),
        ]);
        let lines = lines(&super::super::diff_catalogs(&old, &new));
        assert_eq!(lines[0], "gone: tool removed, breaking");
        assert!(lines[1].starts_with("search: ") && lines[1].ends_with(", breaking"), "{lines:?}");
        assert_eq!(lines.last().map(String::as_str), Some("fresh: new tool, not breaking"));
        assert_eq!(first_and_more(&lines), Some(format!("gone: tool removed, breaking (+{} more)", lines.len() - 1)));
        assert_eq!(first_and_more(&[]), None);
    }
}
