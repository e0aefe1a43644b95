//! Faults and breakpoints in front of a Streamable HTTP server (`proxy --listen --mcp-url`): a
//! POST's body is judged before it goes (an error answers the POST at once); while armed, the
//! answer's body is judged too, each SSE event on its own (a delayed or held event holds the
//! events behind it in the same stream: one stream is one ordered answer) or the JSON body whole.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::Value;
use tokio::sync::oneshot;

use super::{Conversation, Deliver, Interceptor, Verdict};
use crate::wire::{HttpDetails, Side, TapHandle};

/// What became of a judged message once its verdict was carried out.
pub enum Outcome {
    /// It goes on, as this line.
    Forward(Bytes),
    /// The sender is answered with this line.
    Answer(Bytes),
    /// Nothing goes (dropped).
    Nothing,
}

/// A [`Deliver`] that hands the first delivery back to the request being served.
struct Handback(Mutex<Option<oneshot::Sender<Outcome>>>);

impl Handback {
    fn give(&self, outcome: Outcome) {
        if let Some(sender) = crate::sync::lock(&self.0).take() {
            let _ = sender.send(outcome);
        }
    }
}

impl Deliver for Handback {
    fn forward(&self, line: Bytes, _: &Value) {
        self.give(Outcome::Forward(line));
    }

    fn answer(&self, line: Bytes) {
        self.give(Outcome::Answer(line));
    }
}

/// One HTTP exchange's judging: the run's interceptor, the requests of this POST.
#[derive(Clone)]
pub struct Judging {
    pub interceptor: Arc<Interceptor>,
    pub conversation: Arc<Conversation>,
    pub tap: TapHandle,
}

impl Judging {
    /// Judges `raw` from `from`, waiting for a delay or a hold to end. A message that passes
    /// is told to the tap here.
    pub async fn judge(&self, from: Side, raw: Bytes, http: Option<&HttpDetails>) -> Outcome {
        match self.interceptor.judge(&self.conversation, from, &raw, http) {
            Verdict::Pass => {
                self.tap.send(from, raw.clone(), http.cloned());
                Outcome::Forward(raw)
            }
            verdict => {
                let (sender, outcome) = oneshot::channel();
                let handback = Arc::new(Handback(Mutex::new(Some(sender))));
                self.interceptor.carry_out(verdict, handback, &tokio::runtime::Handle::current());
                // Nothing delivered (dropped): the sender went with the verdict.
                outcome.await.unwrap_or(Outcome::Nothing)
            }
        }
    }

    /// An upstream answer's body judged as it streams: SSE events one by one, or a JSON body
    /// whole. A dropped JSON answer never ends (the client's own timeout shows).
    pub fn body<S>(
        self,
        upstream: S,
        events: bool,
        details: HttpDetails,
    ) -> impl Stream<Item = Result<Bytes, reqwest::Error>>
    where
        S: Stream<Item = Result<Bytes, reqwest::Error>> + Send + Unpin + 'static,
    {
        let state = Judged {
            upstream,
            events,
            details,
            judging: self,
            buffer: Vec::new(),
            ready: VecDeque::new(),
            passing: false,
            done: false,
        };
        futures_util::stream::unfold(state, |mut state| async move {
            loop {
                if let Some(out) = state.ready.pop_front() {
                    return Some((Ok(out), state));
                }
                if state.done {
                    return None;
                }
                match state.upstream.next().await {
                    Some(Ok(chunk)) => state.take(&chunk).await,
                    Some(Err(e)) => return Some((Err(e), state)),
                    None => state.end().await,
                }
            }
        })
    }
}

struct Judged<S> {
    upstream: S,
    events: bool,
    details: HttpDetails,
    judging: Judging,
    buffer: Vec<u8>,
    ready: VecDeque<Bytes>,
    /// Too much to judge: the rest passes as it comes.
    passing: bool,
    done: bool,
}

impl<S> Judged<S> {
    async fn take(&mut self, chunk: &Bytes) {
        if self.passing {
            self.ready.push_back(chunk.clone());
            return;
        }
        self.buffer.extend_from_slice(chunk);
        if self.buffer.len() > crate::proxy::pump::MAX_KEPT {
            // Too much to judge: it passes as it comes, from now on.
            self.passing = true;
            let told = std::mem::take(&mut self.buffer);
            self.judging.tap.send_too_large(Side::Server, told.len(), Some(self.details.clone()));
            self.ready.push_back(Bytes::from(told));
            return;
        }
        if !self.events {
            return;
        }
        while let Some((text_end, next)) = crate::proxy::http::find_blank_line(&self.buffer) {
            let event: Vec<u8> = self.buffer.drain(..next).collect();
            if let Some(out) = self.event(event, text_end).await {
                self.ready.push_back(out);
            }
        }
    }

    /// One SSE event, judged by its data; an event without data (a comment, a retry) passes.
    async fn event(&self, event: Vec<u8>, text_end: usize) -> Option<Bytes> {
        let Some(data) = crate::proxy::seen::event_data(&event[..text_end]) else { return Some(Bytes::from(event)) };
        match self.judging.judge(Side::Server, Bytes::from(data.clone()), Some(&self.details)).await {
            Outcome::Forward(line) if *line == *data => Some(Bytes::from(event)),
            Outcome::Forward(line) => Some(with_data(&event[..text_end], &line)),
            // The answer to a server's request, or nothing: the client sees no event.
            Outcome::Answer(_) | Outcome::Nothing => None,
        }
    }

    async fn end(&mut self) {
        self.done = true;
        let rest = std::mem::take(&mut self.buffer);
        if self.passing || self.events || rest.is_empty() {
            if !rest.is_empty() {
                self.ready.push_back(Bytes::from(rest));
            } else if !self.events && !self.passing {
                // An answer with no body (a 202) is recorded as one.
                self.judging.tap.send(Side::Server, Bytes::new(), Some(self.details.clone()));
            }
            return;
        }
        match self.judging.judge(Side::Server, Bytes::from(rest), Some(&self.details)).await {
            Outcome::Forward(line) => self.ready.push_back(line),
            Outcome::Answer(_) | Outcome::Nothing => std::future::pending::<()>().await,
        }
    }
}

/// The event `event` (its text, no blank line) with its data replaced by `line`: its other
/// fields (`event:`, `id:`) kept.
fn with_data(event: &[u8], line: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(event.len() + line.len());
    for field in event.split(|b| *b == b'\n') {
        let field = field.strip_suffix(b"\r").unwrap_or(field);
        if !field.starts_with(b"data:") && !field.is_empty() {
            out.extend_from_slice(field);
            out.push(b'\n');
        }
    }
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(line);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_event_keeps_its_fields_with_new_data() {
        let event = b"event: message\nid: 7\ndata: {\"a\":\ndata: 1}";
        assert_eq!(&super::with_data(event, b"{\"b\"")[..], b"event: message\nid: 7\ndata: {\"b\"\n\n");
    }
}
