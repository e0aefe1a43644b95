//! Why a user's key override cannot be used: each said with the action it is for, and where a
//! config file holds it, its line.

use super::{DEFAULTS, KeyError};

/// Why an override of the key table is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeymapError {
    #[error("\"{0}\" is not an action (actions: {all})", all = action_names().join(", "))]
    UnknownAction(String),
    #[error("{action}: {why}")]
    BadKey { action: String, why: KeyError },
    #[error("{action}: {key} would also mean {other} in {context}")]
    Conflict { action: String, key: String, other: String, context: &'static str },
    #[error("{action}: {key} works even while typing, so it must be a Ctrl or Alt chord or a function key")]
    Typeable { action: String, key: String },
    #[error(
        "{action}: {key} types into the field under the cursor on the form, so there it must be a chord or a named key"
    )]
    Printable { action: String, key: String },
    #[error("{action}: {key} edits text in every text box (Ctrl-A, E, K, U, W), so it cannot work while typing")]
    EditingKey { action: String, key: String },
    /// One of the above, in the config file at `origin`, on the `line` of its `[keys]` entry.
    #[error("{origin}:{line}: [keys] {error}")]
    InConfig { origin: String, line: usize, error: Box<KeymapError> },
}

impl KeymapError {
    /// The action whose override is wrong (a config file points at its line).
    pub fn action(&self) -> &str {
        match self {
            KeymapError::UnknownAction(action)
            | KeymapError::BadKey { action, .. }
            | KeymapError::Conflict { action, .. }
            | KeymapError::Typeable { action, .. }
            | KeymapError::Printable { action, .. }
            | KeymapError::EditingKey { action, .. } => action,
            KeymapError::InConfig { error, .. } => error.action(),
        }
    }
}

fn action_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = DEFAULTS.iter().map(|d| d.action.name()).collect();
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(*n));
    names
}
