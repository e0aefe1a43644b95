//! What the screen (and the rest of the app) reads of the result pane: its state, read only.
//! It changes only through the pane's methods.

use super::value_view::ValueView;
use super::{Answer, ArtifactState, ArtifactView, ResultPane, Run, RunState};
use crate::invoke::{CallRequest, Exchange, Outcome};

impl ResultPane {
    /// The last call, shown below the form.
    pub fn run(&self) -> Option<&Run> {
        self.run.as_ref()
    }

    /// First visible line of the pane (outside the value viewer).
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Cursor, window and folds of the value viewer.
    pub fn value_view(&self) -> &ValueView {
        &self.value_view
    }

    /// The pane shows the exact request and response instead of the outcome.
    pub fn show_exchange(&self) -> bool {
        self.show_exchange
    }

    /// Retrying every few seconds until the authorization prompt goes away (`w`).
    pub fn waiting_for_authorization(&self) -> bool {
        self.waiting_for_authorization
    }

    /// The artifact being fetched or shown (for an MCP result, the preview of one of its items).
    pub fn artifact(&self) -> Option<&ArtifactView> {
        self.artifact.as_ref()
    }

    /// The content item of an MCP result that `f` and `s` act on.
    pub fn item(&self) -> usize {
        self.item
    }
}

impl ArtifactView {
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The size the server said the artifact has, if it did.
    pub fn declared_size(&self) -> Option<u64> {
        self.declared_size
    }

    /// Bytes received so far, of `total` when known.
    pub fn received(&self) -> u64 {
        self.received
    }

    pub fn total(&self) -> Option<u64> {
        self.total
    }

    pub fn state(&self) -> &ArtifactState {
        &self.state
    }

    /// The content item previewed (an MCP result's); `None`: the outcome's artifact.
    pub fn item(&self) -> Option<usize> {
        self.item
    }
}

impl Run {
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The tool (or resource, template, prompt) called.
    pub fn tool_id(&self) -> &str {
        &self.tool_id
    }

    /// The server the call went to (its session's label).
    pub fn server(&self) -> &str {
        &self.server
    }

    pub fn request(&self) -> &CallRequest {
        &self.request
    }

    /// How long it has run (or ran).
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms
    }

    /// The server's last progress report, while it runs.
    pub fn progress(&self) -> Option<&crate::invoke::Progress> {
        self.progress.as_ref()
    }

    pub fn state(&self) -> &RunState {
        &self.state
    }

    /// What went over the wire when the call got no answer (MCP), for `x`.
    pub fn failed_exchange(&self) -> Option<&Exchange> {
        self.failed_exchange.as_deref()
    }

    /// What the person answered to the server's questions during the call.
    pub fn answers(&self) -> &[crate::invoke::mcp::asks::AskReply] {
        &self.answers
    }
}

impl Answer {
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    pub fn exchange(&self) -> &Exchange {
        &self.exchange
    }

    /// When it came back (RFC 3339), for the history.
    pub fn at(&self) -> &str {
        &self.at
    }

    /// The time it came back is `at` (RFC 3339; the runtime knows the clock).
    pub fn stamp(&mut self, at: String) {
        self.at = at;
    }
}
