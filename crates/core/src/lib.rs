//! The core of tooldeck: tool definitions in every common format read into one catalog, forms
//! built from their schemas, lint and diff. No async runtime and no terminal here: the compiler
//! keeps them out, since this crate does not depend on tokio, ratatui or crossterm.

pub mod call_match;
pub mod catalog;
pub mod config;
pub mod diff;
pub mod files;
pub mod form;
pub mod json_out;
pub mod lint;
pub mod record_line;
pub mod redact;
pub mod sync;
pub mod text;
