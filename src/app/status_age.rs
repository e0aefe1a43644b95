//! How old the status line's message is. A message is about what happened last: the next key
//! makes it stale at once, and time does too, so a message nobody answers does not stay on
//! screen for good. The app reads no clock: the runtime's clock tick (`InputMsg::Clock`) carries the
//! time, and a message's age counts from the first tick that saw it.

use super::App;

/// A message dims this long after it was first shown...
pub const DIM_AFTER_MS: u64 = 6_000;
/// ...and is cleared (the pane's key hints come back) this long after.
pub const CLEAR_AFTER_MS: u64 = 12_000;

#[derive(Debug, Default)]
pub struct StatusAge {
    /// When the clock first saw the message now shown; `None` until the next tick.
    since_ms: Option<u64>,
    /// The message has been on screen long enough to be dimmed.
    stale: bool,
}

impl StatusAge {
    /// A new message (or the same one said again): its age starts over.
    pub fn restart(&mut self) {
        *self = StatusAge::default();
    }

    pub fn stale(&self) -> bool {
        self.stale
    }
}

impl App {
    /// The status line's message is dimmed: it is about something a while ago.
    pub fn status_stale(&self) -> bool {
        self.status.is_some() && self.status_age.stale()
    }

    /// Whether the runtime should keep sending clock ticks: only a message ages.
    pub fn wants_clock(&self) -> bool {
        self.status.is_some()
    }

    /// The clock says it is `now_ms`: dim the message, then clear it.
    pub(super) fn clock(&mut self, now_ms: u64) {
        if self.status.is_none() {
            self.status_age.restart();
            return;
        }
        let since = *self.status_age.since_ms.get_or_insert(now_ms);
        let age = now_ms.saturating_sub(since);
        if age >= CLEAR_AFTER_MS {
            self.status = None;
            self.status_age.restart();
        } else {
            self.status_age.stale = age >= DIM_AFTER_MS;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::InputMsg;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::*;
    use crate::app::{Msg, update};
    use crate::catalog::Catalog;

    fn app_saying(message: &str) -> App {
        let mut app = App::new(Catalog::default(), &[], (80, 24));
        let _ = update(&mut app, Msg::Said(message.into()));
        app
    }

    fn tick(app: &mut App, now_ms: u64) {
        let _ = update(app, Msg::Input(InputMsg::Clock { now_ms }));
    }

    #[test]
    fn a_message_dims_then_clears_as_the_ticks_go_by() {
        let mut app = app_saying("saved to cases.yaml");
        assert!(app.wants_clock());
        // The first tick that sees it starts its age, whatever the clock reads.
        tick(&mut app, 50_000);
        for now in (50_000..50_000 + DIM_AFTER_MS).step_by(500) {
            tick(&mut app, now);
            assert!(!app.status_stale(), "fresh at {now}");
        }
        tick(&mut app, 50_000 + DIM_AFTER_MS);
        assert!(app.status_stale(), "dimmed");
        assert_eq!(app.status.as_deref(), Some("saved to cases.yaml"), "still readable");
        tick(&mut app, 50_000 + CLEAR_AFTER_MS - 1);
        assert!(app.status.is_some());
        tick(&mut app, 50_000 + CLEAR_AFTER_MS);
        assert_eq!(app.status, None, "cleared");
        assert!(!app.status_stale() && !app.wants_clock(), "nothing left to age");
    }

    #[test]
    fn a_new_message_starts_its_age_over() {
        let mut app = app_saying("first");
        tick(&mut app, 0);
        tick(&mut app, DIM_AFTER_MS);
        assert!(app.status_stale());
        let _ = update(&mut app, Msg::Said("second".into()));
        assert!(!app.status_stale(), "a new message is never shown dimmed");
        tick(&mut app, DIM_AFTER_MS + 100);
        tick(&mut app, CLEAR_AFTER_MS + 100);
        assert_eq!(app.status.as_deref(), Some("second"), "its age counts from its own first tick");
        tick(&mut app, DIM_AFTER_MS + 100 + CLEAR_AFTER_MS);
        assert_eq!(app.status, None);
    }

    #[test]
    fn the_same_message_said_again_by_a_key_is_fresh() {
        let mut app = App::new(Catalog::default(), &[], (80, 24));
        let key = |app: &mut App| {
            let _ = update(app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE))));
        };
        key(&mut app);
        let said = app.status.clone().expect("x with no result says so");
        tick(&mut app, 0);
        tick(&mut app, DIM_AFTER_MS + 1);
        assert!(app.status_stale());
        key(&mut app);
        assert_eq!(app.status.as_deref(), Some(said.as_str()));
        assert!(!app.status_stale(), "said again: fresh");
        tick(&mut app, CLEAR_AFTER_MS + 1);
        assert!(app.status.is_some(), "its age starts over at the key");
    }

    #[test]
    fn ticks_without_a_message_do_nothing() {
        let mut app = App::new(Catalog::default(), &[], (80, 24));
        assert!(!app.wants_clock());
        tick(&mut app, 1_000_000);
        assert_eq!(app.status, None);
        assert!(!app.status_stale());
    }
}
