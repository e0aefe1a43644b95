//! The wire as frames: every message that passes between an MCP client and a server, in either
//! direction, as a [`Frame`] (its bytes, the JSON it parses to, the HTTP around it), handed to
//! [`FrameSink`]s (a JSON Lines record, a bounded ring in memory) by a [`Tap`] that never makes
//! the wire wait. The proxy stands here first; nothing in it knows which end tooldeck is, so the
//! app's traffic log can stand on it too.

mod frame;
pub mod jsonrpc;
mod lines;
mod marks;
mod parse;
mod record;
mod record_sink;
mod rotate;
mod sink;
mod tap;
mod trim;

pub use frame::{Frame, HttpDetails, NOT_JSON_RPC, Side, parse_timestamp};
pub use lines::{BlockingLines, Line, LineDecoder};
pub use marks::Marks;
pub use parse::{MAX_DEPTH, TOO_DEEP, Unread, parse_json, parse_record_line};
pub use record::{
    HttpShown, MAX_RECORD_BYTES, RecordError, RecordLine, Recorded, cut_note, read_record, record_line, text_of,
};
pub use record_sink::{JsonLinesSink, NOTE_PAST};
pub use rotate::{DEFAULT_KEEP, RecordLimits, numbered};
pub use sink::{FrameSink, Ring, RingSink};
pub use tap::{Tap, TapHandle, TapStats, Warn};
pub use trim::{TrimmedSink, cut_text, trim_strings, trimmed};
