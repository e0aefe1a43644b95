//! The terminal and the event loop: raw mode and the alternate screen are always undone (normal
//! exit, error, panic, SIGTERM), events become `Msg`s, effects are carried out, and a frame is
//! drawn once the queue of pending events is empty.

use std::io::{self, Stdout};
use std::mem::ManuallyDrop;
use std::time::Duration;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture, Event, EventStream,
    KeyEventKind,
};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use futures_util::future::{BoxFuture, FutureExt, Shared};

use crate::app::{Answer, App, Effect, Msg, update};
use crate::invoke::endpoint::EndpointOptions;
use crate::invoke::{Endpoint, InvokeError};
use crate::theme::Styles;
use crate::{text, ui};

mod server;

/// Owns the terminal while the app runs; dropping it (or a panic) puts the terminal back.
pub struct TerminalGuard {
    /// Never dropped: ratatui's own drop shows the cursor again and, if the terminal is gone,
    /// reports that with `eprintln!`, which panics on a closed stderr. `restore` does its work.
    pub terminal: ManuallyDrop<Terminal<CrosstermBackend<Stdout>>>,
}

impl TerminalGuard {
    pub fn enter() -> io::Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode()?;
        let mut stdout = io::stdout();
        if let Err(e) = execute!(stdout, EnterAlternateScreen, EnableMouseCapture, EnableBracketedPaste) {
            restore();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(stdout)) {
            Ok(terminal) => Ok(TerminalGuard { terminal: ManuallyDrop::new(terminal) }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // Restore first, or the panic message lands garbled on the alternate screen.
        restore();
        previous(info);
    }));
}

/// The next event if one is waiting, without waiting. Polled inside this task, not with
/// `now_or_never`: a no-op waker would leave the stream unable to wake the loop again.
async fn already_queued(events: &mut EventStream) -> Option<io::Result<Event>> {
    tokio::select! {
        biased;
        next = events.next() => next,
        _ = std::future::ready(()) => None,
    }
}

/// Ends the process when the terminal goes away without a SIGHUP reaching us. crossterm's reader
/// then spins on the dead terminal while holding its event lock (crossterm-rs/crossterm#793), so
/// the event loop itself may be stuck: the check runs on a thread of its own. Nothing is lost by
/// exiting: there is no screen left, and every call is recorded as it happens.
fn watch_for_hang_up() {
    std::thread::spawn(|| {
        loop {
            std::thread::sleep(Duration::from_millis(500));
            if terminal_hung_up() {
                restore();
                std::process::exit(0);
            }
        }
    });
}

/// True when the terminal behind stdin has hung up (its window was closed).
#[cfg(unix)]
#[allow(unsafe_code)]
fn terminal_hung_up() -> bool {
    let mut fd = libc::pollfd { fd: libc::STDIN_FILENO, events: 0, revents: 0 };
    // SAFETY: one valid pollfd, a zero timeout; poll only writes `revents`.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & (libc::POLLHUP | libc::POLLNVAL) != 0
}

/// Windows has no hang-up to poll for: closing the console window sends a close event instead
/// (see [`StopSignals`]).
#[cfg(not(unix))]
fn terminal_hung_up() -> bool {
    false
}

/// True for the error a read or write gets once the terminal is gone.
fn terminal_gone(e: &io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(libc::EIO);
    #[cfg(not(unix))]
    return e.kind() == io::ErrorKind::BrokenPipe;
}

fn to_msg(event: Event) -> Option<Msg> {
    match event {
        // Key releases and repeats (kitty protocol) would double every keystroke.
        Event::Key(key) if key.kind == KeyEventKind::Press => Some(Msg::Key(key)),
        Event::Mouse(mouse) => Some(Msg::Mouse(mouse)),
        Event::Paste(text) => Some(Msg::Paste(text)),
        Event::Resize(width, height) => Some(Msg::Resize(width, height)),
        _ => None,
    }
}

/// The server the app talks to, as the user named it; connected after the first frame.
pub struct Server {
    pub options: EndpointOptions,
    pub headers: Vec<(String, String)>,
    /// The built-in demo server, when no server was named.
    pub demo_url: Option<String>,
    /// The server as a saved case file names it (headers as `${ENV}` placeholders).
    pub case_server: serde_json::Map<String, serde_json::Value>,
}

