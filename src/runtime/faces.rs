//! A server's resources, templates and prompts for the app: listed, read or got as a call is
//! (its answer a `CallMsg::Done`), suggestions asked for, subscriptions made.
// No wildcard arm on an enum here: a new variant is a compile error until it is handled.
#![deny(clippy::wildcard_enum_match_arm)]

use super::calls::Calls;
use super::sessions::SessionHandle;
use crate::app::faces::FaceRequest;
use crate::app::{Answer, CallFailure, CallMsg, EffectError, FaceMsg, Msg};
use crate::invoke::mcp::completion::{ANSWER_WITHIN, Reference};

/// The last question for suggestions, while it waits for its answer (`ServerEffect::Complete`).
#[derive(Default)]
pub(super) struct Completion {
    pending: Option<tokio::task::JoinHandle<()>>,
}

impl Completion {
    /// Suggestions for an argument (`completion/complete`).
    pub(super) fn ask(
        &mut self,
        s: &SessionHandle,
        tool_id: String,
        reference: Reference,
        argument: String,
        typed: String,
        context: serde_json::Map<String, serde_json::Value>,
    ) {
        let (endpoint, done) = (s.endpoint.clone(), s.done.clone());
        // One question at a time: the one before is for text typed over, and ending its
        // task cancels its request (a slow server is not asked a pile of them).
        if let Some(before) = self.pending.take() {
            before.abort();
        }
        self.pending = Some(s.spawn(async move {
            let result = match endpoint.await {
                Ok(endpoint) => endpoint.complete(&reference, &argument, &typed, &context, ANSWER_WITHIN).await,
                Err(e) => Err(e),
            };
            let result = result.map_err(EffectError::from);
            let _ = done.send(Msg::Face(FaceMsg::Completed { tool_id, argument, typed, result })).await;
        }));
    }
}

impl Calls {
    /// A read or a get, run as a call is: cancellable, ticking, answered as `CallMsg::Done`.
    pub(super) fn face(&mut self, s: &SessionHandle, id: u64, call_id: String, request: FaceRequest) {
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
            let _ = done.send(Msg::Call(CallMsg::Done { id, result })).await;
        });
        self.started(id, task);
    }
}

/// `resources/subscribe` (`on`) or `resources/unsubscribe`.
pub(super) fn subscribe(s: &SessionHandle, uri: String, on: bool) {
    let endpoint = s.endpoint.clone();
    s.answer(async move {
        let result = match endpoint.await {
            Ok(endpoint) if on => endpoint.subscribe(&uri).await,
            Ok(endpoint) => endpoint.unsubscribe(&uri).await,
            Err(e) => Err(e),
        };
        Msg::Face(FaceMsg::Subscribed { uri, on, result: result.map_err(EffectError::from) })
    });
}

/// Resources, templates and prompts; an endpoint that is not MCP has none to list.
pub(super) fn list_faces(s: &SessionHandle) {
    let (endpoint, done, label) = (s.endpoint.clone(), s.done.clone(), s.label.clone());
    s.spawn(async move {
        let Ok(endpoint) = endpoint.await else { return };
        if let Some(faces) = endpoint.list_faces().await {
            let _ = done.send(Msg::Face(FaceMsg::Listed { label, faces: Box::new(faces) })).await;
        }
    });
}
