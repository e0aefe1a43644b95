//! One bounded line reader for the wire: a byte stream cut at each `\n` (a `\r` before it
//! dropped), each line kept up to a cap. A longer line never fills memory: its first bytes are
//! kept (or none, for a reader that only skips it) and its whole size counted while the rest is
//! let go, and the line after it reads as it should. Async readers take it as a tokio-util
//! [`Decoder`] (`FramedRead`); blocking ones through [`BlockingLines`], which feeds the same
//! decoder, so there is one rule for where a line ends and what a long one keeps.

use std::io::{self, Read};

use bytes::{Buf, Bytes, BytesMut};
use tokio_util::codec::Decoder;

/// How much a blocking reader asks for at a time.
const READ_SIZE: usize = 64 * 1024;

/// One line of the stream, without its `\n` (nor a `\r` before it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The line; for one past the cap, its first bytes (none from a skipping decoder).
    pub bytes: Bytes,
    /// The line's whole size in bytes.
    pub size: usize,
    /// False only for the last line of an input that ended without a `\n` (a writer that
    /// stopped in the middle of a line, which some readers do not take as a line).
    pub newline: bool,
}

impl Line {
    /// The whole line is here: it was within the cap.
    pub fn is_whole(&self) -> bool {
        self.bytes.len() == self.size
    }
}

/// Cuts bytes into [`Line`]s of at most a cap; see the module's comment.
#[derive(Debug, Clone)]
pub struct LineDecoder {
    cap: usize,
    /// A line past the cap keeps its first `cap` bytes (else none).
    keep_start: bool,
    /// How much of the buffer was searched for a `\n` already, so a long line is searched once.
    searched: usize,
    /// The line being read passed the cap.
    past_cap: Option<PastCap>,
}

/// A line past the cap, while it lasts.
#[derive(Debug, Clone, Copy)]
struct PastCap {
    /// Its first bytes, at the front of the buffer (none for a decoder that skips).
    kept: usize,
    /// Its bytes let go since (the buffer holds only what came after them).
    let_go: usize,
    /// The last byte let go was a `\r`: with a `\n` next, it was no part of the line.
    let_go_cr: bool,
}

impl LineDecoder {
    /// Lines of up to `cap` bytes; a longer one comes as its first `cap` bytes and its size.
    pub fn cutting(cap: usize) -> LineDecoder {
        LineDecoder { cap, keep_start: true, searched: 0, past_cap: None }
    }

    /// Lines of up to `cap` bytes; a longer one comes as its size alone, none of its bytes.
    pub fn skipping(cap: usize) -> LineDecoder {
        LineDecoder { keep_start: false, ..LineDecoder::cutting(cap) }
    }

    /// Lines of up to `cap` bytes from now on, for a stream whose first line is held to less
    /// than the rest. Meant between lines: a line begun keeps what it kept.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    /// The line being read has passed the cap already: a reader that gives up on such a line
    /// need not wait for its end (which may never come).
    pub fn past_cap(&self) -> bool {
        self.past_cap.is_some()
    }

    /// The line in `src` up to `end` (a `\n` there when `newline`), taken out of `src`.
    fn take_line(&mut self, src: &mut BytesMut, end: usize, newline: bool) -> Line {
        let size = if end > 0 && src[end - 1] == b'\r' { end - 1 } else { end };
        // A chunk read at once may hold a whole line longer than the cap: it is cut the same.
        let kept = if size <= self.cap { size } else { self.kept_of_a_long_line() };
        let bytes = take_out(src, kept, end + usize::from(newline));
        self.searched = 0;
        Line { bytes, size, newline }
    }

    /// The line past the cap that ends at `end` of `src` (a `\n` there when `newline`),
    /// taken out of `src`; `cr` when a `\r` came last before the end.
    fn take_long_line(&mut self, src: &mut BytesMut, past: PastCap, end: usize, cr: bool, newline: bool) -> Line {
        let size = end + past.let_go - usize::from(cr);
        let bytes = take_out(src, past.kept, end + usize::from(newline));
        self.past_cap = None;
        self.searched = 0;
        Line { bytes, size, newline }
    }

    fn kept_of_a_long_line(&self) -> usize {
        if self.keep_start { self.cap } else { 0 }
    }

