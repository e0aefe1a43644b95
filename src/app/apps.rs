//! The MCP App hosted in the browser, as the TUI follows it. `A` (`Action::HostApp`) asks the
//! runtime to host the selected tool's app (`ServerEffect::HostApp`, as `tooldeck app` does); each
//! thing the app does comes back as `ServerMsg::App`, said on the status line and kept in the
//! server pane of its session. A link it asks to open is asked about in a yes-or-no box, and
//! only a yes sends it to the one browser gate (`DesktopEffect::Open`). The app ends
//! (`TaskEffect::EndApp`) when the selection moves to another tool or its server goes away.

use std::collections::VecDeque;

use super::keymap::Context;
use super::{App, DesktopEffect, Effect, Popup, ServerEffect, TaskEffect};
use crate::apps::AppEvent;
use crate::catalog::SessionId;

/// Links waiting to be asked about; past it, the app's later asks are said and dropped.
const MAX_LINKS: usize = 4;

/// The hosted app (one at a time) and the links it asked to open.
#[derive(Debug, Default)]
pub struct AppHost {
    hosted: Option<Hosted>,
    links: VecDeque<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Hosted {
    session: SessionId,
    tool_id: String,
}

impl AppHost {
    /// The id of the tool whose app is hosted, if one is.
    pub fn hosted_tool(&self) -> Option<&str> {
        self.hosted.as_ref().map(|h| h.tool_id.as_str())
    }

    /// Links the app asked to open, not yet asked about.
    pub fn waiting_links(&self) -> usize {
        self.links.len()
    }

    fn ended(&mut self) {
        self.hosted = None;
        self.links.clear();
    }
}

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
        self.app_host.links.clear();
        self.app_host.hosted = Some(Hosted { session, tool_id: tool.id.clone() });
        self.in_session(session, vec![Effect::Server(ServerEffect::HostApp { tool: Box::new(tool), arguments })])
    }

    /// What the hosted app did: a line on the status bar and in its server's pane; a link it
    /// asks to open waits for a yes.
    pub(super) fn app_event(&mut self, session: SessionId, event: AppEvent) -> Vec<Effect> {
        let line = match &event {
            AppEvent::OpenLink { url } => {
                let link = crate::invoke::browser::shown(url);
                if self.app_host.hosted.is_none() {
                    format!("app: asked to open {link} after it ended (not opened)")
                } else if crate::invoke::browser::check(url).is_err() {
                    // A mailto: link passes the app's rule but not the browser gate's.
                    format!("app: asks to open {link}: tooldeck opens web links only; it is in the server pane")
                } else if self.app_host.links.len() >= MAX_LINKS {
                    format!("app: asks to open {link}: not asked, {MAX_LINKS} links wait already")
                } else {
                    self.app_host.links.push_back(url.clone());
                    format!("app: asks to open {link}")
                }
            }
            AppEvent::Ended { .. } => {
                self.app_host.ended();
                event.to_string()
            }
            _ => event.to_string(),
        };
        self.sessions.pane_mut(session).note(line.clone());
        self.tell(line);
        Vec::new()
    }

    /// After every message: the hosted app ends when the selection is on another tool or its
    /// server went away; a link it asked to open is asked about once nothing else asks.
    pub(super) fn follow_hosted_app(&mut self) -> Vec<Effect> {
        let Some(hosted) = self.app_host.hosted.clone() else { return Vec::new() };
        let gone = self.sessions.get(hosted.session).is_some_and(|s| s.pane().gone().is_some());
        let elsewhere = self.selected_tool().is_some_and(|t| t.id != hosted.tool_id);
        let why = match (gone, elsewhere) {
            (true, _) => Some("its server went away"),
            (false, true) => Some("another tool was selected"),
            (false, false) => None,
        };
        if let Some(why) = why {
            self.app_host.ended();
            self.tell(format!("app: ending: {why}"));
            return vec![Effect::Task(TaskEffect::EndApp { why: why.into() })];
        }
        if self.prompts.popup().is_none()
            && !self.asks.is_open()
            && let Some(url) = self.app_host.links.pop_front()
        {
            let said = "the app asks to open a link: {key:confirm} opens it, any other key does not";
            self.tell(self.keymap.say(said, &[Context::Confirm]));
            self.prompts.open(Popup::ConfirmLink { url });
        }
        Vec::new()
    }

    /// The person's answer to a link the app asked to open: only a yes sends it to the browser,
    /// through the one gate (http and https only, whatever the app asked).
    pub(super) fn app_link_answered(&mut self, url: String, open: bool) -> Vec<Effect> {
        let link = crate::invoke::browser::shown(&url);
        let line = match open {
            true => format!("app: opening {link}"),
            false => format!("app: {link} was not opened"),
        };
        let session = self.app_host.hosted.as_ref().map_or(self.sessions.current_id(), |h| h.session);
        self.sessions.pane_mut(session).note(line.clone());
        self.tell(line);
        if open { vec![Effect::Desktop(DesktopEffect::Open(url))] } else { Vec::new() }
    }
}
