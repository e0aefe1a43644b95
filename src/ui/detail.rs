//! The selected tool's header: title, id, source, description, examples, requirements, tile.

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
    if let Some(examples) = examples_line(tool) {
        tail.push(labelled("examples ", &examples, width, styles));
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
    let heading = format!("{} · {} · {}", tool.id, tool.format, tool.source);
    let mut lines = vec![Line::styled(truncate(&visible(&heading), width).into_owned(), styles.muted)];
    let room = usize::from(body.height).saturating_sub(1 + tail.len());
    let description = tool.description.as_deref().unwrap_or("(no description)");
    lines.extend(
        crate::text::wrap(&visible(description), width, room).into_iter().map(|l| Line::styled(l, styles.text)),
    );
    lines.extend(tail);
    frame.render_widget(Paragraph::new(lines), body);
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
