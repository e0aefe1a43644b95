//! A server's resources, templates and prompts for the app: listed, read or got as a call is
//! (its answer an `InvocationDone`), suggestions asked for, subscriptions made.

use std::time::Instant;

use super::effects::Calls;
use super::sessions::SessionHandle;
use crate::app::faces::FaceRequest;
use crate::app::{Answer, CallFailure, Effect, EffectError, Msg};
use crate::invoke::mcp::completion::ANSWER_WITHIN;

impl Calls {
    /// The effects of faces; any other is not for here.
    pub(super) fn carry_out_face(&mut self, s: &SessionHandle, effect: Effect) {
        match effect {
            Effect::ListFaces => list_faces(s),
            Effect::Face { id, call_id, request } => self.face(s, id, call_id, request),
            Effect::Complete { tool_id, reference, argument, typed, context } => {
                let (endpoint, done) = (s.endpoint.clone(), s.done.clone());
                // One question at a time: the one before is for text typed over, and ending its
                // task cancels its request (a slow server is not asked a pile of them).
                if let Some(before) = self.completing.take() {
                    before.abort();
                }
                self.completing = Some(s.spawn(async move {
                    let result = match endpoint.await {
                        Ok(endpoint) => endpoint.complete(&reference, &argument, &typed, &context, ANSWER_WITHIN).await,
                        Err(e) => Err(e),
                    };
                    let result = result.map_err(EffectError::from);
                    let _ = done.send(Msg::Completed { tool_id, argument, typed, result }).await;
                }));
            }
            Effect::Subscribe { uri, on } => {
                let endpoint = s.endpoint.clone();
                s.answer(async move {
                    let result = match endpoint.await {
                        Ok(endpoint) if on => endpoint.subscribe(&uri).await,
                        Ok(endpoint) => endpoint.unsubscribe(&uri).await,
                        Err(e) => Err(e),
                    };
                    Msg::Subscribed { uri, on, result: result.map_err(EffectError::from) }
                });
            }
            _ => {}
        }
    }

    /// A read or a get, run as a call is: cancellable, ticking, answered as `InvocationDone`.
    fn face(&mut self, s: &SessionHandle, id: u64, call_id: String, request: FaceRequest) {
        let (endpoint, done) = (s.endpoint.clone(), s.done.clone());
        let task = s.spawn(async move {
            let result = match endpoint.await {
                Ok(endpoint) => match &request {
                    FaceRequest::Read { uri } => endpoint.read_as_result(uri, &call_id).await,
                    FaceRequest::GetPrompt { name, arguments } => {
                        endpoint.get_prompt_as_result(name, arguments, &call_id).await
                    }
                },
                Err(e) => Err(e),
            };
            let result = result
                .map(|(outcome, exchange)| {
                    let mut answer = Answer::new(outcome, exchange, None);
                    answer.stamp(crate::text::rfc3339_now());
                    Box::new(answer)
                })
                .map_err(CallFailure::from);
            let _ = done.send(Msg::InvocationDone { id, result }).await;
        });
        self.running.insert(id, (task, Instant::now()));
    }
}

/// Resources, templates and prompts; an endpoint that is not MCP has none to list.
fn list_faces(s: &SessionHandle) {
    let (endpoint, done, label) = (s.endpoint.clone(), s.done.clone(), s.label.clone());
    s.spawn(async move {
        let Ok(endpoint) = endpoint.await else { return };
        if let Some(faces) = endpoint.list_faces().await {
            let _ = done.send(Msg::ServerFaces { label, faces: Box::new(faces) }).await;
        }
    });
}
