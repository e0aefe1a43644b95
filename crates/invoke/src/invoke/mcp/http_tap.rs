//! rmcp's Streamable HTTP client over reqwest, with each POST's status line and headers recorded
//! for the exchange view (rmcp's own client keeps them to itself), and a session the server no
//! longer knows recognised at once: a 404 (what the spec says) or the 400 "No valid session ID"
//! real SDK servers send, for a request that carried a session id. GET streams and DELETE go to
//! rmcp's client unchanged.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

use super::events::{EventSink, ServerEvent};
use super::exchange_log::{HttpRecord, Wire};

/// An error answer's body is read this far.
const MAX_ERROR_BODY: usize = 64 * 1024;

#[derive(Clone)]
pub struct HttpTap {
    pub client: reqwest::Client,
    pub wire: Wire,
    pub events: EventSink,
}

type Error = StreamableHttpError<reqwest::Error>;

/// True when an HTTP answer means the session is gone: 404, or a 400 that says so.
pub fn session_gone(status: u16, body: &str) -> bool {
    status == 404 || (status == 400 && body.to_ascii_lowercase().contains("session"))
}

impl StreamableHttpClient for HttpTap {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let headers = request_headers(auth_header.as_deref(), &custom_headers, session_id.as_deref());
        let mut request = self.client.post(uri.as_ref());
        for (name, value) in &headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let id = serde_json::to_value(&message).ok().and_then(|v| v.get("id").map(serde_json::Value::to_string));
        let mut record = HttpRecord { id, url: uri.to_string(), request_headers: headers, ..HttpRecord::default() };
        let response = match request.json(&message).send().await {
            Ok(response) => response,
            Err(e) => {
                self.events.traffic().http(&record);
                self.wire.record_http(record);
                self.wire.fail(crate::invoke::http::why_unanswered(&e));
                return Err(StreamableHttpError::Client(e));
            }
        };
        let status = response.status();
        record.status = Some(status.as_u16());
        record.response_headers = response
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let answered_session = header("mcp-session-id");
        let content_type = header("content-type").unwrap_or_default();
        let www_authenticate = header("www-authenticate");
        let redirect = crate::invoke::http::refused_redirect(&response);
        self.events.traffic().http(&record);
        self.wire.record_http(record);
        self.refused(status, redirect, www_authenticate)?;
        if matches!(status, reqwest::StatusCode::ACCEPTED | reqwest::StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        let answer = PostAnswer { response, content_type, session: answered_session };
        if !status.is_success() {
            return self.error_answer(answer, session_id.is_some()).await;
        }
        self.answer(answer, &message).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        self.client.delete_session(uri, session_id, auth_header, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let resuming = last_event_id.is_some();
        let stream = self.client.get_stream(uri, session_id, last_event_id, auth_header, custom_headers).await;
        // Resuming an answer's stream (the server ended it, as it may): refused, the answer will
        // never come, and the request waiting for it is told at once rather than time out.
        if resuming && let Err(e) = &stream {
            self.wire.fail(format!("the server refused to resume the stream its answer was to come on ({e})"));
        }
        stream
    }
}

/// The headers of one POST: both answer types, the token, the person's own, the session.
fn request_headers(
    auth_header: Option<&str>,
    custom_headers: &HashMap<HeaderName, HeaderValue>,
    session_id: Option<&str>,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = vec![
        ("Accept".into(), "application/json, text/event-stream".into()),
        ("Content-Type".into(), "application/json".into()),
    ];
    if let Some(token) = auth_header {
        headers.push(("Authorization".into(), format!("Bearer {token}")));
    }
    for (name, value) in custom_headers {
        headers.push((name.to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()));
    }
    if let Some(session) = session_id {
        headers.push(("Mcp-Session-Id".into(), session.to_string()));
    }
    headers
}

/// An answer whose status line and headers were read and recorded.
struct PostAnswer {
    response: reqwest::Response,
    content_type: String,
    /// The session id the server gave, if any.
    session: Option<String>,
}

impl HttpTap {
    /// A redirect (never followed: it would carry the token elsewhere) or a sign-in challenge
    /// (401, or 403 for a scope the token lacks) ends the POST here.
    fn refused(
        &self,
        status: reqwest::StatusCode,
        redirect: Option<String>,
        www_authenticate: Option<String>,
    ) -> Result<(), Error> {
        if let Some(why) = redirect {
            self.wire.fail(why.clone());
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(why)));
        }
        if matches!(status.as_u16(), 401 | 403) {
            self.wire.challenged(status.as_u16(), www_authenticate.clone());
        }
        if status == reqwest::StatusCode::UNAUTHORIZED
            && let Some(challenge) = www_authenticate
        {
            return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge)));
        }
        if status == reqwest::StatusCode::FORBIDDEN
            && let Some(challenge) = www_authenticate.filter(|c| c.contains("insufficient_scope"))
        {
            let scope = crate::invoke::auth::Challenge::parse(&challenge).scope;
            return Err(StreamableHttpError::InsufficientScope(InsufficientScopeError::new(challenge, scope)));
        }
        Ok(())
    }

    /// An error status: a session the server forgot, a JSON-RPC error, or what the server said.
    async fn error_answer(&self, answer: PostAnswer, had_session: bool) -> Result<StreamableHttpPostResponse, Error> {
        let status = answer.response.status();
        let body = read_bounded(answer.response, MAX_ERROR_BODY).await;
        let body = String::from_utf8_lossy(&body).into_owned();
        if had_session && session_gone(status.as_u16(), &body) {
            let said = format!("the server no longer knows this session (HTTP {status}: {})", body.trim());
            self.wire.session_lost(said.clone());
            self.events.push(ServerEvent::Lost(said));
            return Err(StreamableHttpError::SessionExpired);
        }
        if answer.content_type.starts_with("application/json")
            && let Ok(message @ ServerJsonRpcMessage::Error(_)) = serde_json::from_str::<ServerJsonRpcMessage>(&body)
        {
            return Ok(StreamableHttpPostResponse::Json(message, answer.session));
        }
        let said = crate::invoke::http::error_answer(status, &answer.content_type, &body);
        self.wire.fail(format!("the server answered {said}"));
        Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(said)))
    }

    /// A success: an event stream (capped), one JSON-RPC message (bounded), or nothing for a
    /// notification or response the server only acknowledged.
    async fn answer(
        &self,
        answer: PostAnswer,
        sent: &ClientJsonRpcMessage,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let PostAnswer { response, content_type, session } = answer;
        // The request this POST carried, whose answer it brings (none for a notification).
        let sent_id = match sent {
            ClientJsonRpcMessage::Request(_) => {
                serde_json::to_value(sent).ok().and_then(|v| v.get("id").map(serde_json::Value::to_string))
            }
            _ => None,
        };
        if content_type.starts_with("text/event-stream") {
            let limit = crate::invoke::MAX_BODY_BYTES + (1 << 20);
            let stream = SseStream::from_bytes_stream(capped(response.bytes_stream(), limit, self.wire.clone()));
            let stream = watch_answer(stream, self.wire.clone(), self.events.clone(), sent_id).boxed();
            return Ok(StreamableHttpPostResponse::Sse(stream, session));
        }
        if content_type.starts_with("application/json") {
            let body = read_bounded(response, crate::invoke::MAX_BODY_BYTES + 1).await;
            if body.len() > crate::invoke::MAX_BODY_BYTES {
                self.wire.fail(oversized());
                return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: crate::invoke::MAX_BODY_BYTES });
            }
            if body.is_empty() && !matches!(sent, ClientJsonRpcMessage::Request(_)) {
                return Ok(StreamableHttpPostResponse::Accepted);
            }
            // Not JSON at all: a deviation, answered for the server (see `raw.rs`).
            let body = match super::raw::inspect(&self.wire, Some(&self.events), &body, sent_id.as_deref()) {
                Some(instead) => instead.into_bytes(),
                None => body,
            };
            let parsed = serde_json::from_slice::<ServerJsonRpcMessage>(&body).inspect_err(|e| {
                self.wire.fail(format!("the server's answer is not a JSON-RPC message ({e})"));
            })?;
            return Ok(StreamableHttpPostResponse::Json(parsed, session));
        }
        if !matches!(sent, ClientJsonRpcMessage::Request(_)) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        Err(StreamableHttpError::UnexpectedContentType(Some(content_type)))
    }
}

