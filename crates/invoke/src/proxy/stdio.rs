//! The stdio proxy: the client starts `tooldeck proxy -- COMMAND` in place of `COMMAND`. Three
//! threads move bytes (the client's input to the server, the server's output to the client, its
//! stderr to ours); the main thread passes signals on and waits for the server, whose exit code
//! becomes the proxy's.

use std::io::Write as _;
use std::time::Duration;

use crate::invoke::mcp::process::{ServerProcess, StdioServer};
use crate::wire::{From, Tap};

use super::{Keep, ProxyError, pump};

/// How long the server's output may still drain after the server exited (what it forked may hold
/// the pipe open; those are ended after this).
const DRAIN: Duration = Duration::from_secs(1);

/// Runs the proxy in front of `command` (its words) until the server ends; its exit code.
pub fn run(command: &[String], keep: &Keep) -> Result<u8, ProxyError> {
    let super::InFront { line, sinks, warn } = super::in_front_of(command, keep)?;
    // The signals are caught before the server starts: one sent as soon as the server has
    // spoken is passed on, never left to end the proxy by default.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(ProxyError::Runtime)?;
    let signals = runtime.block_on(async { crate::signals::StopSignals::new().ok() });
    let server = StdioServer::spawn(&line)?;
    let tap = Tap::spawn(sinks, warn);
    let (stdin, stdout, stderr, process) = server.into_std_parts();

    let up = tap.handle();
    spawn("proxy-up", move || {
        // The client's input closing is dropped here, which closes the server's.
        pump::pump(std::io::stdin().lock(), stdin, From::Client, &up);
    });
    let down = tap.handle();
    let (drained, drained_wait) = std::sync::mpsc::channel::<()>();
    spawn("proxy-down", move || {
        pump::pump(stdout, std::io::stdout().lock(), From::Server, &down);
        let _ = drained.send(());
    });
    if let Some(mut stderr) = stderr {
        spawn("proxy-stderr", move || {
            let _ = std::io::copy(&mut stderr, &mut std::io::stderr());
        });
    }

    let code = runtime.block_on(wait_passing_signals(&process, signals));
    // What the server wrote before it exited reaches the client before the proxy exits.
    if drained_wait.recv_timeout(DRAIN).is_err() {
        runtime.block_on(process.end(Duration::ZERO));
        let _ = drained_wait.recv_timeout(DRAIN);
    } else {
        runtime.block_on(process.end(Duration::ZERO));
    }
    let _ = std::io::stdout().flush();
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

/// Waits for the server to exit, passing on SIGINT, SIGTERM and SIGHUP as they come; a third
/// signal ends it. The server's exit code, or 128 + the signal that ended it.
async fn wait_passing_signals(process: &ServerProcess, mut signals: Option<crate::signals::StopSignals>) -> u8 {
    let mut passed = 0;
    loop {
        let signal = async {
            match signals.as_mut() {
                Some(signals) => signals.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            status = process.watch_exit(Duration::from_secs(3600)) => {
                if let Some(status) = status {
                    return exit_code(status);
                }
            }
            code = signal => {
                passed += 1;
                if passed >= 3 {
                    process.pass_on(9);
                } else {
                    process.pass_on(i32::from(code) - 128);
                }
            }
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
