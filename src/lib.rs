//! tooldeck: exercise LLM tools by hand. The library holds everything; `main.rs` only parses the
//! command line and runs it.

pub mod app;
pub mod apps;
pub mod cases;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod diff;
pub mod files;
pub mod form;
pub mod fuzz;
pub mod history;
pub mod invoke;
pub mod json_out;
pub mod lint;
pub mod loopback;
pub mod proxy;
pub mod redact;
pub mod runtime;
pub mod servers;
pub mod signals;
pub mod sync;
pub mod text;
pub mod theme;
pub mod ui;
pub mod watch;
pub mod wire;
