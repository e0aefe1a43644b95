//! Several servers at once: each keeps its own [`Server`] (status, tokens) and [`ServerPane`]
//! (info, stderr, log). The one whose tool is selected is "current": its state sits in
//! `App::server` and `App::server_pane`, where every pane reads it; the others wait here. A
//! message from a server is applied with that server's state swapped in, and the effects it
//! gives are addressed to it ([`Effect::ToServer`]).

use std::collections::HashMap;

use super::server_pane::ServerPane;
use super::{App, Effect, Msg, PickerPurpose, Popup, Server};

/// A server found in a config, that the person may connect from the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundEntry {
    /// What `--server` takes: the name, or `CLIENT:NAME` when the name is not enough.
    pub name: String,
    /// One line for the list: name, client, what it runs, where it was found.
    pub line: String,
}

/// Several servers side by side: the current one's state is in the app, the others' parked.
/// Its fields are private: read through getters, changed only through its methods.
#[derive(Debug, Default)]
pub struct Servers {
    /// The connected servers' labels, in the order they were named.
    labels: Vec<String>,
    /// Index into `labels` of the server whose state is in the app.
    current: usize,
    /// The other servers' state.
    parked: HashMap<String, (Server, ServerPane)>,
    /// Servers found in configs (the runtime connects one on `Effect::ConnectFound`).
    found: Vec<FoundEntry>,
    /// A server's message is being applied (its effects are addressed to it, not the current).
    pub(super) applying: bool,
}

impl Servers {
    /// The labels of the servers connected, in the order they were named.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Index into `labels()` of the server whose state is in place.
    pub fn current(&self) -> usize {
        self.current
    }

    /// The servers found in configs, to connect one from the app.
    pub fn found_in_configs(&mut self, found: Vec<FoundEntry>) {
        self.found = found;
    }

    pub fn several(&self) -> bool {
        self.labels.len() > 1
    }

    pub fn current_label(&self) -> Option<&str> {
        self.labels.get(self.current).map(String::as_str)
    }
}

/// Effects that talk to one server: with several, they say which.
fn for_a_server(effect: &Effect) -> bool {
    matches!(
        effect,
        Effect::Invoke { .. }
            | Effect::ListServerTools
            | Effect::Reconnect
            | Effect::SetLogLevel(_)
            | Effect::SetRoots(_)
            | Effect::Authorize { .. }
            | Effect::ReadResource { .. }
            | Effect::ListFaces
            | Effect::Face { .. }
            | Effect::Complete { .. }
            | Effect::Subscribe { .. }
    )
}

/// `effects` with those for a server addressed to `label`.
pub(super) fn addressed(effects: Vec<Effect>, label: &str) -> Vec<Effect> {
    effects
        .into_iter()
        .map(|effect| match for_a_server(&effect) {
            true => Effect::ToServer { label: label.to_string(), effect: Box::new(effect) },
            false => effect,
        })
        .collect()
}

impl App {
    /// `msg` from the server `label`, applied with its state in place.
    pub(super) fn apply_from_server(&mut self, label: String, msg: Msg) -> Vec<Effect> {
        if !self.servers.labels.contains(&label) {
            self.servers.labels.push(label.clone());
            if self.servers.labels.len() > 1 {
                self.servers.parked.insert(label.clone(), (Server::default(), ServerPane::default()));
            }
        }
        self.servers.applying = true;
        let effects = if self.servers.current_label() == Some(label.as_str()) {
            super::update(self, msg)
        } else {
            self.swap_with(&label);
            let effects = super::update(self, msg);
            self.swap_with(&label);
            effects
        };
        self.servers.applying = false;
        addressed(effects, &label)
    }

    /// Exchanges the app's server state with the parked state of `label` (twice is a no-op).
    fn swap_with(&mut self, label: &str) {
        let Some((server, pane)) = self.servers.parked.get_mut(label) else { return };
        std::mem::swap(&mut self.server, server);
        // Whether the pane is open is the person's choice (`App::overlay`), not the server's.
        std::mem::swap(&mut self.server_pane, pane);
    }

    /// The list of servers found in configs, to pick one to connect.
    pub(super) fn pick_found_server(&mut self) {
        if self.servers.found.is_empty() {
            self.status = Some(
                "no servers found in tooldeck's config or Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI or Codex configs"
                    .into(),
            );
            return;
        }
        self.prompts.open(Popup::Picker {
            path: Vec::new(),
            title: "connect a server found in a config".into(),
            options: self.servers.found.iter().map(|f| crate::text::visible(&f.line).into_owned()).collect(),
            selected: 0,
            purpose: PickerPurpose::FoundServer,
        });
    }

    /// The found server at `index` is connected (the runtime says how it went).
    pub(super) fn connect_found(&mut self, index: usize) -> Vec<Effect> {
        let Some(found) = self.servers.found.get(index) else { return Vec::new() };
        self.status = Some(format!("connecting {}…", crate::text::visible(&found.name)));
        vec![Effect::ConnectFound(found.name.clone())]
    }

    /// With several servers, the selected tool's server becomes current.
    pub(super) fn follow_selected_server(&mut self) {
        if !self.servers.several() {
            return;
        }
        let Some(tool) = self.selected_tool() else { return };
        if tool.source.line != 0 {
            return;
        }
        let label = tool.source.path.clone();
        let Some(index) = self.servers.labels.iter().position(|l| *l == label) else { return };
        if index == self.servers.current {
            return;
        }
        let Some(previous) = self.servers.current_label().map(str::to_string) else { return };
        // Park the current server's state under its label, then bring the chosen one's out.
        let server = std::mem::take(&mut self.server);
        let pane = std::mem::take(&mut self.server_pane);
        self.servers.parked.insert(previous, (server, pane));
        if let Some((server, pane)) = self.servers.parked.remove(&label) {
            self.server = server;
            self.server_pane = pane;
        }
        self.servers.current = index;
    }
}
