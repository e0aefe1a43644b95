//! Keys that type: the text box's own keys, not the keymap's. Every text box (fields, the JSON
//! view, the filter, prompts, a server's questions) takes the same ones through [`edit_input`]
//! and leaves by the same ones ([`leaves_box`]). Chords bound in the keymap's every-pane context
//! are looked up before a box sees a key, so none types.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::{Action, Context, Keymap};
use crate::form::TextInput;

/// The keys of `context` in the table that leave a text box (Back, and Next or Previous field: by
/// default Esc, Tab and Shift-Tab) when `key` is one and cannot type: `Some(0)` to stop, `Some(±1)` to stop
/// and move on. A printable key always types into the box the person chose.
pub(super) fn leaves_box(keymap: &Keymap, context: Context, key: KeyEvent) -> Option<isize> {
    if is_editing_key(key) {
        return None;
    }
    match keymap.action_for(context, key)? {
        Action::Back => Some(0),
        Action::NextField => Some(1),
        Action::PreviousField => Some(-1),
        _ => None,
    }
}

/// True when `key` is one of a text box's own keys (what [`edit_input`] acts on, besides Enter
/// and Tab in a multi-line box): a box that has the keys takes these, and leaves the others to
/// the keymap.
pub fn is_editing_key(key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Char('w' | 'u' | 'k' | 'a' | 'e') if ctrl => !alt,
        KeyCode::Char(_) => !ctrl && !alt,
        KeyCode::Backspace | KeyCode::Delete | KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End => true,
        _ => false,
    }
}

/// Applies an editing key to a text: true when the text changed. Moving the cursor is no change,
/// nor is a key that is not an edit, nor a deletion with nothing to delete: the callers re-parse
/// and mark a field set only on a change.
pub fn edit_input(input: &mut TextInput, key: KeyEvent, multiline: bool) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let length = input.text().len();
    match key.code {
        KeyCode::Char('w') if ctrl => input.delete_word_left(),
        KeyCode::Char('u') if ctrl => input.delete_to_line_start(),
        KeyCode::Char('k') if ctrl => input.delete_to_line_end(),
        KeyCode::Char('a') if ctrl => input.home(),
        KeyCode::Char('e') if ctrl => input.end(),
        KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => input.insert_char(c),
        KeyCode::Backspace if ctrl => input.delete_word_left(),
        KeyCode::Backspace => input.backspace(),
        KeyCode::Delete => input.delete(),
        KeyCode::Left if ctrl => input.word_left(),
        KeyCode::Right if ctrl => input.word_right(),
        KeyCode::Left => input.left(),
        KeyCode::Right => input.right(),
        KeyCode::Home => input.home(),
        KeyCode::End => input.end(),
        KeyCode::Up if multiline => {
            input.up();
        }
        KeyCode::Down if multiline => {
            input.down();
        }
        KeyCode::Enter if multiline => input.insert_char('\n'),
        KeyCode::Tab if multiline => input.insert_str("  ", true),
        _ => return false,
    }
    // Every edit above inserts or deletes, so the length tells whether one happened.
    input.text().len() != length
}
