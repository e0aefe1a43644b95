//! ServerState sessions side by side: each has its [`SessionId`], its [`ServerState`] (label, status,
//! tokens) and its [`ServerPane`] (info, stderr, log, traffic), kept here and never swapped.
//! The session of the selected tool is "current": the person's commands go to it. A message
//! from a session names it (`Msg::Session`), and so does an effect for one (`Effect::Session`).
// No wildcard arm on an enum here: a new variant is a compile error until it is handled.
#![deny(clippy::wildcard_enum_match_arm)]

use super::server_pane::ServerPane;
use super::{App, Effect, PickerPurpose, Popup, ServerState};
use crate::catalog::{SessionId, Tool};

/// A server found in a config, that the person may connect from the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundEntry {
    /// What `--server` takes: the name, or `CLIENT:NAME` when the name is not enough.
    pub name: String,
    /// One line for the list: name, client, what it runs, where it was found.
    pub line: String,
}

/// One server session: where its calls go and what it said of itself.
#[derive(Debug, Default)]
pub struct Session {
    id: SessionId,
    server: ServerState,
    pane: ServerPane,
}

impl Session {
    pub fn id(&self) -> SessionId {
        self.id
    }

    pub fn server(&self) -> &ServerState {
        &self.server
    }

    pub fn pane(&self) -> &ServerPane {
        &self.pane
    }
}

/// Every session, in the order they were named, and which is current. There is always one: the
/// server named on the command line, or the built-in demo server.
/// Its fields are private: read through getters, changed only through its methods.
#[derive(Debug)]
pub struct Sessions {
    all: Vec<Session>,
    current: SessionId,
    /// Servers found in configs (the runtime connects one on `Effect::ConnectFound`).
    found: Vec<FoundEntry>,
}

impl Default for Sessions {
    fn default() -> Sessions {
        Sessions { all: vec![Session::default()], current: SessionId::FIRST, found: Vec::new() }
    }
}

impl Sessions {
    /// Every session, in the order they were named.
    pub fn all(&self) -> &[Session] {
        &self.all
    }

    /// The session the person's commands go to (the selected tool's).
    pub fn current(&self) -> &Session {
        self.get(self.current).unwrap_or(&self.all[0])
    }

    pub(super) fn current_mut(&mut self) -> &mut Session {
        let current = self.current;
        self.session_mut(current)
    }

    pub fn current_id(&self) -> SessionId {
        self.current
    }

    /// Where the current session stands among them (0-based).
    pub fn position(&self) -> usize {
        self.all.iter().position(|s| s.id == self.current).unwrap_or(0)
    }

    pub fn get(&self, id: SessionId) -> Option<&Session> {
        self.all.iter().find(|s| s.id == id)
    }

    /// The session `id`, made on its first message.
    pub(super) fn session_mut(&mut self, id: SessionId) -> &mut Session {
        let index = match self.all.iter().position(|s| s.id == id) {
            Some(index) => index,
            None => {
                self.all.push(Session { id, ..Session::default() });
                self.all.len() - 1
            }
        };
        &mut self.all[index]
    }

    pub(super) fn server_mut(&mut self, id: SessionId) -> &mut ServerState {
        &mut self.session_mut(id).server
    }

    pub(super) fn pane_mut(&mut self, id: SessionId) -> &mut ServerPane {
        &mut self.session_mut(id).pane
    }

    /// The label of session `id`, as its tools' group header shows it.
    pub fn label(&self, id: SessionId) -> &str {
        self.get(id).map_or("", |s| s.server.endpoint())
    }

    /// The servers found in configs, to connect one from the app.
    pub fn found_in_configs(&mut self, found: Vec<FoundEntry>) {
        self.found = found;
    }

    pub fn several(&self) -> bool {
        self.all.len() > 1
    }
}

/// `effects` with those for a server addressed to session `id` (every [`ServerEffect`] is
/// for a session; the rest are the app's own).
pub(super) fn addressed(effects: Vec<Effect>, id: SessionId) -> Vec<Effect> {
    effects
        .into_iter()
        .map(|effect| match effect {
            Effect::Server(effect) => Effect::Session { id, effect },
            // Named, not a wildcard: a new kind of effect says whether it is a session's.
            effect @ (Effect::Quit
            | Effect::Session { .. }
            | Effect::ConnectFound(_)
            | Effect::Task(_)
            | Effect::Work(_)
            | Effect::Desktop(_)) => effect,
        })
        .collect()
}

impl App {
    /// The current session's server (where the person's calls go).
    pub fn server(&self) -> &ServerState {
        &self.sessions.current().server
    }

    /// The current session's server pane.
    pub fn server_pane(&self) -> &ServerPane {
        &self.sessions.current().pane
    }

    pub(super) fn server_mut(&mut self) -> &mut ServerState {
        &mut self.sessions.current_mut().server
    }

    pub(super) fn server_pane_mut(&mut self) -> &mut ServerPane {
        &mut self.sessions.current_mut().pane
    }

    /// The session a tool belongs to: the server that listed it, else the first (tools from
    /// files are called on the server named on the command line).
    pub fn session_of(&self, tool: &Tool) -> SessionId {
        tool.source.session.unwrap_or(SessionId::FIRST)
    }

    /// The list of servers found in configs, to pick one to connect.
    pub(super) fn pick_found_server(&mut self) {
        if self.sessions.found.is_empty() {
            self.tell(
                "no servers found in tooldeck's config or Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI or Codex configs"

            );
            return;
        }
        self.prompts.open(Popup::Picker {
            path: Vec::new(),
            title: "connect a server found in a config".into(),
            options: self.sessions.found.iter().map(|f| crate::text::visible(&f.line).into_owned()).collect(),
            selected: 0,
            purpose: PickerPurpose::FoundServer,
        });
    }

    /// The found server at `index` is connected (the runtime says how it went).
    pub(super) fn connect_found(&mut self, index: usize) -> Vec<Effect> {
        let Some(found) = self.sessions.found.get(index) else { return Vec::new() };
        let name = found.name.clone();
        self.tell(format!("connecting {}…", crate::text::visible(&name)));
        vec![Effect::ConnectFound(name)]
    }

    /// With several servers, the selected tool's session becomes current.
    pub(super) fn follow_selected_server(&mut self) {
        if let Some(id) = self.selected_tool().map(|tool| self.session_of(tool))
            && self.sessions.get(id).is_some()
        {
            self.sessions.current = id;
        }
    }
}
