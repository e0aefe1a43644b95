//! tooldeck: exercise LLM tools by hand. The library holds everything; `main.rs` only parses the
//! command line and runs it.

pub mod app;
// call.rs ends the process with libc::_exit, and its tests set an environment variable (unsafe
// since Rust 2024); call.rs is being rewritten elsewhere, so the allowance sits here for now.
#[allow(unsafe_code)]
pub mod call;
pub mod cases;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod form;
pub mod history;
pub mod invoke;
pub mod runtime;
pub mod text;
pub mod theme;
pub mod ui;
