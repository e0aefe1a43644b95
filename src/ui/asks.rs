//! A server's question over the screen: the elicitation form (rows drawn as the tool form draws
//! them), the URL to visit, or the sampling request beside the reply being written. Everything
//! the server sent is made safe to draw first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::form::{RowShape, field_line};
use super::popup::{centered, open};
use crate::app::App;
use crate::app::asks::Question;
use crate::app::keymap::{Action, Context};
use crate::invoke::mcp::asks::Ask;
use crate::text::{truncate, visible, width, wrap};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, screen: Rect) {
    let Some(question) = &app.asks.current() else { return };
    let key = |action| app.keymap.name(Context::Ask, action).unwrap_or_else(|| "?".into());
    let hint = match question.ask() {
        Ask::Url { .. } => format!(
            "{} open · {} accept · {} decline · {} cancel",
            key(Action::OpenLink),
            key(Action::AskAccept),
            key(Action::AskDecline),
            key(Action::AskCancel)
        ),
        Ask::Sample { .. } => format!(
            "{} next box · {} send the reply · {} reject",
            key(Action::NextField),
            key(Action::AskAccept),
            key(Action::AskDecline)
        ),
        Ask::Form { .. } => format!(
            "{}/{} field · {}/{} choice · {} send · {} decline · {} cancel",
            key(Action::Up),
            key(Action::Down),
            key(Action::Collapse),
            key(Action::Expand),
            key(Action::AskAccept),
            key(Action::AskDecline),
            key(Action::AskCancel)
        ),
    };
    let waiting = app.asks.waiting().len();
    let title = match (&question.ask(), waiting) {
        (Ask::Sample { .. }, 0) => "the server asks for a sampling reply · the call waits for you".to_string(),
        (_, 0) => "the server asks · the call waits for you".to_string(),
        (_, n) => format!("the server asks ({n} more waiting) · the call waits for you"),
    };
    let area = centered(screen, 96, screen.height.saturating_sub(4));
    let body = open(frame, area, &title, styles);
    let columns = usize::from(body.width);
    let mut lines: Vec<Line> = Vec::new();
    let mut cursor: Option<(usize, usize)> = None;
    match &question.ask() {
        Ask::Form { message, .. } => {
            message_lines(&mut lines, message, columns, styles);
            let add_key = app.key_name(Context::Ask, Action::AddItem);
            form_lines(question, &mut lines, &mut cursor, (columns, &add_key), styles);
        }
        Ask::Url { message, url, .. } => {
            message_lines(&mut lines, message, columns, styles);
            lines.push(Line::from(vec![
                Span::styled("URL ", styles.muted),
                Span::styled(
                    truncate(&visible(&crate::redact::url(url)), columns.saturating_sub(4)).into_owned(),
                    styles.text,
                ),
            ]));
            lines.push(Line::styled("visit it, then accept (or decline)", styles.muted));
        }
        Ask::Sample { request, cut } => sample_lines(question, request, *cut, &mut lines, &mut cursor, columns, styles),
    }
    if let Some(problem) = &question.problem() {
        lines.push(Line::styled(format!("✗ {}", truncate(&visible(problem), columns.saturating_sub(2))), styles.error));
    }
    let height = usize::from(body.height).saturating_sub(1);
    // Keep the cursor's line in view.
    let skip = cursor.map_or(0, |(line, _)| line.saturating_sub(height.saturating_sub(1)));
    let shown: Vec<Line> = lines.into_iter().skip(skip).take(height).collect();
    frame.render_widget(Paragraph::new(shown), body);
    let hint_area = Rect::new(body.x, body.y + body.height.saturating_sub(1), body.width, 1);
    frame
        .render_widget(Paragraph::new(Line::styled(truncate(&hint, columns).into_owned(), styles.key_hint)), hint_area);
    if let Some((line, column)) = cursor
        && line >= skip
        && line - skip < height
    {
        frame.set_cursor_position((
            body.x + (column as u16).min(body.width.saturating_sub(1)),
            body.y + (line - skip) as u16,
        ));
    }
}

fn message_lines(lines: &mut Vec<Line>, message: &str, columns: usize, styles: &Styles) {
    // A link in the message (the page a URL question sends the person to) is masked as the URL is.
    for line in wrap(&visible(&crate::redact::urls_in(message)), columns, 6) {
        lines.push(Line::styled(line, styles.text));
    }
    lines.push(Line::raw(""));
}

