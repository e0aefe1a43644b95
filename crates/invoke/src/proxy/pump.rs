//! One direction of a stdio wire: bytes read are written on at once, as they came, and copied,
//! line by line, to the tap. A line is never held back for being long or not JSON: the
//! wire passes a 100 MB line as it passes a short one; the tap keeps lines up to [`MAX_KEPT`].

use std::io::{self, Read, Write};

use bytes::Bytes;

use crate::wire::{From, TapHandle};

/// The longest line the tap is handed whole; a longer one is recorded by its size.
pub const MAX_KEPT: usize = 32 * 1024 * 1024;

/// Moves bytes from `input` to `output` until `input` closes (or fails: the same to the other
/// end), telling `tap` each line. When `output` fails (the reader went away), `output_closed` is
/// called, and what follows is still read and told, not written: a server is never left blocked
/// on a full pipe.
pub fn pump(mut input: impl Read, mut output: impl Write, from: From, tap: &TapHandle, output_closed: impl FnOnce()) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut line = Lines::new(from, tap);
    let mut writing = true;
    let mut output_closed = Some(output_closed);
    loop {
        let read = match input.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let chunk = &buffer[..read];
        // Told before it is written (a copy and a queue that never waits): the answer cannot
        // reach the tap, from the other direction's thread, before the request it answers.
        line.feed(chunk);
        if writing && output.write_all(chunk).and_then(|()| output.flush()).is_err() {
            writing = false;
            if let Some(said) = output_closed.take() {
                said();
            }
        }
    }
    line.finish();
}

/// Cuts a stream into lines for the tap.
struct Lines<'a> {
    from: From,
    tap: &'a TapHandle,
    pending: Vec<u8>,
    /// The bytes of the current line, kept or not.
    size: usize,
}

impl<'a> Lines<'a> {
    fn new(from: From, tap: &'a TapHandle) -> Lines<'a> {
        Lines { from, tap, pending: Vec::new(), size: 0 }
    }

    fn feed(&mut self, mut chunk: &[u8]) {
        if !self.tap.listening() {
            return;
        }
        while !chunk.is_empty() {
            let end = memchr::memchr(b'\n', chunk);
            let piece = &chunk[..end.unwrap_or(chunk.len())];
            self.size += piece.len();
            if self.size <= MAX_KEPT {
                self.pending.extend_from_slice(piece);
            } else {
                self.pending = Vec::new();
            }
            match end {
                Some(at) => {
                    self.emit();
                    chunk = &chunk[at + 1..];
                }
                None => break,
            }
        }
    }

    fn emit(&mut self) {
        let mut line = std::mem::take(&mut self.pending);
        if self.size > MAX_KEPT {
            self.tap.send_too_large(self.from, self.size, None);
        } else {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.tap.send(self.from, Bytes::from(line), None);
        }
        self.size = 0;
    }

    /// The stream ended: a line cut short is told too (a client or server that closed mid-message).
    fn finish(&mut self) {
        if self.size > 0 {
            self.emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Ring, Tap};

    #[test]
    fn bytes_pass_as_they_came_and_the_tap_sees_lines() {
        let ring = Ring::new(10);
        let tap = Tap::spawn(vec![Box::new(ring.sink())], Box::new(|_| {}));
        let input: &[u8] = b"{\"a\":1}\r\nnot json\n{\"cut";
        let mut output = Vec::new();
        pump(input, &mut output, From::Server, &tap.handle(), || panic!("the output did not fail"));
        tap.finish();
        assert_eq!(output, input);
        let lines: Vec<_> = ring.frames().iter().map(|f| f.raw.clone()).collect();
        assert_eq!(lines, vec![Bytes::from("{\"a\":1}"), Bytes::from("not json"), Bytes::from("{\"cut")]);
    }
}
