//! The auth pane: each step of an OAuth sign-in as it happens (the URLs probed and why each
//! failed, the metadata found, the client, the authorization URL, the redirect, the token masked,
//! refreshes and step-ups), and how it ended. The runtime does the signing in.

use super::{App, Effect, EffectError, Overlay, Reply, ServerEffect};
use crate::invoke::auth::AuthStep;

/// The sign-in's steps and how it ended.
/// Its fields are private: read through getters, changed only through its methods.
#[derive(Debug, Default)]
pub struct AuthPane {
    steps: Vec<AuthStep>,
    running: bool,
    /// How the last sign-in ended, once it has.
    outcome: Option<Result<String, EffectError>>,
    /// What the server's last 401 asked for (`WWW-Authenticate`), the sign-in starts from it.
    challenge: Option<String>,
}

impl AuthPane {
    /// The sign-in's steps so far.
    pub fn steps(&self) -> &[AuthStep] {
        &self.steps
    }

    /// A sign-in is going on.
    pub fn running(&self) -> bool {
        self.running
    }

    /// How the last sign-in ended, once it has.
    pub fn outcome(&self) -> Option<&Result<String, EffectError>> {
        self.outcome.as_ref()
    }

    /// Starts signing in (from the 401 prompt or the palette); the app shows the pane
    /// (`App::sign_in`).
    pub fn sign_in(&mut self) -> Reply {
        if self.running {
            return Reply::status("signing in already");
        }
        self.running = true;
        self.steps.clear();
        self.outcome = None;
        Reply::effect(Effect::Server(ServerEffect::SignIn { challenge: self.challenge.clone() }))
            .with_status("signing in (OAuth)…")
    }

    pub fn sign_out(&mut self) -> Reply {
        self.steps.clear();
        self.outcome = None;
        Reply::effect(Effect::Server(ServerEffect::SignOut))
    }

    /// The server's last 401 asked for this (`WWW-Authenticate`): the next sign-in starts from it.
    pub fn challenged(&mut self, challenge: Option<String>) {
        self.challenge = challenge;
    }

    pub fn progressed(&mut self, steps: Vec<AuthStep>) {
        self.steps = steps;
    }

    /// The sign-in ended: `Ok` with what to say, or why it failed (the person can try again).
    pub fn finished(&mut self, steps: Vec<AuthStep>, outcome: Result<String, EffectError>) {
        self.steps = steps;
        self.running = false;
        self.outcome = Some(outcome);
    }
}

impl App {
    /// Signing in starts (or goes on) with its steps shown over the panes.
    pub(super) fn sign_in(&mut self) -> Vec<Effect> {
        self.open_overlay(Overlay::Auth);
        let reply = self.auth.sign_in();
        self.apply(reply)
    }
}

/// The auth pane is read, not worked in: the Back key closes it; every other key is the
/// app's (the panes under it take them).
impl super::Component for AuthPane {
    fn context(&self) -> Option<super::Context> {
        Some(super::Context::Main)
    }

    fn handle(&mut self, input: super::Input, _cx: &super::Cx) -> Option<Reply> {
        (input == super::Input::Action(super::Action::Back)).then(Reply::close)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signing_in_once_at_a_time_and_the_end_is_kept() {
        let mut pane = AuthPane { challenge: Some("Bearer scope=\"a\"".into()), ..AuthPane::default() };
        let reply = pane.sign_in();
        assert!(matches!(reply.effects.as_slice(), [Effect::Server(ServerEffect::SignIn { challenge: Some(_) })]));
        assert!(pane.running);
        assert!(pane.sign_in().effects.is_empty(), "no second sign-in while one runs");
        let refused = EffectError::SignIn(crate::invoke::auth::AuthError::Redirect("access_denied".into()));
        pane.finished(Vec::new(), Err(refused.clone()));
        assert!(!pane.running);
        assert_eq!(pane.outcome, Some(Err(refused)));
        assert_eq!(pane.sign_in().effects.len(), 1, "and it can be tried again");
    }
}