/// Reads the definition files, after the first frame and off the UI thread.
pub type LoadCatalog = Box<dyn FnOnce(&(dyn Fn(crate::catalog::LoadProgress) + Sync)) -> crate::catalog::Loaded + Send>;

/// The connection, made once and awaited by every task that needs it (the first frame does not
/// wait for a server to start).
type Connection = Shared<BoxFuture<'static, Result<Arc<Endpoint>, InvokeError>>>;

impl Server {
    /// Connects, with what the server asks sent to `asks_to` (the person answers in the app).
    fn connect(self, asks_to: mpsc::UnboundedSender<crate::invoke::mcp::asks::PendingAsk>) -> Connection {
        let setup = self.options.client_setup();
        setup.asks.ask_person(asks_to);
        async move { self.options.connect_with(self.headers, self.demo_url.as_deref(), setup).await.map(Arc::new) }
            .boxed()
            .shared()
    }
}

/// The server's tool list, read off the UI thread, as the message that brings it to the app.
async fn list_server_tools(endpoint: Result<Arc<Endpoint>, InvokeError>, label: String) -> Msg {
    let listed = match endpoint {
        Ok(endpoint) => endpoint.list_tools().await,
        Err(e) => Err(e),
    };
    let result = match listed {
        Err(InvokeError::Unauthorized { url, challenge }) => return Msg::ServerWantsToken { url, challenge },
        Ok(text) => {
            let label = label.clone();
            tokio::task::spawn_blocking(move || crate::invoke::endpoint::server_tools(&label, &text))
                .await
                .map_err(|e| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    };
    Msg::ServerTools { label, result }
}

/// Calls in flight, by run id: their tasks (to cancel) and when they started (for the ticks).
struct Calls {
    endpoint: Connection,
    /// The server as status lines and tool sources name it.
    label: String,
    /// How long to wait for an answer: a call's, and a fetch's or a save's silence.
    timeout: Duration,
    history: Option<std::path::PathBuf>,
    running: HashMap<u64, (tokio::task::JoinHandle<()>, Instant)>,
    done: mpsc::Sender<Msg>,
    /// Questions from the server waiting for the person's answer, by id.
    asked: crate::app::asks::Waiting,
    /// Written at the top of a new case file.
    case_server: serde_json::Map<String, serde_json::Value>,
}

impl Calls {
    fn carry_out(&mut self, effect: Effect) {
        match effect {
            Effect::Quit => {}
            Effect::Invoke { id, request, output_schema } => {
                let endpoint = self.endpoint.clone();
                let done = self.done.clone();
                let progress_to = self.done.clone();
                let task = tokio::spawn(async move {
                    let report = move |progress| {
                        // Best effort: a full queue skips a report rather than stalling the call.
                        let _ = progress_to.try_send(Msg::Progress { id, progress });
                    };
                    let result = match endpoint.await {
                        Ok(endpoint) => {
                            let result = endpoint.call_with_progress(&request, report).await;
                            if result.is_err()
                                && let Some(exchange) = endpoint.failed_exchange(&request.call_id).await
                            {
                                let _ = done.send(Msg::FailedExchange { id, exchange: Box::new(exchange) }).await;
                            }
                            result
                        }
                        Err(e) => Err(e),
                    };
                    let result = result
                        .map(|(outcome, exchange)| {
                            let mut answer = Answer::new(outcome, exchange, output_schema.as_ref());
                            answer.at = crate::text::rfc3339_now();
                            Box::new(answer)
                        })
                        .map_err(|e| e.to_string());
                    // The loop may be gone (quitting); then nobody wants the result.
                    let _ = done.send(Msg::InvocationDone { id, result }).await;
                });
                self.running.insert(id, (task, Instant::now()));
            }
            Effect::AnswerAsk { id, reply } => self.asked.answer(id, reply),
            Effect::SetRoots(roots) => {
                let endpoint = self.endpoint.clone();
                tokio::spawn(async move {
                    if let Ok(endpoint) = endpoint.await {
                        endpoint.set_roots(roots).await;
                    }
                });
            }
            Effect::Cancel { id } => {
                if let Some((task, _)) = self.running.remove(&id) {
                    task.abort();
                }
            }
            Effect::Copy(text) => {
                // OSC 52: the terminal puts it on the clipboard, locally or over SSH.
                use std::io::Write;
                let sequence = format!("\x1b]52;c;{}\x07", crate::invoke::envelope::base64(text.as_bytes()));
                let mut out = io::stdout();
                let _ = out.write_all(sequence.as_bytes()).and_then(|()| out.flush());
            }
            Effect::Open(url) => {
                // The system opener directly, no shell: a URL cannot smuggle in a command.
                tokio::task::spawn_blocking(move || webbrowser::open(&url));
            }
            Effect::RetryAfter { id, ms } => {
                let done = self.done.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    let _ = done.send(Msg::RetryDue { id }).await;
                });
            }
            Effect::Authorize { provider, token } => {
                let endpoint = self.endpoint.clone();
                let done = self.done.clone();
                let label = self.label.clone();
                tokio::spawn(async move {
                    let authorized = match endpoint.await {
                        Ok(endpoint) => endpoint.authorize(&provider, &token).await.map(|()| endpoint),
                        Err(e) => Err(e),
                    };
                    server::send_info(authorized.as_ref().ok(), &done).await;
                    let _ = done.send(list_server_tools(authorized, label).await).await;
                });
            }
            Effect::CompileChecker { tool_id, schema } => {
                let done = self.done.clone();
                tokio::spawn(async move {
                    let compiled = tokio::task::spawn_blocking(move || crate::form::validate::Checker::new(&schema));
                    if let Ok(checker) = compiled.await {
                        let _ = done.send(Msg::CheckerCompiled { tool_id, checker }).await;
                    }
                });
            }
            Effect::Lint { tool, options } => {
                let done = self.done.clone();
                tokio::spawn(async move {
                    let tool_id = tool.id.clone();
                    let linted = tokio::task::spawn_blocking(move || crate::lint::lint_tool(&tool, &options));
                    if let Ok(findings) = linted.await {
                        let _ = done.send(Msg::Linted { tool_id, findings }).await;
                    }
                });
            }
            Effect::ListServerTools => {
                let endpoint = self.endpoint.clone();
                let done = self.done.clone();
                let label = self.label.clone();
                tokio::spawn(async move {
                    let endpoint = endpoint.await;
                    let _ = done.send(list_server_tools(endpoint.clone(), label).await).await;
                    server::send_info(endpoint.as_ref().ok(), &done).await;
                    // The MCP revision agreed, for the status line.
                    if let Ok(endpoint) = &endpoint
                        && let Some(version) = endpoint.protocol_version().await
                    {
                        let _ = done.send(Msg::ServerProtocol(version)).await;
                    }
                });
            }
            Effect::Reconnect => {
                tokio::spawn(server::reconnect(self.endpoint.clone(), self.done.clone(), self.label.clone()));
            }
            Effect::SetLogLevel(level) => {
                tokio::spawn(server::set_log_level(self.endpoint.clone(), self.done.clone(), level));
            }
            Effect::DecodeInline { run, item, data, content_type } => {
                let done = self.done.clone();
                tokio::spawn(async move {
                    let result = decode(data, content_type, Vec::new()).await;
                    let _ = done.send(Msg::ItemDecoded { run, item, result }).await;
                });
            }
            Effect::ReadResource { run, item, uri } => {
                let endpoint = self.endpoint.clone();
                let done = self.done.clone();
                tokio::spawn(async move {
                    // The request waits as long as a call does (the endpoint's timeout).
                    let read = match endpoint.await {
                        Ok(endpoint) => endpoint.read_resource(&uri).await.map_err(|e| {
                            // The pane names the server already.
                            let said = e.to_string();
                            said.strip_prefix(&format!("{}: ", endpoint.label())).map_or(said.clone(), str::to_string)
                        }),
                        Err(e) => Err(e.to_string()),
                    };
                    let result = match read {
                        Ok((contents, warnings)) => {
                            let mut notes: Vec<String> = warnings.iter().map(|w| format!("⚠ {w}")).collect();
                            let count = contents.len();
                            match contents.into_iter().next() {
                                None => Err(format!("the server read {} as no contents at all", text::visible(&uri))),
                                Some(first) => {
                                    if count > 1 {
                                        notes
                                            .insert(0, format!("the server sent {count} contents; the first is shown"));
                                    }
                                    if first.uri != uri {
                                        notes.insert(0, format!("read as {}", text::visible(&first.uri)));
                                    }
                                    decode(first.body, first.mime_type, notes).await
                                }
                            }
                        }
                        Err(e) => Err(format!("cannot read {}: {e}", text::visible(&uri))),
                    };
                    let _ = done.send(Msg::ResourceRead { run, item, result }).await;
                });
            }
            Effect::Fetch(url) => {
                let done = self.done.clone();
                let timeout = self.timeout;
                tokio::spawn(async move {
                    let progress_to = done.clone();
                    let result = crate::invoke::artifact::fetch(&url, timeout, move |received, total| {
                        // Progress is best effort: a full queue skips an update, never blocks.
                        let _ = progress_to.try_send(Msg::ArtifactProgress { received, total });
                    })
                    .await;
                    // Decoding a picture is CPU work: on a blocking thread, not the UI's.
                    let result = match result {
                        Ok(mut fetched) => tokio::task::spawn_blocking(move || {
                            fetched.thumbnail = crate::invoke::artifact::picture(&fetched.bytes);
                            fetched
                        })
                        .await
                        .map_err(|e| e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    let _ = done.send(Msg::ArtifactFetched(result.map(Box::new))).await;
                });
            }
            Effect::SaveCase { path, mut case } => {
                let done = self.done.clone();
                let mut server = self.case_server.clone();
                // Token placeholders belong to the file's top, beside the server they are for.
                if let Some(tokens) = case.as_object_mut().and_then(|c| c.remove("tokens")) {
                    server.insert("tokens".into(), tokens);
                }
                tokio::spawn(async move {
                    let appended = tokio::task::spawn_blocking(move || {
                        crate::cases::record::append_case_for(std::path::Path::new(&path), &case, &server)
                            .map(|()| path.clone())
                            // The error names the file: "No such file or directory" alone does not.
                            .map_err(|e| std::io::Error::other(format!("{path}: {e}")))
                    })
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|r| r.map_err(|e| e.to_string()));
                    let _ = done.send(Msg::CaseSaved(appended)).await;
                });
            }
            Effect::Save { path, source, overwrite } => {
                let done = self.done.clone();
                let timeout = self.timeout;
                tokio::spawn(async move {
                    let progress_to = done.clone();
                    let report = move |written, total| {
                        // Best effort: a full queue skips an update, never the save.
                        let _ = progress_to.try_send(Msg::SaveProgress { written, total });
                    };
                    let saved = crate::invoke::save::save(&path, source, overwrite, timeout, report).await;
                    let _ = done.send(Msg::Saved(saved)).await;
                });
            }
            Effect::Record(mut entry) => {
                let Some(path) = self.history.clone() else { return };
                if entry.at.is_empty() {
                    entry.at = crate::text::rfc3339_now();
                }
                // Off the UI thread; a history that cannot be written costs only the history.
                tokio::task::spawn_blocking(move || crate::history::append(&path, &entry));
            }
        }
    }

    fn finished(&mut self, id: u64) {
        self.running.remove(&id);
    }

    fn ticks(&self) -> Vec<Msg> {
        self.running
            .values()
            .map(|(_, started)| Msg::Tick { elapsed_ms: started.elapsed().as_millis() as u64 })
            .collect()
    }
}

/// Inline content decoded (and its picture drawn) on a blocking thread, `notes` before its preview.
async fn decode(
    data: crate::invoke::mcp::content::Inline,
    content_type: Option<String>,
    notes: Vec<String>,
) -> Result<Box<crate::invoke::artifact::Fetched>, String> {
    let decoded = tokio::task::spawn_blocking(move || crate::invoke::artifact::decode_inline(&data, content_type));
    let mut fetched = decoded.await.map_err(|e| e.to_string())??;
    fetched.notes = notes;
    Ok(Box::new(fetched))
}

/// Runs the app until it quits, the input ends, or SIGTERM/SIGHUP arrives. A terminal that goes
/// away mid-frame ends the app quietly: nobody is left to read an error.
pub async fn run(app: App, styles: Styles, server: Server, load: Option<LoadCatalog>) -> io::Result<()> {
    match event_loop(app, styles, server, load).await {
        Err(e) if terminal_hung_up() || terminal_gone(&e) => Ok(()),
        other => other,
    }
}

async fn event_loop(mut app: App, styles: Styles, server: Server, load: Option<LoadCatalog>) -> io::Result<()> {
    // Bounded: a flood of results waits for the loop instead of growing without limit.
    let (done_tx, mut done_rx) = mpsc::channel::<Msg>(64);
    if let Some(load) = load {
        let done = done_tx.clone();
        tokio::spawn(async move {
            let progress = done.clone();
            // A report the loop has no room for is dropped: the next one says more.
            let report = move |p| drop(progress.try_send(Msg::LoadProgress(p)));
            if let Ok(loaded) = tokio::task::spawn_blocking(move || load(&report)).await {
                let msg = Msg::CatalogLoaded { tools: loaded.catalog.into_tools(), diagnostics: loaded.diagnostics };
                let _ = done.send(msg).await;
            }
        });
    }
    let history = crate::history::default_path();
    if let Some(path) = history.clone() {
        let done = done_tx.clone();
        tokio::spawn(async move {
            let read = tokio::task::spawn_blocking(move || crate::history::read_last(&path, 500).unwrap_or_default());
            if let Ok(entries) = read.await {
                let _ = done.send(Msg::HistoryRead(entries)).await;
            }
        });
    }
    let label = server.options.label(server.demo_url.as_deref());
    let names_a_server = server.options.names_a_server();
    let timeout = server.options.answer_timeout();
    let (asks_tx, mut asks_rx) = mpsc::unbounded_channel();
    let mut calls = Calls {
        case_server: server.case_server.clone(),
        endpoint: server.connect(asks_tx),
        label: label.clone(),
        timeout,
        history,
        running: HashMap::new(),
        done: done_tx,
        asked: Default::default(),
    };
    server::forward_events(calls.endpoint.clone(), calls.done.clone());
    let mut ticker = tokio::time::interval(Duration::from_millis(100));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);

    let mut guard = TerminalGuard::enter()?;
    let size = guard.terminal.size()?;
    update(&mut app, Msg::Resize(size.width, size.height));
    for effect in update(&mut app, Msg::ServerNamed { label, lists_tools: names_a_server }) {
        calls.carry_out(effect);
    }
    let mut events = EventStream::new();
    let mut stop = crate::signals::StopSignals::new()?;
    watch_for_hang_up();
    guard.terminal.draw(|frame| ui::render(&app, &styles, frame))?;
    loop {
        let mut messages: Vec<Msg> = Vec::new();
        tokio::select! {
            event = events.next() => {
                let Some(first) = event else { return Ok(()) };
                // Handle everything already queued before drawing, so fast typing never lags.
                let mut pending = vec![first];
                while let Some(next) = already_queued(&mut events).await {
                    pending.push(next);
                }
                for event in pending {
                    messages.extend(to_msg(event?));
                }
            }
            Some(msg) = done_rx.recv() => {
                if let Msg::InvocationDone { id, .. } = &msg {
                    calls.finished(*id);
                }
                messages.push(msg);
            }
            Some(pending) = asks_rx.recv() => messages.push(calls.asked.waiting(pending)),
            _ = ticker.tick(), if !calls.running.is_empty() => messages.extend(calls.ticks()),
            _ = stop.recv() => return Ok(()),
        }
        for msg in messages {
            for effect in update(&mut app, msg) {
                if effect == Effect::Quit {
                    return Ok(());
                }
                calls.carry_out(effect);
            }
        }
        guard.terminal.draw(|frame| ui::render(&app, &styles, frame))?;
    }
}