fn form_lines(
    question: &Question,
    lines: &mut Vec<Line>,
    cursor: &mut Option<(usize, usize)>,
    (columns, add_key): (usize, &str),
    styles: &Styles,
) {
    let Some(form) = &question.form() else {
        lines.push(Line::styled("(the requested schema makes no form)", styles.error));
        return;
    };
    let rows = form.rows();
    let label_width = rows
        .iter()
        .filter_map(|r| form.field(&r.path).map(|f| r.depth * 2 + width(&visible(f.label())) + 1))
        .max()
        .unwrap_or(0)
        .clamp(8, columns / 2);
    for (index, row) in rows.iter().enumerate() {
        let Some(field) = form.field(&row.path) else { continue };
        let is_cursor = index == question.focus();
        let shape = RowShape {
            label: None,
            required: field.required,
            inside_unset: false,
            depth: row.depth,
            label_width,
            is_cursor,
            editing: is_cursor,
            start_key: "type".to_string(),
            add_key: add_key.to_string(),
        };
        let (line, column) = field_line(field, &shape, columns, styles);
        if let Some(column) = column {
            *cursor = Some((lines.len(), column));
        }
        lines.push(line);
        if is_cursor && let Some(description) = &field.description {
            let text = truncate(&visible(description), columns.saturating_sub(4)).into_owned();
            lines.push(Line::styled(format!("    {text}"), styles.muted));
        }
        for message in form.errors_at(&row.pointer) {
            let text = truncate(&visible(message), columns.saturating_sub(6)).into_owned();
            lines.push(Line::styled(format!("    ✗ {text}"), styles.error));
        }
    }
}

fn sample_lines(
    question: &Question,
    request: &serde_json::Value,
    cut: bool,
    lines: &mut Vec<Line>,
    cursor: &mut Option<(usize, usize)>,
    columns: usize,
    styles: &Styles,
) {
    let field = |name: &str| request.get(name).filter(|v| !v.is_null());
    if let Some(system) = field("systemPrompt").and_then(|v| v.as_str()) {
        lines.push(Line::styled(
            format!("system: {}", truncate(&visible(system), columns.saturating_sub(8))),
            styles.muted,
        ));
    }
    for message in field("messages").and_then(|m| m.as_array()).into_iter().flatten().take(8) {
        let role = message.get("role").and_then(|r| r.as_str()).unwrap_or("?");
        let text = message
            .pointer("/content/text")
            .and_then(|t| t.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| message.get("content").map(|c| c.to_string()).unwrap_or_default());
        for (i, line) in wrap(&visible(&text), columns.saturating_sub(11), 4).into_iter().enumerate() {
            let head = if i == 0 { format!("{:>9}: ", truncate(&visible(role), 9)) } else { " ".repeat(11) };
            lines.push(Line::from(vec![Span::styled(head, styles.muted), Span::styled(line, styles.text)]));
        }
    }
    let mut facts = Vec::new();
    if let Some(max) = field("maxTokens") {
        facts.push(format!("max tokens {max}"));
    }
    if let Some(preferences) = field("modelPreferences") {
        facts.push(format!("model preferences {preferences}"));
    }
    if let Some(tools) = field("tools").and_then(|t| t.as_array()) {
        let names: Vec<&str> = tools.iter().filter_map(|t| t.get("name").and_then(|n| n.as_str())).collect();
        facts.push(format!("tools offered: {}", names.join(", ")));
    }
    if cut {
        facts.push("(the request is larger than shown)".into());
    }
    if !facts.is_empty() {
        lines.push(Line::styled(truncate(&visible(&facts.join(" · ")), columns).into_owned(), styles.muted));
    }
    lines.push(Line::raw(""));
    for (index, name) in ["reply", "model", "stop reason"].iter().enumerate() {
        let input = &question.reply()[index];
        let focused = question.focus().min(2) == index;
        let label = format!("{name:>11} ");
        let text = truncate(&visible(input.text()), columns.saturating_sub(13)).into_owned();
        if focused {
            let before = visible(&input.text()[..input.cursor()]).into_owned();
            *cursor = Some((lines.len(), 12 + width(&before)));
        }
        let style = if focused { styles.selection } else { styles.text };
        lines.push(Line::from(vec![Span::styled(label, styles.muted), Span::styled(text, style)]));
    }
}
