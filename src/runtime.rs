//! The terminal and the event loop: raw mode and the alternate screen are always undone (normal
//! exit, error, panic, SIGTERM), events become `Msg`s, effects are carried out, and a frame is
//! drawn once the queue of pending events is empty.

use std::io::{self, Stdout};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture, Event, EventStream,
    KeyEventKind,
};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::app::{App, Effect, Msg, update};
use crate::theme::Styles;
use crate::ui;

/// Owns the terminal while the app runs; dropping it (or a panic) puts the terminal back.
pub struct TerminalGuard {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
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
            Ok(terminal) => Ok(TerminalGuard { terminal }),
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

/// Runs the app until it quits, the input ends, or SIGTERM/SIGHUP arrives.
pub async fn run(mut app: App, styles: Styles) -> io::Result<()> {
    let mut guard = TerminalGuard::enter()?;
    let size = guard.terminal.size()?;
    update(&mut app, Msg::Resize(size.width, size.height));
    let mut events = EventStream::new();
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    guard.terminal.draw(|frame| ui::render(&app, &styles, frame))?;
    loop {
        let first = tokio::select! {
            event = events.next() => event,
            _ = terminate.recv() => return Ok(()),
            _ = hangup.recv() => return Ok(()),
        };
        let Some(first) = first else { return Ok(()) };
        // Handle everything already queued before drawing, so fast typing never lags behind.
        let mut pending = vec![first];
        // (Polled inside this task, not with `now_or_never`: a no-op waker would leave the
        // stream unable to wake the loop again.)
        loop {
            tokio::select! {
                biased;
                next = events.next() => match next {
                    Some(next) => pending.push(next),
                    None => break,
                },
                _ = std::future::ready(()) => break,
            }
        }
        for event in pending {
            let event = event?;
            let Some(msg) = to_msg(event) else { continue };
            for effect in update(&mut app, msg) {
                match effect {
                    Effect::Quit => return Ok(()),
                }
            }
        }
        guard.terminal.draw(|frame| ui::render(&app, &styles, frame))?;
    }
}
