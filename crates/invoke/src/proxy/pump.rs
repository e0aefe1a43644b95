//! One direction of a stdio wire: bytes read are written on at once, as they came, and copied,
//! line by line, to the tap. A line is never held back for being long or not JSON: the
//! wire passes a 100 MB line as it passes a short one; the tap keeps lines up to [`MAX_KEPT`].
//!
//! While the proxy is armed (a `--fault` rule or a breakpoint set), whole lines are judged
//! instead (`proxy::intercept`), from the start of the next line on; a line longer than
//! [`MAX_KEPT`] is not judged, it passes as it comes.

use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use tokio_util::codec::Decoder as _;

use super::intercept::{Conversation, Deliver, Interceptor, Verdict};
use crate::wire::{Line, LineDecoder, Side, TapHandle};

/// The longest line the tap is handed whole; a longer one is recorded by its size.
pub const MAX_KEPT: usize = 32 * 1024 * 1024;

/// Where one direction writes: shared by its pump and whatever else writes a whole message
/// there (an injected answer, a delayed or held message let go), which never lands in the
/// middle of a line the pump is writing.
#[derive(Clone)]
pub struct Outlet(Arc<Mutex<OutletState>>);

struct OutletState {
    writer: Box<dyn Write + Send>,
    /// The pump wrote part of a line: messages from elsewhere wait for its end.
    mid_line: bool,
    waiting: Vec<Bytes>,
    failed: bool,
}

impl Outlet {
    pub fn new(writer: impl Write + Send + 'static) -> Outlet {
        Outlet(Arc::new(Mutex::new(OutletState {
            writer: Box::new(writer),
            mid_line: false,
            waiting: Vec::new(),
            failed: false,
        })))
    }

    /// The pump's bytes, as they came.
    fn write_chunk(&self, chunk: &[u8]) -> io::Result<()> {
        let mut state = crate::sync::lock(&self.0);
        let written = state.writer.write_all(chunk).and_then(|()| state.writer.flush());
        state.mid_line = chunk.last().is_some_and(|b| *b != b'\n');
        if !state.mid_line && !state.waiting.is_empty() {
            state.write_waiting();
        }
        state.failed |= written.is_err();
        written
    }

    /// One message (without its newline), written whole.
    pub fn write_line(&self, line: &[u8]) {
        let mut state = crate::sync::lock(&self.0);
        if state.mid_line {
            state.waiting.push(Bytes::copy_from_slice(line));
            return;
        }
        state.write_line(line);
    }

    /// The input ended: a message waiting for a line that never ended goes now.
    fn finish(&self) {
        let mut state = crate::sync::lock(&self.0);
        state.mid_line = false;
        state.write_waiting();
    }
}

impl OutletState {
    fn write_line(&mut self, line: &[u8]) {
        if self.failed {
            return;
        }
        let written =
            self.writer.write_all(line).and_then(|()| self.writer.write_all(b"\n")).and_then(|()| self.writer.flush());
        self.failed |= written.is_err();
    }

    fn write_waiting(&mut self) {
        for line in std::mem::take(&mut self.waiting) {
            self.write_line(&line);
        }
    }
}

/// What an armed pump judges with: the run's interceptor, this wire's requests in flight, and
/// where a verdict delivers (this direction's outlet on, the other one back).
pub struct Seam {
    pub interceptor: Arc<Interceptor>,
    pub conversation: Arc<Conversation>,
    pub deliver: Arc<dyn Deliver>,
    pub runtime: tokio::runtime::Handle,
}

/// A stdio wire's two outlets as a [`Deliver`]: `on` the way the messages went, `back` the other.
pub struct StdioDeliver {
    pub on: Outlet,
    pub back: Outlet,
}

impl Deliver for StdioDeliver {
    fn forward(&self, line: Bytes, _: &serde_json::Value) {
        self.on.write_line(&line);
    }

    fn answer(&self, line: Bytes) {
        self.back.write_line(&line);
    }
}

/// Moves bytes from `input` to `output` until `input` closes (or fails: the same to the other
/// end), telling `tap` each line, judging each through `seam` while it is armed. When `output`
/// fails (the reader went away), `output_closed` is called, and what follows is still read and
/// told, not written: a server is never left blocked on a full pipe.
pub fn pump(
    mut input: impl Read,
    output: &Outlet,
    from: Side,
    tap: &TapHandle,
    seam: Option<&Seam>,
    output_closed: impl FnOnce(),
) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut line = Lines::new(from, tap);
    let mut judged = Judged { from, pending: Vec::new() };
    let mut at_line_start = true;
    let mut writing = true;
    let mut output_closed = Some(output_closed);
    let mut write = |bytes: &[u8]| {
        if writing && output.write_chunk(bytes).is_err() {
            writing = false;
            if let Some(said) = output_closed.take() {
                said();
            }
        }
    };
    loop {
        let read = match input.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut chunk = &buffer[..read];
        let armed = seam.filter(|seam| !judged.pending.is_empty() || seam.interceptor.armed());
        if let Some(seam) = armed {
            if !at_line_start {
                // The line begun unjudged ends unjudged.
                let end = memchr::memchr(b'\n', chunk).map_or(chunk.len(), |at| at + 1);
                line.feed(&chunk[..end]);
                write(&chunk[..end]);
                at_line_start = chunk[..end].last() == Some(&b'\n');
                chunk = &chunk[end..];
            }
            if let Some((begun, rest)) = judged.feed(chunk, seam, tap, &mut write) {
                // Too long to judge: it passes as it comes.
                for part in [&begun[..], rest] {
                    line.feed(part);
                    write(part);
                }
                at_line_start = rest.last() == Some(&b'\n');
            }
            continue;
        }
        // Told before it is written (a copy and a queue that never waits): the answer cannot
        // reach the tap, from the other direction's thread, before the request it answers.
        line.feed(chunk);
        write(chunk);
        at_line_start = chunk.last() == Some(&b'\n');
    }
    if !judged.pending.is_empty() {
        // A line cut short by the end of the input passes as it came.
        let rest = std::mem::take(&mut judged.pending);
        line.feed(&rest);
        write(&rest);
    }
    line.finish();
    output.finish();
}

