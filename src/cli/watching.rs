//! `--watch PATH` for the headless commands (`list`, `call`, `test`): run the work, wait for a
//! change under the paths, run it again, until a stop signal (Ctrl-C). Each run starts the stdio
//! server anew (or connects again to `--mcp-url`), and ends it before the wait, so nothing runs
//! between changes and a server that failed to start is simply tried again on the next change.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use super::exit;
use super::failure::Failure;
use crate::signals::StopSignals;
use crate::watch::{Change, Watch};

/// The paths `--watch` takes, shared by the commands that rerun.
#[derive(Debug, clap::Args, Clone, Default)]
pub struct WatchArgs {
    /// Run again after each change to this file or folder (repeatable; folders recursively,
    /// skipping .git, node_modules, target, __pycache__ and dist unless named), restarting the
    /// stdio server or reconnecting to --mcp-url first; until Ctrl-C.
    #[arg(long = "watch", value_name = "PATH")]
    pub targets: Vec<PathBuf>,
}

/// Waits between runs: for a change under the watched paths, or a stop signal.
pub(super) struct Rerun {
    // Only waits run on it; each run has its own runtime, as without --watch.
    runtime: tokio::runtime::Runtime,
    // Listening from the start to the end: a signal that arrives during a run is still here
    // when the wait begins (tokio tells every listener).
    stop: StopSignals,
    watch: Watch,
    runs: usize,
}

impl Rerun {
    pub(super) fn start(paths: &[PathBuf]) -> Result<Rerun, Failure> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::transport(format!("cannot start: {e}")))?;
        let stop = {
            let _inside = runtime.enter();
            StopSignals::new().map_err(|e| Failure::transport(format!("cannot listen for signals: {e}")))?
        };
        let watch = Watch::start(paths).map_err(|e| Failure::usage(e.to_string()))?;
        Ok(Rerun { runtime, stop, watch, runs: 1 })
    }

    /// The next change, or the exit code of the signal that came first.
    pub(super) fn wait(&mut self) -> Result<Change, u8> {
        let (stop, watch) = (&mut self.stop, &mut self.watch);
        let next = self.runtime.block_on(async {
            tokio::select! {
                code = stop.recv() => Err(code),
                change = watch.changed() => change.ok_or(exit::FAILED),
            }
        });
        if next.is_ok() {
            self.runs += 1;
        }
        next
    }

    /// The line that opens a run after a change: which files, and the run's number.
    pub(super) fn header(&self, change: &Change) -> String {
        format!("── {} changed · run {} ──", change.summary(), self.runs)
    }
}

/// True for an exit code a stop signal gave (128 + its number): the run was ended from outside.
pub(super) fn stopped(code: u8) -> bool {
    code > 128
}

/// Runs `once` now and after each change, until a stop signal; `once`'s failures are said and
/// waited past. The exit code is the signal's.
pub(super) fn rerun(paths: &[PathBuf], mut once: impl FnMut() -> Result<u8, Failure>) -> ExitCode {
    let mut rerun = match Rerun::start(paths) {
        Ok(rerun) => rerun,
        Err(failure) => return failure.report(),
    };
    loop {
        match once() {
            Ok(code) if stopped(code) => return exit::code(code),
            Ok(_) => {}
            Err(failure) => {
                let _ = failure.report();
            }
        }
        match rerun.wait() {
            Ok(change) => {
                let _ = writeln!(std::io::stderr(), "{}", rerun.header(&change));
            }
            Err(code) => return exit::code(code),
        }
    }
}
