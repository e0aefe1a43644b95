//! Driving one `tools/call` to its end: the multi-round requests of 2026-07-28 (`input_required`
//! answered through the same asks as server-initiated requests), tasks (SEP-2663's
//! `resultType: "task"` and 2025-11-25's task-augmented `tools/call`), the URL-elicitation-required
//! error (-32042), a timeout that each progress report restarts, `--max-time` for the whole
//! call, and `notifications/cancelled` (or `tasks/cancel`) when the call is dropped.

#![allow(deprecated)] // sampling and roots inside input requests: see asks.rs

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelTaskParams, CancelledNotificationParam,
    ClientRequest, CustomRequest, GetTaskParams, InputRequest, InputRequests, InputResponses, ProtocolVersion,
    RequestId, ServerResult, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use rmcp::{Peer, RoleClient};
use serde_json::{Value, json};

use super::McpEndpoint;
use super::asks::{AskReply, url_elicitations};
use crate::invoke::{InvokeError, Progress};

/// Rounds of `input_required` one call may take (rmcp's own cap).
const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;
/// How long a task is kept by a 2025-11-25 server.
const TASK_TTL_MS: u64 = 10 * 60 * 1000;
/// The URL-elicitation-required error code.
pub const URL_ELICITATION_REQUIRED: i32 = -32042;

/// Sends `notifications/cancelled` for a request still in flight when the call is dropped (Esc,
/// a timeout, a signal).
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(id) = self.id.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let peer = self.peer.clone();
            let reason = Some("cancelled by the user".to_string());
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(CancelledNotificationParam::new(Some(id), reason)).await;
            });
        }
    }
}

/// Sends `tasks/cancel` for a task still running when the call is dropped.
struct CancelTaskOnDrop {
    peer: Peer<RoleClient>,
    task_id: Option<String>,
    legacy: bool,
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        if let Some(task_id) = self.task_id.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let peer = self.peer.clone();
            let legacy = self.legacy;
            runtime.spawn(async move {
                if legacy {
                    let request = CustomRequest::new("tasks/cancel", Some(json!({"taskId": task_id})));
                    let _ = peer.send_request(ClientRequest::CustomRequest(request)).await;
                } else {
                    let _ = peer.cancel_task(CancelTaskParams::new(task_id)).await;
                }
            });
        }
    }
}

impl McpEndpoint {
    fn peer(&self) -> &Peer<RoleClient> {
        self.client.peer()
    }

    /// The protocol revision the server and tooldeck agreed on.
    pub fn protocol_version(&self) -> Option<String> {
        self.client.peer_info().map(|info| info.protocol_version.to_string())
    }

    pub(super) fn speaks_2026(&self) -> bool {
        self.client.peer_info().is_some_and(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28)
    }

    /// One request with the call's timeouts: `self.timeout` of silence (progress restarts it)
    /// and `max_time` for the whole call. Dropped before its answer, it is cancelled.
    async fn send(&self, request: ClientRequest, idle: bool) -> Result<ServerResult, ServiceError> {
        let mut options = PeerRequestOptions::no_options();
        if idle {
            options.timeout = Some(self.timeout);
            options.reset_timeout_on_progress = true;
        }
        options.max_total_timeout = self.max_time;
        let handle = self.peer().send_request_with_option(request, options).await?;
        let mut guard = CancelOnDrop { peer: self.peer().clone(), id: Some(handle.id.clone()) };
        let result = handle.await_response().await;
        // A timeout already told the server; an answer needs no cancelling.
        guard.id = None;
        result
    }

