//! What the app asks for ([`Effect`]s), carried out on tokio tasks and blocking threads; every
//! answer comes back to the event loop as a [`Msg`] over the bounded `done` channel.
//!
//! [`Effects`] is made of parts named by their job, each with what it alone needs, so that an
//! effect's handler borrows only its part: the sessions' connections ([`Connections`]), the calls in
//! flight ([`Calls`]), work off the UI thread that belongs to no server ([`Background`]), the
//! history writer, the fuzz run, the eval run, the hosted app, the pending completion question and the
//! server's questions waiting for the person. Every task still starts through the supervisor.
// `carry_out` and the function of each effect group match their enum with no wildcard arm: a new
// effect is a compile error until it is carried out.
#![deny(clippy::wildcard_enum_match_arm)]

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::apps::AppHosting;
use super::calls::Calls;
use super::evals::EvalRun;
use super::faces::Completion;
use super::fuzz::FuzzRun;
use super::history::HistoryWriter;
use super::sessions::{Connections, Found, SessionHandle};
use super::supervisor::Supervisor;
use super::{list_server_tools as list_server_tools_msg, server_events};
use crate::app::{
    CallMsg, ContentMsg, DesktopEffect, Effect, EffectError, LoadMsg, Msg, SaveMsg, ServerEffect, ServerMsg,
    TaskEffect, WorkEffect,
};
use crate::catalog::SessionId;
use crate::invoke::artifact::Fetched;
use crate::invoke::{Endpoint, InvokeError};
use crate::text;

/// Everything that carries out effects, part by part (see the module's comment).
pub(super) struct Effects {
    pub(super) background: Background,
    /// Every server session: its connection, and how to connect more.
    pub(super) sessions: Connections,
    pub(super) calls: Calls,
    pub(super) history: HistoryWriter,
    pub(super) fuzz: FuzzRun,
    pub(super) eval: EvalRun,
    pub(super) app_host: AppHosting,
    pub(super) completion: Completion,
    /// Questions from the server waiting for the person's answer, by id.
    pub(super) asked: crate::app::asks::Waiting,
}

/// Work off the UI thread that belongs to no server session (a schema's checker, lint, an
/// artifact's fetch and save, a link opened, a retry's timer): it runs in the root scope.
pub(super) struct Background {
    /// Every task runs under it: quitting cancels them all.
    pub(super) supervisor: Supervisor,
    pub(super) done: mpsc::Sender<Msg>,
    /// How long a fetch or a save may stay silent.
    pub(super) timeout: Duration,
}

impl Drop for Effects {
    /// The app is leaving: every task still going is cancelled (the servers' connections are
    /// dropped with the sessions, which ends their processes).
    fn drop(&mut self) {
        // A hosted app is ended as the spec says (told, its page told) before its task goes.
        self.app_host.close();
        self.background.supervisor.shutdown();
    }
}

impl Effects {
    /// One effect, handed to the function for its group: a session's server, the tasks going,
    /// work off the UI thread, the desktop. Each matches every variant of its enum (no
    /// wildcard: clippy's `wildcard_enum_match_arm` is denied here), so a new effect does not
    /// compile until it is carried out.
    pub(super) fn carry_out(&mut self, effect: Effect) {
        match effect {
            Effect::Quit => {}
            // A server's, unaddressed, is the first session's.
            Effect::Server(effect) => self.in_session(SessionId::FIRST, effect),
            Effect::Session { id, effect } => self.in_session(id, effect),
            Effect::ConnectFound(name) => self.connect_found(name),
            Effect::Task(effect) => self.task(effect),
            Effect::Work(effect) => self.work(effect),
            Effect::Desktop(effect) => self.background.desktop(effect),
        }
    }