    /// `src` is all one line so far: past the cap, what is not kept of it goes.
    fn bound(&mut self, src: &mut BytesMut) {
        // One more byte than the cap may be a `\r` that a `\n` will take off.
        let past = src.len() > self.cap && !(src.len() - 1 == self.cap && src[self.cap] == b'\r');
        if !past && self.past_cap.is_none() {
            return;
        }
        let kept = self.kept_of_a_long_line();
        let past_cap = self.past_cap.get_or_insert(PastCap { kept, let_go: 0, let_go_cr: false });
        if src.len() > past_cap.kept {
            past_cap.let_go += src.len() - past_cap.kept;
            past_cap.let_go_cr = src.last() == Some(&b'\r');
            src.truncate(past_cap.kept);
        }
    }
}

/// The first `kept` bytes of `src`, copied, once its first `used` bytes are taken out: a line
/// kept long (in a ring, a queue) holds its own bytes, not the reading buffer's allocation (up
/// to the cap, which a small line split from it would keep alive), and the buffer, its own
/// again, is reused.
fn take_out(src: &mut BytesMut, kept: usize, used: usize) -> Bytes {
    let bytes = Bytes::copy_from_slice(&src[..kept]);
    src.advance(used);
    bytes
}

impl Decoder for LineDecoder {
    type Item = Line;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> io::Result<Option<Line>> {
        if let Some(past) = &mut self.past_cap {
            // A buffer emptied by its owner between calls holds less of the start than was kept.
            past.kept = past.kept.min(src.len());
        }
        if let Some(past) = self.past_cap {
            let Some(at) = memchr::memchr(b'\n', &src[past.kept..]) else {
                self.bound(src);
                return Ok(None);
            };
            let end = past.kept + at;
            // The byte before the `\n` was let go when the `\n` is the first byte after the kept.
            let cr = if at > 0 { src[end - 1] == b'\r' } else { past.let_go_cr };
            return Ok(Some(self.take_long_line(src, past, end, cr, true)));
        }
        let searched = self.searched.min(src.len());
        match memchr::memchr(b'\n', &src[searched..]) {
            Some(at) => Ok(Some(self.take_line(src, searched + at, true))),
            None => {
                self.searched = src.len();
                self.bound(src);
                Ok(None)
            }
        }
    }

    /// At the end of the input, a line without its `\n` is a line too (marked so).
    fn decode_eof(&mut self, src: &mut BytesMut) -> io::Result<Option<Line>> {
        if let Some(line) = self.decode(src)? {
            return Ok(Some(line));
        }
        if let Some(past) = self.past_cap {
            // `decode` let go of all but the kept bytes: the line ends there.
            let end = src.len();
            return Ok(Some(self.take_long_line(src, past, end, past.let_go_cr, false)));
        }
        if src.is_empty() {
            return Ok(None);
        }
        let end = src.len();
        Ok(Some(self.take_line(src, end, false)))
    }
}

/// The lines of a blocking reader, cut by a [`LineDecoder`].
pub struct BlockingLines<R> {
    reader: R,
    decoder: LineDecoder,
    buffer: BytesMut,
    ended: bool,
}

impl<R: Read> BlockingLines<R> {
    pub fn new(reader: R, decoder: LineDecoder) -> BlockingLines<R> {
        BlockingLines { reader, decoder, buffer: BytesMut::new(), ended: false }
    }

    /// The decoder, to change its cap between lines.
    pub fn decoder_mut(&mut self) -> &mut LineDecoder {
        &mut self.decoder
    }

    /// The next line; `None` at the end of the input. A read that fails (a wait that ran out)
    /// loses nothing: the next call goes on where this one stopped.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        loop {
            if let Some(line) = self.decoder.decode(&mut self.buffer)? {
                return Ok(Some(line));
            }
            if self.ended {
                return self.decoder.decode_eof(&mut self.buffer);
            }
            let filled = self.buffer.len();
            self.buffer.resize(filled + READ_SIZE, 0);
            let read = self.reader.read(&mut self.buffer[filled..]);
            self.buffer.truncate(filled + read.as_ref().map_or(0, |n| *n));
            match read {
                Ok(0) => self.ended = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl<R: Read> Iterator for BlockingLines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<io::Result<Line>> {
        self.next_line().transpose()
    }
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;
