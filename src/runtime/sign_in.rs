//! Signing in from the app (OAuth): the steps go to the auth pane as they happen, then the
//! server's tools are listed again with the new token.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::Connection;
use crate::app::{EffectError, Msg, SignInMsg};

/// How often the auth pane is told the steps so far while a sign-in runs.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// The auth pane's message: the steps taken and how it ended.
fn done_with(steps: Vec<crate::invoke::auth::AuthStep>, outcome: Result<String, EffectError>) -> Msg {
    Msg::SignIn(SignInMsg::Done { steps, outcome })
}

pub(super) async fn sign_in(endpoint: Connection, challenge: Option<String>, done: mpsc::Sender<Msg>, label: String) {
    let endpoint = match endpoint.await {
        Ok(endpoint) => endpoint,
        Err(e) => {
            let _ = done.send(done_with(Vec::new(), Err(e.into()))).await;
            return;
        }
    };
    let Some(http) = endpoint.http() else {
        let _ = done.send(done_with(Vec::new(), Err(EffectError::SignInNeedsHttp))).await;
        return;
    };
    let Some(log) = http.authorizer().map(|a| a.log().clone()) else {
        let _ = done.send(done_with(Vec::new(), Err(EffectError::SignInNotSetUp))).await;
        return;
    };
    let start = log.steps().len();
    let since = |log: &crate::invoke::auth::AuthLog| log.steps().split_off(start.min(log.steps().len()));
    let mut signing = Box::pin(http.sign_in(challenge.as_deref()));
    let mut tick = tokio::time::interval(PROGRESS_EVERY);
    let result = loop {
        tokio::select! {
            result = &mut signing => break result,
            _ = tick.tick() => {
                // Best effort: a full queue skips a report.
                let _ = done.try_send(Msg::SignIn(SignInMsg::Progress(since(&log))));
            }
        }
    };
    let signed_in = result.is_ok();
    let outcome = result.map(|()| format!("signed in to {label}; listing its tools again")).map_err(EffectError::from);
    let _ = done.send(done_with(since(&log), outcome)).await;
    if signed_in {
        super::server_events::send_info(Some(&endpoint), &done).await;
        let _ = done.send(super::list_server_tools(Ok(Arc::clone(&endpoint)), label).await).await;
    }
}

pub(super) async fn sign_out(endpoint: Connection, done: mpsc::Sender<Msg>) {
    let outcome = match endpoint.await {
        Ok(endpoint) => match endpoint.http() {
            Some(http) => match http.authorizer() {
                Some(authorizer) => match authorizer.sign_out(&http.label()).await {
                    Ok(true) => Ok(format!("signed out of {}: its tokens are forgotten", http.label())),
                    Ok(false) => Ok(format!("no token was kept for {}", http.label())),
                    Err(e) => Err(e.into()),
                },
                None => Err(EffectError::SignInNotSetUp),
            },
            _ => Err(EffectError::SignInNeedsHttp),
        },
        Err(e) => Err(e.into()),
    };
    let _ = done.send(done_with(Vec::new(), outcome)).await;
}
