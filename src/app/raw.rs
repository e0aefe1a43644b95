//! The raw definition (`V`, Alt-v): the selected tool exactly as the MCP server sent it in
//! `tools/list` (its schemas, annotations, `_meta`, `execution.taskSupport`), scrolled and copied
//! in the text popup. A tool read from a file has no such text here: it shows what tooldeck read
//! (the one tool model), said as such.

use super::{App, Popup};

impl App {
    pub(super) fn show_raw_definition(&mut self) {
        let Some(tool) = self.selected_tool() else {
            self.tell("no tool selected");
            return;
        };
        let (title, value) = match &tool.written.raw {
            Some(raw) => (format!("{} as the server sent it", tool.name), raw.as_ref().clone()),
            None => (
                format!("{} as tooldeck read it from {}", tool.name, tool.source.path),
                serde_json::to_value(tool).unwrap_or_default(),
            ),
        };
        let title = crate::text::visible(&title).into_owned();
        self.prompts.open(Popup::Text { title, text: crate::form::value::pretty(&value), scroll: 0 });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::catalog::{Catalog, Tool};

    #[test]
    fn a_server_tool_is_shown_as_sent_and_a_file_tool_as_read() {
        let listing = json!({"tools": [{
            "name": "add", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}, "execution": {"taskSupport": "optional"},
            "_meta": {"vendor/x": 1}
        }]});
        let tools: Vec<Tool> = crate::invoke::endpoint::server_tools("mcp:test", &listing.to_string());
        let raw = tools[0].written.raw.clone().expect("the definition as sent");
        assert_eq!(raw, Arc::new(listing["tools"][0].clone()));
        let mut catalog = Catalog::default();
        for tool in tools {
            let _ = catalog.add(tool);
        }
        let mut app = App::new(catalog, &[], (120, 40));
        app.show_raw_definition();
        let Some(Popup::Text { title, text, .. }) = &app.prompts.popup() else { panic!("a text popup") };
        assert_eq!(title, "add as the server sent it");
        for expected in ["\"_meta\"", "\"taskSupport\": \"optional\"", "\"readOnlyHint\": true"] {
            assert!(text.contains(expected), "{expected} in {text}");
        }
    }
}
