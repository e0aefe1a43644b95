//! What spans several components: running a call (the form's arguments, the server's tokens,
//! the result pane), a call coming back (result and history), a token given, the server's
//! tools arriving, a past call put back, and what the user chose in a popup.

use super::keymap::{Action, Context};
use super::prompts::Prompted;
use super::{App, DesktopEffect, Effect, Focus, FormPane, PickerPurpose, Popup, ServerEffect, WorkEffect};
use crate::catalog::{Face, SessionId};
use crate::form::TextInput;
use crate::invoke::CallRequest;

use crate::catalog::Diagnostic;

impl App {
    /// Run: sends the form's arguments; invalid input only on a second press (`armed`).
    pub(super) fn start_run(&mut self, armed: bool) -> Vec<Effect> {
        let Some(tool_id) = self.selected_id() else { return Vec::new() };
        if self.run_waits_for_restart() {
            return Vec::new();
        }
        let run_key = self.key_name(Context::Main, Action::Run);
        let schema = self.catalog.get(&tool_id).map(|t| t.input_schema.clone());
        let Some(form) = self.form_mut() else { return Vec::new() };
        // Run came before the schema compiled off the UI thread: compile it now, once.
        if form.checking()
            && let Some(schema) = schema
        {
            form.set_checker(crate::form::validate::Checker::new(&schema));
        }
        let arguments = form.arguments().clone();
        let errors = form.validation.error_count;
        if errors > 0 && !armed {
            self.form_pane.arm_run();
            let plural = if errors == 1 { "error" } else { "errors" };
            self.tell(format!("{errors} {plural}: not sent. Press {run_key} again to send it anyway"));
            return Vec::new();
        }
        self.hush();
        self.send(tool_id, arguments)
    }

    /// Sends a call, unless the tool is marked destructive and not yet run this session: then
    /// the user is asked for `y` first.
    fn send(&mut self, tool_id: String, arguments: serde_json::Value) -> Vec<Effect> {
        // A recorded server's tools (`tooldeck attach FILE`) with no server named to call them.
        let session = self.catalog.get(&tool_id).and_then(|t| t.source.session);
        if let Some(session) =
            session.filter(|id| self.sessions.get(*id).is_some_and(|s| s.server().keeps_no_session()))
        {
            self.tell(self.names_no_server(session));
            return Vec::new();
        }
        if let Some(tool) = self.catalog.get(&tool_id).filter(|t| self.confirmations.needed(t)) {
            let title = crate::text::visible(tool.display_title()).into_owned();
            let said = format!("{title} is marked destructive: {{key:confirm}} runs it, any other key does not");
            self.tell(self.keymap.say(&said, &[Context::Confirm]));
            self.prompts.open(Popup::ConfirmRun { tool_id, title, arguments });
            return Vec::new();
        }
        self.send_now(tool_id, arguments)
    }

    fn send_now(&mut self, tool_id: String, arguments: serde_json::Value) -> Vec<Effect> {
        if let Some(face) = self.catalog.get(&tool_id).map(|t| t.written.face.clone()).filter(|f| !f.is_tool()) {
            return self.send_face(tool_id, arguments, &face);
        }
        let tool = self.catalog.get(&tool_id);
        // A tool goes out under the id its server gave it (its id in the list may say which of
        // two servers with the same tools it is).
        let wire_id = tool.map_or(tool_id.as_str(), |t| t.wire_id());
        let mut request = CallRequest::new(wire_id, arguments);
        let session = tool.map_or(self.sessions.current_id(), |t| self.session_of(t));
        let server = self.sessions.get(session).map_or_else(|| self.server(), |s| s.server());
        request.tokens = server.tokens_for(tool);
        // A tool that runs only as a task is run as one (MCP `execution.taskSupport`).
        request.as_task = tool.and_then(|t| t.task_support.as_deref()) == Some("required");
        let output_schema = tool.and_then(|t| t.output_schema.clone());
        let to = super::Target { server: server.endpoint().to_string(), tool_id };
        let effects = self.result.send(request, output_schema, to);
        self.in_session(session, effects)
    }

