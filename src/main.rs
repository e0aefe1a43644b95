use std::process::ExitCode;

use clap::Parser;

// The catalog and the UI allocate many small values; mimalloc is markedly faster at that than
// the system allocator (measured on the load benchmark).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    tooldeck::cli::run(tooldeck::cli::Cli::parse())
}
