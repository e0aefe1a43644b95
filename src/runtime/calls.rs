//! The calls in flight (a tool's, and a resource read or prompt got as one): sent in their
//! session's scope, cancellable by run id, and ticking while they run.

use std::collections::HashMap;
use std::time::Instant;

use tokio::task::JoinHandle;

use super::apps::{BridgeSlot, ToldApp};
use super::sessions::SessionHandle;
use crate::app::{Answer, CallMsg, Msg};

/// Calls in flight, by run id: their tasks (to cancel) and when they started (for the ticks).
#[derive(Default)]
pub(super) struct Calls {
    running: HashMap<u64, (JoinHandle<()>, Instant)>,
}

impl Calls {
    /// Run `id` is under way as `task`.
    pub(super) fn started(&mut self, id: u64, task: JoinHandle<()>) {
        self.running.insert(id, (task, Instant::now()));
    }

    /// Run `id` answered (its task has ended).
    pub(super) fn finished(&mut self, id: u64) {
        self.running.remove(&id);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// One tick per call in flight, with how long it has run.
    pub(super) fn ticks(&self) -> Vec<Msg> {
        self.running
            .values()
            .map(|(_, started)| Msg::Call(CallMsg::Tick { elapsed_ms: started.elapsed().as_millis() as u64 }))
            .collect()
    }

    /// Sends `request` in session `s`; its answer comes back as `CallMsg::Done`. `app` is the
    /// hosted app's bridge when the call is of its tool: the call reaches its view too.
    pub(super) fn invoke(
        &mut self,
        s: &SessionHandle,
        id: u64,
        request: crate::invoke::request::CallRequest,
        output_schema: Option<serde_json::Value>,
        app: Option<BridgeSlot>,
    ) {
        let endpoint = s.endpoint.clone();
        let done = s.done.clone();
        let progress_to = s.done.clone();
        let task = s.spawn(async move {
            let told = ToldApp::new(app, &request.arguments);
            let report = move |progress| {
                // Best effort: a full queue skips a report rather than stalling the call.
                let _ = progress_to.try_send(Msg::Call(CallMsg::Progress { id, progress }));
            };
            let result = match endpoint.await {
                Ok(endpoint) => {
                    let result = endpoint.call_with_progress(&request, report).await;
                    if result.is_err()
                        && let Some(exchange) = endpoint.failed_exchange(&request).await
                    {
                        let _ =
                            done.send(Msg::Call(CallMsg::FailedExchange { id, exchange: Box::new(exchange) })).await;
                    }
                    result
                }
                Err(e) => Err(e),
            };
            told.answered(&result);
            let result = result
                .map(|(outcome, exchange)| {
                    let mut answer = Answer::new(outcome, exchange, output_schema.as_ref());
                    answer.stamp(crate::text::rfc3339_now());
                    Box::new(answer)
                })
                .map_err(crate::app::CallFailure::from);
            // The loop may be gone (quitting); then nobody wants the result.
            let _ = done.send(Msg::Call(CallMsg::Done { id, result })).await;
        });
        self.started(id, task);
    }

    /// Cancels run `id` if it is still in flight (its answer never comes).
    pub(super) fn cancel(&mut self, id: u64) {
        if let Some((task, _)) = self.running.remove(&id) {
            task.abort();
        }
    }
}
