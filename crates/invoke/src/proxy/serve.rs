//! Serving a record back over stdio or Streamable HTTP (plain JSON answers, no session).

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::replay::Answers;
use crate::wire::{BlockingLines, LineDecoder};

/// The longest request line read; a longer one is skipped whole.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// Answers each request line of stdin on stdout until stdin closes.
pub fn stdio(mut answers: Answers) -> io::Result<()> {
    let lines = BlockingLines::new(io::stdin().lock(), LineDecoder::skipping(MAX_LINE));
    let mut out = io::stdout().lock();
    for line in lines {
        let line = line?;
        if !line.is_whole() {
            continue;
        }
        for answer in answer_all(&mut answers, &line.bytes) {
            out.write_all(answer.as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
    }
    Ok(())
}

/// The answers to one message (a request, a notification, or a batch of them), as lines.
fn answer_all(answers: &mut Answers, body: &[u8]) -> Vec<String> {
    let Ok(message) = crate::wire::parse_json(body) else { return Vec::new() };
    let messages = match message {
        Value::Array(items) => items,
        one => vec![one],
    };
    messages
        .iter()
        .filter_map(|m| answers.answer(m))
        .filter_map(|answer| crate::json_out::to_line(&answer).ok())
        .collect()
}

/// Answers POSTs on 127.0.0.1:`port` (any path; only this machine's clients, by the loopback
/// guard) until Ctrl-C; `on_ready` hears the address.
pub async fn http(answers: Answers, port: u16, on_ready: impl FnOnce(std::net::SocketAddr)) -> io::Result<()> {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;

    let answers = Arc::new(Mutex::new(answers));
    let handler = move |method: axum::http::Method, body: axum::body::Bytes| {
        let answers = Arc::clone(&answers);
        async move {
            if method != axum::http::Method::POST {
                return StatusCode::METHOD_NOT_ALLOWED.into_response();
            }
            let lines = answer_all(&mut crate::sync::lock(&answers), &body);
            match lines.len() {
                0 => StatusCode::ACCEPTED.into_response(),
                1 => ([(header::CONTENT_TYPE, "application/json")], lines.concat()).into_response(),
                _ => ([(header::CONTENT_TYPE, "application/json")], format!("[{}]", lines.join(","))).into_response(),
            }
        }
    };
    let router = axum::Router::new().fallback(handler);
    let bound = crate::loopback::Bound::bind(port).await?;
    on_ready(bound.addr());
    let mut signals = crate::signals::StopSignals::new()?;
    let stopped = async move {
        signals.recv().await;
    };
    bound.serve(router).run_until(stopped).await
}
