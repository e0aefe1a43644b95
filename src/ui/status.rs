//! The bottom line: what the keys do here, a message, and whether the arguments are ready.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, Focus};
use crate::text::{truncate, visible, width};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let summary = match app.form() {
        Some(form) if form.validation.error_count > 0 => {
            let n = form.validation.error_count;
            Span::styled(format!(" {n} error{} ", if n == 1 { "" } else { "s" }), styles.error)
        }
        Some(_) => Span::styled(" ready ", styles.ok),
        None if app.load_errors > 0 => Span::styled(format!(" catalog: {} errors ", app.load_errors), styles.warning),
        None => Span::raw(""),
    };
    let room = usize::from(area.width).saturating_sub(width(&summary.content) + 1);
    let left: Vec<Span> = match &app.status {
        Some(message) => vec![Span::styled(truncate(&visible(message), room).into_owned(), styles.warning)],
        None => hints(app, room, styles),
    };
    let used: usize = left.iter().map(|s| width(&s.content)).sum();
    let mut spans = left;
    spans.push(Span::raw(" ".repeat(usize::from(area.width).saturating_sub(used + width(&summary.content)))));
    spans.push(summary);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn hints(app: &App, room: usize, styles: &Styles) -> Vec<Span<'static>> {
    let pairs: &[(&str, &str)] = if app.popup.is_some() {
        &[("↑↓", "choose"), ("Enter", "ok"), ("Esc", "cancel")]
    } else if app.list.filtering {
        &[("type", "filter"), ("↑↓", "move"), ("Enter", "keep"), ("Esc", "clear")]
    } else if app.focus == Focus::Json {
        &[("type", "edit JSON"), ("Esc", "back to form"), ("Ctrl-J", "close")]
    } else if app.editing {
        &[("Esc/Enter", "done"), ("Tab", "next"), ("Ctrl-U", "unset"), ("↓", "suggestions")]
    } else if app.focus == Focus::Form {
        &[
            ("Enter", "edit"),
            ("Tab", "next"),
            ("Ctrl-U", "unset"),
            ("a/d", "add/del"),
            ("Ctrl-J", "JSON"),
            ("Ctrl-R", "run"),
            ("Esc", "back"),
            ("?", "help"),
        ]
    } else {
        &[("↑↓", "tools"), ("Enter", "form"), ("/", "filter"), ("Ctrl-R", "run"), ("?", "help"), ("q", "quit")]
    };
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, what) in pairs {
        let cost = width(key) + width(what) + 3;
        if used + cost > room {
            break;
        }
        spans.push(Span::styled(format!(" {key}"), styles.key_hint));
        spans.push(Span::styled(format!(" {what} "), styles.muted));
        used += cost;
    }
    spans
}
