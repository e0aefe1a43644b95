//! The selected tool's header: title, id, source, description, what the tool says of itself (MCP
//! hints, output schema, task support), examples, requirements, tile.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane;
use crate::app::App;
use crate::app::layout::inner;
use crate::catalog::{Example, Tool};
use crate::form::tile::tile_line;
use crate::text::{truncate, visible};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let Some(tool) = app.selected_tool() else {
        frame.render_widget(pane("no tool selected", false, styles), area);
        return;
    };
    let title = visible(tool.display_title()).into_owned();
    frame.render_widget(pane(&title, false, styles), area);
    let body = inner(area);
    let width = usize::from(body.width);
    let mut tail: Vec<Line> = Vec::new();
    tail.extend(badges(tool, width, styles));
    if let Some(examples) = examples_line(tool) {
        tail.push(labelled("examples ", &examples, width, styles));
    }
    // One short line, whatever the number of findings: the header stays for the tool (and a
    // server being debugged); the key in it shows them whole.
    if let Some(line) = app.lint_line(&tool.id) {
        tail.push(Line::styled(truncate(&line, width).into_owned(), styles.warning));
    }
    if let Some(needs) = requirements_line(tool) {
        tail.push(labelled("needs ", &needs, width, styles));
    }
    if let Some(tile) = &tool.ui.tile {
        let arguments = app.form().map(|f| f.arguments().clone()).unwrap_or_default();
        let text = visible(&tile_line(tile, &arguments, &tool.input_schema)).into_owned();
        tail.push(Line::from(vec![
            Span::styled("▶ ", styles.accent),
            Span::styled(truncate(&text, width.saturating_sub(2)).into_owned(), styles.tile),
        ]));
    }
    let mut heading = format!("{} · {} · {}", tool.id, tool.format, tool.source);
    if let Some(app_ui) = &tool.written.app {
        // Said before the source, which a narrow pane cuts: `A` hosts it.
        heading = format!("{} · {} · {} · {}", tool.id, tool.format, app_ui.mark(), tool.source);
    }
    let mut lines = vec![Line::styled(truncate(&visible(&heading), width).into_owned(), styles.muted)];
    let room = usize::from(body.height).saturating_sub(1 + tail.len());
    let description = tool.description.as_deref().unwrap_or("(no description)");
    lines.extend(super::describe::lines(description, width, room, styles.text, styles.json_string));
    lines.extend(tail);
    frame.render_widget(Paragraph::new(lines), body);
}

/// `read-only · idempotent · closed world · output schema · tasks: optional`: the hints the tool
/// gives (an explicit `destructiveHint` stands out), and the one default worth a word: a tool not
/// marked read-only nor said to be harmless "may be destructive" (MCP tools only, quietly).
fn badges(tool: &Tool, width: usize, styles: &Styles) -> Option<Line<'static>> {
    let hints = tool.hints();
    let mut badges: Vec<(String, ratatui::style::Style)> = Vec::new();
    if hints.read_only == Some(true) {
        badges.push(("read-only".into(), styles.ok));
    } else if hints.marked_destructive() {
        badges.push(("destructive".into(), styles.error));
    } else if hints.destructive == Some(false) {
        badges.push(("not destructive".into(), styles.text));
    } else if hints.may_be_destructive() && tool.format == crate::catalog::Format::Mcp && tool.written.face.is_tool() {
        badges.push(("may be destructive".into(), styles.muted));
    }
    // Idempotence means something only for a tool that changes things.
    if hints.idempotent == Some(true) && hints.read_only != Some(true) {
        badges.push(("idempotent".into(), styles.text));
    }
    match hints.open_world {
        Some(true) => badges.push(("open world".into(), styles.text)),
        Some(false) => badges.push(("closed world".into(), styles.text)),
        None => {}
    }
    if tool.output_schema.is_some() {
        badges.push(("output schema".into(), styles.text));
    }
    if let Some(support) = tool.task_support.as_deref().filter(|s| *s != "forbidden") {
        badges.push((format!("tasks: {}", visible(support)), styles.text));
    }
    if badges.is_empty() {
        return None;
    }
    let label = "traits ";
    let mut spans = vec![Span::styled(label, styles.key_hint)];
    let mut used = label.len();
    for (i, (badge, style)) in badges.into_iter().enumerate() {
        let separator = if i == 0 { "" } else { " · " };
        let needed = crate::text::width(separator) + crate::text::width(&badge);
        if used + needed > width {
            break;
        }
        used += needed;
        spans.push(Span::styled(separator, styles.muted));
        spans.push(Span::styled(badge, style));
    }
    Some(Line::from(spans))
}

fn labelled<'a>(label: &'a str, text: &str, width: usize, styles: &Styles) -> Line<'a> {
    let text = truncate(&visible(text), width.saturating_sub(label.len())).into_owned();
    Line::from(vec![Span::styled(label, styles.key_hint), Span::styled(text, styles.text)])
}

fn examples_line(tool: &Tool) -> Option<String> {
    let shown: Vec<String> = tool
        .examples
        .iter()
        .map(|e| match e {
            Example::Prompt(p) => format!("\"{p}\""),
            Example::Arguments(a) => a.to_string(),
        })
        .collect();
    (!shown.is_empty()).then(|| shown.join(" · "))
}

fn requirements_line(tool: &Tool) -> Option<String> {
    let mut parts: Vec<String> = tool
        .requirements
        .authorization
        .iter()
        .map(|a| {
            let kind = a.provider_type.as_deref().unwrap_or("auth");
            if a.scopes.is_empty() {
                format!("{} ({kind})", a.id)
            } else {
                format!("{} ({kind}: {})", a.id, a.scopes.join(", "))
            }
        })
        .collect();
    if !tool.requirements.secrets.is_empty() {
        parts.push(format!("secrets: {}", tool.requirements.secrets.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}
