//! `tooldeck proxy`: tooldeck between a real client and a real server. Bytes pass unchanged
//! between them (stdio and Streamable HTTP); a tap beside them (`crate::wire`) feeds the record
//! (JSON Lines), the saved cases and the live feed `tooldeck attach` reads (`live`). The wire
//! never waits for the tap.

pub mod bridge;
pub mod cases;
pub mod http;
mod junk;
pub mod live;
mod pump;
pub mod replay;
pub mod serve;
mod stderr;
pub mod stdio;

use std::path::PathBuf;

use crate::wire::{FrameSink, JsonLinesSink, RecordLimits, TrimmedSink, Warn};

/// What the proxy keeps of a session, whatever the transport.
#[derive(Debug, Clone, Default)]
pub struct Keep {
    /// The record: JSON Lines, appended to.
    pub record: Option<PathBuf>,
    /// Each answered `tools/call` as a case, appended to this case file.
    pub save_cases: Option<PathBuf>,
    /// What the proxy's lines call it, and its live feed for `tooldeck attach`.
    pub name: Option<String>,
    /// How the record stays in bounds (`--max-record-size`, `--keep-records`).
    pub limits: RecordLimits,
    /// `--trim-payload`: strings longer than this many bytes cut in the record and the live
    /// feed (which show the same), never on the wire.
    pub trim: Option<usize>,
}

/// A proxy that could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error(transparent)]
    Start(#[from] crate::invoke::InvokeError),
    #[error(transparent)]
    Named(#[from] crate::invoke::NamedError),
    #[error("cannot start: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: String, source: std::io::Error },
    #[error("no command after --: what server should the proxy start?")]
    NoCommand,
    #[error(
        "that server is not reached over HTTP: put the proxy in front of its command instead (tooldeck proxy -- COMMAND)"
    )]
    NotHttp,
}

/// The proxy's own lines on stderr, prefixed with its name, `${VAR}` values masked.
pub fn warner(name: Option<&str>) -> Warn {
    let prefix = match name {
        Some(name) => format!("tooldeck proxy {}", crate::text::visible(name)),
        None => "tooldeck proxy".to_string(),
    };
    Box::new(move |line: &str| {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{prefix}: {}", crate::redact::expanded(line));
    })
}

/// What a proxy in front of a stdio `command` (its words) starts from, over stdio or `--listen`:
/// the command as one shell line, the sinks `keep` asks for plus the warning about a server line
/// that is not JSON-RPC, and the proxy's voice on stderr.
fn in_front_of(command: &[String], keep: &Keep) -> Result<InFront, ProxyError> {
    if command.is_empty() {
        return Err(ProxyError::NoCommand);
    }
    let line: Vec<String> = command.iter().map(|word| crate::text::shell_quote(word)).collect();
    let line = line.join(" ");
    let warn = warner(keep.name.as_deref());
    let options = crate::invoke::endpoint::EndpointOptions { mcp: Some(line.clone()), ..Default::default() };
    let case_server = crate::cases::server_keys::case_server(&options, &[]).keys;
    let mut sinks = sinks(keep, case_server, &warn);
    sinks.push(Box::new(junk::JunkWarner::new(warner(keep.name.as_deref()))));
    Ok(InFront { line, sinks, warn })
}

/// What [`in_front_of`] gives.
struct InFront {
    line: String,
    sinks: Vec<Box<dyn FrameSink>>,
    warn: Warn,
}

/// The sinks `keep` asks for; one that cannot be opened is said once and left out: the messages
/// pass all the same.
pub fn sinks(
    keep: &Keep,
    case_server: serde_json::Map<String, serde_json::Value>,
    warn: &Warn,
) -> Vec<Box<dyn FrameSink>> {
    let mut sinks: Vec<Box<dyn FrameSink>> = Vec::new();
    let trimmed = |sink: Box<dyn FrameSink>| -> Box<dyn FrameSink> {
        match keep.trim {
            Some(limit) => Box::new(TrimmedSink::new(sink, limit)),
            None => sink,
        }
    };
    // The live feed `tooldeck attach` reads (src/proxy/live/): it shows what the record keeps.
    sinks.extend(live::publish(keep.name.as_deref(), &case_server, warn).map(trimmed));
    if let Some(path) = &keep.record {
        match JsonLinesSink::open_within(path, keep.limits, Some(warner(keep.name.as_deref()))) {
            Ok(sink) => sinks.push(trimmed(Box::new(sink))),
            Err(e) => {
                warn(&format!("cannot write the record {} ({e}); messages still pass, unrecorded", path.display()))
            }
        }
    }
    if let Some(path) = &keep.save_cases {
        sinks.push(Box::new(cases::CaseSink::new(path.clone(), case_server, warner(keep.name.as_deref()))));
    }
    sinks
}