    /// `effects` for a server carried out in `session`, whichever tool is selected by then.
    pub(super) fn in_session(&self, session: SessionId, effects: Vec<Effect>) -> Vec<Effect> {
        match self.sessions.several() {
            true => super::sessions::addressed(effects, session),
            false => effects,
        }
    }

    /// Where a run of entry `tool_id` goes: the entry and its session's label.
    pub(super) fn target(&self, tool_id: String) -> super::Target {
        let session = self.catalog.get(&tool_id).map_or(self.sessions.current_id(), |t| self.session_of(t));
        super::Target { server: self.sessions.label(session).to_string(), tool_id }
    }

    /// The same call again (after a token, or when the server said it can be retried).
    pub(super) fn retry(&mut self) -> Vec<Effect> {
        let Some((tool_id, arguments)) = self.result.last_call() else {
            self.tell(self.say("no call to run again yet: {key:run} runs the form"));
            return Vec::new();
        };
        self.send(tool_id, arguments)
    }

    /// What a call or a restart says for a recorded session no server was named for.
    pub(super) fn names_no_server(&self, session: crate::catalog::SessionId) -> String {
        let shown = crate::text::visible(self.sessions.label(session));
        format!("{shown} names no server: attach it with --mcp, --mcp-url or --server to run calls")
    }

    /// A call came back: shown, and recorded in the history.
    pub(super) fn call_done(
        &mut self,
        id: u64,
        result: Result<Box<super::Answer>, super::failure::CallFailure>,
    ) -> Vec<Effect> {
        let given = self.asks.take_given();
        let Some((entry, then)) = self.result.done(id, result) else {
            return Vec::new();
        };
        self.result.keep_answers(id, given);
        self.rerun_done(id);
        self.recorder.record(entry.clone());
        if matches!(self.result.items().get(self.result.item()), Some(crate::invoke::ContentItem::Image(_))) {
            self.reveal_item();
        }
        let mut effects = vec![Effect::Work(WorkEffect::Record(Box::new(entry)))];
        effects.extend(then);
        effects
    }

    pub(super) fn retry_due(&mut self, id: u64) -> Vec<Effect> {
        if self.result.retry_due(id) { self.retry() } else { Vec::new() }
    }

    /// `t` on an authorization prompt: the token for its provider.
    pub(super) fn ask_token(&mut self) {
        // The tool's declared providers name it best: a prompt's id may be a per-call one.
        let declared: Vec<String> = self
            .result
            .last_call()
            .and_then(|(tool_id, _)| self.catalog.get(&tool_id))
            .map(|t| t.requirements.authorization.iter().map(|a| a.id.clone()).collect())
            .unwrap_or_default();
        let asked = self.result.token_provider(|| declared.first().cloned());
        let provider = match asked {
            Some(asked) if declared.len() == 1 && !declared.contains(&asked) => Some(declared[0].clone()),
            other => other,
        };
        match provider {
            Some(provider) => {
                self.prompts.open(Popup::TokenPrompt { provider, input: TextInput::default(), why: None })
            }
            None => self.tell(self.say("{key:give_token} gives a token when the result asks for authorization")),
        }
    }

    /// Enter in the token prompt: keep the token (memory only) and run again with it.
    fn token_given(&mut self, provider: String, token: String) -> Vec<Effect> {
        if token.trim().is_empty() {
            self.tell("no token given");
            return Vec::new();
        }
        let asked_by = self.result.last_call().map(|(tool_id, _)| tool_id);
        let reply = self.server_mut().give_token(provider, token, asked_by);
        let mut effects = self.apply(reply);
        effects.extend(self.retry());
        effects
    }

