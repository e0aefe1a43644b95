//! `tooldeck diff OLD NEW`: tools added and removed, and each changed tool's changes by meaning;
//! exit 1 when one breaks callers (any change with `--fail-on any`), 5 when a server side
//! cannot be reached.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::json;

use super::failure::Failure;
use super::{ServerArgs, Sources, exit, load};
use crate::catalog::{Format, Loaded};
use crate::diff::{CatalogDiff, Class, Side, diff_catalogs};
use crate::text::visible;

#[derive(Debug, Args, Clone)]
pub struct DiffArgs {
    /// OLD then NEW: definition files or folders, or `tooldeck list --json` snapshots. A side
    /// given as a server (--old-mcp ..., --new-endpoint ...) takes no path.
    #[arg(value_name = "OLD NEW")]
    pub paths: Vec<PathBuf>,
    /// Read every file as this format instead of detecting it.
    #[arg(long, value_name = "NAME", value_parser = super::parse_format)]
    pub format: Option<Format>,
    /// The old side is an MCP server started with this command (stdio).
    #[arg(long, value_name = "COMMAND ARGS", conflicts_with_all = ["old_mcp_url", "old_endpoint"])]
    pub old_mcp: Option<String>,
    /// The new side is an MCP server started with this command (stdio).
    #[arg(long, value_name = "COMMAND ARGS", conflicts_with_all = ["new_mcp_url", "new_endpoint"])]
    pub new_mcp: Option<String>,
    /// The old side is an MCP server over Streamable HTTP.
    #[arg(long, value_name = "URL", conflicts_with = "old_endpoint")]
    pub old_mcp_url: Option<String>,
    /// The new side is an MCP server over Streamable HTTP.
    #[arg(long, value_name = "URL", conflicts_with = "new_endpoint")]
    pub new_mcp_url: Option<String>,
    /// The old side is an Open Tool Calling server (or a named endpoint in the config file).
    #[arg(long, value_name = "URL|NAME")]
    pub old_endpoint: Option<String>,
    /// The new side is an Open Tool Calling server (or a named endpoint in the config file).
    #[arg(long, value_name = "URL|NAME")]
    pub new_endpoint: Option<String>,
    /// Pin the MCP protocol revision both servers are asked for (2024-11-05, 2025-03-26,
    /// 2025-06-18, 2025-11-25, 2026-07-28) [default: the newest each server speaks].
    #[arg(long, value_name = "VERSION")]
    pub protocol: Option<String>,
    /// An extra HTTP header for both servers, `Name: value` (repeatable).
    #[arg(long = "header", value_name = "K:V")]
    pub headers: Vec<String>,
    /// Seconds to wait for a server [default: 60].
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// The config file with named endpoints.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Print {"added", "removed", "changed", "summary"} as JSON.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 on a breaking change (the default), or on any change.
    #[arg(long, value_enum, default_value_t = FailOn::Breaking)]
    pub fail_on: FailOn,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Breaking,
    Any,
}

impl DiffArgs {
    fn server(&self, mcp: &Option<String>, mcp_url: &Option<String>, endpoint: &Option<String>) -> ServerArgs {
        ServerArgs {
            endpoint: endpoint.iter().cloned().collect(),
            call_path: None,
            headers: self.headers.clone(),
            timeout: self.timeout,
            mcp: mcp.iter().cloned().collect(),
            mcp_url: mcp_url.iter().cloned().collect(),
            config: self.config.clone(),
            protocol: self.protocol.clone(),
            ..ServerArgs::default()
        }
    }
}

/// One side's tools: its path or its server; `which` names it in messages.
fn side(which: &str, path: Option<PathBuf>, server: &ServerArgs, format: Option<Format>) -> Result<Loaded, Failure> {
    let sources = Sources { paths: path.into_iter().collect(), format };
    let loaded = load(&sources, server).map_err(|failure| {
        let code = failure.code;
        failure.report();
        Failure::new(code, format!("the {which} side could not be read (see above)"))
    })?;
    for diagnostic in loaded.errors() {
        report!("{which}: {}", visible(&diagnostic.to_string()));
    }
    Ok(loaded)
}

