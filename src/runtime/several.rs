//! The runtime's side of several servers at once: each connection with its label and a sender
//! that marks its messages as its own (`Msg::FromServer`), effects addressed to a server
//! (`Effect::ToServer`) carried out with that server in place, calls routed to the server that
//! listed the tool, and a server found in a config connected while the app runs.

use std::collections::HashMap;

use tokio::sync::mpsc;

use super::effects::Calls;
use super::{Connection, Server};
use crate::app::{Effect, Msg};
use crate::invoke::endpoint::{EndpointOptions, parse_headers};
use crate::invoke::mcp::asks::PendingAsk;

/// One connected server.
pub(super) struct Slot {
    pub label: String,
    pub endpoint: Connection,
    /// Sends its messages wrapped in `Msg::FromServer { label }`.
    pub done: mpsc::Sender<Msg>,
    pub case_server: serde_json::Map<String, serde_json::Value>,
}

/// What the servers share: their slots, which tool came from which, and how to connect more.
pub(super) struct Fleet {
    pub slots: Vec<Slot>,
    /// Tool id → the label of the server that listed it.
    pub routes: HashMap<String, String>,
    /// Label → how to connect to that server again (a fuzz run has a connection of its own).
    pub recipes: HashMap<String, super::fuzz::Recipe>,
    pub asks_to: mpsc::UnboundedSender<PendingAsk>,
    /// The command line's shared options (headers, timeouts, roots) for servers connected later.
    pub shared: EndpointOptions,
}

/// A sender whose messages reach `done` as `Msg::FromServer { label, msg }`, in order.
pub(super) fn marked(label: &str, done: &mpsc::Sender<Msg>) -> mpsc::Sender<Msg> {
    let (tx, mut rx) = mpsc::channel::<Msg>(16);
    let (label, done) = (label.to_string(), done.clone());
    tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            if done.send(Msg::FromServer { label: label.clone(), msg: Box::new(msg) }).await.is_err() {
                return;
            }
        }
    });
    tx
}

impl Fleet {
    /// Connects `server`, its events marked with its label; the label and its first message.
    pub fn add(&mut self, server: Server, done: &mpsc::Sender<Msg>) -> (String, Msg) {
        let label = server.options.label(server.demo_url.as_deref());
        let lists_tools = server.options.names_a_server();
        let marked_done = marked(&label, done);
        let case_server = server.case_server.clone();
        let recipe = super::fuzz::Recipe {
            options: server.options.clone(),
            headers: server.headers.clone(),
            demo_url: server.demo_url.clone(),
        };
        self.recipes.insert(label.clone(), recipe);
        let endpoint = server.connect(self.asks_to.clone());
        super::server_events::forward_events(endpoint.clone(), marked_done.clone());
        super::server_events::forward_traffic(endpoint.clone(), marked_done.clone());
        self.slots.push(Slot { label: label.clone(), endpoint, done: marked_done, case_server });
        let named = Msg::ServerNamed { label: label.clone(), lists_tools };
        (label.clone(), Msg::FromServer { label, msg: Box::new(named) })
    }

    /// Notes which server listed which tools, so that their calls go there.
    pub fn note_tools(&mut self, msg: &Msg) {
        if let Msg::FromServer { label, msg } = msg
            && let Msg::ServerTools { result: Ok(tools), .. } = msg.as_ref()
        {
            for tool in tools {
                self.routes.entry(tool.id.clone()).or_insert_with(|| label.clone());
            }
        }
    }
}

impl Calls {
    /// `effect` carried out with the server `label` in place; a call goes to the server that
    /// listed its tool (a tool from a file, to the first server).
    pub(super) fn carry_out_for(&mut self, label: String, effect: Effect) {
        let tool_id = match &effect {
            Effect::Invoke { request, .. } => Some(&request.tool_id),
            Effect::Fuzz { tool, .. } => Some(&tool.id),
            _ => None,
        };
        let label = match tool_id {
            Some(tool_id) => self
                .fleet
                .routes
                .get(tool_id)
                .cloned()
                .or_else(|| self.fleet.slots.first().map(|s| s.label.clone()))
                .unwrap_or(label),
            None => label,
        };
        let Some(index) = self.fleet.slots.iter().position(|s| s.label == label) else {
            return self.carry_out(effect);
        };
        self.swap_slot(index);
        self.carry_out(effect);
        self.swap_slot(index);
    }

    fn swap_slot(&mut self, index: usize) {
        let slot = &mut self.fleet.slots[index];
        std::mem::swap(&mut self.endpoint, &mut slot.endpoint);
        std::mem::swap(&mut self.label, &mut slot.label);
        std::mem::swap(&mut self.done, &mut slot.done);
        std::mem::swap(&mut self.case_server, &mut slot.case_server);
    }

    /// Connects a server found in a config, by name. Reading the configs takes a few small
    /// files, done here rather than through another round of messages.
    pub(super) fn connect_found(&mut self, name: String) {
        let options = EndpointOptions { server: Some(name.clone()), ..self.fleet.shared.clone() };
        let resolve = || -> Result<_, FoundError> {
            let options = options.resolve()?;
            let headers = parse_headers(&options.headers)?;
            Ok((options, headers))
        };
        let resolved = resolve();
        let said = match resolved {
            Err(e) => format!("cannot connect {}: {e}", crate::text::visible(&name)),
            Ok((options, headers)) => {
                let label = options.label(None);
                if self.fleet.slots.iter().any(|s| s.label == label) {
                    format!("{} is connected already", crate::text::visible(&label))
                } else {
                    let environment: Vec<(String, String)> = std::env::vars().collect();
                    let case_server = crate::cases::server_keys::case_server(&options, &environment).keys;
                    let server = Server { options, headers, demo_url: None, case_server };
                    let (_, first) = self.fleet.add(server, &self.done);
                    let done = self.done.clone();
                    tokio::spawn(async move { done.send(first).await });
                    return;
                }
            }
        };
        let done = self.done.clone();
        tokio::spawn(async move { done.send(Msg::Said(said)).await });
    }
}

/// Why a server found in a config cannot be connected (said on the status line).
#[derive(Debug, thiserror::Error)]
enum FoundError {
    #[error(transparent)]
    Named(#[from] crate::invoke::NamedError),
    #[error(transparent)]
    Header(#[from] crate::invoke::endpoint::ValueError),
}
