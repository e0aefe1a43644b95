//! The result pane's keys. It reads its keys itself: the value viewer's table first while a
//! value shows (moving, folding), then the result pane's. What it does alone (scrolling, the
//! exchange, wrapping, finding, fetching, saving, links, the command `c` copies) it answers;
//! leaving the pane, running again, the items' selection and copying what the items view
//! shows are the app's.

use super::ResultPane;
use crate::app::keymap::{Action, Context};
use crate::app::{Component, Cx, Input, Reply};

impl Component for ResultPane {
    fn context(&self) -> Option<Context> {
        // Two tables, the value viewer's before the pane's: looked up in `handle`.
        None
    }

    fn handle(&mut self, input: Input, cx: &Cx) -> Option<Reply> {
        let action = match input {
            Input::Key(key) => {
                if self.shows_value()
                    && let Some(action) = cx.keymap.action_for(Context::Value, key)
                {
                    if action == Action::Activate
                        && let Some(popup) = self.string_as_text()
                    {
                        return Some(Reply::popup(popup));
                    }
                    if self.value_action(action, cx.value_height) {
                        return Some(Reply::default());
                    }
                }
                cx.keymap.action_for(Context::Result, key)?
            }
            Input::Action(action) => action,
            Input::Paste(_) => return None,
        };
        if (self.shows_items() && self.scroll_items(action, cx.value_height, cx.item_rows))
            || self.scroll_action(action, cx.result_width)
        {
            return Some(Reply::default());
        }
        self.act(action, cx.endpoint, cx.protocol.as_deref())
    }
}

impl ResultPane {
    /// Scrolling the items view (`rows` rows, `height` of them shown) by rows, so a tall item
    /// (a long error, a wrapped line) reads to its last row: ↑ ↓ a row, PgUp PgDn a page,
    /// Home End; false when `action` is no scroll. Never past the last page: the window stays
    /// full.
    fn scroll_items(&mut self, action: Action, height: usize, rows: usize) -> bool {
        let last = rows.saturating_sub(height);
        let scroll = &mut self.scroll;
        *scroll = match action {
            Action::Up => scroll.saturating_sub(1),
            Action::Down => *scroll + 1,
            Action::PageUp => scroll.saturating_sub(height.saturating_sub(1).max(1)),
            Action::PageDown => *scroll + height.saturating_sub(1).max(1),
            Action::Top => 0,
            Action::Bottom => last,
            _ => return false,
        }
        .min(last);
        true
    }
}
