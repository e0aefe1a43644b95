//! One iteration of one case: the prompt to the model, its tool calls run on the server, their
//! results fed back, until the model answers in text or the turn limit. What happened is kept
//! as a [`Trajectory`] (the messages as sent, each call and what it came to) for the judge and
//! for the person reading why an iteration failed.

use std::collections::HashMap;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::invoke::request::CallRequest;
use crate::invoke::{Endpoint, Outcome, Status};
use crate::provider::{Format, Model, ModelError, ToolDef, ToolResult};

/// A tool result longer than this is cut before it goes back to the model.
const MAX_RESULT_CHARS: usize = 64 * 1024;

/// What the model is shown of a server's tools, and how each is called.
#[derive(Debug, Clone, Default)]
pub struct Toolbox {
    pub defs: Vec<ToolDef>,
    /// By name: the id the call goes out under, and why it is not run (destructive), if it is not.
    pub calls: HashMap<String, (String, Option<String>)>,
}

/// Runs a tool call on the server; tests and benches may stand in for the server.
pub trait Runner: Send + Sync {
    /// The result's text for the model, and whether it is an error.
    fn run<'a>(&'a self, wire_id: &'a str, arguments: &'a Value) -> BoxFuture<'a, (String, bool)>;
}

impl Runner for Endpoint {
    fn run<'a>(&'a self, wire_id: &'a str, arguments: &'a Value) -> BoxFuture<'a, (String, bool)> {
        Box::pin(async move {
            match self.call(&CallRequest::new(wire_id, arguments.clone())).await {
                Ok((outcome, _)) => result_text(&outcome),
                Err(e) => (format!("the call failed: {e}"), true),
            }
        })
    }
}

/// An outcome as the model is told it.
pub fn result_text(outcome: &Outcome) -> (String, bool) {
    let text = match (&outcome.value, &outcome.error) {
        (_, Some(error)) => error.message.clone(),
        (Some(Value::String(text)), None) => text.clone(),
        (Some(value), None) => value.to_string(),
        (None, None) => String::new(),
    };
    (text, outcome.status == Status::Error || outcome.status == Status::RequiresAuthorization)
}

/// One call the model made, and what it came to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallMade {
    pub turn: usize,
    pub tool: String,
    /// The arguments, or the text the model sent when it was not JSON.
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_json: bool,
    pub result: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Not run: why (a destructive tool, a tool the server does not have).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// What one iteration did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// The conversation as sent (the last request's messages and the model's last answer).
    pub messages: Vec<Value>,
    pub calls: Vec<CallMade>,
    /// The model's closing text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub turns: usize,
    /// Why the iteration did not finish: the model's error, the turn limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The model's error, kept typed (a replay that no longer matches ends the run).
    #[serde(skip)]
    pub model_error: Option<ModelError>,
}

/// What an iteration runs against.
pub struct Agent<'a> {
    pub format: &'a dyn Format,
    pub model: &'a dyn Model,
    pub runner: &'a dyn Runner,
    pub toolbox: &'a Toolbox,
    pub max_turns: usize,
    pub cancel: &'a CancellationToken,
}

impl Agent<'_> {
    /// Iteration `iteration` of `case`, from `prompt`.
    pub async fn run(&self, case: &str, iteration: usize, prompt: &str) -> Trajectory {
        let mut trajectory = Trajectory { messages: self.format.start(prompt), ..Trajectory::default() };
        for turn in 0..self.max_turns {
            let request = self.format.request(&trajectory.messages, &self.toolbox.defs);
            trajectory.turns = turn + 1;
            let answer = tokio::select! {
                answer = self.model.answer(case, iteration, turn, &request) => answer,
                () = self.cancel.cancelled() => {
                    trajectory.error = Some("stopped".into());
                    return trajectory;
                }
            };
            let reply = match answer.and_then(|answer| self.format.read(&answer)) {
                Ok(reply) => reply,
                Err(e) => {
                    trajectory.error = Some(format!("turn {}: {e}", turn + 1));
                    trajectory.model_error = Some(e);
                    return trajectory;
                }
            };
            trajectory.messages.push(reply.message);
            if reply.calls.is_empty() {
                trajectory.text = reply.text;
                return trajectory;
            }
            let mut results = Vec::new();
            for call in reply.calls {
                let made = self.call(turn, &call.name, call.arguments, call.not_json).await;
                results.push(ToolResult {
                    call_id: call.id,
                    name: call.name,
                    text: made.result.clone(),
                    is_error: made.is_error || made.refused.is_some(),
                });
                trajectory.calls.push(made);
            }
            trajectory.messages.extend(self.format.results(&results));
        }
        trajectory.error = Some(format!(
            "the model was still calling tools after {} turns (max_turns); it never answered in text",
            self.max_turns
        ));
        trajectory
    }

    async fn call(&self, turn: usize, tool: &str, arguments: Value, not_json: bool) -> CallMade {
        let mut made = CallMade {
            turn,
            tool: tool.to_string(),
            arguments,
            not_json,
            result: String::new(),
            is_error: true,
            refused: None,
        };
        if not_json {
            made.result = "tooldeck did not run this call: its arguments are not a JSON object".into();
            return made;
        }
        match self.toolbox.calls.get(tool) {
            None => {
                made.refused = Some("no such tool".into());
                made.result = format!("there is no tool named {tool}");
            }
            Some((_, Some(why))) => {
                made.refused = Some(why.clone());
                made.result = format!("refused: tooldeck does not run this tool in evals ({why})");
            }
            Some((wire_id, None)) => {
                let (text, is_error) = self.runner.run(wire_id, &made.arguments).await;
                made.result = cut(text);
                made.is_error = is_error;
            }
        }
        made
    }
}

fn cut(mut text: String) -> String {
    if let Some((end, _)) = text.char_indices().nth(MAX_RESULT_CHARS) {
        text.truncate(end);
        text.push_str("… (cut)");
    }
    text
}
