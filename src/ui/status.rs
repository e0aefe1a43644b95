//! The bottom line: what the keys do here, a message, and whether the arguments are ready.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, Focus, Popup};
use crate::form::Widget;
use crate::text::{truncate, visible, width};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let json_invalid = app.json.as_ref().is_some_and(|j| j.error.is_some());
    let summary = match app.form() {
        Some(_) if json_invalid => Span::styled(" JSON invalid ", styles.error),
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
    let editing_field =
        if app.editing { app.focused_path().and_then(|p| app.form()?.field(&p).cloned()) } else { None };
    let pairs: &[(&str, &str)] = match (&app.popup, &editing_field) {
        (Some(Popup::Picker { .. }), _) => &[("↑↓", "choose"), ("Enter", "pick"), ("Esc", "cancel")],
        (Some(Popup::KeyPrompt { .. }), _) => &[("type", "the key"), ("Enter", "add"), ("Esc", "cancel")],
        (Some(Popup::Help), _) => &[("any key", "close")],
        (Some(Popup::Search { .. }), _) => &[("type", "text"), ("Enter", "find"), ("Esc", "cancel")],
        (Some(Popup::SavePrompt { .. }), _) => &[("type", "a path"), ("Enter", "save"), ("Esc", "cancel")],
        (Some(Popup::CaseFile { .. }), _) => &[("type", "a path"), ("Enter", "save"), ("Esc", "cancel")],
        (Some(Popup::History { .. }), _) => {
            &[("↑↓", "choose"), ("Enter", "put back"), ("r", "run again"), ("S", "save as case"), ("Esc", "close")]
        }
        (Some(Popup::TokenPrompt { .. }), _) => &[("type", "the token"), ("Enter", "use it"), ("Esc", "cancel")],
        _ if app.list.filtering => &[("type", "filter"), ("↑↓", "move"), ("Enter", "keep"), ("Esc", "clear")],
        _ if app.focus == Focus::Result && crate::app::run::shows_value(app) => &[
            ("↑↓", "move"),
            ("←→ Enter", "fold"),
            ("- +", "fold all/none"),
            ("/ n", "find"),
            ("y", "copy"),
            ("x", "exchange"),
            ("c", "copy as curl"),
            ("S", "save as case"),
            ("r", "again"),
            ("Esc", "back"),
        ],
        _ if app.focus == Focus::Result => &[
            ("↑↓", "scroll"),
            ("/ n", "find"),
            ("x", "exchange"),
            ("c", "copy as curl"),
            ("f/s", "fetch/save artifact"),
            ("y", "copy"),
            ("o", "open link"),
            ("t", "token"),
            ("S", "save case"),
            ("r", "again"),
            ("Esc", "back"),
        ],
        _ if app.focus == Focus::Json => &[("type", "edit JSON"), ("Esc", "back to form"), ("Ctrl-J", "close")],
        (None, Some(field)) => match field.widget {
            Widget::Text { multiline: true, .. } | Widget::Raw { .. } => {
                &[("Enter", "new line"), ("Esc", "done"), ("Tab", "next"), ("Ctrl-U", "unset")]
            }
            Widget::Suggest { .. } => {
                &[("Esc/Enter", "done"), ("↓", "suggestions"), ("Tab", "next"), ("Ctrl-U", "unset")]
            }
            _ => &[("Esc/Enter", "done"), ("Tab", "next"), ("Ctrl-U", "unset")],
        },
        _ if app.focus == Focus::Form => &[
            ("Enter", "edit"),
            ("?", "help"),
            ("Tab", "next"),
            ("Ctrl-U", "unset"),
            ("Ctrl-R", "run"),
            ("a/d", "add/del"),
            ("Ctrl-J", "JSON"),
            ("Esc", "back"),
        ],
        _ => &[("↑↓", "tools"), ("Enter", "form"), ("?", "help"), ("/", "filter"), ("Ctrl-R", "run"), ("q", "quit")],
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
