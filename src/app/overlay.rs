//! The pane shown over the others: the server pane, the traffic pane, the fuzz pane, the eval
//! pane or the sign-in steps. One at a time, by construction: the one that shows is the one that takes the
//! keys, and opening one closes the one before.

use super::App;

/// Which pane is drawn over the list, form and result (above the status line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    /// The server pane: what the server says of itself, its stderr and log.
    Server,
    /// The session's traffic, message by message.
    Traffic,
    /// The last fuzz run and its findings.
    Fuzz,
    /// An eval run going on, or its results (or a report read from a file).
    Eval,
    /// A sign-in's steps. It is read, not worked in: only the Back key goes to it.
    Auth,
}

impl App {
    /// The pane over the others, if one is open.
    pub fn overlay(&self) -> Option<Overlay> {
        self.overlay
    }

    /// Whether `overlay` is the pane open over the others.
    pub fn shows(&self, overlay: Overlay) -> bool {
        self.overlay == Some(overlay)
    }

    /// `overlay` opens, in place of any other.
    pub(super) fn open_overlay(&mut self, overlay: Overlay) {
        self.overlay = Some(overlay);
    }

    /// The pane over the others closes.
    pub(super) fn close_overlay(&mut self) {
        self.overlay = None;
    }

    /// `overlay` closes if it is open, else opens in place of any other.
    pub(super) fn toggle_overlay(&mut self, overlay: Overlay) {
        self.overlay = if self.shows(overlay) { None } else { Some(overlay) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::InputMsg;
    use crate::app::{Msg, update};
    use crate::catalog::{LoadOptions, load_samples};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn press(app: &mut App, code: KeyCode) {
        update(app, Msg::Input(InputMsg::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    }

    /// The pane that shows is the pane that takes the keys: opening another over the sign-in
    /// steps (which take only Back) puts it in their place, and its Back leaves no pane behind.
    #[test]
    fn one_pane_over_the_others_and_it_takes_the_keys() {
        let loaded = load_samples(&LoadOptions::default());
        let mut app = App::new(loaded.catalog, &loaded.diagnostics, (120, 40));
        press(&mut app, KeyCode::Char('L'));
        assert_eq!(app.overlay(), Some(Overlay::Auth));
        press(&mut app, KeyCode::Char('i'));
        assert_eq!(app.overlay(), Some(Overlay::Server));
        press(&mut app, KeyCode::Char('X'));
        assert_eq!(app.overlay(), Some(Overlay::Server), "X means nothing in the server pane");
        press(&mut app, KeyCode::F(8));
        assert_eq!(app.overlay(), Some(Overlay::Traffic), "the traffic chord puts traffic in its place");
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.overlay(), None);
        press(&mut app, KeyCode::F(2));
        press(&mut app, KeyCode::F(2));
        assert_eq!(app.overlay(), None, "the server pane's chord opens and closes it");
    }
}
