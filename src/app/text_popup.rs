//! The text popup's shape (a string of the result, the server's instructions, a definition, the
//! lint notes): its rows wrapped at the box's width, worked out here so the keys that scroll it
//! and the screen that draws it agree on where its last page starts.

use super::App;
use crate::text::{visible, wrap_keep};

/// The box's inside at a screen of `size`: the popup takes the screen but a margin.
pub fn body(size: (u16, u16)) -> (usize, usize) {
    let width = size.0.saturating_sub(4).max(10).saturating_sub(2);
    let height = size.1.saturating_sub(2).max(3).saturating_sub(2);
    (usize::from(width), usize::from(height))
}

/// `text`'s rows at `columns` cells: each line made visible and wrapped, every character kept.
pub fn rows(text: &str, columns: usize) -> Vec<String> {
    text.lines().flat_map(|line| wrap_keep(&visible(line), columns)).collect()
}

/// The furthest the popup scrolls: its last row at the bottom of the box.
pub fn last_scroll(text: &str, size: (u16, u16)) -> usize {
    let (width, height) = body(size);
    rows(text, width).len().saturating_sub(height)
}

impl App {
    /// The text popup kept to its last page (see [`super::prompts::Prompts::clamp_text`]).
    pub(super) fn clamp_text(&mut self) {
        self.prompts.clamp_text(self.size);
    }
}

#[cfg(test)]
mod tests {
    use crate::app::InputMsg;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::*;
    use crate::app::{Msg, Popup, update};
    use crate::catalog::Catalog;

    fn press(app: &mut App, code: KeyCode) {
        let _ = update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    }

    #[test]
    fn end_shows_the_last_page_and_up_moves_at_once() {
        let mut app = App::new(Catalog::default(), &[], (80, 24));
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        app.prompts.open(Popup::Text { title: "t".into(), text, scroll: 0 });
        let (_, height) = body(app.size);
        press(&mut app, KeyCode::End);
        let Some(Popup::Text { scroll, .. }) = &app.prompts.popup() else { panic!("still open") };
        assert_eq!(*scroll, 100 - height, "the last {height} lines fill the box");
        press(&mut app, KeyCode::Up);
        let Some(Popup::Text { scroll, .. }) = &app.prompts.popup() else { panic!("still open") };
        assert_eq!(*scroll, 100 - height - 1);
    }

    #[test]
    fn a_text_shorter_than_the_box_does_not_scroll() {
        let mut app = App::new(Catalog::default(), &[], (80, 24));
        app.prompts.open(Popup::Text { title: "t".into(), text: "one\ntwo".into(), scroll: 0 });
        for code in [KeyCode::End, KeyCode::Down, KeyCode::PageDown] {
            press(&mut app, code);
            let Some(Popup::Text { scroll, .. }) = &app.prompts.popup() else { panic!("still open") };
            assert_eq!(*scroll, 0, "{code:?}");
        }
    }

    #[test]
    fn long_lines_count_as_the_rows_they_wrap_to() {
        let text = format!("{}\nend", "word ".repeat(100));
        let (width, _) = body((80, 24));
        let rows = rows(&text, width);
        assert!(rows.len() > 2, "{rows:?}");
        assert_eq!(rows.last().map(String::as_str), Some("end"));
        assert!(rows.iter().all(|r| crate::text::width(r) <= width));
    }
}
