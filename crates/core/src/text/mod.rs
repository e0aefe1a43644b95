//! Text for people and terminals, by job: [`escape`] makes strings from definitions and servers
//! safe to print (and quotes for a shell), [`wrap`] fits them into cells, [`size`] says byte
//! counts, [`time`] stamps, and [`lines`] turns byte offsets into lines and columns.

pub mod escape;
pub mod lines;
pub mod size;
pub mod time;
pub mod wrap;

pub use escape::{shell_quote, visible};
pub use lines::LineIndex;
pub use size::{SizeError, human_bytes, parse_bytes, plural};
pub use time::rfc3339_now;
pub use wrap::{truncate, width, wrap, wrap_keep, wrap_whole};
