//! tooldeck: exercise LLM tools by hand. This crate is the command line, the app, the screen
//! and the runtime; `main.rs` only parses the command line and runs it. The catalog, forms,
//! lint and diff live in `tooldeck-core`, talking to servers in `tooldeck-invoke`: their modules
//! are re-exported under their usual names, so `crate::catalog` and `tooldeck::invoke` read the
//! same everywhere.

pub use tooldeck_core::{catalog, config, diff, files, form, json_out, lint, redact, sync, text};
pub use tooldeck_invoke::{apps, cases, fuzz, history, invoke, loopback, proxy, servers, signals, watch, wire};

pub mod app;
pub mod cli;
pub mod runtime;
pub mod theme;
pub mod ui;
