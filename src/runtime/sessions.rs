//! The runtime's side of server sessions: each connection has a [`SessionId`] and a sender that
//! marks its messages as its own (`Msg::Session`); an effect for a session (`Effect::Session`,
//! or the first session's when unaddressed) is carried out with that session's handle, and a
//! server found in a config is connected as a new session while the app runs.
// No wildcard arm on an enum here: a new variant is a compile error until it is handled.
#![deny(clippy::wildcard_enum_match_arm)]

use std::future::Future;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::supervisor::Supervisor;
use super::{Connection, ServerSpec};
use crate::app::{Msg, ServerMsg};
use crate::catalog::SessionId;
use crate::invoke::endpoint::{EndpointOptions, parse_headers};
use crate::invoke::mcp::asks::PendingAsk;

/// One connected server: what every task for it needs.
#[derive(Clone)]
pub(super) struct SessionHandle {
    pub id: SessionId,
    /// The server as status lines and tool sources name it (unique among the sessions).
    pub label: String,
    pub endpoint: Connection,
    /// Sends its messages wrapped in `Msg::Session { id }`.
    pub done: mpsc::Sender<Msg>,
    pub case_server: serde_json::Map<String, serde_json::Value>,
    /// How to connect to it again (a fuzz run has a connection of its own).
    pub recipe: super::fuzz::Recipe,
    /// The proxy's traffic its traffic pane shows instead of its own (`tooldeck attach`).
    pub watched: Option<crate::invoke::mcp::traffic::Traffic>,
    /// Lines to the watched proxy (breakpoints, held messages), written in order by
    /// `server_events::follow_feed`'s writer.
    pub controls: Option<mpsc::UnboundedSender<crate::proxy::live::Control>>,
    /// Its tasks' scope: cancelled when tooldeck quits (or the session ends).
    scope: CancellationToken,
    supervisor: Supervisor,
}

impl SessionHandle {
    /// Runs `work` for this session, until it ends or the session does.
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) -> JoinHandle<()> {
        self.supervisor.spawn(&self.scope, work)
    }

    /// Runs `work` for this session and brings the message it ends with to the app, as the
    /// session's.
    pub fn answer(&self, work: impl Future<Output = Msg> + Send + 'static) -> JoinHandle<()> {
        self.supervisor.answer(&self.scope, &self.done, work)
    }
}

/// Every session's connection (the app's `Sessions` is their state), and how to connect more.
pub(super) struct Connections {
    all: Vec<SessionHandle>,
    supervisor: Supervisor,
    asks_to: mpsc::UnboundedSender<PendingAsk>,
    /// The command line's shared options (headers, timeouts, roots) for servers connected later.
    shared: EndpointOptions,
}

/// A sender whose messages reach `done` as `Msg::Session { id, msg }`, in order.
fn marked(
    id: SessionId,
    done: &mpsc::Sender<Msg>,
    supervisor: &Supervisor,
    scope: &CancellationToken,
) -> mpsc::Sender<Msg> {
    let (tx, mut rx) = mpsc::channel::<Msg>(16);
    let done = done.clone();
    supervisor.spawn(scope, async move {
        while let Some(msg) = rx.recv().await {
            if done.send(Msg::Session { id, msg: Box::new(msg) }).await.is_err() {
                return;
            }
        }
    });
    tx
}

impl Connections {
    pub fn new(
        supervisor: Supervisor,
        asks_to: mpsc::UnboundedSender<PendingAsk>,
        shared: EndpointOptions,
    ) -> Connections {
        Connections { all: Vec::new(), supervisor, asks_to, shared }
    }

    /// The session `id`; an unknown one (an effect no session is named for) is the first's.
    pub fn get(&self, id: SessionId) -> Option<&SessionHandle> {
        self.all.iter().find(|s| s.id == id).or_else(|| self.all.first())
    }