    /// An effect for the server of session `id` (an unknown id is the first session's).
    fn in_session(&mut self, id: SessionId, effect: ServerEffect) {
        let Some(s) = self.sessions.get(id).cloned() else { return };
        match effect {
            ServerEffect::Invoke { id, request, output_schema } => {
                // A call of the hosted app's tool reaches its view too.
                let app = self.app_host.app_of(s.id, &request.tool_id);
                self.calls.invoke(&s, id, request, output_schema, app)
            }
            ServerEffect::SetRoots(roots) => set_roots(&s, roots),
            ServerEffect::Authorize { provider, token } => authorize(&s, provider, token),
            ServerEffect::ListTools => list_server_tools(&s),
            ServerEffect::SignIn { challenge } => {
                s.spawn(super::sign_in::sign_in(s.endpoint.clone(), challenge, s.done.clone(), s.label.clone()));
            }
            ServerEffect::SignOut => {
                s.spawn(super::sign_in::sign_out(s.endpoint.clone(), s.done.clone()));
            }
            ServerEffect::Reconnect => {
                // A connection that never came up is made anew (and only listed); one that did
                // starts its server again.
                let (s, made_anew) = self.sessions.renewed(s.id).unwrap_or((s, false));
                s.spawn(server_events::reconnect(s.endpoint.clone(), s.done.clone(), s.label.clone(), !made_anew));
            }
            ServerEffect::SetLogLevel(level) => {
                s.spawn(server_events::set_log_level(s.endpoint.clone(), s.done.clone(), level));
            }
            ServerEffect::ReadResource { run, item, uri } => read_resource_of(&s, run, item, uri),
            ServerEffect::SaveCase { path, case } => save_case(&s, path, case),
            ServerEffect::Fuzz { id, tool } => self.fuzz.start(&s, id, *tool),
            ServerEffect::Eval { id, file } => self.eval.start(&s, id, *file),
            ServerEffect::HostApp { tool, arguments } => self.app_host.host(&s, *tool, arguments),
            ServerEffect::ListFaces => super::faces::list_faces(&s),
            ServerEffect::Face { id, call_id, request } => self.calls.face(&s, id, call_id, request),
            ServerEffect::Complete { tool_id, reference, argument, typed, context } => {
                self.completion.ask(&s, tool_id, reference, argument, typed, context)
            }
            ServerEffect::Subscribe { uri, on } => super::faces::subscribe(&s, uri, on),
            ServerEffect::Control(control) => control_proxy(&s, control),
        }
    }

    /// To a task already going.
    fn task(&mut self, effect: TaskEffect) {
        match effect {
            TaskEffect::Cancel { id } => self.calls.cancel(id),
            TaskEffect::RetryAfter { id, ms } => self.background.retry_after(id, ms),
            TaskEffect::AnswerAsk { id, reply } => self.asked.answer(id, reply),
            TaskEffect::StopFuzz { id } => self.fuzz.stop(id),
            TaskEffect::StopEval { id } => self.eval.stop(id),
            TaskEffect::EndApp { why } => self.app_host.end(&why),
        }
    }

    /// Work off the UI thread.
    fn work(&mut self, effect: WorkEffect) {
        let background = &self.background;
        match effect {
            WorkEffect::CompileChecker { tool_id, schema } => background.compile_checker(tool_id, schema),
            WorkEffect::Lint { tool, options } => background.lint(tool, options),
            WorkEffect::DecodeInline { run, item, data, content_type } => {
                background.decode_inline(run, item, data, content_type)
            }
            WorkEffect::Fetch(url) => background.fetch(url),
            WorkEffect::Save { path, source, overwrite } => background.save(path, source, overwrite),
            WorkEffect::Record(entry) => self.history.record(entry),
        }
    }

    /// Connects a server found in a config, by name (see [`Connections::connect_found`]).
    fn connect_found(&mut self, name: String) {
        match self.sessions.connect_found(name, &self.background.done) {
            // Listed again: a server that was down may be up now.
            Found::Again(id) => self.in_session(id, ServerEffect::Reconnect),
            Found::Added(first) => self.background.answer(async move { first }),
            Found::Failed(said) => self.background.answer(async move { Msg::Status(said) }),
        }
    }
}

