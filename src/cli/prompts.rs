//! `tooldeck prompts` (the server's prompts and their arguments) and `tooldeck prompt NAME
//! --arg k=v` (one prompt's messages, with the content reading results get).

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Map, Value, json};

use super::ServerArgs;
use super::exit;
use super::failure::{Failure, finish};
use super::session::{print_json, refused, shown, warn, with_server};
use crate::invoke::mcp::content::ContentItem;
use crate::invoke::mcp::prompts::{GotPrompt, Prompt};
use crate::text::{human_bytes, visible};

#[derive(Debug, Args, Clone)]
pub struct PromptsArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print {"prompts": [...], "warnings": [...]}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Clone)]
pub struct PromptArgs {
    /// The prompt's name (`tooldeck prompts` lists them).
    pub name: String,
    #[command(flatten)]
    pub server: ServerArgs,
    /// An argument, `key=value` (prompt arguments are strings).
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub args: Vec<String>,
    /// Print {"description", "messages": [{"role", "content": [...]}], "warnings"}.
    #[arg(long)]
    pub json: bool,
}

pub fn run_prompts(args: &PromptsArgs) -> ExitCode {
    let json = args.json;
    finish(
        with_server(&args.server, |endpoint| async move {
            let (prompts, warnings) = match endpoint.list_prompts().await {
                Ok(listed) => listed,
                Err(e) => return Err(refused(e)),
            };
            if json {
                return Ok(print_json(&json!({ "prompts": prompts, "warnings": warnings })));
            }
            warnings.iter().for_each(|w| warn(w));
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for prompt in &prompts {
                let arguments: Vec<String> = prompt
                    .arguments
                    .iter()
                    .map(|a| format!("{}{}", visible(&a.name), if a.required { "*" } else { "" }))
                    .collect();
                let about = prompt.title.as_deref().or(prompt.description.as_deref()).unwrap_or_default();
                let _ = writeln!(out, "{}({})  {}", visible(&prompt.name), arguments.join(", "), visible(about));
            }
            if prompts.is_empty() {
                let _ = writeln!(out, "no prompts");
            }
            let _ = out.flush();
            Ok(exit::OK)
        })
        .map(exit::code),
    )
}

pub fn run_prompt(args: &PromptArgs) -> ExitCode {
    let PromptArgs { name, args: pairs, json, .. } = args.clone();
    finish(
        with_server(&args.server, |endpoint| async move {
            let (prompts, _) = match endpoint.list_prompts().await {
                Ok(listed) => listed,
                Err(e) => return Err(refused(e)),
            };
            let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
                let names: Vec<String> = prompts.iter().take(10).map(|p| visible(&p.name).into_owned()).collect();
                return Err(Failure::new(
                    exit::USAGE,
                    format!("no prompt {name:?} on the server (it has: {})", names.join(", ")),
                ));
            };
            let arguments = prompt_arguments(prompt, &pairs)?;
            let got = match endpoint.get_prompt(&name, &arguments).await {
                Ok(got) => got,
                Err(e) => return Err(refused(e)),
            };
            if json {
                return Ok(print_json(&serde_json::to_value(&got).unwrap_or(Value::Null)));
            }
            Ok(print_messages(&got))
        })
        .map(exit::code),
    )
}

/// The `--arg` pairs as the prompt's arguments (strings); a missing required one is exit 3.
fn prompt_arguments(prompt: &Prompt, pairs: &[String]) -> Result<Map<String, Value>, Failure> {
    let properties: Map<String, Value> =
        prompt.arguments.iter().map(|a| (a.name.clone(), json!({"type": "string"}))).collect();
    let schema = json!({"type": "object", "properties": properties});
    let arguments =
        crate::form::args::apply_pairs(json!({}), pairs, &schema).map_err(|e| Failure::usage(e.to_string()))?;
    let Value::Object(arguments) = arguments else { return Ok(Map::new()) };
    for (key, value) in &arguments {
        if !prompt.arguments.iter().any(|a| &a.name == key) {
            warn(&format!("the prompt {:?} declares no argument {key:?}; it is sent anyway", prompt.name));
        }
        if !value.is_string() {
            return Err(Failure::new(exit::INVALID_ARGUMENTS, format!("--arg {key}: prompt arguments are strings")));
        }
    }
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        let said = format!("missing required argument(s): {} (--arg NAME=VALUE)", missing.join(", "));
        return Err(Failure::new(exit::INVALID_ARGUMENTS, said));
    }
    Ok(arguments)
}

fn print_messages(got: &GotPrompt) -> u8 {
    got.warnings.iter().for_each(|w| warn(w));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if let Some(description) = &got.description {
        let _ = writeln!(out, "{}\n", shown(description));
    }
    for message in &got.messages {
        let _ = writeln!(out, "[{}]", visible(&message.role));
        for item in &message.content {
            let _ = writeln!(out, "{}", describe_item(item));
        }
        let _ = writeln!(out);
    }
    let _ = out.flush();
    exit::OK
}

/// A content item as a line or a few: text as it is, the rest by its kind, type and size.
fn describe_item(item: &ContentItem) -> String {
    match item {
        ContentItem::Text(text) => shown(&text.text),
        ContentItem::Image(media) | ContentItem::Audio(media) => format!(
            "({} {}, {})",
            item.kind(),
            visible(media.mime_type.as_deref().unwrap_or("?")),
            human_bytes(media.size)
        ),
        ContentItem::ResourceLink(link) => format!("(link {} {})", visible(&link.uri), visible(&link.name)),
        ContentItem::Resource(embedded) => match &embedded.body {
            crate::invoke::mcp::content::Inline::Text(text) => {
                format!("(resource {})\n{}", visible(&embedded.uri), shown(text))
            }
            crate::invoke::mcp::content::Inline::Base64(_) => {
                format!("(resource {}, {})", visible(&embedded.uri), human_bytes(embedded.size))
            }
        },
        ContentItem::Unreadable(unreadable) => format!("(unreadable: {})", visible(&unreadable.why)),
    }
}
