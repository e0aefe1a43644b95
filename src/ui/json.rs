//! The app's JSON editor: the arguments' JSON view (Ctrl-J) and a message a proxy holds
//! (`tooldeck attach`), coloured by token, with its parse error.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane;
use crate::app::layout::inner;
use crate::app::{App, Focus, JsonView};
use crate::text::{truncate, visible, width};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let Some(json) = app.form_pane.json() else { return };
    let focused = app.focus == Focus::Json;
    let title = if focused { "JSON · editing (Esc: back to form)" } else { "JSON" };
    editor(json, title, focused, styles, frame, area);
}

/// The app's one JSON editor in `area`: a pane titled `title`, the text coloured, its parse
/// error on the last line, the cursor placed when `focused`.
pub(super) fn editor(json: &JsonView, title: &str, focused: bool, styles: &Styles, frame: &mut Frame, area: Rect) {
    frame.render_widget(pane(title, focused, styles), area);
    let mut body = inner(area);
    if let Some(error) = &json.error() {
        let text = truncate(&visible(error), usize::from(body.width).saturating_sub(2)).into_owned();
        let error_area = Rect { y: body.y + body.height.saturating_sub(1), height: 1, ..body };
        frame.render_widget(Paragraph::new(Line::styled(format!("✗ {text}"), styles.error)), error_area);
        body.height = body.height.saturating_sub(1);
    }
    let (cursor_line, cursor_column) = json.input().cursor_line_col();
    let height = usize::from(body.height).max(1);
    let first = cursor_line.saturating_sub(height - 1);
    let lines: Vec<Line> =
        json.input().text().split('\n').skip(first).take(height).map(|l| highlight(l, styles)).collect();
    frame.render_widget(Paragraph::new(lines), body);
    if focused && body.height > 0 {
        let line = json.input().text().split('\n').nth(cursor_line).unwrap_or_default();
        let before: String = line.chars().take(cursor_column).collect();
        let x = body.x + (width(&visible(&before)) as u16).min(body.width.saturating_sub(1));
        frame.set_cursor_position((x, body.y + (cursor_line - first) as u16));
    }
}

/// Colours one line of JSON text by token: keys, strings, numbers, literals.
pub(super) fn highlight(line: &str, styles: &Styles) -> Line<'static> {
    let mut spans = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        let c = chars[i];
        let style = if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            let rest: String = chars[i..].iter().collect();
            if rest.trim_start().starts_with(':') { styles.json_key } else { styles.json_string }
        } else if c == '-' || c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_digit() || "+-.eE".contains(chars[i])) {
                i += 1;
            }
            styles.json_number
        } else if c.is_ascii_alphabetic() {
            while i < chars.len() && chars[i].is_ascii_alphabetic() {
                i += 1;
            }
            styles.json_bool_null
        } else {
            i += 1;
            styles.text
        };
        let token: String = chars[start..i.min(chars.len())].iter().collect();
        spans.push(Span::styled(visible(&token).into_owned(), style));
    }
    Line::from(spans)
}
