//! The event loop: terminal events, answers from effects, the server's questions, ticks and the
//! signals that end tooldeck become `Msg`s for `update`; a frame is drawn once the queue of
//! pending events is empty.

use std::io;
use std::time::Duration;

use crossterm::event::{Event, EventStream, KeyEventKind};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::effects::{Background, Effects};
use super::supervisor::Supervisor;
use super::terminal::{TerminalGuard, terminal_gone};
use super::{LoadCatalog, ServerSpecs, hang_up, sessions};
use crate::app::{App, CallMsg, Effect, InputMsg, LoadMsg, Msg, update};
use crate::theme::Styles;
use crate::ui;

/// Runs the app until it quits, the input ends, the terminal hangs up, or SIGTERM/SIGHUP/SIGINT
/// arrives; every one of those returns here, so the servers are ended by the drops that follow.
/// A terminal that goes away mid-frame ends the app quietly: nobody is left to read an error.
pub async fn run(app: App, styles: Styles, servers: ServerSpecs, load: Option<LoadCatalog>) -> io::Result<()> {
    match event_loop(app, styles, servers, load).await {
        Err(e) if hang_up::terminal_hung_up() || terminal_gone(&e) => Ok(()),
        other => other,
    }
}

async fn event_loop(mut app: App, styles: Styles, servers: ServerSpecs, load: Option<LoadCatalog>) -> io::Result<()> {
    // Bounded: a flood of results waits for the loop instead of growing without limit.
    let (done_tx, mut done_rx) = mpsc::channel::<Msg>(64);
    // Every task from here on runs under it; dropping `effects` on the way out cancels them all.
    let supervisor = Supervisor::default();
    if let Some(load) = load {
        load_in_background(load, &supervisor, done_tx.clone());
    }
    let history = crate::history::default_path();
    if let Some(path) = history.clone() {
        read_history_in_background(path, &supervisor, done_tx.clone());
    }
    let (asks_tx, mut asks_rx) = mpsc::unbounded_channel();
    if let Some(watch) = servers.watch {
        watch_in_background(watch, &supervisor, done_tx.clone());
    }
    let mut sessions = sessions::Connections::new(supervisor.clone(), asks_tx, servers.shared);
    let mut first_messages = Vec::new();
    for server in servers.each {
        let timeout = server.options.answer_timeout();
        first_messages.push((sessions.add(server, &done_tx), timeout));
    }
    let Some((_, timeout)) = first_messages.first() else { return Ok(()) };
    let mut effects = Effects {
        background: Background { supervisor, done: done_tx, timeout: *timeout },
        sessions,
        calls: Default::default(),
        history: super::history::HistoryWriter::new(history),
        fuzz: Default::default(),
        eval: Default::default(),
        app_host: super::apps::AppHosting::new(super::app_style::host_style(&styles)),
        completion: Default::default(),
        asked: Default::default(),
    };
    let mut ticker = tokio::time::interval(Duration::from_millis(100));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut clock = StatusClock::new();

    let mut guard = TerminalGuard::enter()?;
    let size = guard.terminal.size()?;
    update(&mut app, Msg::Input(InputMsg::Resize(size.width, size.height)));
    for (named, _) in first_messages {
        for effect in update(&mut app, named) {
            effects.carry_out(effect);
        }
    }
    let mut events = EventStream::new();
    let mut stop = crate::signals::StopSignals::new()?;
    let (hung_up_tx, mut hung_up) = mpsc::channel(1);
    hang_up::watch(hung_up_tx);
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
                let inner = match &msg {
                    Msg::Session { msg, .. } => msg.as_ref(),
                    other => other,
                };
                if let Msg::Call(CallMsg::Done { id, .. }) = inner {
                    effects.calls.finished(*id);
                }
                messages.push(msg);
            }
            Some(pending) = asks_rx.recv() => messages.push(effects.asked.waiting(pending)),
            _ = ticker.tick(), if !effects.calls.is_empty() => messages.extend(effects.calls.ticks()),
            _ = clock.interval.tick(), if app.wants_clock() => messages.push(clock.now()),
            _ = stop.recv() => return Ok(()),
            _ = hung_up.recv() => return Ok(()),
        }
        for msg in messages {
            for effect in update(&mut app, msg) {
                if effect == Effect::Quit {
                    return Ok(());
                }
                effects.carry_out(effect);
            }
        }
        guard.terminal.draw(|frame| ui::render(&app, &styles, frame))?;
    }
}

/// The clock the status line's message ages by (the app reads none): slower than the call
/// ticker, and polled only while there is a message, so an idle screen is not redrawn.
struct StatusClock {
    started: std::time::Instant,
    interval: tokio::time::Interval,
}

impl StatusClock {
    fn new() -> StatusClock {
        let mut interval = tokio::time::interval(Duration::from_millis(500));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        StatusClock { started: std::time::Instant::now(), interval }
    }

    fn now(&self) -> Msg {
        Msg::Input(InputMsg::Clock { now_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX) })
    }
}

/// Reads the definition files off the UI thread, reporting progress as it goes.
fn load_in_background(load: LoadCatalog, supervisor: &Supervisor, done: mpsc::Sender<Msg>) {
    supervisor.spawn(supervisor.root(), async move {
        let progress = done.clone();
        // A report the loop has no room for is dropped: the next one says more.
        let report = move |p| drop(progress.try_send(Msg::Load(LoadMsg::Progress(p))));
        if let Ok(loaded) = tokio::task::spawn_blocking(move || load(&report)).await {
            let msg =
                Msg::Load(LoadMsg::Catalog { tools: loaded.catalog.into_tools(), diagnostics: loaded.diagnostics });
            let _ = done.send(msg).await;
        }
    });
}

/// `--watch`: each change under the watched paths (debounced into one) reaches the app, which
/// restarts every server.
fn watch_in_background(mut watch: crate::watch::Watch, supervisor: &Supervisor, done: mpsc::Sender<Msg>) {
    supervisor.spawn(supervisor.root(), async move {
        while let Some(change) = watch.changed().await {
            let msg = Msg::FilesChanged { summary: change.summary(), at: crate::text::time::time_of_day() };
            if done.send(msg).await.is_err() {
                return;
            }
        }
    });
}

/// Reads the last past calls off the UI thread.
fn read_history_in_background(path: std::path::PathBuf, supervisor: &Supervisor, done: mpsc::Sender<Msg>) {
    supervisor.spawn(supervisor.root(), async move {
        let read = tokio::task::spawn_blocking(move || crate::history::read_last(&path, 500).unwrap_or_default());
        if let Ok(entries) = read.await {
            let _ = done.send(Msg::Load(LoadMsg::History(entries))).await;
        }
    });
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

fn to_msg(event: Event) -> Option<Msg> {
    match event {
        // Key releases and repeats (kitty protocol) would double every keystroke.
        Event::Key(key) if key.kind == KeyEventKind::Press => Some(Msg::Input(InputMsg::Key(key))),
        Event::Mouse(mouse) => Some(Msg::Input(InputMsg::Mouse(mouse))),
        Event::Paste(text) => Some(Msg::Input(InputMsg::Paste(text))),
        Event::Resize(width, height) => Some(Msg::Input(InputMsg::Resize(width, height))),
        _ => None,
    }
}
