//! A terminal that goes away without a SIGHUP reaching us (SIGHUP itself is one of the
//! [`StopSignals`](crate::signals::StopSignals)).

use std::time::Duration;

use tokio::sync::mpsc;

/// How often the terminal is looked at.
const EVERY: Duration = Duration::from_millis(500);
/// How long the event loop has to notice the hang-up and end the app the ordinary way.
const LOOP_GRACE: Duration = Duration::from_secs(2);

/// Watches stdin's terminal on a thread of its own and tells the event loop through `hung_up`
/// when it is gone. crossterm's reader then spins on the dead terminal while holding its event
/// lock (crossterm-rs/crossterm#793), so the loop itself may be stuck: if the process is still
/// here after [`LOOP_GRACE`], this thread ends the MCP servers and the process itself. Nothing
/// else is lost: there is no screen left, and every call is recorded as it happens.
pub(super) fn watch(hung_up: mpsc::Sender<()>) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(EVERY);
            if terminal_hung_up() {
                break;
            }
        }
        super::terminal::restore();
        let _ = hung_up.try_send(());
        std::thread::sleep(LOOP_GRACE);
        crate::invoke::mcp::process::end_all_now();
        std::process::exit(0);
    });
}

/// True when the terminal behind stdin has hung up (its window was closed).
#[cfg(unix)]
#[allow(unsafe_code)]
pub(super) fn terminal_hung_up() -> bool {
    let mut fd = libc::pollfd { fd: libc::STDIN_FILENO, events: 0, revents: 0 };
    // std has no poll(2), and a hang-up shows only as POLLHUP on the descriptor: hence libc.
    // SAFETY: one valid pollfd, a zero timeout; poll only writes `revents`.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & (libc::POLLHUP | libc::POLLNVAL) != 0
}

/// Windows has no hang-up to poll for: closing the console window sends a close event instead
/// (see [`StopSignals`](crate::signals::StopSignals)).
#[cfg(not(unix))]
pub(super) fn terminal_hung_up() -> bool {
    false
}
