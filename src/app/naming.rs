//! Keys named in messages: the key in force for an action, where the person is (on the form,
//! where a letter types, the every-pane chord before the list's letter).

use super::keymap::{Action, Context};
use super::{App, Focus};

impl App {
    /// The name of the first key bound to `action` in `context`, for messages ("Ctrl-R runs").
    pub fn key_name(&self, context: Context, action: Action) -> String {
        self.keymap.key_name(context, action)
    }

    /// The key of a list-and-form command where the person is: on the form (where a letter types)
    /// its chord, in the list its letter first.
    pub fn key_here(&self, action: Action) -> String {
        let order = match self.focus {
            Focus::Form | Focus::Json => [Context::Form, Context::Typing, Context::Main],
            Focus::List | Focus::Result => [Context::Main, Context::Typing, Context::Form],
        };
        order.iter().find_map(|&context| self.keymap.name(context, action)).unwrap_or_else(|| action.name().into())
    }

    /// A message with `{key:action}` marks, each replaced by the key in force for that action
    /// (where the person is first): components name keys this way, never by writing them.
    pub fn say(&self, message: &str) -> String {
        let here = match self.focus {
            Focus::Result => [Context::Result, Context::Value, Context::Main, Context::Form],
            // On the form a letter types: the every-pane chords before the list's letters.
            Focus::Form | Focus::Json => [Context::Form, Context::Typing, Context::Main, Context::Result],
            Focus::List => [Context::Main, Context::Form, Context::Result, Context::Value],
        };
        let contexts =
            [here[0], here[1], here[2], here[3], Context::Typing, Context::Server, Context::History, Context::Ask];
        self.keymap.say(message, &contexts)
    }
}
