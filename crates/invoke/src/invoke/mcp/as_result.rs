//! A resource read or a prompt got, as a tool result is shown: an [`Outcome`] whose content
//! items are the resource's contents (embedded resources) or the prompt's messages' blocks (each
//! with its message's role), and the [`Exchange`] that went over the wire. The app shows them
//! with the same content rendering, history and exchange view as a call.

use std::time::Instant;

use serde_json::{Map, Value, json};

use super::McpEndpoint;
use super::content::ContentItem;
use super::prompts::read_got;
use crate::invoke::{Exchange, InvokeError, Outcome, Status};

impl McpEndpoint {
    /// `resources/read {uri}` as an outcome: each content an embedded-resource item; what could
    /// not be read is a warning beside the rest.
    pub async fn read_as_result(&self, uri: &str, call_id: &str) -> Result<(Outcome, Exchange), InvokeError> {
        let params = json!({ "uri": uri });
        let mark = self.wire.mark();
        let started = Instant::now();
        let result = self.read(uri).await;
        let exchange = self.face_exchange(mark, "resources/read", None, &params, started);
        let read = result?;
        let mut outcome = Outcome::new(Status::Value, call_id);
        outcome.content = read.contents.into_iter().map(ContentItem::Resource).collect();
        outcome.warnings = read.warnings;
        if outcome.content.is_empty() {
            outcome.warnings.push(format!("the server read {uri} as no contents at all"));
        }
        Ok(self.finish(outcome, exchange))
    }

    /// `prompts/get {name, arguments}` as an outcome: every message's blocks in order, each with
    /// its message's role in `roles`; a block of an unknown kind stays beside the valid ones.
    pub async fn get_prompt_as_result(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        call_id: &str,
    ) -> Result<(Outcome, Exchange), InvokeError> {
        let params = json!({ "name": name, "arguments": arguments });
        let mark = self.wire.mark();
        let started = Instant::now();
        let result = self.custom("prompts/get", params.clone(), true).await;
        let exchange = self.face_exchange(mark, "prompts/get", Some(name), &params, started);
        let got = read_got(result?);
        let mut outcome = Outcome::new(Status::Value, call_id);
        for message in got.messages {
            for item in message.content {
                outcome.roles.push(message.role.clone());
                outcome.content.push(item);
            }
        }
        outcome.warnings = got.warnings;
        if let Some(description) = got.description {
            outcome.value = Some(json!({ "description": description }));
        }
        Ok(self.finish(outcome, exchange))
    }

    /// What went over the wire for the request of `method` sent since `mark`; the request as it
    /// would have been sent when none went.
    fn face_exchange(&self, mark: u64, method: &str, name: Option<&str>, params: &Value, started: Instant) -> Exchange {
        let mut exchange = Exchange {
            method: "not sent (the connection was gone):".into(),
            url: self.label.clone(),
            request_body: serde_json::to_string_pretty(&json!({ "method": method, "params": params }))
                .unwrap_or_default(),
            ..Exchange::default()
        };
        if let Some(wire) = self.wire.exchange(mark, method, name) {
            wire.fill(&mut exchange);
        }
        exchange.duration_ms = started.elapsed().as_millis() as u64;
        exchange
    }

    fn finish(&self, mut outcome: Outcome, exchange: Exchange) -> (Outcome, Exchange) {
        outcome.duration_ms = exchange.duration_ms;
        outcome.protocol = self.protocol_version();
        (outcome, exchange)
    }
}
