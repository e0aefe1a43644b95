//! A call in the traffic pane opened in the form: Enter on a `tools/call` (or its answer) selects
//! the tool it called, from the session's server, and puts the arguments it was sent in the form,
//! to run again. Useful in every session, it is what `tooldeck attach` is for: the traffic is
//! then a proxy's, a real client's calls, and the run goes on tooldeck's own connection.

use serde_json::Value;

use super::App;
use super::keymap::{Action, Context};
use crate::invoke::mcp::traffic::{Direction, TrafficEntry};

/// The tool a `tools/call` entry called and the arguments it was sent, read from the entry's
/// text (masked as the log holds it: a secret argument comes back masked, to be typed again).
fn call_of(entry: &TrafficEntry) -> Option<(String, Value)> {
    let message = entry.message()?;
    let params = message.get("params")?;
    let name = params.get("name")?.as_str()?.to_string();
    let arguments = params.get("arguments").cloned().unwrap_or_else(|| Value::Object(Default::default()));
    Some((name, arguments))
}

impl App {
    /// Enter in the traffic pane: the selected call (the request, or the request its answer
    /// answers) opened in the form.
    pub(super) fn open_traffic_call(&mut self) {
        let session = self.sessions.current_id();
        let log = self.server_pane().traffic();
        let Some(selected) = log.selected_entry() else {
            self.tell("no message chosen");
            return;
        };
        let request = match selected.direction {
            Direction::ClientToServer if selected.method.as_deref() == Some("tools/call") && !selected.answer => {
                Some(selected)
            }
            _ if selected.answer && selected.method.as_deref() == Some("tools/call") => log.request_of(selected),
            _ => None,
        };
        let Some((name, arguments)) = request.and_then(call_of) else {
            self.tell("Enter opens a tools/call in the form: choose one (or its answer)");
            return;
        };
        let position = self.catalog.tools().iter().position(|t| {
            t.written.face.is_tool() && t.wire_id() == name && t.source.session.is_none_or(|s| s == session)
        });
        let Some(position) = position else {
            self.tell(format!("{} is not among this server's tools", crate::text::visible(&name)));
            return;
        };
        self.close_overlay();
        self.list.select_tool(&self.catalog, position);
        self.tool_changed();
        // The log holds secrets masked: they are left out of the form and asked for, never sent
        // as the mask.
        let (arguments, masked) = crate::redact::masked_arguments(&arguments);
        if let Some(form) = self.form_mut() {
            form.set_arguments(&arguments);
        }
        self.focus = super::Focus::Form;
        let run_key = self.key_name(Context::Main, Action::Run);
        let said = format!(
            "the arguments {} was called with are in the form: {run_key} runs it again on tooldeck's own connection",
            crate::text::visible(&name)
        );
        self.tell(with_masked_asked(said, &masked));
    }
}

/// `said`, after which arguments to type again when some were masked where they were read
/// (first: the status line may be cut).
pub(super) fn with_masked_asked(said: String, masked: &[String]) -> String {
    if masked.is_empty() {
        return said;
    }
    let fields: Vec<String> = masked.iter().map(|f| crate::text::visible(f).into_owned()).collect();
    let verb = if fields.len() == 1 { "was" } else { "were" };
    format!("{} {verb} masked: type it before running · {said}", fields.join(", "))
}
