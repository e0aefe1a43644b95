//! The traffic pane, over the main screen: the session's messages in order, one line each, the
//! selected one marked; below, that message as it went over the wire (pretty JSON, or an HTTP
//! exchange's status and headers, secrets masked). Only the window is drawn, however long the
//! log; every line goes through `text::visible`, so a server's escapes are shown, never obeyed.
//! Attached to a proxy (`tooldeck attach`), a line under the header names its breakpoints, a
//! message it holds is tagged `held` and opens in the JSON editor in place of the message.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::pane;
use crate::app::App;
use crate::app::keymap::{Action, Context};
use crate::app::layout::inner;
use crate::app::traffic::TrafficLog;
use crate::invoke::mcp::traffic::{Direction, TrafficEntry};
use crate::text::{truncate, visible};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let log = &app.server_pane().traffic();
    frame.render_widget(Clear, area);
    let mut title = format!("traffic · {}", visible(app.server().endpoint()));
    if app.sessions.several() {
        title.push_str(&format!(" ({} of {} servers)", app.sessions.position() + 1, app.sessions.all().len()));
    }
    frame.render_widget(pane(&title, true, styles).style(styles.base), area);
    let body = inner(area);
    let columns = usize::from(body.width);
    let mut lines = vec![header(app, log, columns, styles)];
    if log.hold().attached() {
        lines.push(breakpoints(app, log, columns, styles));
    }
    // The list takes the upper half, the selected message the rest.
    let list_rows = (usize::from(body.height) / 2).saturating_sub(lines.len()).max(1);
    let (rows, selected) = log.window(list_rows);
    if rows.is_empty() {
        let empty = if log.is_empty() {
            "nothing yet: every message to and from an MCP server shows here"
        } else {
            "no message matches the filter"
        };
        lines.push(Line::styled(empty, styles.muted));
    }
    for (i, entry) in rows.iter().enumerate() {
        lines.push(row(entry, log.hold().tag(entry), Some(i) == selected, columns, styles));
    }
    let list_end = list_rows + 1 + usize::from(log.hold().attached());
    while lines.len() < list_end {
        lines.push(Line::default());
    }
    if let Some(editor) = log.hold().editor() {
        frame.render_widget(Paragraph::new(lines), body);
        let top = (list_end as u16).min(body.height);
        let area = Rect { y: body.y + top, height: body.height - top, ..body };
        let keys = |action| app.key_name(Context::Held, action);
        let title = format!(
            "held: {} · {} sends · {} drops · {} leaves it held",
            editor.summary(),
            keys(Action::SendHeld),
            keys(Action::DropHeld),
            keys(Action::Back)
        );
        super::json::editor(editor.view(), &truncate(&title, columns), true, styles, frame, area);
        return;
    }
    let message_rows = usize::from(body.height).saturating_sub(lines.len() + 1);
    if let Some(entry) = log.selected_entry() {
        let scroll_keys = format!(
            "{}/{}",
            app.key_name(Context::Traffic, Action::MessageUp),
            app.key_name(Context::Traffic, Action::MessageDown)
        );
        let rule = format!("── {} · {} bytes · {scroll_keys} scrolls ", entry.summary(), entry.text.len());
        lines.push(Line::styled(truncate(&rule, columns).into_owned(), styles.title));
        lines.extend(message(entry, log.message_scroll(), message_rows, columns, styles));
    }
    frame.render_widget(Paragraph::new(lines), body);
}

/// How many messages, how many let go, the filter and whether the list follows the newest.
fn header(app: &App, log: &TrafficLog, columns: usize, styles: &Styles) -> Line<'static> {
    let filter_key = app.key_name(Context::Traffic, Action::Filter);
    let mut said = format!("{} messages", log.len());
    if log.dropped() > 0 {
        said.push_str(&format!(" · {} older let go", log.dropped()));
    }
    let filter = visible(log.filter().text()).into_owned();
    let filter = match (log.filtering(), filter.is_empty()) {
        (true, _) => format!(" · filter: {filter}▏"),
        (false, false) => format!(" · filter: {filter} ({} shown)", log.shown_len()),
        (false, true) => format!(" · {filter_key} filters"),
    };
    let follows = if log.follows() { " · follows" } else { "" };
    let style = if log.filtering() { styles.accent } else { styles.muted };
    Line::styled(truncate(&format!("{said}{filter}{follows}"), columns).into_owned(), style)
}

/// The proxy's breakpoints, how many messages it holds, and the keys that set and clear them.
fn breakpoints(app: &App, log: &TrafficLog, columns: usize, styles: &Styles) -> Line<'static> {
    let hold = log.hold();
    let set: Vec<String> = hold.breakpoints().iter().map(|b| visible(&b.to_string()).into_owned()).collect();
    let mut said = match set.is_empty() {
        true => "breakpoints: none".to_string(),
        false => format!("breakpoints: {}", set.join(", ")),
    };
    if hold.held_count() > 0 {
        said.push_str(&format!(" · {} held", hold.held_count()));
    }
    let (set_key, clear_key) =
        (app.key_name(Context::Traffic, Action::Break), app.key_name(Context::Traffic, Action::ClearBreaks));
    said.push_str(&format!(" · {set_key} breaks on the selected message, {clear_key} clears"));
    let style = if set.is_empty() { styles.muted } else { styles.accent };
    Line::styled(truncate(&said, columns).into_owned(), style)
}

fn row(entry: &TrafficEntry, tag: Option<&str>, selected: bool, columns: usize, styles: &Styles) -> Line<'static> {
    let marker = if selected { "▶" } else { " " };
    let at = format!("{marker}{:>8.3}s ", entry.at_ms as f64 / 1000.0);
    // What the proxy did with it: `held` stands out until it is released.
    let tag = tag.map(|tag| (format!("{tag} "), if tag == "held" { styles.error } else { styles.muted }));
    let style = match entry.direction {
        _ if selected => styles.selection,
        Direction::ClientToServer => styles.text,
        Direction::ServerToClient if entry.text.contains("\"error\":") => styles.error,
        Direction::ServerToClient if entry.text.ends_with(crate::wire::NOT_JSON_RPC) => styles.error,
        Direction::ServerToClient => styles.accent,
        Direction::Http => styles.muted,
        // The server's own log, beside the wire: read as an aside.
        Direction::ServerStderr => styles.muted,
    };
    let tag_width = tag.as_ref().map_or(0, |(tag, _)| tag.chars().count());
    let room = columns.saturating_sub(at.chars().count() + tag_width);
    let mut spans = vec![Span::styled(at, if selected { styles.selection } else { styles.muted })];
    spans.extend(tag.map(|(tag, tag_style)| Span::styled(tag, if selected { styles.selection } else { tag_style })));
    spans.push(Span::styled(truncate(&entry.summary(), room).into_owned(), style));
    Line::from(spans)
}

/// The message's lines from `scroll` on, long lines wrapped: only what fits is looked at.
fn message(entry: &TrafficEntry, scroll: usize, rows: usize, columns: usize, styles: &Styles) -> Vec<Line<'static>> {
    entry
        .text
        .lines()
        .flat_map(|line| {
            // Cut at the width rather than at spaces: JSON's indentation must stay.
            let chars: Vec<char> = visible(line).chars().collect();
            let pieces: Vec<String> = chars.chunks(columns.max(1)).map(|piece| piece.iter().collect()).collect();
            if pieces.is_empty() { vec![String::new()] } else { pieces }
        })
        .skip(scroll)
        .take(rows)
        .map(|line| Line::styled(line, styles.text))
        .collect()
}
