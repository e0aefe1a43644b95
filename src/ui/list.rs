//! The tool list pane.

use crate::catalog::Face;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane;
use crate::app::layout::inner;
use crate::app::list::Row;
use crate::app::{App, Focus};
use crate::text::{truncate, visible};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let filtering = app.list.filtering() || !app.list.filter().text().is_empty();
    let mut title = if filtering {
        format!("tools {}/{}", app.list.tool_count(), app.catalog.len())
    } else {
        // Resources, templates and prompts are listed below the tools, counted apart; a server
        // that is not connected is neither.
        let count = |face: fn(&Face) -> bool| app.catalog.tools().iter().filter(|t| face(&t.written.face)).count();
        let others = count(|f| matches!(f, Face::Resource { .. } | Face::Template { .. } | Face::Prompt { .. }));
        let tools = count(Face::is_tool);
        match others {
            0 => format!("tools ({tools})"),
            _ => format!("tools ({tools}) · {others} resources/prompts"),
        }
    };
    // The server's tools are on their way: the list is not all there is yet.
    if app.server().listing() {
        title.push_str(" · listing…");
    }
    if app.loading {
        title.push_str(" · loading…");
    }
    let focused = app.focus == Focus::List;
    frame.render_widget(pane(&title, focused, styles), area);
    let mut body = inner(area);
    if filtering {
        let filter = Line::from(vec![
            Span::styled("/", styles.key_hint),
            Span::styled(visible(app.list.filter().text()).into_owned(), styles.text),
        ]);
        frame.render_widget(Paragraph::new(filter), Rect { height: 1, ..body });
        if app.list.filtering() {
            let column = app.list.filter().text()[..app.list.filter().cursor()].chars().count() as u16;
            frame.set_cursor_position((body.x + 1 + column.min(body.width.saturating_sub(2)), body.y));
        }
        body.y += 1;
        body.height = body.height.saturating_sub(1);
    }
    let width = usize::from(body.width);
    let lines: Vec<Line> = app
        .list
        .entries()
        .iter()
        .enumerate()
        .skip(app.list.offset())
        .take(usize::from(body.height))
        .map(|(i, entry)| match entry {
            Row::Group(source) => Line::styled(group_label(source, width), styles.muted),
            Row::Section(section) => Line::styled(format!("  {section}"), styles.muted),
            Row::Tool(t) => {
                let tool = &app.catalog.tools()[*t];
                let selected = app.list.selected() == Some(i);
                // A tool with an MCP App says so at the end of its row (`A` hosts it).
                let mark = tool.written.app.as_ref().map(|a| format!(" {}", a.mark())).unwrap_or_default();
                let room = width.saturating_sub(2 + mark.chars().count());
                // A second server's tool of a name another has (`#2`) says so, also where the
                // filter hides the group headers.
                let clash = tool.written.listed_id.as_deref().and_then(|wire| tool.id.strip_prefix(wire)).unwrap_or("");
                let label = truncate(&visible(&format!("{}{clash}", tool.display_title())), room).into_owned();
                let style = if selected { styles.selection } else { styles.text };
                let marker = if selected { "› " } else { "  " };
                Line::from(vec![
                    Span::styled(marker, style),
                    Span::styled(format!("{label:<room$}"), style),
                    Span::styled(mark, styles.accent),
                ])
            }
        })
        .collect();
    if lines.is_empty() {
        let message = match (filtering, app.loading, app.server().listing()) {
            (true, _, _) => "no tool matches".to_string(),
            (false, true, _) => loading_message(app.load_progress),
            (false, false, true) => "asking the server for its tools…".to_string(),
            (false, false, false) => "no tools loaded".to_string(),
        };
        let lines = crate::text::wrap(&message, usize::from(body.width), usize::from(body.height));
        frame.render_widget(
            Paragraph::new(lines.into_iter().map(|l| Line::styled(l, styles.muted)).collect::<Vec<_>>()),
            body,
        );
        return;
    }
    frame.render_widget(Paragraph::new(lines), body);
}

/// `reading the definition files… 120 of 1000 (3.1 MB of 29 MB)`.
fn loading_message(progress: Option<crate::catalog::LoadProgress>) -> String {
    let Some(p) = progress else { return "reading the definition files…".to_string() };
    let plural = if p.files == 1 { "" } else { "s" };
    let bytes = crate::text::human_bytes;
    format!(
        "reading {} definition file{plural}… {} of {} read ({} of {})",
        p.files,
        p.files_done,
        p.files,
        bytes(p.bytes_done),
        bytes(p.bytes)
    )
}

/// A group's header: a file's path cut from the left, so the file name stays readable; a server
/// started by a command named by its program and arguments with their folders left out (the tail
/// of a long command would show only its last argument), cut from the right.
fn group_label(source: &str, width: usize) -> String {
    let source = visible(source);
    if let Some(command) = source.strip_prefix("mcp:stdio ") {
        let words: Vec<&str> = command.split(' ').map(without_folders).collect();
        return truncate(&format!("mcp:stdio {}", words.join(" ")), width).into_owned();
    }
    let chars: Vec<char> = source.chars().collect();
    if chars.len() <= width {
        return source.into_owned();
    }
    let keep = width.saturating_sub(1);
    format!("…{}", chars[chars.len() - keep..].iter().collect::<String>())
}

/// `/usr/lib/node_modules/.bin/server` → `server`; a URL or an option stays as written.
fn without_folders(word: &str) -> &str {
    if word.contains("://") || word.starts_with('-') {
        return word;
    }
    match word.rsplit_once('/') {
        Some((_, name)) if !name.is_empty() => name,
        _ => word,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_group_is_named_by_its_program_not_the_tail_of_its_command() {
        let label = "mcp:stdio /work/scratch/node_modules/.bin/mcp-server-everything --port 3";
        assert_eq!(group_label(label, 80), "mcp:stdio mcp-server-everything --port 3");
        assert_eq!(group_label("mcp:stdio node /srv/app/server.js", 80), "mcp:stdio node server.js");
        assert_eq!(group_label("/a/very/long/folder/tools.json", 12), "…/tools.json");
    }
}
