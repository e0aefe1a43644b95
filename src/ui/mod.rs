//! Drawing: `render` reads the app's state and never changes it. Every string that came from a
//! definition or a user goes through `text::visible` so it cannot move the cursor.

mod asks;
mod auth;
mod content;
mod describe;
mod detail;
mod eval;
mod form;
mod fuzz;
mod json;
mod list;
mod popup;
mod result;
mod server_pane;
mod status;
mod traffic;

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::app::keymap::{Action, Context};
use crate::app::layout::{MIN_HEIGHT, MIN_WIDTH};
use crate::app::{App, Overlay};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame) {
    let area = frame.area();
    frame.render_widget(Block::new().style(styles.base), area);
    let layout = app.layout();
    if layout.too_small {
        let lines = vec![
            Line::styled("terminal too small", styles.warning),
            Line::styled(format!("{}x{}, needs {MIN_WIDTH}x{MIN_HEIGHT}", area.width, area.height), styles.muted),
            Line::styled(
                format!("{} quits · the rest waits for it to grow", app.key_name(Context::Main, Action::Quit)),
                styles.muted,
            ),
        ];
        let y = area.height.saturating_sub(3) / 2;
        let line = Rect::new(0, y, area.width, area.height.saturating_sub(y));
        frame.render_widget(Paragraph::new(lines).alignment(Alignment::Center).wrap(Wrap { trim: true }), line);
        return;
    }
    // A zoomed pane leaves the others no room: they are not drawn.
    let shown = |area: Rect| area.width > 0 && area.height > 0;
    if shown(layout.list) {
        list::render(app, styles, frame, layout.list);
    }
    if shown(layout.detail) {
        detail::render(app, styles, frame, layout.detail);
    }
    if shown(layout.form) {
        form::render(app, styles, frame, layout.form);
    }
    if let Some(area) = layout.json {
        json::render(app, styles, frame, area);
    }
    if let Some(area) = layout.result {
        result::render(app, styles, frame, area);
    }
    if let Some(overlay) = app.overlay() {
        let above_status = Rect { height: area.height.saturating_sub(layout.status.height), ..area };
        match overlay {
            Overlay::Server => server_pane::render(app, styles, frame, above_status),
            Overlay::Fuzz => fuzz::render(app, styles, frame, above_status),
            Overlay::Eval => eval::render(app, styles, frame, above_status),
            Overlay::Traffic => traffic::render(app, styles, frame, above_status),
            Overlay::Auth => auth::render(app, styles, frame, above_status),
        }
    }
    status::render(app, styles, frame, layout.status);
    popup::render(app, styles, frame, area);
    asks::render(app, styles, frame, area);
}

/// A bordered pane with a title, its border showing whether it has the focus.
fn pane<'a>(title: &'a str, focused: bool, styles: &Styles) -> Block<'a> {
    Block::bordered().border_style(styles.border(focused)).title(Line::styled(format!(" {title} "), styles.title))
}