    /// `tools/call` driven to its final result, as JSON: a result rmcp cannot type (a content
    /// block of a kind MCP does not define) comes as the server sent it, so that its valid
    /// items are kept beside the unknown one.
    pub(super) async fn drive_call(
        &self,
        params: CallToolRequestParams,
        as_task: bool,
        status: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<Value, InvokeError> {
        let result = match self.drive_call_typed(params, as_task, status).await {
            Ok(result) => result,
            Err(Untyped::Raw(value)) => return Ok(value),
            Err(Untyped::Failed(error)) => return Err(error),
        };
        serde_json::to_value(&result)
            .map_err(|e| InvokeError::Unreadable(format!("{}: cannot re-encode the result: {e}", self.label)))
    }

    /// `tools/call` driven to its final result (see the module's comment). `as_task` runs it as
    /// a task; `status` hears of the task's progress.
    async fn drive_call_typed(
        &self,
        mut params: CallToolRequestParams,
        as_task: bool,
        status: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<CallToolResult, Untyped> {
        let asks = self.client.service().asks.clone();
        asks.call_started();
        if as_task && !self.speaks_2026() {
            return Ok(self.legacy_task(params, status).await?);
        }
        let mut url_asked = false;
        for _ in 0..MAX_ROUNDS {
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            match self.send(request, true).await {
                Ok(ServerResult::CallToolResult(result))
                    if !as_task && !self.speaks_2026() && refused_untasked(&result) =>
                {
                    return Ok(self.legacy_task(params, status).await?);
                }
                Ok(ServerResult::CallToolResult(result)) => return Ok(result),
                Ok(ServerResult::CustomResult(custom)) if custom.0.get("content").is_some_and(Value::is_array) => {
                    return Err(Untyped::Raw(custom.0));
                }
                Ok(ServerResult::InputRequiredResult(result)) => {
                    let requests = result.input_requests.unwrap_or_default();
                    if requests.is_empty() && result.request_state.is_none() {
                        return Err(self.protocol_error("an input_required result asked for nothing").into());
                    }
                    let responses = self.fulfil(requests).await?;
                    params.input_responses = (!responses.is_empty()).then_some(responses);
                    params.request_state = result.request_state;
                }
                Ok(ServerResult::CreateTaskResult(created)) => {
                    let (task_id, poll) = (created.task.task_id, created.task.poll_interval_ms);
                    return Ok(self.modern_task(task_id, poll, status).await?);
                }
                Ok(_) => return Err(self.map_error("tools/call", ServiceError::UnexpectedResponse).into()),
                Err(ServiceError::McpError(error)) if error.code.0 == URL_ELICITATION_REQUIRED && !url_asked => {
                    // Visit each URL, then try the call once more.
                    url_asked = true;
                    let wanted = error.data.as_ref().map(url_elicitations).unwrap_or_default();
                    let mut all_accepted = !wanted.is_empty();
                    for ask in wanted {
                        all_accepted &= matches!(asks.ask(ask).await, AskReply::Accept(_));
                    }
                    if !all_accepted {
                        return Err(self.map_error("tools/call", ServiceError::McpError(error)).into());
                    }
                }
                // A 2025-11-25 server that runs this tool only as a task says so: run it as one.
                Err(ServiceError::McpError(error)) if wants_a_task(&error.message) && !self.speaks_2026() => {
                    return Ok(self.legacy_task(params, status).await?);
                }
                Err(error) => return Err(self.fail("tools/call", error).await.into()),
            }
        }
        Err(self.protocol_error(&format!("the server still wanted input after {MAX_ROUNDS} rounds")).into())
    }

    fn protocol_error(&self, what: &str) -> InvokeError {
        InvokeError::Broken(format!("{}: tools/call: {what}", self.label))
    }

    /// Answers a round's input requests through the asks (the same screens as server-initiated
    /// requests).
    async fn fulfil(&self, requests: InputRequests) -> Result<InputResponses, InvokeError> {
        let asks = self.client.service().asks.clone();
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let answer = match request {
                InputRequest::Elicitation(request) => asks.elicit(request.params).await.map(|r| json!(r)),
                InputRequest::CreateMessage(request) => asks.sample(request.params).await.map(|r| json!(r)),
                InputRequest::ListRoots(_) => Ok(json!(asks.list_roots())),
                other => Ok(json!({"error": format!("tooldeck does not know this request: {}", json!(other))})),
            };
            let answer =
                answer.map_err(|e| self.protocol_error(&format!("answering the server's request: {}", e.message)))?;
            responses.insert(key, answer);
        }
        Ok(responses)
    }

    /// SEP-2663: poll `tasks/get` until the task ends, answering its input requests with
    /// `tasks/update`. A task whose state stops changing for the timeout is given up (and
    /// cancelled).
    async fn modern_task(
        &self,
        task_id: String,
        poll_ms: Option<u64>,
        status: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<CallToolResult, InvokeError> {
        let mut guard = CancelTaskOnDrop { peer: self.peer().clone(), task_id: Some(task_id.clone()), legacy: false };
        let started = Instant::now();
        let mut stale = Stale::new(self.timeout);
        let mut poll = poll_interval(poll_ms);
        loop {
            tokio::time::sleep(poll).await;
            self.check_max_time(started)?;
            let request = ClientRequest::GetTaskRequest(rmcp::model::GetTaskRequest::new(GetTaskParams::new(&task_id)));
            let got = match self.send(request, false).await {
                Ok(ServerResult::GetTaskResult(got)) => got,
                Ok(_) => return Err(self.map_error("tasks/get", ServiceError::UnexpectedResponse)),
                Err(e) => return Err(self.map_error("tasks/get", e)),
            };
            poll = poll_interval(got.task.task.poll_interval_ms.or(poll_ms));
            let task = &got.task.task;
            report_task(status, &task.task_id, task_status_name(task.status), task.status_message.as_deref());
            stale.check(&format!("{:?}{:?}{}", task.status, task.status_message, task.last_updated_at), self)?;
            match got.task.payload {
                TaskPayload::Completed { result } => {
                    guard.task_id = None;
                    return serde_json::from_value(Value::Object(result))
                        .map_err(|e| self.protocol_error(&format!("the task's result cannot be read: {e}")));
                }
                TaskPayload::Failed { error } => {
                    guard.task_id = None;
                    return Err(self.protocol_error(&format!("the task failed: {}", Value::Object(error))));
                }
                TaskPayload::Cancelled => {
                    guard.task_id = None;
                    return Err(self.protocol_error("the task was cancelled"));
                }
                TaskPayload::InputRequired { input_requests } => {
                    let responses = self.fulfil(input_requests).await?;
                    let request = ClientRequest::UpdateTaskRequest(rmcp::model::UpdateTaskRequest::new(
                        UpdateTaskParams::new(&task_id, responses),
                    ));
                    self.send(request, false).await.map_err(|e| self.map_error("tasks/update", e))?;
                }
                _ => {}
            }
        }
    }

    /// 2025-11-25's tasks: `tools/call` with `task: {ttl}`, then `tasks/result` (which blocks
    /// until the task ends and carries the server's questions meanwhile) while `tasks/get` is
    /// polled for the status line.
    async fn legacy_task(
        &self,
        params: CallToolRequestParams,
        status: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<CallToolResult, InvokeError> {
        let mut body = serde_json::to_value(&params).unwrap_or_default();
        body["task"] = json!({"ttl": TASK_TTL_MS});
        let created = self.custom("tools/call", body, true).await?;
        let Some(task_id) = created.pointer("/task/taskId").and_then(Value::as_str).map(str::to_string) else {
            // The server ran it at once after all.
            return serde_json::from_value(created)
                .map_err(|e| self.protocol_error(&format!("the result cannot be read: {e}")));
        };
        let mut guard = CancelTaskOnDrop { peer: self.peer().clone(), task_id: Some(task_id.clone()), legacy: true };
        let first_poll = created.pointer("/task/pollInterval").and_then(Value::as_u64);
        let first_status = created.pointer("/task/status").and_then(Value::as_str).unwrap_or("working");
        report_task(status, &task_id, first_status, created.pointer("/task/statusMessage").and_then(Value::as_str));
        let result = self.custom("tasks/result", json!({"taskId": task_id}), false);
        let watch = async {
            let started = Instant::now();
            let mut stale = Stale::new(self.timeout);
            let mut poll = poll_interval(first_poll);
            loop {
                tokio::time::sleep(poll).await;
                self.check_max_time(started)?;
                let got = self.custom("tasks/get", json!({"taskId": task_id}), false).await?;
                poll = poll_interval(got.get("pollInterval").and_then(Value::as_u64).or(first_poll));
                let state = got.get("status").and_then(Value::as_str).unwrap_or("?");
                let message = got.get("statusMessage").and_then(Value::as_str);
                report_task(status, &task_id, state, message);
                // Waiting for the person is not the server being stuck.
                if state != "input_required" {
                    stale.check(&format!("{state}{message:?}{:?}", got.get("lastUpdatedAt")), self)?;
                }
            }
            #[allow(unreachable_code)]
            Ok::<(), InvokeError>(())
        };
        let value = tokio::select! {
            value = result => value?,
            watched = watch => return Err(watched.err().unwrap_or_else(|| self.protocol_error("the task watch ended"))),
        };
        guard.task_id = None;
        serde_json::from_value(value)
            .map_err(|e| self.protocol_error(&format!("the task's result cannot be read: {e}")))
    }

    /// A request by method name, its result as JSON (for the revisions rmcp no longer models).
    pub(super) async fn custom(&self, method: &str, params: Value, idle: bool) -> Result<Value, InvokeError> {
        let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
        let result = self.send(request, idle).await.map_err(|e| self.map_error(method, e))?;
        Ok(match result {
            ServerResult::CustomResult(custom) => custom.0,
            other => serde_json::to_value(&other).unwrap_or_default(),
        })
    }

    fn check_max_time(&self, started: Instant) -> Result<(), InvokeError> {
        match self.max_time {
            Some(max) if started.elapsed() > max => {
                // Set from `--timeout` when no `--max-time` was given (fuzz): named so.
                let limit = match max == self.timeout {
                    true => super::errors::timeout_limit(max),
                    false => format!("{} s (--max-time)", max.as_secs_f64()),
                };
                // Its task answered every poll and its status moved (else `Stale` ended it).
                Err(InvokeError::timeout(self.label.clone(), limit).still_working())
            }
            _ => Ok(()),
        }
    }
}

/// Why a call has no typed result: the server's answer as it came, or a failure.
enum Untyped {
    Raw(Value),
    Failed(InvokeError),
}

impl From<InvokeError> for Untyped {
    fn from(error: InvokeError) -> Untyped {
        Untyped::Failed(error)
    }
}

/// True for the error a server gives a tool that must run as a task ("requires task
/// augmentation").
fn wants_a_task(message: &str) -> bool {
    let message = message.to_lowercase();
    message.contains("task augmentation") || message.contains("tasksupport")
}

/// True for a tool error that says the tool runs only as a task (the TypeScript SDK answers so).
fn refused_untasked(result: &CallToolResult) -> bool {
    result.is_error == Some(true) && result.content.iter().any(|c| c.as_text().is_some_and(|t| wants_a_task(&t.text)))
}

/// How long between polls: the server's wish, kept between 100 ms and 5 s.
fn poll_interval(ms: Option<u64>) -> Duration {
    Duration::from_millis(ms.unwrap_or(500).clamp(100, 5000))
}

fn task_status_name(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "unknown",
    }
}

/// The task's state on the call's status line (a progress report whose number is NaN: none).
fn report_task(status: &(dyn Fn(Progress) + Send + Sync), task_id: &str, state: &str, message: Option<&str>) {
    let mut text = format!("task {task_id}: {state}");
    if let Some(message) = message {
        text.push_str(&format!(" · {message}"));
    }
    status(Progress { progress: f64::NAN, total: None, message: Some(text) });
}

/// Notices a task whose state stops changing for longer than the call's timeout.
struct Stale {
    limit: Duration,
    last: String,
    since: Instant,
}

impl Stale {
    fn new(limit: Duration) -> Stale {
        Stale { limit, last: String::new(), since: Instant::now() }
    }

    fn check(&mut self, state: &str, endpoint: &McpEndpoint) -> Result<(), InvokeError> {
        if state != self.last {
            self.last = state.to_string();
            self.since = Instant::now();
            return Ok(());
        }
        if self.since.elapsed() > self.limit {
            return Err(InvokeError::Broken(format!(
                "{}: the task has not changed for {} s; it was cancelled (--timeout waits longer)",
                endpoint.label,
                self.limit.as_secs()
            )));
        }
        Ok(())
    }
}

/// The `tools/call` parameters for `request`; MCP arguments must be an object (`null` sends none).
pub(super) fn call_params(
    request: &crate::invoke::CallRequest,
) -> Result<rmcp::model::CallToolRequestParams, InvokeError> {
    let params = rmcp::model::CallToolRequestParams::new(request.tool_id.clone());
    match &request.arguments {
        serde_json::Value::Null => Ok(params),
        serde_json::Value::Object(map) => Ok(params.with_arguments(map.clone())),
        other => Err(InvokeError::NotSent(format!(
            "MCP tool arguments must be a JSON object, not {}",
            match other {
                serde_json::Value::Array(_) => "an array",
                serde_json::Value::String(_) => "a string",
                serde_json::Value::Number(_) => "a number",
                _ => "a boolean",
            }
        ))),
    }
}