/// The armed side of a pump: the line being gathered to be judged whole.
struct Judged {
    from: Side,
    pending: Vec<u8>,
}

impl Judged {
    /// Judges each whole line of `chunk` (after what is pending); what does not end stays
    /// pending. A line grown past [`MAX_KEPT`] is handed back (what was pending, and the rest of
    /// the chunk) to pass unjudged.
    fn feed<'a>(
        &mut self,
        mut chunk: &'a [u8],
        seam: &Seam,
        tap: &TapHandle,
        write: &mut dyn FnMut(&[u8]),
    ) -> Option<(Vec<u8>, &'a [u8])> {
        while let Some(at) = memchr::memchr(b'\n', chunk) {
            self.pending.extend_from_slice(&chunk[..=at]);
            chunk = &chunk[at + 1..];
            let whole = std::mem::take(&mut self.pending);
            self.judge(whole, seam, tap, write);
        }
        if self.pending.len() + chunk.len() > MAX_KEPT {
            return Some((std::mem::take(&mut self.pending), chunk));
        }
        self.pending.extend_from_slice(chunk);
        None
    }

    /// One whole line (with its newline): passed as it came, or handed to the interceptor.
    fn judge(&self, whole: Vec<u8>, seam: &Seam, tap: &TapHandle, write: &mut dyn FnMut(&[u8])) {
        let mut message = whole.strip_suffix(b"\n").unwrap_or(&whole);
        message = message.strip_suffix(b"\r").unwrap_or(message);
        let message = Bytes::copy_from_slice(message);
        match seam.interceptor.judge(&seam.conversation, self.from, &message, None) {
            Verdict::Pass => {
                tap.send(self.from, message, None);
                write(&whole);
            }
            verdict => seam.interceptor.carry_out(verdict, Arc::clone(&seam.deliver), &seam.runtime),
        }
    }
}

/// Cuts a stream into lines for the tap, by the wire's one line reader.
struct Lines<'a> {
    from: Side,
    tap: &'a TapHandle,
    buffer: BytesMut,
    decoder: LineDecoder,
}

impl<'a> Lines<'a> {
    fn new(from: Side, tap: &'a TapHandle) -> Lines<'a> {
        Lines { from, tap, buffer: BytesMut::new(), decoder: LineDecoder::skipping(MAX_KEPT) }
    }

    fn feed(&mut self, chunk: &[u8]) {
        if !self.tap.listening() {
            return;
        }
        self.buffer.extend_from_slice(chunk);
        while let Ok(Some(line)) = self.decoder.decode(&mut self.buffer) {
            self.emit(line);
        }
    }

    fn emit(&self, line: Line) {
        match line.is_whole() {
            true => self.tap.send(self.from, line.bytes, None),
            false => self.tap.send_too_large(self.from, line.size, None),
        }
    }

    /// The stream ended: a line cut short is told too (a client or server that closed mid-message).
    fn finish(&mut self) {
        if let Ok(Some(line)) = self.decoder.decode_eof(&mut self.buffer) {
            self.emit(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Ring, Tap};

    /// A writer the test reads back.
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn bytes_pass_as_they_came_and_the_tap_sees_lines() {
        let ring = Ring::new(10);
        let tap = Tap::spawn(vec![Box::new(ring.sink())], Box::new(|_| {}));
        let input: &[u8] = b"{\"a\":1}\r\nnot json\n{\"cut";
        let output = Arc::new(Mutex::new(Vec::new()));
        let outlet = Outlet::new(Shared(Arc::clone(&output)));
        pump(input, &outlet, Side::Server, &tap.handle(), None, || panic!("the output did not fail"));
        tap.finish();
        assert_eq!(*output.lock().unwrap(), input);
        let lines: Vec<_> = ring.frames().iter().map(|f| f.raw.clone()).collect();
        assert_eq!(lines, vec![Bytes::from("{\"a\":1}"), Bytes::from("not json"), Bytes::from("{\"cut")]);
    }
}
