//! What ends tooldeck from outside: SIGTERM, SIGHUP and SIGINT on Unix (SIGINT reaches the app
//! only from `kill`, as its terminal is in raw mode); Ctrl-C and the console closing on Windows.
//! Whoever waits for them ends as if it had finished: the terminal restored, servers ended.

use std::io;

pub struct StopSignals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hangup: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(windows)]
    close: tokio::signal::windows::CtrlClose,
    #[cfg(windows)]
    shutdown: tokio::signal::windows::CtrlShutdown,
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
}

impl StopSignals {
    /// Listens from now on (inside a tokio runtime).
    pub fn new() -> io::Result<StopSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(StopSignals {
                terminate: signal(SignalKind::terminate())?,
                hangup: signal(SignalKind::hangup())?,
                interrupt: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(windows)]
        {
            use tokio::signal::windows::{ctrl_c, ctrl_close, ctrl_shutdown};
            Ok(StopSignals { close: ctrl_close()?, shutdown: ctrl_shutdown()?, ctrl_c: ctrl_c()? })
        }
        #[cfg(not(any(unix, windows)))]
        Ok(StopSignals {})
    }

    /// Ends when one of the signals arrives, with the exit code a shell gives a process it ended
    /// (128 + the signal's number).
    pub async fn recv(&mut self) -> u8 {
        #[cfg(unix)]
        return tokio::select! {
            _ = self.terminate.recv() => 128 + 15,
            _ = self.hangup.recv() => 128 + 1,
            _ = self.interrupt.recv() => 128 + 2,
        };
        #[cfg(windows)]
        return tokio::select! {
            _ = self.close.recv() => 128 + 1,
            _ = self.shutdown.recv() => 128 + 15,
            _ = self.ctrl_c.recv() => 128 + 2,
        };
        #[cfg(not(any(unix, windows)))]
        std::future::pending::<u8>().await
    }
}