impl Background {
    /// The clipboard and the browser.
    fn desktop(&self, effect: DesktopEffect) {
        match effect {
            DesktopEffect::Copy(text) => copy(&text),
            // Only web links, whichever pane asked (the gate decides): another scheme could
            // launch a program.
            DesktopEffect::Open(url) => self.answer(async move {
                let link = url.clone();
                let said = match tokio::task::spawn_blocking(move || crate::invoke::browser::open(&link)).await {
                    // The opener was started, which is no proof a window came up (`BROWSER`
                    // set to a command that fails, no display): the link is said either way.
                    Ok(Ok(())) => opened(&url),
                    Ok(Err(crate::invoke::browser::OpenError::Failed { reason, .. })) => not_opened(&url, &reason),
                    Ok(Err(refused)) => refused.to_string(),
                    Err(e) => not_opened(&url, &e.to_string()),
                };
                Msg::Status(said)
            }),
        }
    }

    /// Runs `work` until it ends or tooldeck quits.
    fn spawn(&self, work: impl std::future::Future<Output = ()> + Send + 'static) {
        self.supervisor.spawn(self.supervisor.root(), work);
    }

    /// Runs `work` until it ends or tooldeck quits, and brings its message to the app.
    pub(super) fn answer(&self, work: impl std::future::Future<Output = Msg> + Send + 'static) {
        self.supervisor.answer(self.supervisor.root(), &self.done, work);
    }

    /// A call's next try is due after `ms` (a server asked to wait).
    fn retry_after(&self, id: u64, ms: u64) {
        self.answer(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Msg::Call(CallMsg::RetryDue { id })
        });
    }
}

/// The server: its roots, a token, its tool list (reconnecting and its log level are in
/// `server_events`).
fn set_roots(s: &SessionHandle, roots: Vec<String>) {
    let endpoint = s.endpoint.clone();
    s.spawn(async move {
        if let Ok(endpoint) = endpoint.await {
            endpoint.set_roots(roots).await;
        }
    });
}

/// `tooldeck attach`: a line to the watched proxy, written by the session's control writer; a
/// session that watches no live proxy says so.
fn control_proxy(s: &SessionHandle, control: crate::proxy::live::Control) {
    let sent = s.controls.as_ref().is_some_and(|controls| controls.send(control).is_ok());
    if !sent {
        let done = s.done.clone();
        let why = "no running proxy is attached (its feed ended, or this is not `tooldeck attach`)";
        let _ = done.try_send(Msg::Server(ServerMsg::Proxy(crate::app::ProxyMsg::NotWritten(why.into()))));
    }
}

fn authorize(s: &SessionHandle, provider: String, token: String) {
    let (endpoint, done, label) = (s.endpoint.clone(), s.done.clone(), s.label.clone());
    s.spawn(async move {
        let authorized = match endpoint.await {
            Ok(endpoint) => endpoint.authorize(&provider, &token).await.map(|()| endpoint),
            Err(e) => Err(e),
        };
        server_events::send_info(authorized.as_ref().ok(), &done).await;
        let _ = done.send(list_server_tools_msg(authorized, label).await).await;
    });
}

fn list_server_tools(s: &SessionHandle) {
    let (endpoint, done, label) = (s.endpoint.clone(), s.done.clone(), s.label.clone());
    s.spawn(async move {
        let endpoint = endpoint.await;
        let _ = done.send(list_server_tools_msg(endpoint.clone(), label).await).await;
        server_events::send_info(endpoint.as_ref().ok(), &done).await;
        // The MCP revision agreed, for the status line.
        if let Ok(endpoint) = &endpoint
            && let Some(version) = endpoint.protocol_version().await
        {
            let _ = done.send(Msg::Server(ServerMsg::Protocol(version))).await;
        }
    });
}

