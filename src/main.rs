use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    tooldeck::cli::run(tooldeck::cli::Cli::parse())
}
