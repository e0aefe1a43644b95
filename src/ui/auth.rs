//! The auth pane, over the main screen while a sign-in runs and after: each step as it happened
//! (already masked by the flow), then how it ended. Server text goes through `text::visible`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use super::pane;
use crate::app::App;
use crate::app::keymap::{Action, Context};
use crate::app::layout::inner;
use crate::invoke::auth::StepKind;
use crate::text::{visible, wrap};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let pane_state = &app.auth;
    frame.render_widget(Clear, area);
    let title = format!("sign in · {}", visible(app.server().endpoint()));
    frame.render_widget(pane(&title, true, styles).style(styles.base), area);
    let body = inner(area);
    let columns = usize::from(body.width).max(10);
    let mut lines: Vec<Line> = Vec::new();
    for step in pane_state.steps() {
        let (mark, style) = match step.kind {
            StepKind::Failed => ("✗ ", styles.error),
            StepKind::Skipped => ("· ", styles.muted),
            StepKind::Browser => ("→ ", styles.accent),
            StepKind::Found => ("✓ ", styles.ok),
            StepKind::Request => ("  ", styles.text),
        };
        for (n, part) in wrap(&visible(&step.text), columns.saturating_sub(2), 6).into_iter().enumerate() {
            lines.push(Line::styled(format!("{}{part}", if n == 0 { mark } else { "  " }), style));
        }
    }
    match &pane_state.outcome() {
        None if pane_state.running() => lines.push(Line::styled("waiting…", styles.muted)),
        None => {}
        Some(Ok(said)) => lines.push(Line::styled(visible(said).into_owned(), styles.ok)),
        Some(Err(why)) => {
            let again = app.key_name(Context::Main, Action::SignIn);
            for part in wrap(&format!("✗ {} ({again} tries again)", visible(&why.to_string())), columns, 6) {
                lines.push(Line::styled(part, styles.error));
            }
        }
    }
    let close = app.key_name(Context::Main, Action::Back);
    lines.push(Line::styled(format!("{close} closes"), styles.muted));
    // The newest steps stay in view.
    let rows = usize::from(body.height);
    let skip = lines.len().saturating_sub(rows);
    frame.render_widget(Paragraph::new(lines.split_off(skip)), body);
}