/// CPU work the UI thread must not wait for: a schema's checker, a tool's lint findings.
impl Background {
    fn compile_checker(&self, tool_id: String, schema: serde_json::Value) {
        let done = self.done.clone();
        self.spawn(async move {
            let compiled = tokio::task::spawn_blocking(move || crate::form::validate::Checker::new(&schema));
            if let Ok(checker) = compiled.await {
                let _ = done.send(Msg::Load(LoadMsg::Checker { tool_id, checker })).await;
            }
        });
    }

    fn lint(&self, tool: Box<crate::catalog::Tool>, options: crate::lint::Options) {
        let done = self.done.clone();
        self.spawn(async move {
            let tool_id = tool.id.clone();
            let linted = tokio::task::spawn_blocking(move || crate::lint::lint_tool(&tool, &options));
            if let Ok(findings) = linted.await {
                let _ = done.send(Msg::Load(LoadMsg::Linted { tool_id, findings })).await;
            }
        });
    }
}

/// A result's content: inline items decoded, resources read, artifacts fetched and saved.
impl Background {
    fn decode_inline(
        &self,
        run: u64,
        item: usize,
        data: crate::invoke::mcp::content::Inline,
        content_type: Option<String>,
    ) {
        self.answer(async move {
            let result = decode(data, content_type, Vec::new()).await;
            Msg::Content(ContentMsg::ItemDecoded { run, item, result })
        });
    }

    fn fetch(&self, url: String) {
        let progress_to = self.done.clone();
        let timeout = self.timeout;
        self.answer(async move {
            let result = fetch(&url, timeout, progress_to).await;
            Msg::Content(ContentMsg::ArtifactFetched(result.map(Box::new)))
        });
    }

    fn save(&self, path: String, source: crate::invoke::save::SaveSource, overwrite: bool) {
        let progress_to = self.done.clone();
        let timeout = self.timeout;
        self.answer(async move {
            let report = move |written, total| {
                // Best effort: a full queue skips an update, never the save.
                let _ = progress_to.try_send(Msg::Save(SaveMsg::Progress { written, total }));
            };
            let saved = crate::invoke::save::save(&path, source, overwrite, timeout, report).await;
            Msg::Save(SaveMsg::Saved(saved.map_err(EffectError::from)))
        });
    }
}

/// A `resource_link` item's resource, read from session `s`'s server.
fn read_resource_of(s: &SessionHandle, run: u64, item: usize, uri: String) {
    let endpoint = s.endpoint.clone();
    s.answer(async move {
        let result = read_resource(endpoint.await, &uri).await;
        Msg::Content(ContentMsg::ResourceRead { run, item, result })
    });
}

/// A test case, written with the server of the session it was run in at the file's top.
fn save_case(s: &SessionHandle, path: String, mut case: serde_json::Value) {
    let mut server = s.case_server.clone();
    // Token placeholders belong to the file's top, beside the server they are for.
    if let Some(tokens) = case.as_object_mut().and_then(|c| c.remove("tokens")) {
        server.insert("tokens".into(), tokens);
    }
    s.answer(async move {
        let appended = tokio::task::spawn_blocking(move || {
            crate::cases::record::append_case_for(std::path::Path::new(&path), &case, &server)
                // The recorder says which variables the case names (it knows them already).
                .map(|_variables| path.clone())
                // The error names the file: "No such file or directory" alone does not.
                .map_err(|e| EffectError::case_file(&path, &e))
        })
        .await
        .map_err(EffectError::from)
        .and_then(|appended| appended);
        Msg::Save(SaveMsg::CaseSaved(appended))
    });
}

/// What the status line says when a browser was asked to open `url`. What happened comes first
/// and the link last: a long link is what a narrow status line cuts, not the advice.
fn opened(url: &str) -> String {
    let link = text::visible(&crate::redact::url(url)).into_owned();
    format!("asked the browser to open it · if no window came up, open the link yourself: {link}")
}

