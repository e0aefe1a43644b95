//! The server pane, over the main screen: what the server said of itself, how it went away if it
//! did, and its stderr and log, newest at the bottom. Every line of server text goes through
//! `text::visible` (escapes shown, never obeyed) and is cut to the width: only the window is
//! drawn, however long the log.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::pane;
use crate::app::App;
use crate::app::keymap::{Action, Context};
use crate::app::layout::inner;
use crate::app::server_pane::{LEVELS, LineKind, LogLine};
use crate::text::{truncate, visible, wrap_keep};
use crate::theme::Styles;

/// Rows above the log: the server's description, at most.
const HEADER_ROWS: usize = 12;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let pane_state = app.server_pane();
    frame.render_widget(Clear, area);
    let mut title = format!("server · {}", visible(app.server().endpoint()));
    if app.sessions.several() {
        // Which of them: the pane shows the selected tool's server.
        title.push_str(&format!(" ({} of {} servers)", app.sessions.position() + 1, app.sessions.all().len()));
    }
    frame.render_widget(pane(&title, true, styles).style(styles.base), area);
    let body = inner(area);
    let columns = usize::from(body.width);
    let mut lines = header(app, columns, usize::from(body.height), styles);
    if let Some(gone) = &pane_state.gone() {
        let reconnect = app.key_name(Context::Server, Action::Reconnect);
        lines.push(Line::styled(format!("✗ gone · {reconnect} reconnects"), styles.error));
        let said = gone.lines().flat_map(|l| wrap_keep(&visible(l), columns));
        for line in said.take(HEADER_ROWS.saturating_sub(lines.len()).max(2)) {
            lines.push(Line::styled(line, styles.warning));
        }
    }
    let shown = if pane_state.min_level() == 0 {
        "every level".to_string()
    } else {
        format!("{} and above", LEVELS[pane_state.min_level()])
    };
    let follows = if pane_state.scroll() == 0 { "follows" } else { "scrolled back" };
    let dropped = match pane_state.log().dropped() {
        0 => String::new(),
        n => format!(" · {n} older let go"),
    };
    let level_key = app.key_name(Context::Server, Action::LogLevel);
    let title = format!(
        "── stderr and log · {}{dropped} · {shown} ({level_key}) · {follows} ",
        crate::text::plural(pane_state.log().len(), "line")
    );
    lines.push(Line::styled(truncate(&title, columns).into_owned(), styles.title));
    let height = usize::from(body.height).saturating_sub(lines.len());
    if pane_state.log().is_empty() {
        lines.push(Line::styled("nothing yet: the server's stderr and log entries show here", styles.muted));
    }
    // Each entry wrapped whole; the newest rows at the bottom, as many as fit.
    let mut rows: Vec<Line> =
        pane_state.window(height).into_iter().flat_map(|line| log_rows(line, columns, height, styles)).collect();
    let cut = rows.len().saturating_sub(height);
    lines.extend(rows.drain(cut..));
    frame.render_widget(Paragraph::new(lines), body);
}

/// What the server said of itself, wrapped; its instructions up to about a third of the pane,
/// then how many lines more and the key that shows them whole.
fn header(app: &App, columns: usize, height: usize, styles: &Styles) -> Vec<Line<'static>> {
    let room = columns.saturating_sub(LABEL).max(1);
    let mut lines: Vec<Line> = Vec::new();
    let field = |name: &str, value: &str, lines: &mut Vec<Line<'static>>| {
        for (i, row) in wrap_keep(&visible(value), room).into_iter().enumerate() {
            let label = if i == 0 { name } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("{label:<LABEL$}"), styles.muted),
                Span::styled(row, styles.text),
            ]));
        }
    };
    let Some(info) = app.server_pane().info() else {
        let said = if app.server().listing() {
            "connecting…"
        } else {
            "no MCP handshake (an Open Tool Calling server, or not connected)"
        };
        return vec![Line::styled(said, styles.muted)];
    };
    let mut name = format!("{} {}", info.name, info.version);
    if let Some(title) = &info.title {
        name.push_str(&format!(" · {title}"));
    }
    field("server", &name, &mut lines);
    if let Some(description) = &info.description {
        field("description", description, &mut lines);
    }
    if let Some(website) = &info.website {
        field("website", website, &mut lines);
    }
    let mut protocol = info.protocol_version.clone();
    if let Some(session) = &info.session_id {
        protocol.push_str(&format!(" · session {session}"));
    }
    field("protocol", &protocol, &mut lines);
    field("capabilities", &info.capability_summary, &mut lines);
    if !info.icons.is_empty() {
        field("icons", &info.icons.join(" · "), &mut lines);
    }
    if let Some(instructions) = &info.instructions {
        // Their own lines, wrapped, blank ones left out, as many as leave the log its room.
        let rows: Vec<String> =
            instructions.lines().filter(|l| !l.trim().is_empty()).flat_map(|l| wrap_keep(&visible(l), room)).collect();
        let fits = (height / 3).max(3);
        let shown = if rows.len() > fits { fits - 1 } else { rows.len() };
        for (i, row) in rows.iter().take(shown).enumerate() {
            let label = if i == 0 { "instructions" } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("{label:<LABEL$}"), styles.muted),
                Span::styled(row.clone(), styles.text),
            ]));
        }
        if rows.len() > shown {
            let key = app.key_name(Context::Server, Action::Activate);
            let more = format!("… {} more rows of instructions · {key} reads them whole", rows.len() - shown);
            lines.push(Line::from(vec![Span::raw(" ".repeat(LABEL)), Span::styled(more, styles.accent)]));
        }
    }
    lines
}

/// Columns of a header field's label.
const LABEL: usize = 13;

/// Lines of one multi-line log entry shown; the rest is said to be there.
const ENTRY_LINES: usize = 20;

/// A log entry in rows of `columns`: its tag on the first, the text wrapped under it (at most
/// `height` rows, a tall entry says how much more it has).
fn log_rows(line: &LogLine, columns: usize, height: usize, styles: &Styles) -> Vec<Line<'static>> {
    let (tag, style) = match line.kind() {
        LineKind::Stderr => ("stderr".to_string(), styles.muted),
        LineKind::Note => ("tooldeck".to_string(), styles.accent),
        LineKind::Log(level) => {
            let style = match level {
                0 | 1 => styles.muted,
                2 | 3 => styles.warning,
                _ => styles.error,
            };
            (LEVELS[usize::from(level)].to_string(), style)
        }
    };
    let mut prefix = format!("{tag:<10}");
    if let Some(logger) = &line.logger() {
        prefix.push_str(&format!("{} ", truncate(&visible(logger), 24)));
    }
    let indent = crate::text::width(&prefix).min(columns / 2);
    let room = columns.saturating_sub(indent).max(1);
    let mut texts: Vec<String> =
        line.text().lines().take(ENTRY_LINES).flat_map(|l| wrap_keep(&super::result::drawable(l), room)).collect();
    let lines = line.text().lines().count();
    let limit = height.max(2);
    if lines > ENTRY_LINES || texts.len() > limit {
        texts.truncate(limit - 1);
        texts.push(format!("… {} in all", crate::text::plural(lines, "line")));
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let lead = if i == 0 { prefix.clone() } else { " ".repeat(indent) };
            Line::from(vec![Span::styled(lead, style), Span::styled(text, styles.text)])
        })
        .collect()
}
