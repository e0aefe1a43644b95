//! `tooldeck proxy`: stand between a real client and a real server, pass every message unchanged,
//! and keep what passed (a record, cases).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::exit;
use crate::proxy::Keep;
use crate::proxy::intercept::FaultRule;

#[derive(Debug, Args, Clone)]
#[command(after_help = "Examples:\n  \
    tooldeck proxy --record s.jsonl -- node server.js         (in a client's config, in place of the command)\n  \
    tooldeck proxy --record s.jsonl --max-record-size 100MB --trim-payload 64KB -- node server.js\n  \
    tooldeck proxy --listen 127.0.0.1:8800 --mcp-url https://example.com/mcp --record s.jsonl\n  \
    tooldeck proxy --listen 127.0.0.1:8800 -- node server.js  (a stdio server over Streamable HTTP)\n  \
    tooldeck proxy --fault 'tools/call@echo:error=-32000' --fault 'tools/list:delay=2s:p=0.5' -- node server.js")]
pub struct ProxyArgs {
    /// Append every message to this JSON Lines file (secrets masked, mode 0600); docs/proxy.md
    /// gives its format.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Keep the record within SIZE (100MB, 1GiB): past it FILE becomes FILE.1 (the newest old
    /// one), FILE.1 FILE.2, and so on; each new FILE starts with the server's latest
    /// initialize and tools/list exchanges.
    #[arg(long, value_name = "SIZE", requires = "record", value_parser = size)]
    pub max_record_size: Option<u64>,
    /// How many old files --max-record-size keeps (FILE.1 … FILE.N); older ones are removed.
    #[arg(long, value_name = "N", requires = "max_record_size", default_value_t = crate::wire::DEFAULT_KEEP)]
    pub keep_records: usize,
    /// Cut strings longer than SIZE (64KB) in the record and the live feed, noting the size
    /// they had; the wire carries them whole.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub trim_payload: Option<u64>,
    /// Append each answered tools/call as a test case to this case file (`tooldeck test FILE`).
    #[arg(long, value_name = "FILE")]
    pub save_cases: Option<PathBuf>,
    /// A name for this proxy in its lines on stderr and for `tooldeck attach NAME` (else its
    /// server's script or program).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Serve Streamable HTTP on HOST:PORT, passing each request to --mcp-url, --server or the
    /// stdio COMMAND.
    #[arg(long, value_name = "HOST:PORT")]
    pub listen: Option<String>,
    /// The Streamable HTTP server to pass requests to (with --listen).
    #[arg(long, value_name = "URL", requires = "listen", conflicts_with = "server")]
    pub mcp_url: Option<String>,
    /// A server by its name in a config (`tooldeck servers`), with --listen.
    #[arg(long, value_name = "NAME", requires = "listen")]
    pub server: Option<String>,
    /// Inject a fault between the client and the server: METHOD[@TOOL]:ACTION[:p=P], ACTION one
    /// of error=CODE (answer the request with that JSON-RPC error), delay=DURATION (500ms, 2s:
    /// hold the answer), drop (never answer), corrupt (a line that is not JSON in place of the
    /// answer); P the chance it fires (default 1). Repeatable; docs/proxy.md has the details.
    #[arg(long = "fault", value_name = "RULE", value_parser = <FaultRule as std::str::FromStr>::from_str)]
    pub faults: Vec<FaultRule>,
    /// Seed the chances of --fault rules, so a run repeats the same choices.
    #[arg(long, value_name = "N")]
    pub fault_seed: Option<u64>,
    /// The server's command and its arguments, after --.
    #[arg(last = true, value_name = "COMMAND ARGS")]
    pub command: Vec<String>,
}

/// `tooldeck proxy`: the server's exit code (stdio), 0 when an HTTP proxy is stopped, 2 for a
/// usage error, 5 when the server cannot be started or the address not listened on.
pub fn run(args: ProxyArgs) -> ExitCode {
    let keep = Keep {
        record: args.record.clone(),
        save_cases: args.save_cases.clone(),
        name: args.name.clone(),
        faults: args.faults.clone(),
        fault_seed: args.fault_seed,
        limits: crate::wire::RecordLimits { max_size: args.max_record_size, keep: args.keep_records },
        trim: args.trim_payload.map(|limit| usize::try_from(limit).unwrap_or(usize::MAX)),
    };
    let ran = match &args.listen {
        None if !args.command.is_empty() => crate::proxy::stdio::run(&args.command, &keep),
        None => return usage("name the server's command after --, or --listen HOST:PORT with --mcp-url or --server"),
        Some(listen) => {
            let target = match (&args.mcp_url, &args.server, args.command.is_empty()) {
                (Some(url), None, true) => crate::proxy::http::Target::Url(url.clone()),
                (None, Some(name), true) => crate::proxy::http::Target::Named(name.clone()),
                (None, None, false) => crate::proxy::http::Target::Command(args.command.clone()),
                _ => return usage("--listen passes to one server: --mcp-url URL, --server NAME or -- COMMAND"),
            };
            crate::proxy::http::run(listen, target, &keep)
        }
    };
    match ran {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            report!("tooldeck proxy: {e}");
            exit::code(exit::TRANSPORT)
        }
    }
}

/// A size on the command line (`100MB`, `1GiB`), more than nothing.
fn size(text: &str) -> Result<u64, crate::text::SizeError> {
    match crate::text::parse_bytes(text)? {
        0 => Err(crate::text::SizeError::Nothing),
        bytes => Ok(bytes),
    }
}

fn usage(message: &str) -> ExitCode {
    report!("tooldeck proxy: {message}");
    exit::code(exit::USAGE)
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    #[test]
    fn a_fault_rule_that_does_not_read_is_a_usage_error_naming_it() {
        let parsed = crate::cli::Cli::try_parse_from(["tooldeck", "proxy", "--fault", "tools/call:explode", "--", "x"]);
        let error = parsed.expect_err("refused").to_string();
        assert!(error.contains("tools/call:explode") && error.contains("unknown action"), "{error}");
        let parsed = crate::cli::Cli::try_parse_from([
            "tooldeck",
            "proxy",
            "--fault",
            "tools/call@echo:error=-32000",
            "--fault",
            "ping:drop:p=0.5",
            "--fault-seed",
            "3",
            "--",
            "x",
        ]);
        assert!(parsed.is_ok(), "{parsed:?}");
    }
}
