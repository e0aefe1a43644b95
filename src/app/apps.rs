//! Hosting the selected tool's MCP App from the app (`Action::HostApp`): the runtime starts it
//! (`ServerEffect::HostApp`, as `tooldeck app` does) and says each thing the app does as a status line.

use super::{App, Effect, ServerEffect};

impl App {
    /// The selected tool's app, first called with the form's arguments; a tool without an app
    /// (no `_meta.ui.resourceUri`) gets a line saying so.
    pub(super) fn host_app(&mut self) -> Vec<Effect> {
        let Some(tool) = self.selected_tool().cloned() else {
            self.tell("select a tool with an app first");
            return Vec::new();
        };
        if tool.written.app.is_none() || !tool.written.face.is_tool() {
            let name = crate::text::visible(&tool.name).into_owned();
            self.tell(format!("{name} has no app: its definition names no ui:// resource"));
            return Vec::new();
        }
        let arguments = self.form_mut().map_or_else(|| serde_json::json!({}), |form| form.arguments().clone());
        self.tell(format!("starting the app of {} in the browser…", crate::text::visible(&tool.name)));
        let session = self.session_of(&tool);
        self.in_session(session, vec![Effect::Server(ServerEffect::HostApp { tool: Box::new(tool), arguments })])
    }
}