/// What the status line says when no browser opened `url`: why, and the link to open by hand.
fn not_opened(url: &str, why: &str) -> String {
    let link = text::visible(&crate::redact::url(url)).into_owned();
    format!("could not open a browser ({}): open the link yourself: {link}", text::visible(why))
}

/// OSC 52: the terminal puts `text` on the clipboard, locally or over SSH.
fn copy(text: &str) {
    use std::io::Write;
    let sequence = format!("\x1b]52;c;{}\x07", crate::invoke::envelope::base64(text.as_bytes()));
    let mut out = io::stdout();
    let _ = out.write_all(sequence.as_bytes()).and_then(|()| out.flush());
}

/// Downloads `url`, its progress sent as it comes, and draws its picture.
async fn fetch(url: &str, timeout: Duration, progress_to: mpsc::Sender<Msg>) -> Result<Fetched, EffectError> {
    let mut fetched = crate::invoke::artifact::fetch(url, timeout, move |received, total| {
        // Progress is best effort: a full queue skips an update, never blocks.
        let _ = progress_to.try_send(Msg::Content(ContentMsg::ArtifactProgress { received, total }));
    })
    .await?;
    // Decoding a picture is CPU work: on a blocking thread, not the UI's.
    let drawn = tokio::task::spawn_blocking(move || {
        fetched.thumbnail = crate::invoke::artifact::picture(&fetched.bytes);
        fetched
    });
    Ok(drawn.await?)
}

/// `resources/read` of `uri`, its first contents decoded, with notes on what else came back.
async fn read_resource(endpoint: Result<Arc<Endpoint>, InvokeError>, uri: &str) -> Result<Box<Fetched>, EffectError> {
    // The request waits as long as a call does (the endpoint's timeout).
    let unreadable = |why: String| EffectError::Unreadable { uri: uri.to_string(), why };
    let (contents, warnings) = match endpoint {
        Ok(endpoint) => endpoint.read_resource(uri).await.map_err(|e| {
            // The pane names the server already.
            let said = e.to_string();
            unreadable(said.strip_prefix(&format!("{}: ", endpoint.label())).map_or(said.clone(), str::to_string))
        }),
        Err(e) => Err(unreadable(e.to_string())),
    }?;
    let mut notes: Vec<String> = warnings.iter().map(|w| format!("⚠ {w}")).collect();
    let count = contents.len();
    let Some(first) = contents.into_iter().next() else {
        return Err(EffectError::NoContents(uri.to_string()));
    };
    if count > 1 {
        notes.insert(0, format!("the server sent {count} contents; the first is shown"));
    }
    if first.uri != uri {
        notes.insert(0, format!("read as {}", text::visible(&first.uri)));
    }
    decode(first.body, first.mime_type, notes).await
}

/// Inline content decoded (and its picture drawn) on a blocking thread, `notes` before its preview.
async fn decode(
    data: crate::invoke::mcp::content::Inline,
    content_type: Option<String>,
    notes: Vec<String>,
) -> Result<Box<Fetched>, EffectError> {
    let decoded = tokio::task::spawn_blocking(move || crate::invoke::artifact::decode_inline(&data, content_type));
    let mut fetched = decoded.await??;
    fetched.notes = notes;
    Ok(Box::new(fetched))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_no_browser_opened_is_said_with_the_link_masked() {
        let said = not_opened("https://x.test/cb?state=1&api_key=k3y", "no browser found");
        assert!(said.starts_with("could not open a browser (no browser found): open the link yourself: "), "{said}");
        assert!(said.contains("https://x.test/cb?state=1") && !said.contains("k3y"), "{said}");
    }

    #[test]
    fn a_link_opened_is_said_before_it_is_shown() {
        let said = opened(&format!("https://x.test/authorize?api_key=k3y&state={}", "s".repeat(200)));
        assert!(said.starts_with(
            "asked the browser to open it · if no window came up, open the link yourself: https://x.test/"
        ));
        assert!(!said.contains("k3y"), "{said}");
    }
}