/// An answer's event stream, each event's data looked at before rmcp reads it (see `raw.rs`).
/// When the stream breaks (a reset, a server gone), or ends without the answer to `sent` and
/// without an event id to resume from, the answer is made up as an error saying so: the call
/// fails at once, not at its timeout. A stream cut at the size cap ends as before (the wire
/// says why).
fn watch_answer(
    stream: impl futures_util::Stream<Item = Result<Sse, SseError>> + Send + 'static,
    wire: Wire,
    events: EventSink,
    sent: Option<String>,
) -> impl futures_util::Stream<Item = Result<Sse, SseError>> + Send + 'static {
    /// (answered or nothing to wait for, resumable, finished)
    type Seen = (bool, bool, bool);
    let state = (Box::pin(stream), (sent.is_none(), false, false));
    futures_util::stream::unfold(state, move |(mut inner, (answered, resumable, finished)): (_, Seen)| {
        let (wire, events, sent) = (wire.clone(), events.clone(), sent.clone());
        async move {
            if finished {
                return None;
            }
            let ended = |why: String| {
                let data =
                    sent.as_deref().and_then(|id| super::raw::synthetic(id, super::raw::Synthetic::StreamEnded, &why));
                Sse { data, ..Sse::default() }
            };
            match inner.next().await {
                Some(Ok(mut event)) => {
                    let mut answered = answered;
                    if let Some(data) = &event.data {
                        if let Some(instead) =
                            super::raw::inspect(&wire, Some(&events), data.as_bytes(), sent.as_deref())
                        {
                            event.data = Some(instead);
                            answered = true;
                        } else if !answered {
                            let facts = super::raw::scan(data.as_bytes());
                            answered = facts.answer && facts.id.is_some() && facts.id == sent;
                        }
                    }
                    let resumable = resumable || event.id.is_some();
                    Some((Ok(event), (inner, (answered, resumable, false))))
                }
                Some(Err(e)) if answered || wire.failing() => Some((Err(e), (inner, (true, resumable, true)))),
                Some(Err(e)) => {
                    let why = format!("the server's stream broke before its answer came ({e}): did it exit or crash?");
                    Some((Ok(ended(why)), (inner, (true, resumable, true))))
                }
                None if answered || resumable => None,
                None => {
                    let why = "the server ended its answer's stream without answering (did it exit or crash?)";
                    Some((Ok(ended(why.to_string())), (inner, (true, resumable, true))))
                }
            }
        }
    })
}

/// What an answer over the size cap is called, whatever carried it.
fn oversized() -> String {
    format!("its answer is larger than {} MiB, so it was cut off", crate::invoke::MAX_BODY_BYTES >> 20)
}

/// At most `limit` bytes of the body (one more says it was longer).
async fn read_bounded(response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = limit.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if chunk.len() > room {
            body.push(0);
            break;
        }
    }
    body
}

/// The stream, ended with an error once more than `limit` bytes came (one answer's stream); the
/// request waiting for the answer is told at once (rmcp would wait on for it).
fn capped(
    stream: impl futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send + 'static,
    limit: usize,
    wire: Wire,
) -> impl futures_util::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static {
    // (bytes seen, cut): once cut, the stream ends.
    stream.scan((0usize, false), move |(seen, cut), chunk| {
        let item = match chunk {
            _ if *cut => None,
            Err(e) => Some(Err(std::io::Error::other(e))),
            Ok(chunk) if *seen + chunk.len() > limit => {
                *cut = true;
                let why = oversized();
                wire.fail(why.clone());
                Some(Err(std::io::Error::other(why)))
            }
            Ok(chunk) => {
                *seen += chunk.len();
                Some(Ok(chunk))
            }
        };
        std::future::ready(item)
    })
}
