//! Signing in for an MCP server over HTTP: a kept token is used without asking; a refusal (401,
//! or 403 `insufficient_scope`) met during any request is answered by refreshing, signing in or
//! stepping up, and the request is sent again on a connection with the new token, a bounded
//! number of times.

use std::future::Future;
use std::sync::Arc;

use super::McpEndpoint;
use super::http::McpHttpEndpoint;
use crate::invoke::InvokeError;
use crate::invoke::auth::{Challenge, MAX_SIGN_INS};

impl McpHttpEndpoint {
    /// Connects with the token kept for this server, when there is one that works.
    pub(super) async fn connect_with_kept_token(&self) -> Result<(), InvokeError> {
        let Some(authorizer) = &self.authorizer else { return self.connection(None).await.map(|_| ()) };
        match authorizer.stored_token(&self.url).await {
            Some(token) => match self.connection(Some(&token)).await {
                Err(InvokeError::Unauthorized { .. }) => self.with_sign_in(|_| async { Ok(()) }).await,
                other => other.map(|_| ()),
            },
            None => self.with_sign_in(|_| async { Ok(()) }).await,
        }
    }

    /// A token that should be accepted after the server refused with `status` and `challenge`;
    /// `None` when there is nothing to try (no sign-in allowed, or a 403 of another kind).
    async fn token_after_refusal(&self, status: u16, challenge: Option<String>) -> Option<Result<String, InvokeError>> {
        let authorizer = self.authorizer.as_ref()?;
        let failed =
            |e: crate::invoke::auth::AuthError| InvokeError::sign_in(self.url.clone(), e.to_string()).caused_by(e);
        if status == 403 {
            let challenge = challenge.filter(|c| Challenge::parse(c).insufficient_scope())?;
            if !authorizer.options().login {
                return None;
            }
            return Some(authorizer.step_up(&self.url, &challenge).await.map_err(failed));
        }
        if !authorizer.options().login {
            return authorizer.refresh_kept(&self.url).await.map(Ok);
        }
        Some(authorizer.sign_in(&self.url, challenge.as_deref()).await.map_err(failed))
    }

    /// Runs `op` on the connection; when the server refuses (at connect or during `op`), signs
    /// in as allowed and runs it again on a new connection, at most [`MAX_SIGN_INS`] times.
    pub(super) async fn with_sign_in<T, F, Fut>(&self, op: F) -> Result<T, InvokeError>
    where
        F: Fn(Arc<McpEndpoint>) -> Fut,
        Fut: Future<Output = Result<T, InvokeError>>,
    {
        let mut sign_ins = 0;
        loop {
            let (result, refusal) = match self.connection(None).await {
                Ok(connection) => {
                    let result = op(Arc::clone(&connection)).await;
                    (result, connection.wire.take_challenge())
                }
                Err(InvokeError::Unauthorized { url, challenge }) => {
                    (Err(InvokeError::Unauthorized { url, challenge: challenge.clone() }), Some((401, challenge)))
                }
                Err(error) => return Err(error),
            };
            let Some((status, challenge)) = refusal else { return result };
            if sign_ins >= MAX_SIGN_INS && status == 403 {
                let limit = crate::invoke::auth::AuthError::StepUpLimit(sign_ins);
                return Err(InvokeError::sign_in(self.url.clone(), limit.to_string()).caused_by(limit));
            }
            if sign_ins >= MAX_SIGN_INS {
                return result;
            }
            let Some(token) = self.token_after_refusal(status, challenge).await else { return result };
            sign_ins += 1;
            self.connection(Some(&token?)).await?;
        }
    }
}
