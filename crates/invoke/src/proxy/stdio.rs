//! The stdio proxy: the client starts `tooldeck proxy -- COMMAND` in place of `COMMAND`. Three
//! threads move bytes (the client's input to the server, the server's output to the client, its
//! stderr to ours); the main thread waits for the way out: the server exits (its exit code
//! becomes the proxy's), the client goes away (its input ends or fails, or it stops reading), or
//! a signal comes (passed on to the server). Whichever comes first, the server is ended the MCP
//! stdio way: its input closed, a grace to exit by itself, SIGTERM, a second, SIGKILL.

use std::io::{self, Write as _};
use std::process::ChildStdin;
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Duration;

use crate::invoke::mcp::process::{ServerProcess, StdioServer};
use crate::wire::{Side, Tap};

use super::intercept::Conversation;
use super::pump::{Outlet, Seam, StdioDeliver};
use super::{Keep, ProxyError, pump};

/// How long the server's output may still drain after the server exited (what it forked may hold
/// the pipe open; those are ended after this).
const DRAIN: Duration = Duration::from_secs(1);
/// How long a server has to exit by itself once the client is gone or a signal was passed on
/// (its input closed), before SIGTERM and, a second later, SIGKILL: long enough to answer what
/// the client sent last, short enough that a server which ignores its input ending is gone
/// within seconds.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// The exit code when the proxy had to end the server (as a shell gives for SIGTERM).
const ENDED_BY_THE_PROXY: u8 = 128 + 15;

/// What ends the proxy's wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WayOut {
    /// The server exited by itself: its exit code.
    Exited(u8),
    /// The client went away: its input ended or failed, or it stopped reading.
    ClientGone,
    /// SIGINT, SIGTERM or SIGHUP, passed on to the server: the exit code a shell gives for it.
    Signal(u8),
}

/// The server's input: fed by the client's thread, closed by whichever way out comes first.
#[derive(Clone)]
struct ServerInput(Arc<Mutex<Option<ChildStdin>>>);

impl ServerInput {
    fn new(stdin: ChildStdin) -> ServerInput {
        ServerInput(Arc::new(Mutex::new(Some(stdin))))
    }

    /// Closes it, unless a write to it is blocked (a server that does not read): the signals
    /// that follow end that server, which ends the write.
    fn close(&self) {
        let stdin = match self.0.try_lock() {
            Ok(mut held) => held.take(),
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().take(),
            Err(TryLockError::WouldBlock) => None,
        };
        drop(stdin);
    }
}

