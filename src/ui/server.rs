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
use crate::text::{truncate, visible, wrap};
use crate::theme::Styles;

/// Rows above the log: the server's description, at most.
const HEADER_ROWS: usize = 12;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let pane_state = &app.server_pane;
    frame.render_widget(Clear, area);
    let mut title = format!("server · {}", visible(&app.server.endpoint));
    if app.servers.several() {
        // Which of them: the pane shows the selected tool's server.
        title.push_str(&format!(" ({} of {} servers)", app.servers.current + 1, app.servers.labels.len()));
    }
    frame.render_widget(pane(&title, true, styles).style(styles.base), area);
    let body = inner(area);
    let columns = usize::from(body.width);
    let field = |name: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("{name:<13}"), styles.muted),
            Span::styled(truncate(&visible(&value), columns.saturating_sub(13)).into_owned(), styles.text),
        ])
    };
    let mut lines: Vec<Line> = Vec::new();
    match &pane_state.info {
        None if app.server.listing => lines.push(Line::styled("connecting…", styles.muted)),
        None => {
            lines.push(Line::styled("no MCP handshake (an Open Tool Calling server, or not connected)", styles.muted))
        }
        Some(info) => {
            let mut name = format!("{} {}", info.name, info.version);
            if let Some(title) = &info.title {
                name.push_str(&format!(" · {title}"));
            }
            lines.push(field("server", name));
            if let Some(description) = &info.description {
                lines.push(field("description", description.clone()));
            }
            if let Some(website) = &info.website {
                lines.push(field("website", website.clone()));
            }
            let mut protocol = info.protocol_version.clone();
            if let Some(session) = &info.session_id {
                protocol.push_str(&format!(" · session {session}"));
            }
            lines.push(field("protocol", protocol));
            lines.push(field("capabilities", info.capability_summary.clone()));
            if !info.icons.is_empty() {
                lines.push(field("icons", info.icons.join(" · ")));
            }
            if let Some(instructions) = &info.instructions {
                // Their own lines, wrapped, blank ones left out: the first few show.
                let wrapped = instructions
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .flat_map(|l| wrap(&visible(l), columns.saturating_sub(13), 4))
                    .take(4);
                for (i, line) in wrapped.enumerate() {
                    lines.push(field(if i == 0 { "instructions" } else { "" }, line));
                }
            }
        }
    }
    if let Some(gone) = &pane_state.gone {
        let reconnect = app.key_name(Context::Server, Action::Reconnect);
        lines.push(Line::styled(format!("✗ gone · {reconnect} reconnects"), styles.error));
        for line in gone.lines().take(HEADER_ROWS.saturating_sub(lines.len()).max(2)) {
            lines.push(Line::styled(truncate(&visible(line), columns).into_owned(), styles.warning));
        }
    }
    let shown = if pane_state.min_level == 0 {
        "every level".to_string()
    } else {
        format!("{} and above", LEVELS[pane_state.min_level])
    };
    let follows = if pane_state.scroll == 0 { "follows" } else { "scrolled back" };
    let dropped = match pane_state.log.dropped {
        0 => String::new(),
        n => format!(" · {n} older let go"),
    };
    let level_key = app.key_name(Context::Server, Action::LogLevel);
    lines.push(Line::styled(
        format!("── stderr and log · {} lines{dropped} · {shown} ({level_key}) · {follows} ", pane_state.log.len()),
        styles.title,
    ));
    let height = usize::from(body.height).saturating_sub(lines.len());
    if pane_state.log.is_empty() {
        lines.push(Line::styled("nothing yet: the server's stderr and log entries show here", styles.muted));
    }
    for line in pane_state.window(height) {
        lines.push(log_line(line, columns, styles));
    }
    frame.render_widget(Paragraph::new(lines), body);
}

fn log_line(line: &LogLine, columns: usize, styles: &Styles) -> Line<'static> {
    let (tag, style) = match line.kind {
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
    if let Some(logger) = &line.logger {
        prefix.push_str(&format!("{} ", truncate(&visible(logger), 24)));
    }
    let room = columns.saturating_sub(crate::text::width(&prefix));
    // Only the first line of a multi-line entry; cut to what could show before escaping.
    let text = line.text.lines().next().unwrap_or_default();
    let text = super::result::drawable(text);
    let more = if line.text.contains('\n') { " ⏎…" } else { "" };
    Line::from(vec![
        Span::styled(prefix, style),
        Span::styled(format!("{}{more}", truncate(&text, room.saturating_sub(more.len().min(3)))), styles.text),
    ])
}
