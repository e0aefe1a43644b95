//! The help overlay's shape, worked out here so the keys that scroll it and the screen that draws
//! it agree: which contexts it lists (those of the pane it was asked in, then those that work
//! everywhere), whether they stand side by side, and so how far it can scroll at this size.

use super::keymap::Context;
use super::{App, Focus, Overlay};
use crate::text::width;

/// The left and right columns of the overlay: the keys of the pane the help was asked in, and
/// those that work from every pane.
pub fn contexts(app: &App) -> (&'static [Context], &'static [Context]) {
    const EVERYWHERE: &[Context] = &[Context::Typing, Context::Anywhere];
    match app.focus {
        _ if app.shows(Overlay::Traffic) && app.server_pane().traffic().hold().editor().is_some() => {
            (&[Context::Held, Context::Traffic], &[Context::Anywhere])
        }
        _ if app.shows(Overlay::Traffic) => (&[Context::Traffic, Context::Held], EVERYWHERE),
        _ if app.shows(Overlay::Server) => (&[Context::Server], EVERYWHERE),
        Focus::Result if app.result.shows_value() => {
            (&[Context::Result], &[Context::Value, Context::Typing, Context::Anywhere])
        }
        Focus::Result => (&[Context::Result], EVERYWHERE),
        _ if app.shows(Overlay::Fuzz) => (&[Context::Fuzz], EVERYWHERE),
        _ if app.shows(Overlay::Eval) => (&[Context::Eval], EVERYWHERE),
        _ if app.typing() => (&[Context::Typing], &[Context::Anywhere]),
        Focus::Form => (&[Context::Form], EVERYWHERE),
        _ => (&[Context::Main], EVERYWHERE),
    }
}

/// How the overlay lies at this screen size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub side_by_side: bool,
    /// Lines of the taller column (or of both, one under the other).
    pub tallest: usize,
    /// Lines the overlay shows at once.
    pub visible: usize,
}

impl Shape {
    /// The furthest the overlay scrolls: its last line at the bottom.
    pub fn last_scroll(&self) -> usize {
        self.tallest.saturating_sub(self.visible)
    }
}

/// A context's heading in the overlay: the result pane's names the key that gets there, since
/// its keys work only there.
pub fn title(app: &App, context: Context) -> String {
    match app.keymap.name(Context::Main, super::Action::FocusResult) {
        Some(key) if context == Context::Result => format!("{} ({key})", context.title()),
        _ => context.title().to_string(),
    }
}

/// The overlay's shape on `app`'s screen.
pub fn shape(app: &App) -> Shape {
    let sections = app.keymap.help();
    let column = |contexts: &[Context]| -> (usize, usize) {
        let chosen: Vec<_> = contexts.iter().filter_map(|c| sections.iter().find(|(s, _)| s == c)).collect();
        let key_width = chosen.iter().flat_map(|(_, rows)| rows.iter().map(|(keys, _)| width(keys))).max().unwrap_or(0);
        let lines = chosen.iter().map(|(_, rows)| rows.len() + 1).sum::<usize>() + chosen.len().saturating_sub(1);
        let widest = chosen
            .iter()
            .flat_map(|(context, rows)| {
                let title = width(&title(app, *context));
                rows.iter().map(move |(_, help)| key_width + 2 + width(help)).chain(std::iter::once(title))
            })
            .max()
            .unwrap_or(0);
        (lines, widest)
    };
    let (left, right) = contexts(app);
    let ((left_lines, left_width), (right_lines, right_width)) = (column(left), column(right));
    let screen = app.size;
    let side_by_side = left_width + 2 + right_width + 2 <= usize::from(screen.0.saturating_sub(4));
    let tallest = if side_by_side { left_lines.max(right_lines) } else { left_lines + 1 + right_lines };
    // Borders, a blank line and the footer around the columns; never taller than the screen.
    let height = (tallest + 4).min(usize::from(screen.1.saturating_sub(2))).max(3);
    Shape { side_by_side, tallest, visible: height.saturating_sub(4) }
}

impl App {
    /// The help overlay scrolled no further than its last line shows, so ↑ moves it at once.
    pub(super) fn clamp_help(&mut self) {
        let last = shape(self).last_scroll();
        self.prompts.clamp_help(last);
    }
}
