//! The terminal while the app runs: raw mode, the alternate screen, mouse capture and bracketed
//! paste, always undone (normal exit, error, panic, signal, hang-up).

use std::io::{self, Stdout};
use std::mem::ManuallyDrop;

use crossterm::event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

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
        // A panic on the main thread unwinds out of `main`, past the wait for servers being
        // ended: end them here, while the process is still whole. (A task's panic on a worker
        // thread is caught by tokio and the app goes on, so its servers stay.)
        if std::thread::current().name() == Some("main") {
            crate::invoke::mcp::process::end_all_now();
        }
        previous(info);
    }));
}

/// True for the error a read or write gets once the terminal is gone.
pub(super) fn terminal_gone(e: &io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(libc::EIO);
    #[cfg(not(unix))]
    return e.kind() == io::ErrorKind::BrokenPipe;
}
