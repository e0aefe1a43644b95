//! Test servers over stdio without Node or Python: this test binary started again with one
//! test (`--exact`) that serves an rmcp server on its stdin and stdout.

use rmcp::{ServerHandler, ServiceExt};

/// The shell command that starts this binary as the server of test `test` (its path, as
/// `module::name`), with `env` set, which [`serve_if`] in that test checks; `more` adds other
/// variables (`NAME=value ...`).
pub fn command(env: &str, more: &str, test: &str) -> String {
    let exe = std::env::current_exe().expect("the test binary");
    format!("env {env}=1 {more} '{}' --exact {test} --nocapture --test-threads=1", exe.display())
}

/// Called by the test [`command`] names: when `env` is set, serves `server` on stdio until the
/// client leaves, then ends the process; in a normal run, does nothing.
pub async fn serve_if(env: &str, server: impl ServerHandler) {
    if std::env::var_os(env).is_none() {
        return;
    }
    // The harness has written "running 1 test" without its line's end: ending that line keeps
    // the server's first message on a line of its own.
    {
        use std::io::Write;
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(b"\n").and_then(|()| stdout.flush());
    }
    let running = server.serve(rmcp::transport::stdio()).await.expect("serve stdio");
    let _ = running.waiting().await;
    std::process::exit(0);
}
