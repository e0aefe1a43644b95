//! What a proxy says of a frame beyond the frame itself (`tooldeck attach`): held at a breakpoint,
//! or made by an injected fault. Read from a feed line by `proxy::live::control::marks_of`.

use std::sync::Arc;

/// What the proxy says of a record line beyond its message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// The hold's id while the proxy holds the message (until a `released` line).
    pub held: Option<u64>,
    /// The `--fault` rule, for a message the proxy made or changed rather than passed on.
    pub injected: Option<Arc<str>>,
}

impl Marks {
    /// True when the line has no mark.
    pub fn is_empty(&self) -> bool {
        self.held.is_none() && self.injected.is_none()
    }
}
