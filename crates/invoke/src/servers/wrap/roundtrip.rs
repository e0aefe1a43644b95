//! `--wrap` then `--unwrap` gives back the file byte for byte, for every config format wrap
//! supports: JSON clients' `mcpServers` (Claude Code's per-project tables too), VS Code's
//! `servers` and Codex's TOML tables, written with LF or CRLF line ends, with or without a final
//! newline, indented by spaces or tabs, with a byte order mark or not (TOML: JSON has none).
//! Every server of a file is wrapped in turn, the wrapped file still reads, and unwrapping them
//! in another order gives the first file back.

use proptest::prelude::*;
use proptest::test_runner::Config;

use super::{TextError, Wrapped, codex, json};
use crate::catalog::document::Document;

/// How a generated config is written.
#[derive(Debug, Clone)]
struct Style {
    eol: &'static str,
    indent: &'static str,
    final_newline: bool,
    bom: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    McpServers,
    VsCode,
    ClaudeCodeProject,
    Codex,
}

#[derive(Debug, Clone)]
struct Server {
    name: String,
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

fn style() -> impl Strategy<Value = Style> {
    (
        prop_oneof![Just("\n"), Just("\r\n")],
        prop_oneof![Just("  "), Just("    "), Just("\t")],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(eol, indent, final_newline, bom)| Style { eol, indent, final_newline, bom })
}

fn servers() -> impl Strategy<Value = Vec<Server>> {
    // Values with quotes, backslashes, braces, `#|`, tabs and non-ASCII: what must survive.
    let value = "[a-zA-Z0-9 ./:{}\\[\\]\"'\\\\#|\t\u{e9}\u{4e2d}-]{0,12}";
    let server = (
        "[a-z][a-z0-9_-]{0,8}",
        value,
        prop::collection::vec(value, 0..4),
        prop::collection::vec(("[A-Z][A-Z_]{0,6}", value), 0..3),
    )
        .prop_map(|(name, command, args, env)| Server { name, command, args, env });
    prop::collection::vec(server, 1..4).prop_map(|mut servers| {
        let mut seen = std::collections::HashSet::new();
        servers.retain(|s| seen.insert(s.name.clone()));
        for server in &mut servers {
            let mut keys = std::collections::HashSet::new();
            server.env.retain(|(k, _)| keys.insert(k.clone()));
        }
        servers
    })
}

fn quoted(text: &str) -> String {
    // A JSON string is a TOML basic string too (the same escapes, `\uXXXX` included).
    serde_json::to_string(text).unwrap()
}

/// The lines of a JSON config: the servers' table under `keys`, nested one indent a level.
fn json_text(servers: &[Server], keys: &[&str], style: &Style) -> String {
    let ind = |level: usize| style.indent.repeat(level);
    let mut lines = vec!["{".to_string()];
    for (level, key) in keys.iter().enumerate() {
        lines.push(format!("{}{}: {{ // {key}", ind(level + 1), quoted(key)));
    }
    let depth = keys.len() + 1;
    for (i, server) in servers.iter().enumerate() {
        lines.push(format!("{}{}: {{", ind(depth), quoted(&server.name)));
        let args: Vec<String> = server.args.iter().map(|a| quoted(a)).collect();
        lines.push(format!("{}\"command\": {},", ind(depth + 1), quoted(&server.command)));
        let env: Vec<String> = server.env.iter().map(|(k, v)| format!("{}: {}", quoted(k), quoted(v))).collect();
        lines.push(format!("{}\"env\": {{{}}},", ind(depth + 1), env.join(", ")));
        lines.push(format!("{}\"args\": [{}]", ind(depth + 1), args.join(", ")));
        lines.push(format!("{}}}{}", ind(depth), if i + 1 < servers.len() { "," } else { "" }));
    }
    for level in (0..keys.len()).rev() {
        lines.push(format!("{}}}", ind(level + 1)));
    }
    lines.push("}".to_string());
    finish(lines, style)
}

fn toml_text(servers: &[Server], style: &Style) -> String {
    let mut lines = vec!["# Codex".to_string(), "model = \"o3\"".to_string(), String::new()];
    for server in servers {
        lines.push(format!("[mcp_servers.{}] # {}", server.name, server.name));
        lines.push(format!("{}command = {}", style.indent, quoted(&server.command)));
        let args: Vec<String> = server.args.iter().map(|a| quoted(a)).collect();
        lines.push(format!("{}args = [{}]", style.indent, args.join(", ")));
        if !server.env.is_empty() {
            lines.push(String::new());
            lines.push(format!("{}[mcp_servers.{}.env]", style.indent, server.name));
            lines.extend(server.env.iter().map(|(k, v)| format!("{}{} = {}", style.indent, k, quoted(v))));
        }
        lines.push(String::new());
    }
    // The last table ends the file, with or without its newline.
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let mut text = finish(lines, style);
    if style.bom {
        text.insert(0, '\u{feff}');
    }
    text
}

fn finish(lines: Vec<String>, style: &Style) -> String {
    let mut text = lines.join(style.eol);
    if style.final_newline {
        text.push_str(style.eol);
    }
    text
}

/// The keys from the top to a server's entry, per JSON format.
fn path_of(format: Format, name: &str) -> Vec<String> {
    let keys: &[&str] = match format {
        Format::McpServers => &["mcpServers"],
        Format::VsCode => &["servers"],
        Format::ClaudeCodeProject => &["projects", "/work/app", "mcpServers"],
        Format::Codex => &[],
    };
    keys.iter().map(|k| k.to_string()).chain([name.to_string()]).collect()
}

fn wrap_one(format: Format, text: &str, name: &str) -> Result<String, TextError> {
    let wrapped = Wrapped {
        command: "/opt/tool deck/tooldeck".into(),
        args: vec!["proxy".into(), "--name".into(), name.into(), "--".into()],
    };
    match format {
        Format::Codex => codex::wrap(text, name, &wrapped),
        _ => json::wrap(text, &path_of(format, name), &wrapped),
    }
}

fn unwrap_one(format: Format, text: &str, name: &str) -> Result<String, TextError> {
    match format {
        Format::Codex => codex::unwrap(text, name),
        _ => json::unwrap(text, &path_of(format, name)),
    }
}

/// The command of server `name` as the wrapped text reads.
fn command_in(format: Format, text: &str, name: &str) -> Option<String> {
    let value = match format {
        Format::Codex => serde_json::to_value(toml::from_str::<toml::Table>(text).ok()?).ok()?,
        _ => Document::parse(text).ok()?.root().value().clone(),
    };
    let mut entry = match format {
        Format::Codex => value.get("mcp_servers")?,
        _ => &value,
    };
    for key in path_of(format, name).iter().skip_while(|_| format == Format::Codex) {
        entry = entry.get(key)?;
    }
    if format == Format::Codex {
        entry = entry.get(name)?;
    }
    entry.get("command")?.as_str().map(str::to_string)
}

fn check(format: Format, servers: &[Server], style: &Style) -> Result<(), TestCaseError> {
    let text = match format {
        Format::McpServers => json_text(servers, &["mcpServers"], style),
        Format::VsCode => json_text(servers, &["servers"], style),
        Format::ClaudeCodeProject => json_text(servers, &["projects", "/work/app", "mcpServers"], style),
        Format::Codex => toml_text(servers, style),
    };
    let mut current = text.clone();
    for (wrapped, server) in servers.iter().enumerate() {
        let once = wrap_one(format, &current, &server.name).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let command = command_in(format, &once, &server.name);
        prop_assert_eq!(command.as_deref(), Some("/opt/tool deck/tooldeck"), "{}", once);
        let back = unwrap_one(format, &once, &server.name).ok();
        prop_assert_eq!(back.as_deref(), Some(current.as_str()));
        if style.eol == "\r\n" {
            // The lines wrap writes end as the file's do (each kept table's last piece aside).
            let lone = once.match_indices('\n').filter(|(at, _)| !once[..*at].ends_with('\r')).count();
            prop_assert!(lone <= wrapped + 1, "{} lines end in a lone LF: {:?}", lone, once);
        }
        current = once;
    }
    for server in servers.iter().rev() {
        current = unwrap_one(format, &current, &server.name).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
    }
    prop_assert_eq!(current, text);
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 64, failure_persistence: None, ..Config::default() })]

    #[test]
    fn json_clients_unwrap_to_the_same_bytes(servers in servers(), style in style()) {
        for format in [Format::McpServers, Format::VsCode, Format::ClaudeCodeProject] {
            check(format, &servers, &Style { bom: false, ..style.clone() })?;
        }
    }

    #[test]
    fn codex_tables_unwrap_to_the_same_bytes(servers in servers(), style in style()) {
        check(Format::Codex, &servers, &style)?;
    }
}

/// The case the issue gave: a Codex file with CRLF line ends lost a byte a line.
#[test]
fn a_crlf_codex_table_unwraps_to_the_same_bytes() {
    let text = "model = \"o3\"\r\n\r\n[mcp_servers.notes]\r\ncommand = \"node\"\r\nargs = [\"s.js\"]\r\n\r\n[mcp_servers.notes.env]\r\nKEY = \"v\"\r\n\r\n[mcp_servers.other]\r\ncommand = \"x\"\r\n";
    let wrapped = wrap_one(Format::Codex, text, "notes").unwrap();
    assert_eq!(command_in(Format::Codex, &wrapped, "notes").as_deref(), Some("/opt/tool deck/tooldeck"));
    assert_eq!(unwrap_one(Format::Codex, &wrapped, "notes").unwrap(), text);
}