pub fn run(args: &DiffArgs) -> ExitCode {
    super::failure::finish(diff(args))
}

fn diff(args: &DiffArgs) -> Result<ExitCode, Failure> {
    let old_server = args.server(&args.old_mcp, &args.old_mcp_url, &args.old_endpoint);
    let new_server = args.server(&args.new_mcp, &args.new_mcp_url, &args.new_endpoint);
    let servers = [old_server.options().names_a_server(), new_server.options().names_a_server()];
    let wanted = servers.iter().filter(|s| !**s).count();
    if args.paths.len() != wanted {
        return Err(Failure::usage(format!(
            "diff takes {wanted} {} (OLD NEW, less each side given as a server), not {}",
            if wanted == 1 { "path" } else { "paths" },
            args.paths.len()
        )));
    }
    // A mistyped path would read as an empty catalog, every tool "removed".
    if let Some(missing) = args.paths.iter().find(|p| p.as_os_str() != "-" && !p.exists()) {
        return Err(Failure::usage(format!("{}: no such file or folder", visible(&missing.display().to_string()))));
    }
    let mut paths = args.paths.iter().cloned();
    let old_path = if servers[0] { None } else { paths.next() };
    let new_path = if servers[1] { None } else { paths.next() };
    let old = side("old", old_path, &old_server, args.format)?;
    let new = side("new", new_path, &new_server, args.format)?;
    let diff = diff_catalogs(&old.catalog, &new.catalog);
    let incomplete = old.has_errors() || new.has_errors();
    let printed = if args.json { print_json(&diff, incomplete) } else { print_text(&diff, incomplete) };
    if let Err(e) = printed
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        return Err(Failure::failed(e.to_string()));
    }
    let failed = match args.fail_on {
        FailOn::Breaking => diff.count(Class::Breaking) > 0,
        FailOn::Any => !diff.is_empty(),
    };
    Ok(if failed || incomplete { exit::code(exit::FAILED) } else { ExitCode::SUCCESS })
}

fn print_text(diff: &CatalogDiff, incomplete: bool) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for name in &diff.removed {
        writeln!(out, "removed: {}  (breaking)", visible(name))?;
    }
    for name in &diff.added {
        writeln!(out, "added: {}", visible(name))?;
    }
    for pair in &diff.renamed {
        writeln!(
            out,
            "renamed {} → {}?  (same parameters, description or name)",
            visible(&pair.from),
            visible(&pair.to)
        )?;
    }
    for tool in &diff.changed {
        writeln!(out, "changed: {}", visible(&tool.name))?;
        for change in &tool.changes {
            let side = match change.side {
                Some(Side::Input) => "input: ",
                Some(Side::Output) => "output: ",
                None => "",
            };
            writeln!(out, "    {:<10}  {side}{}", change.class.name(), visible(&change.message))?;
        }
    }
    let (breaking, compatible, docs) =
        (diff.count(Class::Breaking), diff.count(Class::Compatible), diff.count(Class::Docs));
    if diff.is_empty() {
        writeln!(out, "no changes")?;
    } else {
        writeln!(
            out,
            "{} removed, {} added, {} changed: {breaking} breaking, {compatible} compatible, {docs} documentation",
            diff.removed.len(),
            diff.added.len(),
            diff.changed.len()
        )?;
    }
    if incomplete {
        writeln!(out, "some definitions did not load (see stderr): the comparison is incomplete")?;
    }
    out.flush()
}

fn print_json(diff: &CatalogDiff, incomplete: bool) -> io::Result<()> {
    let report = json!({
        "added": diff.added,
        "removed": diff.removed,
        "changed": diff.changed,
        "renamed": diff.renamed,
        "summary": {
            "breaking": diff.count(Class::Breaking),
            "compatible": diff.count(Class::Compatible),
            "docs": diff.count(Class::Docs),
        },
        "complete": !incomplete,
    });
    let mut out = io::BufWriter::new(io::stdout().lock());
    crate::json_out::write_pretty(&mut out, &report)?;
    writeln!(out)?;
    out.flush()
}