    /// Connects `server` as a new session, its events marked with its id; its first message.
    pub fn add(&mut self, mut server: ServerSpec, done: &mpsc::Sender<Msg>) -> Msg {
        let watched = server.watched.take();
        let id = SessionId(self.all.len() as u32);
        let label = self.unique(server.options.label(server.demo_url.as_deref()));
        let lists_tools = server.options.names_a_server();
        let scope = self.supervisor.session_scope();
        let marked_done = marked(id, done, &self.supervisor, &scope);
        let case_server = server.case_server.clone();
        let recipe = super::fuzz::Recipe {
            options: server.options.clone(),
            headers: server.headers.clone(),
            demo_url: server.demo_url.clone(),
        };
        let endpoint = server.connect(self.asks_to.clone());
        let supervisor = self.supervisor.clone();
        let feed = watched.as_ref().is_some_and(|w| w.feed.is_some());
        let (controls, to_write) = match feed {
            true => {
                let (controls, to_write) = mpsc::unbounded_channel();
                (Some(controls), Some(to_write))
            }
            false => (None, None),
        };
        let session = SessionHandle {
            id,
            label: label.clone(),
            endpoint,
            done: marked_done,
            case_server,
            recipe,
            watched: watched.as_ref().map(|w| w.traffic.clone()),
            controls,
            scope,
            supervisor,
        };
        super::server_events::forward_events(&session);
        super::server_events::forward_traffic(&session);
        if let (Some(feed), Some(to_write)) = (watched.and_then(|w| w.feed), to_write) {
            super::server_events::follow_feed(&session, feed, to_write);
        }
        self.all.push(session);
        Msg::Session { id, msg: Box::new(Msg::Server(ServerMsg::Named { label, lists_tools })) }
    }

    /// `label`, or with ` #N` after it when another session has it already: two copies of one
    /// server are two groups in the list, each named apart.
    fn unique(&self, label: String) -> String {
        let taken = |l: &str| self.all.iter().any(|s| s.label == l);
        if !taken(&label) {
            return label;
        }
        (2..).map(|n| format!("{label} #{n}")).find(|l| !taken(l)).unwrap_or(label)
    }

    /// Session `id` connected again from what it was first made of, when its connection never
    /// came up (a server that was down); else it is left as it is. Its handle, and whether it
    /// was made anew.
    pub fn renewed(&mut self, id: SessionId) -> Option<(SessionHandle, bool)> {
        let asks_to = self.asks_to.clone();
        let session = self.all.iter_mut().find(|s| s.id == id)?;
        let failed = session.endpoint.peek().is_some_and(Result::is_err);
        if failed {
            let recipe = session.recipe.clone();
            let server = ServerSpec {
                options: recipe.options,
                headers: recipe.headers,
                demo_url: recipe.demo_url,
                case_server: session.case_server.clone(),
                watched: None,
            };
            session.endpoint = server.connect(asks_to);
            super::server_events::forward_events(session);
            super::server_events::forward_traffic(session);
        }
        Some((session.clone(), failed))
    }

    /// The session already connected with these options, if any (connecting a found server twice).
    fn connected(&self, options: &EndpointOptions) -> Option<&SessionHandle> {
        self.all.iter().find(|s| s.recipe.options.label(None) == options.label(None))
    }
}

/// What connecting a server found in a config came to.
pub(super) enum Found {
    /// It is connected already, as this session: to be reconnected.
    Again(SessionId),
    /// Connected as a new session: its first message.
    Added(Msg),
    /// It cannot be connected: why, for the status line.
    Failed(String),
}

impl Connections {
    /// Connects a server found in a config, by name, its messages to `done`. Reading the configs
    /// takes a few small files, done here rather than through another round of messages. A
    /// server connected before whose tools could not be listed is asked again.
    pub(super) fn connect_found(&mut self, name: String, done: &mpsc::Sender<Msg>) -> Found {
        let options = EndpointOptions { server: Some(name.clone()), ..self.shared.clone() };
        let resolve = || -> Result<_, FoundError> {
            let options = options.resolve()?;
            let headers = parse_headers(&options.headers)?;
            Ok((options, headers))
        };
        match resolve() {
            Err(e) => Found::Failed(format!("cannot connect {}: {e}", crate::text::visible(&name))),
            Ok((options, _)) if let Some(session) = self.connected(&options) => Found::Again(session.id),
            Ok((options, headers)) => {
                let environment: Vec<(String, String)> = std::env::vars().collect();
                let case_server = crate::cases::server_keys::case_server(&options, &environment).keys;
                let server = ServerSpec { options, headers, demo_url: None, case_server, watched: None };
                Found::Added(self.add(server, done))
            }
        }
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
