//! tooldeck talking to tool servers: MCP over stdio and Streamable HTTP, Open Tool Calling, OAuth
//! sign-in, cases and fuzz runs, the proxy and the MCP Apps host. No terminal here: this crate
//! does not depend on ratatui or crossterm.

// The core's modules under their usual names, so `crate::catalog` reads the same in every crate.
pub use tooldeck_core::{catalog, config, diff, files, form, json_out, lint, record_line, redact, sync, text};

pub mod apps;
pub mod cases;
pub mod fuzz;
pub mod history;
pub mod invoke;
pub mod loopback;
pub mod proxy;
pub mod servers;
pub mod signals;
pub mod tasks;
pub mod watch;
pub mod wire;
