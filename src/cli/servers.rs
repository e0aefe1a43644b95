//! `tooldeck servers`: the MCP servers in tooldeck's config and in other clients' configs, each
//! with where it was found, so `--server NAME` can pick one.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use crate::redact;
use crate::servers::{Found, FoundServer, Places, Transport};
use crate::text::visible;

#[derive(Debug, Args)]
pub struct ServersArgs {
    /// Print {"servers": [...], "problems": [...]} (secrets masked).
    #[arg(long)]
    pub json: bool,
    /// tooldeck's own config file (default: ~/.config/tooldeck/config.toml).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

pub fn run(args: &ServersArgs) -> io::Result<ExitCode> {
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
            entry["command"] = json!(command);
            entry["args"] = json!(masked_args(args));
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
                headers.iter().map(|(k, v)| (k.clone(), json!(redact::mask(v)))).collect();
            entry["headers"] = Value::Object(headers);
        }
        Transport::Otc { url } => entry["url"] = json!(redact::url(url)),
    }
    entry["notes"] = json!(server.notes);
    entry
}

/// Arguments with the values of secret-looking options masked, one by one (`--token S` is two).
fn masked_args(args: &[String]) -> Vec<String> {
    let mut hide_next = false;
    args.iter()
        .map(|arg| {
            let shown = if hide_next { redact::mask(arg) } else { redact::command(arg) };
            hide_next = arg.starts_with('-') && !arg.contains('=') && redact::is_secret_name(arg);
            shown
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_arguments_are_masked_one_by_one() {
        let args: Vec<String> = ["--token", "S3", "--api-key=S4", "plain"].map(String::from).to_vec();
        assert_eq!(masked_args(&args), ["--token", "•••• (2 chars)", "--api-key=••••", "plain"]);
    }
}
