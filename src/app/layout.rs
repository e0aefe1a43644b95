//! Where everything goes on screen, from the terminal size alone: the renderer draws into these
//! areas and `update` maps mouse clicks through them, so both always agree.

use ratatui::layout::Rect;

/// Smaller than this, the app shows "terminal too small" until it grows again.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 20;

/// True below the minimum: nothing but "terminal too small" is drawn, and keys wait (quitting
/// aside) so that nothing changes where the person cannot see it.
pub fn too_small((width, height): (u16, u16)) -> bool {
    width < MIN_WIDTH || height < MIN_HEIGHT
}
/// Lines of the tool's header (title, id, description, examples, requirements, tile) with borders.
pub const DETAIL_HEIGHT: u16 = 8;

/// How much of the screen the result pane gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultSize {
    Open,
    /// The result of another tool than the one selected: its status line only.
    Folded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Layout {
    pub too_small: bool,
    pub list: Rect,
    pub detail: Rect,
    pub form: Rect,
    pub json: Option<Rect>,
    /// The last call's result, below the form, once there is one.
    pub result: Option<Rect>,
    pub status: Rect,
}

impl Layout {
    pub fn new(size: (u16, u16), json_open: bool) -> Layout {
        Layout::with_result(size, json_open, false)
    }

    pub fn with_result(size: (u16, u16), json_open: bool, result_open: bool) -> Layout {
        Layout::with_result_size(size, json_open, result_open.then_some(ResultSize::Open))
    }

    /// The focused pane over the whole screen but the status line; the others have no room.
    /// `header` is the rows the tool's header would take whole (zooming the form grows it to
    /// that, up to half the screen, and no further: a short description leaves no blank rows).
    pub fn zoomed(self, focus: super::Focus, header: u16) -> Layout {
        if self.too_small {
            return self;
        }
        let whole = Rect::new(0, 0, self.status.width, self.status.y);
        let none = Rect::new(0, 0, 0, 0);
        let mut zoomed = Layout { list: none, detail: none, form: none, json: None, result: None, ..self };
        match focus {
            super::Focus::List => zoomed.list = whole,
            super::Focus::Form => {
                // The tool's header grows too, so a long description reads whole.
                let most = (whole.height / 2).max(DETAIL_HEIGHT);
                let header = header.clamp(DETAIL_HEIGHT, most).min(whole.height.saturating_sub(6));
                zoomed.detail = Rect { height: header, ..whole };
                zoomed.form = Rect { y: header, height: whole.height - header, ..whole };
            }
            super::Focus::Json => zoomed.json = Some(whole),
            super::Focus::Result if self.result.is_some() => zoomed.result = Some(whole),
            super::Focus::Result => zoomed.form = whole,
        }
        zoomed
    }

    pub fn with_result_size((width, height): (u16, u16), json_open: bool, result: Option<ResultSize>) -> Layout {
        Layout::fitted((width, height), json_open, result, false)
    }

    /// [`Layout::with_result_size`]; a form with `no_fields` keeps only a few lines beside a
    /// result, which gets the room.
    pub fn fitted((width, height): (u16, u16), json_open: bool, result: Option<ResultSize>, no_fields: bool) -> Layout {
        if too_small((width, height)) {
            return Layout { too_small: true, ..Layout::default() };
        }
        let body = height - 1;
        let list_width = (width * 3 / 10).clamp(24, 44);
        let right_x = list_width;
        let right_width = width - list_width;
        let detail = Rect::new(right_x, 0, right_width, DETAIL_HEIGHT);
        let mut form_area = Rect::new(right_x, DETAIL_HEIGHT, right_width, body - DETAIL_HEIGHT);
        let result = result.map(|size| {
            // The result takes the lower half, the form keeps at least 6 lines; folded, it is
            // one line in its borders.
            let height = match size {
                ResultSize::Open if no_fields && !json_open => form_area.height.saturating_sub(4).max(4),
                ResultSize::Open => (form_area.height / 2).min(form_area.height.saturating_sub(6)).max(4),
                ResultSize::Folded => 3,
            };
            form_area.height -= height;
            Rect { y: form_area.y + form_area.height, height, ..form_area }
        });
        let (form, json) = if json_open {
            let half = form_area.width / 2;
            (
                Rect { width: half, ..form_area },
                Some(Rect { x: form_area.x + half, width: form_area.width - half, ..form_area }),
            )
        } else {
            (form_area, None)
        };
        Layout {
            too_small: false,
            list: Rect::new(0, 0, list_width, body),
            detail,
            form,
            json,
            result,
            status: Rect::new(0, body, width, 1),
        }
    }
}

/// Inside a bordered block.
pub fn inner(area: Rect) -> Rect {
    Rect { x: area.x + 1, y: area.y + 1, width: area.width.saturating_sub(2), height: area.height.saturating_sub(2) }
}

pub fn contains(area: Rect, column: u16, row: u16) -> bool {
    column >= area.x && column < area.x + area.width && row >= area.y && row < area.y + area.height
}

impl super::App {
    /// Rows the selected tool's header takes whole at the screen's width: its borders, the
    /// heading, the description's wrapped lines and the lines under it (`ui::detail` draws them:
    /// its traits, then examples, lint, needs and tile when there are).
    pub(super) fn header_rows(&self) -> u16 {
        let Some(tool) = self.selected_tool() else { return 0 };
        let columns = usize::from(self.size.0.saturating_sub(2)).max(1);
        let description = tool.description.as_deref().unwrap_or("");
        let lines: usize = description.lines().map(|line| crate::text::wrap_whole(line, columns).len().max(1)).sum();
        let requirements = &tool.requirements;
        let under = [
            !tool.examples.is_empty(),
            self.lint_line(&tool.id).is_some(),
            !requirements.authorization.is_empty() || !requirements.secrets.is_empty(),
            tool.ui.tile.is_some(),
        ];
        let under = 1 + under.iter().filter(|shown| **shown).count();
        u16::try_from(3 + lines + under).unwrap_or(u16::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_tile_the_screen() {
        let layout = Layout::new((120, 40), false);
        assert!(!layout.too_small);
        assert_eq!(layout.list.width + layout.detail.width, 120);
        assert_eq!(layout.form.y + layout.form.height, 39);
        assert_eq!(layout.status.y, 39);
        let with_json = Layout::new((120, 40), true);
        let json = with_json.json.expect("json area");
        assert_eq!(with_json.form.width + json.width, layout.form.width);
    }

    #[test]
    fn too_small_below_the_minimum() {
        assert!(Layout::new((59, 40), false).too_small);
        assert!(Layout::new((120, 19), false).too_small);
        assert!(!Layout::new((60, 20), false).too_small);
    }
}
