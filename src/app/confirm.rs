//! A tool marked destructive (MCP `destructiveHint: true` on a tool not marked read-only) asks for
//! `y` before its first run in a session; `[app] confirm_destructive = false` turns that off. Tools
//! that only leave the hint out are not asked about: the spec's default is a "may", not a mark.

use std::collections::HashSet;

use crate::catalog::Tool;

#[derive(Debug)]
pub struct Confirmations {
    /// Ask at all.
    ask: bool,
    /// The tools the user said `y` to, by id.
    confirmed: HashSet<String>,
}

impl Default for Confirmations {
    fn default() -> Confirmations {
        Confirmations { ask: true, confirmed: HashSet::new() }
    }
}

impl Confirmations {
    /// Whether a tool marked destructive asks for `y` before its first run.
    pub fn ask_first(&mut self, ask: bool) {
        self.ask = ask;
    }

    /// Running `tool` now needs a `y` first.
    pub fn needed(&self, tool: &Tool) -> bool {
        self.ask && tool.hints().marked_destructive() && !self.confirmed.contains(&tool.id)
    }

    /// The user said `y` to running `tool_id`: not asked again this session.
    pub fn confirm(&mut self, tool_id: &str) {
        self.confirmed.insert(tool_id.to_string());
    }
}
