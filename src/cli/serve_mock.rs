//! `tooldeck serve-mock`: the built-in demo server, for other clients.

use std::process::ExitCode;

use super::exit;

use clap::Args;

use crate::catalog::{LoadOptions, load_samples};

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
}

/// `tooldeck serve-mock`: the demo server in the foreground until Ctrl-C.
pub fn run(args: &ServeArgs) -> ExitCode {
    let runtime = match super::tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            report!("tooldeck: cannot start: {e}");
            return exit::code(exit::FAILED);
        }
    };
    let catalog = load_samples(&LoadOptions::default()).catalog;
    let served = runtime.block_on(crate::invoke::mock::serve_forever(catalog, args.port, |server| {
        println!("tooldeck demo server on {} (Ctrl-C stops it)", server.url());
        println!("  GET  {}/tools", server.url());
        println!("  POST {}/tools/call", server.url());
    }));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report!("tooldeck: cannot serve on 127.0.0.1:{}: {e}", args.port);
            exit::code(exit::FAILED)
        }
    }
}
