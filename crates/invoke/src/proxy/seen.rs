//! The tap's view of an answer's body as it streams through the HTTP proxy: each SSE event's data
//! (read by `sse-stream`'s parser), or the whole body of any other answer. The client's bytes
//! never pass through here: the proxy relays each chunk as it came and shows this a copy.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::mpsc::{Sender, TryRecvError, channel};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use futures_util::Stream;
use sse_stream::{Sse, SseStream};

use crate::wire::{HttpDetails, Side, TapHandle};

/// What the tap is told of one answer's body, fed chunk by chunk; told at the end (or when the
/// client goes away) for a body that is not an event stream.
pub(super) struct Seen {
    tap: TapHandle,
    details: HttpDetails,
    /// The most bytes kept of a body, or of one event.
    cap: usize,
    body: Body,
}

enum Body {
    Whole { kept: Vec<u8>, size: usize },
    Events(Events),
}

/// Where an event stream is read up to.
struct Events {
    parser: Parser,
    /// Bytes of the event under way: since the last blank line.
    under_way: usize,
    /// True while the line under way holds nothing but line-end bytes so far.
    line_blank: bool,
    /// The event under way grew past the cap: its lines are not parsed (the parser would keep
    /// them all) until its blank line, and then it is told by its size.
    skipping: bool,
    /// True once the tap was told anything of this stream.
    told: bool,
}

impl Seen {
    pub(super) fn new(tap: TapHandle, details: HttpDetails, events: bool, cap: usize) -> Seen {
        let body = if events {
            Body::Events(Events { parser: Parser::new(), under_way: 0, line_blank: true, skipping: false, told: false })
        } else {
            Body::Whole { kept: Vec::new(), size: 0 }
        };
        Seen { tap, details, cap, body }
    }

    pub(super) fn feed(&mut self, chunk: &Bytes) {
        match &mut self.body {
            Body::Whole { kept, size } => {
                *size += chunk.len();
                if kept.len() + chunk.len() <= self.cap {
                    kept.extend_from_slice(chunk);
                }
            }
            Body::Events(events) => {
                let tell = Telling { tap: &self.tap, details: &self.details };
                events.feed(chunk, self.cap, &tell);
            }
        }
    }
}

impl Drop for Seen {
    /// The body ended (or the client went away): a whole body is told now; a stream that told
    /// nothing is told as an empty answer, so the record still holds its status and headers.
    fn drop(&mut self) {
        let details = Some(self.details.clone());
        match &mut self.body {
            Body::Whole { kept, size } if *size <= self.cap => {
                self.tap.send(Side::Server, Bytes::from(std::mem::take(kept)), details);
            }
            Body::Whole { size, .. } => self.tap.send_too_large(Side::Server, *size, details),
            // Cut off by the stream's end.
            Body::Events(events) if events.skipping => {
                self.tap.send_too_large(Side::Server, events.under_way, details);
            }
            Body::Events(events) if !events.told => self.tap.send(Side::Server, Bytes::new(), details),
            Body::Events(_) => {}
        }
    }
}

struct Telling<'a> {
    tap: &'a TapHandle,
    details: &'a HttpDetails,
}

impl Events {
    /// Hands `chunk` to the parser a line at a time: a line the parser refuses (a field SSE does
    /// not know, a second `id:`) costs that line alone, not the rest of the chunk after it, and
    /// the event's size is known line by line. Lines end at `\n` (or `\r\n`) here; a stream that
    /// ends its lines with a lone `\r` is still parsed right, only its events' sizes are not
    /// counted apart.
    fn feed(&mut self, chunk: &Bytes, cap: usize, tell: &Telling<'_>) {
        let mut rest = chunk.clone();
        while !rest.is_empty() {
            let line_end = memchr::memchr(b'\n', &rest).map_or(rest.len(), |at| at + 1);
            let line = rest.split_to(line_end);
            let ends = line.ends_with(b"\n");
            let only_line_ends = line.iter().all(|byte| matches!(byte, b'\r' | b'\n'));
            let event_ends = self.line_blank && only_line_ends && ends;
            self.line_blank = ends || (self.line_blank && only_line_ends);
            self.under_way += line.len();
            if !self.skipping && self.under_way > cap {
                self.skipping = true;
                // What the parser held of this event is let go.
                self.parser = Parser::new();
            }
            if !self.skipping {
                self.parser.push(line, |event| self.told |= tell.event(event));
            }
            if event_ends {
                if self.skipping {
                    tell.tap.send_too_large(Side::Server, self.under_way, Some(tell.details.clone()));
                    self.told = true;
                    self.skipping = false;
                }
                self.under_way = 0;
            }
        }
    }
}

impl Telling<'_> {
    /// Tells the tap an event's data, if it has any (an event of only `id:` or `retry:` has
    /// nothing to record); true when it told.
    fn event(&self, event: Sse) -> bool {
        let Some(data) = event.data.filter(|data| !data.is_empty()) else { return false };
        self.tap.send(Side::Server, Bytes::from(data), Some(self.details.clone()));
        true
    }
}

/// The data of one SSE event (its bytes up to its blank line), read by the same parser as the
/// tap's: what an armed proxy judges of an event (`intercept::over_http`).
pub(super) fn event_data(event: &[u8]) -> Option<Vec<u8>> {
    let mut parser = Parser::new();
    let mut data = None;
    let mut rest = Bytes::copy_from_slice(event);
    while !rest.is_empty() {
        let line_end = memchr::memchr(b'\n', &rest).map_or(rest.len(), |at| at + 1);
        parser.push(rest.split_to(line_end), |event| data = data.take().or(event.data));
    }
    // The blank line that ends the event was cut off by the caller.
    parser.push(Bytes::from_static(b"\n\n"), |event| data = data.take().or(event.data));
    data.filter(|data| !data.is_empty()).map(String::into_bytes)
}

type Parsed = Pin<Box<dyn Stream<Item = Result<Sse, sse_stream::Error>> + Send>>;

/// `sse-stream`'s parser, fed by hand. It reads events out of a stream of chunks, so its stream
/// is one this side pushes lines into, and it is polled right after each push: with every line
/// already there it never waits, and what it still lacks it answers `Pending`.
struct Parser {
    lines: Sender<Bytes>,
    events: Parsed,
}

impl Parser {
    fn new() -> Parser {
        let (lines, pushed) = channel::<Bytes>();
        let chunks = futures_util::stream::poll_fn(move |_| match pushed.try_recv() {
            Ok(line) => Poll::Ready(Some(Ok::<_, Infallible>(line))),
            Err(TryRecvError::Empty) => Poll::Pending,
            Err(TryRecvError::Disconnected) => Poll::Ready(None),
        });
        Parser { lines, events: Box::pin(SseStream::from_bytes_stream(chunks)) }
    }

    /// Pushes `line` in and hands `each` the events it completed.
    fn push(&mut self, line: Bytes, mut each: impl FnMut(Sse)) {
        // The receiving end lives in `events`, as long as `self`: the send cannot fail.
        let _ = self.lines.send(line);
        let mut context = Context::from_waker(Waker::noop());
        loop {
            match self.events.as_mut().poll_next(&mut context) {
                Poll::Ready(Some(Ok(event))) => each(event),
                // A line it refused: SSE ignores a field it does not know, and so does the tap.
                Poll::Ready(Some(Err(_))) => {}
                Poll::Ready(None) | Poll::Pending => return,
            }
        }
    }
}

#[cfg(test)]
#[path = "seen_tests.rs"]
mod tests;