impl io::Write for ServerInput {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match crate::sync::lock(&self.0).as_mut() {
            Some(stdin) => stdin.write(bytes),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match crate::sync::lock(&self.0).as_mut() {
            Some(stdin) => stdin.flush(),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }
}

/// Runs the proxy in front of `command` (its words) until the server ends; its exit code.
pub fn run(command: &[String], keep: &Keep) -> Result<u8, ProxyError> {
    let super::InFront { line, sinks, warn, holds } = super::in_front_of(command, keep)?;
    // The signals are caught before the server starts: one sent as soon as the server has
    // spoken is passed on, never left to end the proxy by default. Its one worker carries
    // delayed and held messages (the wire's own threads never wait for them).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(ProxyError::Runtime)?;
    let signals = runtime.block_on(async { crate::signals::StopSignals::new().ok() });
    let server = StdioServer::spawn(&line)?;
    let tap = Tap::spawn(sinks, warn);
    let (stdin, stdout, stderr, process) = server.into_std_parts();
    let input = ServerInput::new(stdin);
    let (gone, mut client_gone) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (to_server, to_client) = (Outlet::new(input.clone()), Outlet::new(io::stdout()));
    let interceptor = super::interceptor(keep, holds, tap.handle());
    let conversation = Arc::new(Conversation::default());
    let seam = |on: &Outlet, back: &Outlet| Seam {
        interceptor: Arc::clone(&interceptor),
        conversation: Arc::clone(&conversation),
        deliver: Arc::new(StdioDeliver { on: on.clone(), back: back.clone() }),
        runtime: runtime.handle().clone(),
    };
    let (up_seam, down_seam) = (seam(&to_server, &to_client), seam(&to_client, &to_server));

    let (up, feeding, input_ended) = (tap.handle(), input.clone(), gone.clone());
    spawn("proxy-up", move || {
        pump::pump(io::stdin().lock(), &to_server, Side::Client, &up, Some(&up_seam), || {});
        // The client's input ended (or failed): the server's is closed, as the client closed it.
        feeding.close();
        let _ = input_ended.send(());
    });
    let down = tap.handle();
    let (drained, drained_wait) = std::sync::mpsc::channel::<()>();
    spawn("proxy-down", move || {
        // The client stopped reading: it is gone, whatever its input does.
        pump::pump(stdout, &to_client, Side::Server, &down, Some(&down_seam), move || {
            let _ = gone.send(());
        });
        let _ = drained.send(());
    });
    let (stderr_drained, stderr_drained_wait) = std::sync::mpsc::channel::<()>();
    match stderr {
        // Copied to ours as it comes, and each line kept in the record as the server's stderr.
        Some(stderr) => {
            let told = tap.handle();
            spawn("proxy-stderr", move || {
                super::stderr::relay(stderr, io::stderr(), &told);
                let _ = stderr_drained.send(());
            });
        }
        None => drop(stderr_drained),
    }

    let way_out = runtime.block_on(wait_for_a_way_out(&process, signals, &mut client_gone));
    let (code, exited) = match way_out {
        WayOut::Exited(code) => (code, true),
        WayOut::ClientGone | WayOut::Signal(_) => {
            input.close();
            match runtime.block_on(process.watch_exit(EXIT_GRACE)) {
                Some(status) => (exit_code(status), true),
                None => (if let WayOut::Signal(code) = way_out { code } else { ENDED_BY_THE_PROXY }, false),
            }
        }
    };
    // What the server wrote before it exited reaches the client before the proxy exits. A
    // server still running is sent SIGTERM, then SIGKILL; one that exited has its group's
    // leftovers ended.
    if exited && drained_wait.recv_timeout(DRAIN).is_ok() {
        runtime.block_on(process.end(Duration::ZERO));
    } else {
        runtime.block_on(process.end(Duration::ZERO));
        let _ = drained_wait.recv_timeout(DRAIN);
    }
    let _ = io::stdout().flush();
    // The server's last stderr lines (what it said as it exited) reach the record before it
    // closes.
    let _ = stderr_drained_wait.recv_timeout(DRAIN);
    let stats = tap.finish();
    if stats.dropped > 0 {
        super::warner(keep.name.as_deref())(&format!(
            "{} passed but were not recorded: the record fell behind",
            crate::text::plural(usize::try_from(stats.dropped).unwrap_or(usize::MAX), "message")
        ));
    }
    Ok(code)
}

fn spawn(name: &str, work: impl FnOnce() + Send + 'static) {
    // A thread that cannot start leaves that direction dead: the client sees the server hang up
    // and says so, which is all the proxy could say too.
    let _ = std::thread::Builder::new().name(name.into()).spawn(work);
}

/// Waits for the first way out: the server exiting, the client going away, or SIGINT, SIGTERM
/// or SIGHUP (passed on to the server's group as it comes).
async fn wait_for_a_way_out(
    process: &ServerProcess,
    mut signals: Option<crate::signals::StopSignals>,
    client_gone: &mut tokio::sync::mpsc::UnboundedReceiver<()>,
) -> WayOut {
    let signal = async {
        match signals.as_mut() {
            Some(signals) => signals.recv().await,
            None => std::future::pending().await,
        }
    };
    let exited = async {
        loop {
            if let Some(status) = process.watch_exit(Duration::from_secs(3600)).await {
                return status;
            }
        }
    };
    tokio::select! {
        status = exited => WayOut::Exited(exit_code(status)),
        Some(()) = client_gone.recv() => WayOut::ClientGone,
        code = signal => {
            process.pass_on(i32::from(code) - 128);
            WayOut::Signal(code)
        }
    }
}

/// The code a shell would give for `status`.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from(128 + signal).unwrap_or(1);
        }
    }
    1
}
