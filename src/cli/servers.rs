//! `tooldeck servers`: the MCP servers in tooldeck's config and in other clients' configs, each
//! with where it was found, so `--server NAME` can pick one.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use crate::redact;
use crate::servers::{Client, Found, FoundServer, Places, Transport};
use crate::text::visible;

#[derive(Debug, Args)]
pub struct ServersArgs {
    /// Print {"servers": [...], "problems": [...]} (secrets masked).
    #[arg(long)]
    pub json: bool,
    /// tooldeck's own config file (default: ~/.config/tooldeck/config.toml).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Rewrite a client's config entry to run the server through `tooldeck proxy --record`
    /// (a backup beside the config; --unwrap undoes it).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["unwrap", "json"])]
    pub wrap: Option<String>,
    /// Put back the entry --wrap rewrote, as it was.
    #[arg(long, value_name = "NAME", conflicts_with = "json")]
    pub unwrap: Option<String>,
    /// Which client's entry to wrap or unwrap when several configs name the server
    /// (claude-desktop, claude-code, cursor, vscode, windsurf, gemini, codex).
    #[arg(long, value_name = "CLIENT")]
    pub client: Option<String>,
}

pub fn run(args: &ServersArgs) -> io::Result<ExitCode> {
    if args.wrap.is_some() || args.unwrap.is_some() {
        return Ok(wrap_or_unwrap(args));
    }
    let found = crate::servers::discover(&Places::here(args.config.as_deref()));
    let mut out = io::BufWriter::new(io::stdout().lock());
    if args.json {
        crate::json_out::write_pretty(&mut out, &as_json(&found))?;
        writeln!(out)?;
    } else {
        write_table(&mut out, &found)?;
        for problem in &found.problems {
            report!("tooldeck: {}", visible(&problem.to_string()));
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `--wrap NAME` or `--unwrap NAME`: what changed, on stdout; why not, on stderr.
fn wrap_or_unwrap(args: &ServersArgs) -> ExitCode {
    let client = match args.client.as_deref().map(|name| (name, Client::from_name(name))) {
        None => None,
        Some((_, Some(client))) => Some(client),
        Some((name, None)) => {
            report!(
                "tooldeck servers: no client is called \"{}\" (claude-desktop, claude-code, cursor, vscode, windsurf, gemini, codex)",
                visible(name)
            );
            return super::exit::code(super::exit::USAGE);
        }
    };
    let places = Places::here(args.config.as_deref());
    let done = match (&args.wrap, &args.unwrap) {
        (Some(name), _) => crate::servers::wrap::wrap(&places, name, client),
        (None, Some(name)) => crate::servers::wrap::unwrap(&places, name, client),
        (None, None) => return super::exit::code(super::exit::USAGE),
    };
    match done {
        Ok(done) => {
            let what = match &done.record {
                Some(record) => format!("wrapped: it runs through tooldeck proxy, recording to {}", record.display()),
                None => "unwrapped: its entry is as it was before --wrap".to_string(),
            };
            println!(
                "{} in {} ({}): {what}",
                visible(&done.name),
                done.client.title(),
                visible(&done.path.display().to_string())
            );
            println!("the file as it was: {}", visible(&done.backup.display().to_string()));
            println!("restart {} (or reload its MCP servers) for it to take effect", done.client.title());
            super::exit::code(super::exit::OK)
        }
        Err(e) => {
            report!("tooldeck servers: {}", visible(&e.to_string()));
            super::exit::code(super::exit::USAGE)
        }
    }
}

fn write_table(out: &mut impl Write, found: &Found) -> io::Result<()> {
    if found.servers.is_empty() {
        return writeln!(
            out,
            "no servers found (looked in tooldeck's config and Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI and Codex configs)"
        );
    }
    let rows: Vec<[String; 4]> = found
        .servers
        .iter()
        .map(|s| {
            [
                visible(&s.name).into_owned(),
                s.client.name().to_string(),
                s.transport.kind().to_string(),
                visible(&s.transport.shown()).into_owned(),
            ]
        })
        .collect();
    let mut widths = [4, 6, 9, 0];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(crate::text::width(cell));
        }
    }
    let pad =
        |text: &str, width: usize| format!("{text}{}", " ".repeat(width.saturating_sub(crate::text::width(text))));
    writeln!(out, "{}  {}  {}  SERVER", pad("NAME", widths[0]), pad("CLIENT", widths[1]), pad("TRANSPORT", widths[2]))?;
    for (row, server) in rows.iter().zip(&found.servers) {
        writeln!(
            out,
            "{}  {}  {}  {}",
            pad(&row[0], widths[0]),
            pad(&row[1], widths[1]),
            pad(&row[2], widths[2]),
            row[3]
        )?;
        writeln!(out, "    in {}", visible(&server.location()))?;
        for note in &server.notes {
            writeln!(out, "    ! {}", visible(note))?;
        }
    }
    Ok(())
}

fn as_json(found: &Found) -> Value {
    let problems: Vec<Value> = found
        .problems
        .iter()
        .map(|p| json!({"path": p.path.display().to_string(), "line": p.line, "message": p.message}))
        .collect();
    json!({"servers": found.servers.iter().map(server_json).collect::<Vec<_>>(), "problems": problems})
}

fn server_json(server: &FoundServer) -> Value {
    let mut entry = json!({
        "name": server.name,
        "qualified_name": server.qualified_name(),
        "client": server.client.name(),
        "path": server.path.display().to_string(),
        "line": server.line,
        "transport": server.transport.kind(),
    });
    if let Some(scope) = &server.scope {
        entry["scope"] = json!(scope);
    }
    match &server.transport {
        Transport::Stdio { command, args, env, cwd } => {
            entry["wrapped"] = json!(crate::servers::wrap::is_wrapped_command(command, args));
            entry["command"] = json!(command);
            entry["args"] = json!(redact::args(args));
            let env: serde_json::Map<String, Value> =
                env.iter().map(|(k, v)| (k.clone(), json!(redact::header_value(k, v)))).collect();
            entry["env"] = Value::Object(env);
            if let Some(cwd) = cwd {
                entry["cwd"] = json!(cwd);
            }
        }
        Transport::Http { url, headers } => {
            entry["url"] = json!(redact::url(url));
            // Header values in a config file are secrets whatever their names.
            let headers: serde_json::Map<String, Value> =
                headers.keys().map(|k| (k.clone(), json!(redact::MASK))).collect();
            entry["headers"] = Value::Object(headers);
        }
        Transport::Otc { url } => entry["url"] = json!(redact::url(url)),
    }
    entry["notes"] = json!(server.notes);
    entry
}
