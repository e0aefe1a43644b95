//! How old the status line's message is. A message is about what happened last: the next key
//! makes it stale at once, and time does too, so a message nobody answers does not stay on
//! screen for good. The app reads no clock: the runtime's clock tick (`InputMsg::Clock`) carries the
//! time, and a message's age counts from the first tick that saw it.

use super::App;

/// A message dims this long after it was first shown...
pub const DIM_AFTER_MS: u64 = 6_000;
/// ...and is cleared (the pane's key hints come back) this long after.
pub const CLEAR_AFTER_MS: u64 = 12_000;

/// The status bar's one-line message and how old it is. Its fields are private to this module:
/// every message is said through `App::tell` (a pane's through its `Reply.status`, which
/// `App::apply` tells) and cleared through `App::hush`, so none is set one way and aged another.
#[derive(Debug, Default)]
pub struct StatusLine {
    text: Option<String>,
    age: StatusAge,
}

#[derive(Debug, Default)]
struct StatusAge {
    /// When the clock first saw the message now shown; `None` until the next tick.
    since_ms: Option<u64>,
    /// The message has been on screen long enough to be dimmed.
    stale: bool,
}

impl App {
    /// The status line's message, if there is one (else the pane's key hints show).
    pub fn status(&self) -> Option<&str> {
        self.status.text.as_deref()
    }

    /// The one way a message reaches the status line.
    pub(super) fn set_status(&mut self, line: Option<String>) {
        self.status.text = line;
    }

    /// `message` on the status line.
    pub(super) fn tell(&mut self, message: impl Into<String>) {
        self.set_status(Some(message.into()));
    }

    /// The status line goes back to the pane's key hints.
    pub(super) fn hush(&mut self) {
        self.set_status(None);
    }

    /// The message, taken off the status line (to be said again with more).
    pub(super) fn take_status(&mut self) -> Option<String> {
        self.status.text.take()
    }

    /// After a message was handled: a message said anew (or again, after a key) is fresh, its age
    /// starts over.
    pub(super) fn status_said(&mut self, before: Option<&str>, keyed: bool) {
        if self.status.text.is_some() && (keyed || self.status() != before) {
            self.status.age = StatusAge::default();
        }
    }

    /// The status line's message is dimmed: it is about something a while ago.
    pub fn status_stale(&self) -> bool {
        self.status.text.is_some() && self.status.age.stale
    }

    /// Whether the runtime should keep sending clock ticks: only a message ages.
    pub fn wants_clock(&self) -> bool {
        self.status.text.is_some()
    }

    /// The clock says it is `now_ms`: dim the message, then clear it.
    pub(super) fn clock(&mut self, now_ms: u64) {
        let line = &mut self.status;
        if line.text.is_none() {
            line.age = StatusAge::default();
            return;
        }
        let since = *line.age.since_ms.get_or_insert(now_ms);
        let age = now_ms.saturating_sub(since);
        if age >= CLEAR_AFTER_MS {
            *line = StatusLine::default();
        } else {
            line.age.stale = age >= DIM_AFTER_MS;
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
        let _ = update(&mut app, Msg::Status(message.into()));
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
        assert_eq!(app.status(), Some("saved to cases.yaml"), "still readable");
        tick(&mut app, 50_000 + CLEAR_AFTER_MS - 1);
        assert!(app.status().is_some());
        tick(&mut app, 50_000 + CLEAR_AFTER_MS);
        assert_eq!(app.status(), None, "cleared");
        assert!(!app.status_stale() && !app.wants_clock(), "nothing left to age");
    }

    #[test]
    fn a_new_message_starts_its_age_over() {
        let mut app = app_saying("first");
        tick(&mut app, 0);
        tick(&mut app, DIM_AFTER_MS);
        assert!(app.status_stale());
        let _ = update(&mut app, Msg::Status("second".into()));
        assert!(!app.status_stale(), "a new message is never shown dimmed");
        tick(&mut app, DIM_AFTER_MS + 100);
        tick(&mut app, CLEAR_AFTER_MS + 100);
        assert_eq!(app.status(), Some("second"), "its age counts from its own first tick");
        tick(&mut app, DIM_AFTER_MS + 100 + CLEAR_AFTER_MS);
        assert_eq!(app.status(), None);
    }

    #[test]
    fn the_same_message_said_again_by_a_key_is_fresh() {
        let mut app = App::new(Catalog::default(), &[], (80, 24));
        let key = |app: &mut App| {
            let _ = update(app, Msg::Input(InputMsg::Key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE))));
        };
        key(&mut app);
        let said = app.status().map(str::to_string).expect("x with no result says so");
        tick(&mut app, 0);
        tick(&mut app, DIM_AFTER_MS + 1);
        assert!(app.status_stale());
        key(&mut app);
        assert_eq!(app.status(), Some(said.as_str()));
        assert!(!app.status_stale(), "said again: fresh");
        tick(&mut app, CLEAR_AFTER_MS + 1);
        assert!(app.status().is_some(), "its age starts over at the key");
    }

    #[test]
    fn ticks_without_a_message_do_nothing() {
        let mut app = App::new(Catalog::default(), &[], (80, 24));
        assert!(!app.wants_clock());
        tick(&mut app, 1_000_000);
        assert_eq!(app.status(), None);
        assert!(!app.status_stale());
    }
}