    /// The server's tools (after it connected, or after a token): those not yet in the
    /// catalog join it, marked as session `session`'s.
    pub(super) fn server_tools(
        &mut self,
        session: SessionId,
        label: &str,
        result: Result<Vec<crate::catalog::Tool>, super::EffectError>,
    ) -> Vec<Effect> {
        self.sessions.server_mut(session).listed();
        self.lint.forget();
        // The entry that stood for it while it was down goes; a new one comes if it still is.
        let (_, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.catalog)
            .into_tools()
            .into_iter()
            .partition(|t| t.source.session == Some(session) && matches!(t.written.face, Face::Offline { .. }));
        for tool in others {
            self.catalog.add(tool);
        }
        let tools = match result {
            Ok(tools) => tools,
            Err(e) => {
                self.listing_failed(session, label, &e.to_string());
                return Vec::new();
            }
        };
        // The server's own tools are replaced by what it lists now (its list may have changed:
        // `notifications/tools/list_changed`, a restart); tools from files stay first.
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.catalog)
            .into_tools()
            .into_iter()
            .partition(|t| t.source.session == Some(session) && t.written.face.is_tool());
        for tool in others {
            self.catalog.add(tool);
        }
        let mut added = 0;
        for mut tool in tools {
            tool.source.session = Some(session);
            self.unique_id(&mut tool, session);
            if self.catalog.get(&tool.id).is_none() {
                added += usize::from(!mine.iter().any(|m| m.id == tool.id));
                self.catalog.add(tool);
            }
        }
        let gone = mine.iter().filter(|m| self.catalog.get(&m.id).is_none()).count();
        self.order_by_session();
        self.list.refresh(&self.catalog);
        self.tool_changed();
        let shown = crate::text::visible(label);
        let reconnected = self.sessions.server_mut(session).take_reconnected();
        let tools = |n: usize| crate::text::plural(n, "tool");
        // A second listing soon after the first (a server that says its list changed as it
        // starts) finds the same tools: what the status line says of this server stays.
        let said_of_it = self.status().is_some_and(|s| s.contains(&*shown));
        if (added, gone, reconnected, mine.is_empty(), said_of_it) == (0, 0, false, false, true) {
            return self.relisted_after_change(session, label, &mine);
        }
        self.tell(match (added, gone, mine.is_empty()) {
            // After a restart, say so first: listing the tools is its last step.
            (0, 0, _) if reconnected => format!("reconnected to {shown}: the same tools"),
            (n, g, _) if reconnected => format!("reconnected to {shown}: {} new, {g} gone", tools(n)),
            (0, 0, false) => format!("{shown} lists the same tools"),
            (0, 0, true) => format!("{shown} listed no new tools"),
            (n, 0, true) => format!("{} from {shown}", tools(n)),
            (n, g, _) => format!("{shown}: {} new, {g} gone", tools(n)),
        });
        // `--watch`: after a restart a change made, what changed, said by the diff engine.
        self.relisted_after_change(session, label, &mine)
    }

    /// Session `session`'s tools could not be listed: it stays in the list as one entry that
    /// says why (its pane has the whole reason, reconnecting tries again), unless it listed
    /// tools before (they stay, and its pane says what went wrong).
    fn listing_failed(&mut self, session: SessionId, label: &str, why: &str) {
        let reconnect = self.key_name(Context::Main, Action::Reconnect);
        let pane = self.key_name(Context::Main, Action::ServerPane);
        self.sessions.pane_mut(session).note(format!("its tools could not be listed: {why}"));
        let shown = crate::text::visible(label);
        self.tell(format!("{shown}: not connected · {pane} says why · {reconnect} tries again"));
        if !self.catalog.tools().iter().any(|t| t.source.session == Some(session)) {
            let mut entry = super::faces::offline_entry(label, why);
            entry.source.session = Some(session);
            self.catalog.add(entry);
            self.order_by_session();
            let selected = self.selected_id();
            self.list.refresh(&self.catalog);
            if self.selected_id() != selected {
                self.tool_changed();
            }
        }
    }

    /// Tools from files first, then each session's in the order the servers were named: the
    /// list does not depend on which server answered first.
    pub(super) fn order_by_session(&mut self) {
        let mut tools = std::mem::take(&mut self.catalog).into_tools();
        tools.sort_by_key(|t| t.source.session.map_or(0, |s| u64::from(s.0) + 1));
        for tool in tools {
            self.catalog.add(tool);
        }
    }

    /// Gives `tool` of `session` an id no other source's entry has: two servers (two copies of
    /// one, say) list tools of the same name, and each keeps its own form, result and calls.
    /// The later session's entry is the one marked, so the names do not depend on which
    /// server answered first.
    pub(super) fn unique_id(&mut self, tool: &mut crate::catalog::Tool, session: SessionId) {
        let Some(holder) = self.catalog.get(&tool.id).map(|t| t.source.session) else { return };
        if holder == Some(session) {
            return;
        }
        let mark = |tool: &mut crate::catalog::Tool, session: SessionId| {
            tool.written.listed_id.get_or_insert_with(|| tool.id.clone());
            tool.id = format!("{} #{}", tool.wire_id(), session.0 + 1);
        };
        match holder {
            // An earlier session (or a file) holds the name: this one is marked.
            None => mark(tool, session),
            Some(earlier) if earlier < session => mark(tool, session),
            // A later session listed first: its entry is marked, and this one takes the name.
            Some(later) => {
                let tools = std::mem::take(&mut self.catalog).into_tools();
                for mut held in tools {
                    if held.id == tool.id {
                        mark(&mut held, later);
                    }
                    self.catalog.add(held);
                }
            }
        }
    }

    /// The definition files were read: their tools come first, before any the server listed
    /// meanwhile.
    pub(super) fn catalog_loaded(&mut self, tools: Vec<crate::catalog::Tool>, diagnostics: &[Diagnostic]) {
        self.loading = false;
        self.lint.forget();
        let mut catalog = crate::catalog::Catalog::default();
        for tool in tools.into_iter().chain(std::mem::take(&mut self.catalog).into_tools()) {
            if catalog.get(&tool.id).is_none() {
                catalog.add(tool);
            }
        }
        self.catalog = catalog;
        self.load_errors = diagnostics.iter().filter(|d| d.severity == crate::catalog::Severity::Error).count();
        self.load_warnings = diagnostics.len() - self.load_errors;
        self.list.refresh(&self.catalog);
        self.tool_changed();
    }

    pub(super) fn select_tool(&mut self, delta: isize) {
        self.list.move_by(delta);
        self.tool_changed();
    }

    /// A new tool is selected: its form is built (so it shows at once) and the cursor starts
    /// over.
    pub(super) fn tool_changed(&mut self) {
        self.form_mut();
        self.form_pane.reset();
        self.sync_json();
    }

    /// Runs `op` on the form pane with the selected tool's id (nothing without one).
    pub(super) fn form_op<R: Default>(&mut self, op: impl FnOnce(&mut FormPane, &str) -> R) -> R {
        match self.selected_id() {
            Some(id) => op(&mut self.form_pane, &id),
            None => R::default(),
        }
    }

    pub(super) fn sync_json(&mut self) {
        let json_focused = self.focus == Focus::Json;
        let id = self.selected_id();
        self.form_pane.sync_json(id.as_deref(), json_focused);
    }

    /// Ctrl-J: the JSON view opens beside the form and takes the focus, or closes (from inside
    /// it or not: the every-pane chord has given the focus back to the form by then).
    pub(super) fn toggle_json(&mut self) {
        self.form_mut();
        match self.form_op(|pane, id| pane.toggle_json(id)) {
            Some(true) => self.focus = Focus::Json,
            Some(false) if self.focus == Focus::Json => self.focus = Focus::Form,
            Some(false) | None => {}
        }
    }

    /// Lines of value the result pane shows (below its status line).
    pub(super) fn value_height(&self) -> usize {
        value_height(&self.layout())
    }

    pub(super) fn find_next(&mut self) {
        if self.result.shows_items() {
            return self.find_in_items();
        }
        let height = self.value_height();
        if let Some(message) = self.result.find_next(height) {
            self.tell(message);
        }
    }

    /// `S` on the call on screen.
    pub(super) fn save_case(&mut self) -> Vec<Effect> {
        // A test case calls a tool: a read or a prompt has no case form to be saved in.
        let run_tool = self.result.run().and_then(|run| self.catalog.get(run.tool_id()));
        if run_tool.is_some_and(|t| !t.written.face.is_tool()) {
            self.tell("test cases call tools: a resource read or a prompt is not saved as one");
            return Vec::new();
        }
        let reply = self.recorder.save_run(self.result.run(), &self.catalog, self.asks.roots());
        self.apply(reply)
    }

    /// Enter on a past call: select its tool and put its arguments back in the form.
    fn reopen(&mut self, index: usize) {
        let Some(entry) = self.recorder.past_call(index).cloned() else { return };
        let Some(position) = self.catalog.tools().iter().position(|t| t.id == entry.tool) else {
            self.tell(format!("{} is not in this catalog", entry.tool));
            return;
        };
        self.list.select_tool(&self.catalog, position);
        self.tool_changed();
        // A call read from the history file has its secrets masked: they are asked for. One made
        // in this session still holds them.
        let (arguments, masked) = crate::redact::masked_arguments(&entry.arguments);
        if let Some(form) = self.form_mut() {
            form.set_arguments(&arguments);
        }
        self.focus = Focus::Form;
        let run_key = self.key_name(Context::Main, Action::Run);
        let when =
            if entry.at.is_empty() { "made in this session".to_string() } else { format!("made at {}", entry.at) };
        let said = format!("arguments of the call {when} back in the form: {run_key} runs it again");
        self.tell(super::attach::with_masked_asked(said, &masked));
    }

    /// Carries out what the user chose in a popup.
    pub(super) fn prompted(&mut self, prompted: Prompted) -> Vec<Effect> {
        match prompted {
            Prompted::Nothing => {}
            Prompted::Picked { purpose: PickerPurpose::FoundServer, selected, .. } => {
                return self.connect_found(selected);
            }
            Prompted::Picked { path, purpose, selected, option } => {
                if self.form_mut().is_none() {
                    return Vec::new();
                }
                self.form_op(|pane, id| pane.pick(id, &path, purpose, selected, option));
                self.sync_json();
            }
            Prompted::MapKey { path, key } => {
                let added = self.form_mut().is_some() && self.form_op(|pane, id| pane.add_entry(id, &path, &key));
                if added {
                    self.prompts.close_popup();
                    self.sync_json();
                } else {
                    self.tell(format!("\"{key}\" is empty or already there: pick another key"));
                }
            }
            Prompted::Token { provider, token } => return self.token_given(provider, token),
            Prompted::SignIn => return self.sign_in(),
            Prompted::Search(text) => {
                self.result.search_for(text);
                self.find_next();
            }
            Prompted::SaveArtifact(path) => return self.result.save_artifact(path, false),
            Prompted::Overwrite(path) => return self.result.save_artifact(path, true),
            Prompted::KeptFile(path) => self.tell(format!("not saved: {path} is left as it was")),
            Prompted::RunConfirmed { tool_id, arguments } => {
                self.confirmations.confirm(&tool_id);
                self.hush();
                return self.send_now(tool_id, arguments);
            }
            Prompted::RunDeclined(title) => self.tell(format!("{title} was not run")),
            Prompted::Link { url, open } => return self.app_link_answered(url, open),
            Prompted::CaseFile(path) => {
                let reply = self.recorder.file_chosen(path);
                return self.apply(reply);
            }
            Prompted::NoCaseFile => self.recorder.no_file(),
            Prompted::Roots(text) => {
                self.asks.set_roots(super::asks::parse_roots(&text));
                let roots = self.asks.roots().to_vec();
                self.tell(format!("roots: {}", if roots.is_empty() { "none".into() } else { roots.join(", ") }));
                return vec![Effect::Server(ServerEffect::SetRoots(roots))];
            }
            Prompted::Action(context, action) => return super::actions::run_action(self, context, action),
            Prompted::Copy(text) => {
                let size = crate::text::human_bytes(text.len() as u64);
                self.tell(format!("the text is on the clipboard ({size})"));
                return vec![Effect::Desktop(DesktopEffect::Copy(text))];
            }
            Prompted::Hint(hint) => self.tell(hint),
            Prompted::Reopen(index) => self.reopen(index),
            Prompted::RunAgain(index) => {
                self.reopen(index);
                // It was sent before: send it again as it was, valid or not.
                return self.start_run(true);
            }
            Prompted::SaveAsCase(index) => match self.recorder.save_past_call(index, &self.catalog) {
                Ok(reply) => {
                    self.prompts.close_popup();
                    return self.apply(reply);
                }
                Err(super::recorder::PastCallError::NoCall) => {}
                Err(why) => self.tell(why.to_string()),
            },
        }
        Vec::new()
    }
}

/// Lines of value the result pane shows in `layout` (below its status line).
pub(super) fn value_height(layout: &super::Layout) -> usize {
    layout.result.map_or(1, |r| usize::from(r.height.saturating_sub(3)).max(1))
}
