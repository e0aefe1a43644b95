//! `tooldeck diff`: placeholder.
use std::process::ExitCode;

#[derive(Debug, clap::Args, Clone)]
pub struct DiffArgs {}

pub fn run(_: &DiffArgs) -> ExitCode {
    ExitCode::SUCCESS
}
