//! `tooldeck serve-mock`: the built-in demo server, for other clients; or a proxy's record
//! served back (`--record FILE`), over stdio or Streamable HTTP.

use std::path::PathBuf;
use std::process::ExitCode;

use super::exit;

use clap::Args;

use crate::catalog::{LoadOptions, load_samples};

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one) [default: 8765; with --record, stdio unless given].
    #[arg(long)]
    pub port: Option<u16>,
    /// Answer each request with its answer in this record (`tooldeck proxy --record`), ids
    /// rewritten; a request the record holds no answer to gets a JSON-RPC error.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
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
    if let Some(path) = &args.record {
        return serve_record(&runtime, path, args.port);
    }
    let port = args.port.unwrap_or(8765);
    let catalog = load_samples(&LoadOptions::default()).catalog;
    let served = runtime.block_on(crate::invoke::mock::serve_forever(catalog, port, |server| {
        println!("tooldeck demo server on {} (Ctrl-C stops it)", server.url());
        println!("  GET  {}/tools", server.url());
        println!("  POST {}/tools/call", server.url());
    }));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report!("tooldeck: cannot serve on 127.0.0.1:{port}: {e}");
            exit::code(exit::FAILED)
        }
    }
}

fn serve_record(runtime: &tokio::runtime::Runtime, path: &std::path::Path, port: Option<u16>) -> ExitCode {
    let answers = match crate::proxy::replay::Answers::load(path) {
        Ok(answers) => answers,
        Err(e) => {
            report!("tooldeck serve-mock: {e}");
            return exit::code(exit::USAGE);
        }
    };
    let served = match port {
        None => crate::proxy::serve::stdio(answers),
        Some(port) => runtime.block_on(crate::proxy::serve::http(answers, port, |addr| {
            // On stderr: a client may read stdout.
            report!("tooldeck serve-mock: serving {} on http://{addr}/mcp (Ctrl-C stops it)", path.display());
        })),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report!("tooldeck serve-mock: {e}");
            exit::code(exit::FAILED)
        }
    }
}
