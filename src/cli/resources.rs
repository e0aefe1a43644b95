//! `tooldeck resources` (the server's resources and templates) and `tooldeck read URI` (one
//! resource's contents: text printed, binary saved with `--output`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::json;

use super::ServerArgs;
use super::exit;
use super::failure::{Failure, finish};
use super::session::{print_json, refused, shown, warn, with_server};
use crate::catalog::app_ui::{APP_MIME, UI_SCHEME, is_app_mime};
use crate::invoke::mcp::content::{Embedded, Inline};
use crate::invoke::mcp::resources::Resource;
use crate::text::{human_bytes, visible};

#[derive(Debug, Args, Clone)]
pub struct ResourcesArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print {"resources": [...], "templates": [...], "warnings": [...]}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ReadArgs {
    /// The resource's URI (`tooldeck resources` lists them).
    pub uri: String,
    #[command(flatten)]
    pub server: ServerArgs,
    /// Save the first content (text, or binary decoded) to FILE instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print {"contents": [...], "warnings": [...]} (binary as base64, as it came).
    #[arg(long, conflicts_with = "output")]
    pub json: bool,
}

pub fn run_resources(args: &ResourcesArgs) -> ExitCode {
    let json = args.json;
    finish(
        with_server(&args.server, |endpoint| async move {
            let listing = match endpoint.list_resources().await {
                Ok(listing) => listing,
                Err(e) => return Err(refused(e)),
            };
            if json {
                return Ok(print_json(&json!({
                    "resources": listing.resources.iter().map(resource_json).collect::<Vec<_>>(),
                    "templates": listing.templates,
                    "warnings": listing.warnings,
                })));
            }
            for warning in &listing.warnings {
                warn(warning);
            }
            if listing.not_offered {
                warn("the server does not offer resources");
            }
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for resource in &listing.resources {
                let mime = resource.mime_type.as_deref().unwrap_or("-");
                let size = resource.size.map(|s| format!("  {}", human_bytes(s))).unwrap_or_default();
                let name = resource.title.as_deref().unwrap_or(&resource.name);
                let mark = app_mark(resource);
                let _ = writeln!(out, "{}  {}  {}{size}{mark}", visible(&resource.uri), visible(name), visible(mime));
            }
            for template in &listing.templates {
                let name = template.title.as_deref().unwrap_or(&template.name);
                let vars = variables_said(&template.variables());
                let _ = writeln!(
                    out,
                    "{}  {}  (template: {})",
                    visible(&template.uri_template),
                    visible(name),
                    visible(&vars)
                );
            }
            if listing.resources.is_empty() && listing.templates.is_empty() {
                let _ = writeln!(out, "no resources");
            }
            let _ = out.flush();
            Ok(exit::OK)
        })
        .map(exit::code),
    )
}

/// Up to this many of a template's variables are named in the listing.
const VARIABLES_NAMED: usize = 20;

/// A template's variables as the listing says them: every one up to [`VARIABLES_NAMED`], else
/// how many and the first few (100,000 names on one line help nobody; the template is beside).
fn variables_said(variables: &[String]) -> String {
    match variables.get(..VARIABLES_NAMED) {
        Some(first) if variables.len() > VARIABLES_NAMED => {
            format!("{} variables: {}, …", variables.len(), first.join(", "))
        }
        _ => variables.join(", "),
    }
}

/// A `ui://` resource is an MCP App's view: marked `app`, with a word when its MIME type is not
/// the app profile (hosts will not render it).
fn app_mark(resource: &Resource) -> String {
    if !resource.uri.starts_with(UI_SCHEME) {
        return String::new();
    }
    match resource.mime_type.as_deref() {
        Some(mime) if is_app_mime(mime) => "  [app]".to_string(),
        _ => format!("  [app: its MIME type should be {APP_MIME}]"),
    }
}

/// A resource in `--json`: as listed, with `"app": true` on a `ui://` one.
fn resource_json(resource: &Resource) -> serde_json::Value {
    let mut value = serde_json::to_value(resource).unwrap_or_default();
    if resource.uri.starts_with(UI_SCHEME)
        && let Some(object) = value.as_object_mut()
    {
        object.insert("app".into(), serde_json::Value::Bool(true));
    }
    value
}

pub fn run_read(args: &ReadArgs) -> ExitCode {
    let ReadArgs { uri, output, json, .. } = args.clone();
    finish(
        with_server(&args.server, |endpoint| async move {
            let read = match endpoint.read(&uri).await {
                Ok(read) => read,
                Err(e) => return Err(refused(e)),
            };
            for warning in &read.warnings {
                warn(warning);
            }
            if json {
                return Ok(print_json(&json!({ "contents": read.contents, "warnings": read.warnings })));
            }
            if read.contents.is_empty() {
                return Err(Failure::new(
                    exit::TOOL_ERROR,
                    format!("{uri}: the server gave no contents that could be read"),
                ));
            }
            match output {
                Some(path) => save(&read.contents[0], &path),
                None => Ok(print_contents(&read.contents)),
            }
        })
        .map(exit::code),
    )
}

fn save(content: &Embedded, path: &std::path::Path) -> Result<u8, Failure> {
    let bytes = crate::invoke::artifact::inline_bytes(&content.body)
        .map_err(|e| Failure::new(exit::TOOL_ERROR, format!("{}: {e}", content.uri)))?;
    match std::fs::write(path, &bytes) {
        Ok(()) => {
            let _ = writeln!(
                std::io::stderr(),
                "tooldeck: saved {} to {}",
                human_bytes(bytes.len() as u64),
                path.display()
            );
            Ok(exit::OK)
        }
        Err(e) => Err(Failure::usage(format!("cannot write {}: {e}", path.display()))),
    }
}

fn print_contents(contents: &[Embedded]) -> u8 {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (i, content) in contents.iter().enumerate() {
        if contents.len() > 1 {
            let _ = writeln!(out, "{}── {} ──", if i > 0 { "\n" } else { "" }, visible(&content.uri));
        }
        match &content.body {
            Inline::Text(text) => {
                let _ = writeln!(out, "{}", shown(text));
            }
            Inline::Base64(_) => {
                let mime = content.mime_type.as_deref().unwrap_or("binary");
                let _ = writeln!(
                    out,
                    "({}, {}: --output FILE saves it, --json prints it as base64)",
                    visible(mime),
                    human_bytes(content.size)
                );
            }
        }
    }
    let _ = out.flush();
    exit::OK
}
