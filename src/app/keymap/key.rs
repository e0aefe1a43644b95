//! One key as a binding names it, parsed from the config's names and shown by the same names.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key, as a binding names it: Shift is not a modifier here, it is in the character ('K')
/// or the key (BackTab), which is how terminals report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

impl Key {
    pub const fn plain(code: KeyCode) -> Key {
        Key { code, ctrl: false, alt: false }
    }

    pub const fn char(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Key {
        Key { code: KeyCode::Char(c), ctrl: true, alt: false }
    }

    pub const fn alt(code: KeyCode) -> Key {
        Key { code, ctrl: false, alt: true }
    }

    /// The key a terminal event is, for matching against bindings.
    pub fn of(event: KeyEvent) -> Key {
        Key {
            code: event.code,
            ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
            alt: event.modifiers.contains(KeyModifiers::ALT),
        }
    }

    /// A key that cannot be typed into a text: a chord or a function key.
    pub fn is_command_only(&self) -> bool {
        self.ctrl || self.alt || matches!(self.code, KeyCode::F(_))
    }

    /// A key that types a character into a text (a letter, a digit, Space, a sign).
    pub fn is_printable(&self) -> bool {
        !self.ctrl && !self.alt && matches!(self.code, KeyCode::Char(_))
    }

    /// One of a text box's own editing chords (Ctrl-A, E, K, U, W), which every box keeps.
    pub fn is_editing_chord(&self) -> bool {
        self.ctrl && !self.alt && matches!(self.code, KeyCode::Char('a' | 'e' | 'k' | 'u' | 'w'))
    }

    /// `ctrl-r`, `alt-up`, `f5`, `q`, `K`, `shift-tab`, `space`, `?`: modifiers and named keys in
    /// any case, a single character as it is typed.
    pub fn parse(text: &str) -> Result<Key, KeyError> {
        let mut rest = text;
        let (mut ctrl, mut alt, mut shift) = (false, false, false);
        // A lone "-" is a key, not a separator.
        while let Some((modifier, after)) = rest.split_once('-').filter(|(_, after)| !after.is_empty()) {
            match modifier.to_ascii_lowercase().as_str() {
                "ctrl" | "control" => ctrl = true,
                "alt" | "meta" => alt = true,
                "shift" => shift = true,
                _ => break,
            }
            rest = after;
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if ctrl { c.to_ascii_lowercase() } else { c }),
            _ => named(&rest.to_ascii_lowercase()).ok_or_else(|| KeyError::Unknown(text.to_string()))?,
        };
        let code = match (shift, code) {
            (false, code) => code,
            (true, KeyCode::Char(c)) if c.is_alphabetic() && !ctrl => KeyCode::Char(c.to_ascii_uppercase()),
            (true, KeyCode::Tab | KeyCode::BackTab) => KeyCode::BackTab,
            (true, _) => {
                return Err(KeyError::Shift(text.to_string()));
            }
        };
        Ok(Key { code, ctrl, alt })
    }
}

/// Why a key's name in the config file names no key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("\"{0}\" is not a key")]
    Unknown(String),
    #[error("\"{0}\": shift goes with a letter or tab (write \"K\", not \"shift-k\")")]
    Shift(String),
}

fn named(name: &str) -> Option<KeyCode> {
    Some(match name {
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "space" => KeyCode::Char(' '),
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "insert" | "ins" => KeyCode::Insert,
        "delete" | "del" => KeyCode::Delete,
        "backspace" => KeyCode::Backspace,
        "minus" => KeyCode::Char('-'),
        f if f.starts_with('f') => KeyCode::F(f[1..].parse().ok().filter(|n| (1..=24).contains(n))?),
        _ => return None,
    })
}

/// How the help and the hints show it: `Ctrl-R`, `Alt-↑`, `PgUp`, `Space`, `K`.
impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) if self.ctrl => write!(f, "{}", c.to_ascii_uppercase()),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::Insert => f.write_str("Ins"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}
