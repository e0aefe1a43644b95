//! `tooldeck proxy`: tooldeck between a real client and a real server. Bytes pass unchanged
//! between them (stdio and Streamable HTTP); a tap beside them (`crate::wire`) feeds the record
//! (JSON Lines), the saved cases and the live feed `tooldeck attach` reads (`live`). The wire
//! never waits for the tap.

pub mod cases;
pub mod http;
pub mod intercept;
mod junk;
pub mod listen;
pub mod live;
mod pump;
pub mod replay;
mod seen;
pub mod serve;
mod stderr;
pub mod stdio;

use std::path::PathBuf;
use std::sync::Arc;

use intercept::{FaultRule, Faults, Holds, Interceptor};

use crate::wire::{FrameSink, JsonLinesSink, RecordLimits, TapHandle, TrimmedSink, Warn};

/// What the proxy keeps of a session, whatever the transport.
#[derive(Debug, Clone, Default)]
pub struct Keep {
    /// The record: JSON Lines, appended to.
    pub record: Option<PathBuf>,
    /// Each answered `tools/call` as a case, appended to this case file.
    pub save_cases: Option<PathBuf>,
    /// What the proxy's lines call it, and its live feed for `tooldeck attach`.
    pub name: Option<String>,
    /// `--fault` rules: errors, delays, drops and corrupt lines injected between the two ends.
    pub faults: Vec<FaultRule>,
    /// `--fault-seed`: the dice of the rules' chances (else a seed of the moment, said).
    pub fault_seed: Option<u64>,
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
    let holds = Arc::new(Holds::default());
    let mut sinks = sinks(keep, case_server, &warn, &holds);
    sinks.push(Box::new(junk::JunkWarner::new(warner(keep.name.as_deref()))));
    Ok(InFront { line, sinks, warn, holds })
}

/// What [`in_front_of`] gives.
struct InFront {
    line: String,
    sinks: Vec<Box<dyn FrameSink>>,
    warn: Warn,
    /// The breakpoints the live feed's watchers set.
    holds: Arc<Holds>,
}

/// The faults and breakpoints of a run, over the tap that records what they do.
pub fn interceptor(keep: &Keep, holds: Arc<Holds>, tap: TapHandle) -> Arc<Interceptor> {
    let say: intercept::Say = {
        let warn = std::sync::Mutex::new(warner(keep.name.as_deref()));
        Arc::new(move |line: &str| (crate::sync::lock(&warn))(line))
    };
    let chancy = keep.faults.iter().any(|rule| rule.probability > 0.0 && rule.probability < 1.0);
    let seed = keep.fault_seed.unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let seed = (now.as_nanos() as u64) ^ u64::from(std::process::id()).rotate_left(32);
        if chancy {
            say(&format!("faults fire by chance, seeded {seed}: --fault-seed {seed} repeats this run's choices"));
        }
        seed
    });
    Arc::new(Interceptor::new(Faults::new(keep.faults.clone(), seed), holds, tap, say))
}

/// The sinks `keep` asks for; one that cannot be opened is said once and left out: the messages
/// pass all the same. The live feed's watchers set `holds`' breakpoints.
pub fn sinks(
    keep: &Keep,
    case_server: serde_json::Map<String, serde_json::Value>,
    warn: &Warn,
    holds: &Arc<Holds>,
) -> Vec<Box<dyn FrameSink>> {
    let mut sinks: Vec<Box<dyn FrameSink>> = Vec::new();
    let trimmed = |sink: Box<dyn FrameSink>| -> Box<dyn FrameSink> {
        match keep.trim {
            Some(limit) => Box::new(TrimmedSink::new(sink, limit)),
            None => sink,
        }
    };
    // The live feed `tooldeck attach` reads (src/proxy/live/): it shows what the record keeps.
    let controls: Arc<dyn live::Controller> = Arc::clone(holds) as Arc<dyn live::Controller>;
    if let Some((sink, hub)) = live::publish(keep.name.as_deref(), &case_server, warn, Some(controls)) {
        holds.attach(hub);
        sinks.push(trimmed(sink));
    }
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
