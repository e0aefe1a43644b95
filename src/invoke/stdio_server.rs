//! An MCP server's process, spoken to over its stdin and stdout. It is started with std, which
//! needs no async runtime, so `tooldeck call` can start it before anything else and set up while
//! the server boots; its pipes go to tokio once a runtime runs. It never outlives its endpoint:
//! it has a moment to exit once its input closes and is killed otherwise, or when dropped.

use std::io;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use super::InvokeError;
use super::mcp::split_command_line;

/// A started server whose pipes have not been handed to a client yet.
pub struct StdioServer {
    /// `mcp:stdio COMMAND`: what the exchange view and errors call it.
    pub label: String,
    process: ServerProcess,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: Option<std::process::ChildStderr>,
}

/// The pipes of a [`StdioServer`] as tokio streams.
pub struct Pipes {
    pub stdin: tokio::process::ChildStdin,
    pub stdout: tokio::process::ChildStdout,
    pub stderr: Option<tokio::process::ChildStderr>,
}

impl StdioServer {
    /// Starts `command_line` (split like a POSIX shell would, without running one) with its
    /// stdin, stdout and stderr piped to us.
    pub fn spawn(command_line: &str) -> Result<StdioServer, InvokeError> {
        let label = format!("mcp:stdio {}", command_line.trim());
        let failed = |reason: String| InvokeError::Connect { url: label.clone(), reason };
        let words = split_command_line(command_line).map_err(failed)?;
        let Some((program, args)) = words.split_first() else {
            return Err(failed("the MCP command is empty".into()));
        };
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| failed(format!("cannot start {program:?}: {e}")))?;
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let process = ServerProcess(Some(child));
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            return Err(failed("its stdin and stdout could not be piped".into()));
        };
        Ok(StdioServer { label, process, stdin, stdout, stderr })
    }

    /// The pipes, registered with the current tokio runtime, and the process.
    pub fn into_pipes(self) -> io::Result<(Pipes, ServerProcess)> {
        let stderr = self.stderr.map(tokio::process::ChildStderr::from_std).transpose()?;
        let pipes = Pipes {
            stdin: tokio::process::ChildStdin::from_std(self.stdin)?,
            stdout: tokio::process::ChildStdout::from_std(self.stdout)?,
            stderr,
        };
        Ok((pipes, self.process))
    }
}

/// The server's process: killed, and reaped, when dropped while it still runs.
pub struct ServerProcess(Option<Child>);

impl ServerProcess {
    pub fn id(&self) -> Option<u32> {
        self.0.as_ref().map(Child::id)
    }

    /// Gives the process `grace` to exit by itself (its input should be closed by now), then kills
    /// it.
    pub async fn wait_or_kill(mut self, grace: Duration) {
        if let Some(child) = self.0.as_mut()
            && exits_within(child, grace).await
        {
            self.0 = None;
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let Some(mut child) = self.0.take() else { return };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = child.kill();
        // A killed process takes a moment to go, and this may run on the runtime's thread: it is
        // reaped on a thread of its own.
        let _ = std::thread::Builder::new().name("reap".into()).spawn(move || child.wait());
    }
}

/// True when `child` exits (and is reaped) within `grace`. On Linux a pidfd says the moment it
/// exits; elsewhere it is polled.
async fn exits_within(child: &mut Child, grace: Duration) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(exited) = pidfd::readable(child.id()) {
        let _ = tokio::time::timeout(grace, exited).await;
        return matches!(child.try_wait(), Ok(Some(_)));
    }
    let deadline = tokio::time::Instant::now() + grace;
    loop {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod pidfd {
    use std::os::fd::{FromRawFd, OwnedFd};

    use tokio::io::unix::AsyncFd;

    /// A future that ends when process `pid` exits (its pidfd turns readable), or `None` when
    /// the kernel has no pidfds.
    pub fn readable(pid: u32) -> Option<impl Future<Output = ()>> {
        let pid = libc::pid_t::try_from(pid).ok()?;
        // SAFETY: pidfd_open(2) takes a pid and flags and returns a new descriptor or -1. The pid
        // is still our unreaped child's, so it cannot name another process.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = i32::try_from(fd).ok().filter(|fd| *fd >= 0)?;
        // SAFETY: the descriptor was just opened and nothing else owns it; the `OwnedFd` keeps it
        // open for as long as the `AsyncFd` that owns it is registered.
        let fd = unsafe { AsyncFd::register(OwnedFd::from_raw_fd(fd)) }.ok()?;
        Some(async move {
            let _ = fd.readable().await;
        })
    }
}
