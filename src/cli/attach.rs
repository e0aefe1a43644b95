//! `tooldeck attach`: the running proxies listed, or one (or a record, followed as a proxy
//! writes it) opened in the app: its traffic in the traffic pane, live; the tools its server listed in the list; a recorded
//! call put in the form (Enter in the traffic pane) to run again on tooldeck's own connection.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use clap::Args;

use super::exit;
use super::failure::{Failure, finish};
use crate::invoke::endpoint::EndpointOptions;
use crate::proxy::live::{self, Announcement, LiveError};

#[derive(Debug, Args, Clone)]
#[command(after_help = "Examples:\n  \
    tooldeck attach                       (the running proxies)\n  \
    tooldeck attach notes                 (the proxy named notes, live)\n  \
    tooldeck attach s.jsonl --mcp 'node server.js'   (a saved record; calls run on that server)")]
pub struct AttachArgs {
    /// A running proxy's name (with none, they are listed) or a record `proxy --record` wrote.
    #[arg(value_name = "NAME|FILE")]
    pub target: Option<String>,
    /// Colour theme: default, light, high-contrast, or a path to a theme .toml file.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// Where a call runs again: by default the proxy's own server (its command, or URL); a
    /// record names none, so give one here.
    #[command(flatten)]
    pub server: super::ServerArgs,
}

/// `tooldeck attach`: 0 when listed or the app was left, 2 for no such proxy (or another
/// user's), 5 when the proxy does not answer.
pub fn run(args: &AttachArgs) -> ExitCode {
    match &args.target {
        None => finish(open_the_one_or_list(args)),
        Some(target) => finish(open(target, args)),
    }
}

/// With no name, as `tmux attach` does: the one running proxy is opened (in a terminal);
/// several are listed, with how to open one; none, how to start one.
fn open_the_one_or_list(args: &AttachArgs) -> Result<ExitCode, Failure> {
    use std::io::IsTerminal as _;
    let running = live::list().map_err(failure)?;
    let interactive = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    match running.as_slice() {
        [one] if interactive => open(&one.about.name, args),
        _ => list(&running, interactive),
    }
}

/// The running proxies, one a line; in a terminal, with how to open one.
fn list(running: &[live::Running], interactive: bool) -> Result<ExitCode, Failure> {
    let mut out = std::io::stdout().lock();
    if running.is_empty() {
        let _ = writeln!(
            out,
            "no proxy is running: `tooldeck proxy --name NAME -- COMMAND` starts one in front of a server \
             (put it in your client's config in place of COMMAND; `tooldeck servers --wrap NAME` does that for you)"
        );
        return Ok(exit::code(exit::OK));
    }
    if interactive && running.len() > 1 {
        let _ = writeln!(out, "{} proxies are running: `tooldeck attach NAME` opens one", running.len());
    }
    let rows: Vec<[String; 5]> = running
        .iter()
        .map(|r| {
            let about = &r.about;
            let since = crate::text::time::local_date_time(&about.since)
                .unwrap_or_else(|| about.since.get(..19).unwrap_or(&about.since).replace('T', " "));
            [
                crate::text::visible(&about.name).into_owned(),
                about.server_shown(),
                about.pid.to_string(),
                since,
                about.messages.to_string(),
            ]
        })
        .collect();
    let head = ["NAME", "SERVER", "PID", "SINCE", "MESSAGES"].map(str::to_string);
    let widths: Vec<usize> = (0..5)
        .map(|i| std::iter::once(&head).chain(&rows).map(|r| crate::text::width(&r[i])).max().unwrap_or(0))
        .collect();
    for row in std::iter::once(&head).chain(&rows) {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    Ok(exit::code(exit::OK))
}

/// A proxy's or a record's traffic opened in the app.
fn open(target: &str, args: &AttachArgs) -> Result<ExitCode, Failure> {
    let file = Path::new(target);
    let (about, frames, feed) = if file.is_file() {
        // Followed as it grows (a proxy may still be writing it), across its rotations.
        let (frames, tail) = live::RecordTail::open(file).map_err(|e| Failure::usage(e.to_string()))?;
        (None, frames, live::Following::Record(tail))
    } else {
        let (about, frames, feed) = live::open(target).map_err(failure)?;
        (Some(about), frames, live::Following::Proxy(feed))
    };
    let mut shared = args.server.shared_options();
    let mut servers = args.server.options_each();
    match &about {
        // The proxy's own server, named for the proxy in titles and status lines.
        Some(about) if servers.is_empty() => servers.push(proxied_server(about, &shared)),
        // A record that names no server: the record names the session.
        None if servers.is_empty() => shared.name = Some(format!("record {}", crate::text::visible(target))),
        _ => {}
    }
    let label = servers.first().map_or_else(|| shared.label(None), |s| s.label(None));
    let mut tools = match live::recorded_tools(&frames) {
        Some(listed) => crate::invoke::endpoint::server_tools(&label, &listed),
        None => Vec::new(),
    };
    for tool in &mut tools {
        tool.source.session = Some(crate::catalog::SessionId::FIRST);
    }
    let traffic = crate::invoke::mcp::traffic::Traffic::default();
    for frame in &frames {
        traffic.frame(frame);
    }
    let watched = crate::runtime::Watched { traffic, feed: Some(feed) };
    let attached = super::app::Attached { tools, watched };
    Ok(super::app::run_attached(&servers, &shared, args.theme.as_deref(), attached))
}

/// The proxy's server as tooldeck connects to it itself: its command (run in the proxy's
/// folder) or URL, its headers as the proxy's saved cases name them (`${VAR}` placeholders).
fn proxied_server(about: &Announcement, shared: &EndpointOptions) -> EndpointOptions {
    let mut options = shared.clone();
    options.name = Some(format!("proxy {}", about.name));
    let text = |key: &str| about.server.get(key).and_then(serde_json::Value::as_str).map(str::to_string);
    options.mcp = text("mcp");
    options.mcp_url = text("mcp_url").filter(|_| options.mcp.is_none());
    if options.mcp.is_some() && options.cwd.is_none() {
        options.cwd.clone_from(&about.cwd);
    }
    for (name, value) in about.server.get("headers").and_then(serde_json::Value::as_object).into_iter().flatten() {
        if let Some(value) = value.as_str() {
            options.headers.push(format!("{name}: {value}"));
        }
    }
    options
}

/// A live feed's failure as the command says it: no such proxy, another user's, a name
/// refused, are usage errors; one that does not answer is 5.
fn failure(e: LiveError) -> Failure {
    match e {
        LiveError::NoAnswer { .. } => Failure::transport(e.to_string()),
        LiveError::NoSuchProxy { .. } | LiveError::OtherUser { .. } | LiveError::NotAFeed { .. } => {
            Failure::usage(e.to_string())
        }
        _ => Failure::failed(e.to_string()),
    }
}
