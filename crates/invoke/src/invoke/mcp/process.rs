//! An MCP server's process, spoken to over its stdin and stdout. It is started with std, which
//! needs no async runtime, so `tooldeck call` can start it before anything else and set up while
//! the server boots; its pipes go to tokio once a runtime runs.
//!
//! Neither it nor anything it starts outlives tooldeck: on Unix it leads a process group of its
//! own, and however it ends (closed, dropped when the app quits or a signal arrives) the group is
//! ended the same way: its input closed, a short grace to exit by itself, SIGTERM to the whole
//! group, SIGKILL a second later. [`wait_for_endings`] lets `main` wait for those in flight.

use std::io;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::invoke::InvokeError;
use crate::sync::lock;

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
        StdioServer::spawn_in(command_line, &[], None)
    }

    /// [`StdioServer::spawn`] with `env` added to tooldeck's environment, in `cwd` when given.
    pub fn spawn_in(
        command_line: &str,
        env: &[(String, String)],
        cwd: Option<&std::path::Path>,
    ) -> Result<StdioServer, InvokeError> {
        // The label is what errors, panes and sources show: its secrets masked once, here.
        let label = format!("mcp:stdio {}", crate::redact::command(command_line.trim()));
        let failed = |reason: String| InvokeError::connect(label.clone(), reason);
        let words = split_command_line(command_line).map_err(|e| failed(e.to_string()))?;
        let Some((program, args)) = words.split_first() else {
            return Err(failed("the MCP command is empty".into()));
        };
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        command.envs(env.iter().map(|(k, v)| (k, v)));
        if let Some(cwd) = cwd {
            command.current_dir(cwd);
        }
        #[cfg(unix)]
        {
            // A group of its own: what the server forks is ended with it, and a Ctrl-C meant for
            // tooldeck's terminal is not delivered to it behind tooldeck's back.
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|e| failed(format!("cannot start {program:?}: {e}")))?;
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let process = ServerProcess::new(child);
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            return Err(failed("its stdin and stdout could not be piped".into()));
        };
        Ok(StdioServer { label, process, stdin, stdout, stderr })
    }

    /// The pipes as they are, for a caller that moves bytes on threads of its own (the proxy),
    /// and the process.
    pub fn into_std_parts(self) -> (ChildStdin, ChildStdout, Option<std::process::ChildStderr>, ServerProcess) {
        (self.stdin, self.stdout, self.stderr, self.process)
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

/// How long a server has to exit by itself once its input is closed, before SIGTERM. Short: a
/// server that saves state on SIGTERM (as Node's do) is not harmed by it, and a call is not held
/// up by a runtime that takes its time to exit (Node: ~0.35 s).
pub const EXIT_GRACE: Duration = Duration::from_millis(20);
/// How long after SIGTERM before SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(1);

/// The server's process (and its group): ended as the module says when closed or dropped. The
/// child is shared with [`ServerProcess::watch_exit`], which only asks whether it ended.
pub struct ServerProcess(Arc<Mutex<Option<Child>>>);

impl ServerProcess {
    fn new(child: Child) -> ServerProcess {
        let shared = Arc::new(Mutex::new(Some(child)));
        let mut live = lock_live();
        live.retain(|process| process.strong_count() > 0);
        live.push(Arc::downgrade(&shared));
        ServerProcess(shared)
    }

    pub fn id(&self) -> Option<u32> {
        lock(&self.0).as_ref().map(Child::id)
    }

    /// How the process ended, once it has, waited for up to `within` (`None`: still running, or
    /// ended by us).
    pub fn watch_exit(&self, within: Duration) -> impl Future<Output = Option<std::process::ExitStatus>> + use<> {
        let child = Arc::clone(&self.0);
        async move {
            let deadline = tokio::time::Instant::now() + within;
            // Told by the kernel where it can (a pidfd turns readable at the exit): a proxy whose
            // server exits passes the exit on at once, not at the next poll.
            #[cfg(target_os = "linux")]
            {
                // Opened under the lock that reaping takes: the pid is still this unreaped
                // child's, never a process that took its number since.
                let exited = lock(&child).as_ref().and_then(|child| pidfd::readable(child.id()));
                if let Some(exited) = exited {
                    let _ = tokio::time::timeout_at(deadline, exited).await;
                    return match lock(&child).as_mut().map(Child::try_wait) {
                        Some(Ok(Some(status))) => Some(status),
                        _ => None,
                    };
                }
            }
            loop {
                match lock(&child).as_mut().map(Child::try_wait) {
                    Some(Ok(Some(status))) => return Some(status),
                    Some(Ok(None)) => {}
                    None | Some(Err(_)) => return None,
                }
                if tokio::time::Instant::now() >= deadline {
                    return None;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }

    /// Passes a signal tooldeck received (its number: SIGINT, SIGTERM, SIGHUP) on to the server's
    /// whole group, as if it had been sent to the server (the proxy stands in its place). Where
    /// there are no signals, the server is ended.
    pub fn pass_on(&self, number: i32) {
        if let Some(child) = lock(&self.0).as_mut() {
            group::pass_on(child, number);
        }
    }

    /// Ends the server whose input was just closed: `grace` to exit by itself, then SIGTERM to its
    /// group and SIGKILL a second later. Returns once the process is reaped.
    ///
    /// Cancelled part way (its task dropped, the runtime shut down), the ending is finished on
    /// a thread of its own that [`wait_for_endings`] waits for: the child is never let go of
    /// while it may still run.
    pub async fn end(self, grace: Duration) {
        let Some(child) = lock(&self.0).take() else { return };
        let mut ending = Ending(Some(child));
        let Some(child) = ending.0.as_mut() else { return };
        let mut exited = exits_within(child, grace).await;
        if !exited {
            group::signal(child, group::Signal::Term);
            exited = exits_within(child, TERM_GRACE).await;
            if !exited {
                group::signal(child, group::Signal::Kill);
            }
        }
        let Some(mut child) = ending.0.take() else { return };
        // Reaping and the group's leftovers block: a registered thread does them, so that a
        // cancelled wait here leaves them to finish before tooldeck exits.
        let (done, finished) = tokio::sync::oneshot::channel();
        let finish = move || {
            if exited {
                group::end_leftovers(&child);
            } else {
                let _ = child.wait();
            }
            let _ = done.send(());
        };
        match std::thread::Builder::new().name("end-server".into()).spawn(finish) {
            Ok(thread) => {
                lock_endings().push(thread);
                let _ = finished.await;
            }
            // No thread to be had (as in `end_in_background`): the child was sent SIGKILL or
            // exited already; only its reaping, or its group's leftovers, are lost.
            Err(e) => drop(e),
        }
    }
}

/// A child being ended by [`ServerProcess::end`]: dropped before that is done, it is handed to
/// [`end_in_background`].
struct Ending(Option<Child>);

impl Drop for Ending {
    fn drop(&mut self) {
        if let Some(child) = self.0.take() {
            end_in_background(child);
        }
    }
}

impl Drop for ServerProcess {
    /// Dropped without [`ServerProcess::end`] (the app quit, a signal): the same ending, on a
    /// thread of its own, since this may run on the runtime's thread.
    fn drop(&mut self) {
        if let Some(child) = lock(&self.0).take() {
            end_in_background(child);
        }
    }
}

/// Ends `child` and its group on a thread of its own, which [`wait_for_endings`] waits for.
fn end_in_background(mut child: Child) {
    let ending = std::thread::Builder::new().name("end-server".into()).spawn(move || {
        if !exits_within_blocking(&mut child, EXIT_GRACE) {
            group::signal(&mut child, group::Signal::Term);
            if !exits_within_blocking(&mut child, TERM_GRACE) {
                group::signal(&mut child, group::Signal::Kill);
                let _ = child.wait();
                return;
            }
        }
        group::end_leftovers(&child);
    });
    if let Ok(ending) = ending {
        lock_endings().push(ending);
    }
}

/// Every server process not yet ended, for [`end_all_now`].
static LIVE: Mutex<Vec<std::sync::Weak<Mutex<Option<Child>>>>> = Mutex::new(Vec::new());

fn lock_live() -> std::sync::MutexGuard<'static, Vec<std::sync::Weak<Mutex<Option<Child>>>>> {
    lock(&LIVE)
}

/// Ends every server still running, and waits for those being ended, before a way out that
/// skips the ordinary drops (a panic unwinding out of `main`, a hang-up that left the event
/// loop stuck). Bounded by the graces above.
pub fn end_all_now() {
    let live = std::mem::take(&mut *lock_live());
    for process in live.iter().filter_map(std::sync::Weak::upgrade) {
        if let Some(child) = lock(&process).take() {
            end_in_background(child);
        }
    }
    wait_for_endings();
}

static ENDINGS: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(Vec::new());

fn lock_endings() -> std::sync::MutexGuard<'static, Vec<std::thread::JoinHandle<()>>> {
    lock(&ENDINGS)
}

/// Waits for servers being ended by a drop, so the process does not exit (and leave them running)
/// before they are gone. Bounded by the graces above.
pub fn wait_for_endings() {
    let endings = std::mem::take(&mut *lock_endings());
    for ending in endings {
        let _ = ending.join();
    }
}

fn exits_within_blocking(child: &mut Child, grace: Duration) -> bool {
    let deadline = std::time::Instant::now() + grace;
    loop {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Signals to a server's whole process group (on Unix; elsewhere the process alone is killed).
#[cfg(unix)]
mod group {
    use std::process::Child;

    pub enum Signal {
        Term,
        Kill,
    }

    /// Sends `number` to the group the server leads; true when the group has members.
    #[allow(unsafe_code)]
    fn kill_group(child: &Child, number: libc::c_int) -> bool {
        let Ok(group) = libc::pid_t::try_from(child.id()) else { return false };
        // Why a platform call: std's `Child::kill` reaches only the child itself, not what it forked;
        // a signal to the whole group needs kill(2) with a negative pid (Unix only, hence cfg).
        // SAFETY: kill(2) takes ids and a signal number and touches no memory of ours. A negative
        // pid names the process group the server leads (started with process_group(0), so the
        // group id is its pid). While the leader is our unreaped child, or the group still has
        // members, that id cannot have been given to anyone else.
        unsafe { libc::kill(-group, number) == 0 }
    }

    pub fn pass_on(child: &mut Child, number: i32) {
        kill_group(child, number);
    }

    pub fn signal(child: &mut Child, signal: Signal) {
        kill_group(child, if matches!(signal, Signal::Term) { libc::SIGTERM } else { libc::SIGKILL });
    }

    /// After the leader exited by itself: what it forked may still run in its group. Asked to end,
    /// then killed.
    pub fn end_leftovers(child: &Child) {
        // Signal 0 only asks whether the group has members.
        if !kill_group(child, 0) {
            return;
        }
        kill_group(child, libc::SIGTERM);
        let deadline = std::time::Instant::now() + super::TERM_GRACE;
        while kill_group(child, 0) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        kill_group(child, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
mod group {
    use std::process::Child;

    pub enum Signal {
        Term,
        Kill,
    }

    pub fn pass_on(child: &mut Child, _number: i32) {
        let _ = child.kill();
    }

    /// No process groups and no SIGTERM here: the server itself is killed.
    pub fn signal(child: &mut Child, _signal: Signal) {
        let _ = child.kill();
    }

    pub fn end_leftovers(_child: &Child) {}
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

/// A command line that cannot be split into words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the command {line:?} has an unclosed quote or ends in a lone backslash")]
pub struct SplitError {
    line: String,
}

/// Splits a command line into words the way the platform's own programs would, without
/// expanding anything: POSIX shell rules, or on Windows the rules its C runtime reads a command
/// line by (so `C:\x\y.exe` keeps its backslashes).
pub fn split_command_line(line: &str) -> Result<Vec<String>, SplitError> {
    #[cfg(windows)]
    return Ok(split_windows(line));
    #[cfg(not(windows))]
    split_posix(line)
}

/// POSIX shell rules: quotes, backslashes and `#` comments.
pub fn split_posix(line: &str) -> Result<Vec<String>, SplitError> {
    shlex::split(line).ok_or_else(|| SplitError { line: line.to_string() })
}

/// The Windows rules (those of `CommandLineToArgvW` and the C runtime): blanks separate words,
/// double quotes group them (`""` inside quotes is one quote), a backslash is itself except
/// before a double quote (2n backslashes and a quote: n backslashes, the quote groups; 2n + 1: n
/// backslashes and a literal quote). Single quotes are ordinary characters. An unclosed quote
/// runs to the end, as there.
pub fn split_windows(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut in_word, mut quoted) = (false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let mut backslashes = 1;
                while chars.next_if_eq(&'\\').is_some() {
                    backslashes += 1;
                }
                if chars.peek() == Some(&'"') {
                    word.extend(std::iter::repeat_n('\\', backslashes / 2));
                    if backslashes % 2 == 1 {
                        word.push('"');
                        chars.next();
                    }
                } else {
                    word.extend(std::iter::repeat_n('\\', backslashes));
                }
                in_word = true;
            }
            '"' if quoted && chars.peek() == Some(&'"') => {
                word.push('"');
                chars.next();
            }
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            ' ' | '\t' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod split_tests {
    use super::{split_command_line, split_posix, split_windows};

    #[test]
    fn splits_like_a_shell() {
        let split = |s: &str| split_posix(s).unwrap();
        assert_eq!(split("  node  server.js --port 3 "), ["node", "server.js", "--port", "3"]);
        assert_eq!(split(r#"sh -c 'exit 3'"#), ["sh", "-c", "exit 3"]);
        assert_eq!(split(r#"a "b \"c\" d" e\ f ''"#), ["a", r#"b "c" d"#, "e f", ""]);
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(split("node s.js # a comment"), ["node", "s.js"]);
        for unbalanced in ["a 'b", "a \"b", "a b\\"] {
            let error = split_posix(unbalanced).unwrap_err().to_string();
            assert!(error.contains("has an unclosed quote"), "{error}");
        }
    }

    #[test]
    fn splits_like_windows() {
        assert_eq!(split_windows(r"C:\x\y.exe --root C:\data\"), [r"C:\x\y.exe", "--root", r"C:\data\"]);
        assert_eq!(
            split_windows(r#""C:\Program Files\srv.exe" -m "a b" it's"#),
            [r"C:\Program Files\srv.exe", "-m", "a b", "it's"]
        );
        // Backslashes before a quote: halved, and an odd one makes the quote literal.
        assert_eq!(split_windows(r#"a\\"b c" d\"e"#), [r#"a\b c"#, r#"d"e"#]);
        assert_eq!(split_windows(r#""say ""hi""" """#), [r#"say "hi""#, ""]);
        assert_eq!(split_windows("  \t "), Vec::<String>::new());
        assert_eq!(split_windows(r#"node "s.js"#), ["node", "s.js"], "an unclosed quote runs to the end");
    }

    #[test]
    fn the_platform_picks_its_rules() {
        let expected = if cfg!(windows) { [r"C:\x\y.exe"] } else { [r"C:xy.exe"] };
        assert_eq!(split_command_line(r"C:\x\y.exe").unwrap(), expected);
    }
}
