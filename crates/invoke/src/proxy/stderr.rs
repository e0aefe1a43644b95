//! The server's stderr: copied to the proxy's own stderr as it comes (the client's log shows it
//! as it would without the proxy), and each line handed to the tap as a frame `Side::Stderr`,
//! so the record and `tooldeck attach` have the server's logs beside its messages. A line is
//! kept up to [`MAX_STDERR_LINE`]; a longer one is kept cut, with its size.

use std::io::{self, Read, Write};

use bytes::Bytes;

use crate::wire::{Side, TapHandle};

/// The most of one stderr line kept: logs are prose; a 20 MB line of them is a dump, kept by
/// its start.
pub const MAX_STDERR_LINE: usize = 64 * 1024;

/// Copies `input` (the server's stderr) to `output` until it closes, telling `tap` each line.
/// When `output` fails, the server's stderr is still read (and told): a server is never left
/// blocked on a full pipe.
pub fn relay(mut input: impl Read, mut output: impl Write, tap: &TapHandle) {
    let mut buffer = vec![0u8; 16 * 1024];
    let mut lines = Lines { tap, kept: Vec::new(), size: 0 };
    let mut writing = true;
    loop {
        let read = match input.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let chunk = &buffer[..read];
        if writing && output.write_all(chunk).and_then(|()| output.flush()).is_err() {
            writing = false;
        }
        lines.feed(chunk);
    }
    lines.finish();
}

/// Cuts the stream into lines for the tap, each kept up to [`MAX_STDERR_LINE`].
struct Lines<'a> {
    tap: &'a TapHandle,
    kept: Vec<u8>,
    /// The current line's bytes, kept or not.
    size: usize,
}

impl Lines<'_> {
    fn feed(&mut self, mut chunk: &[u8]) {
        if !self.tap.listening() {
            return;
        }
        while !chunk.is_empty() {
            let end = memchr::memchr(b'\n', chunk);
            let piece = &chunk[..end.unwrap_or(chunk.len())];
            self.size += piece.len();
            let room = MAX_STDERR_LINE.saturating_sub(self.kept.len());
            self.kept.extend_from_slice(&piece[..piece.len().min(room)]);
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
        let mut line = std::mem::take(&mut self.kept);
        if self.size > line.len() {
            // Cut on a character, so the start reads as the text it was.
            let whole = match std::str::from_utf8(&line) {
                Ok(_) => line.len(),
                Err(e) => e.valid_up_to().max(line.len().saturating_sub(3)),
            };
            line.truncate(whole);
            self.tap.send_cut(Side::Stderr, Bytes::from(line), self.size);
        } else {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.tap.send(Side::Stderr, Bytes::from(line), None);
        }
        self.size = 0;
    }

    /// The stream ended: a line without its end is told too.
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

    /// A frame's record line as JSON, to look into.
    fn record_value(frame: &crate::wire::Frame) -> serde_json::Value {
        serde_json::to_value(crate::wire::record_line(frame)).unwrap()
    }

    #[test]
    fn stderr_passes_as_it_came_and_each_line_is_a_frame() {
        let ring = Ring::new(10);
        let tap = Tap::spawn(vec![Box::new(ring.sink())], Box::new(|_| {}));
        let long = "é".repeat(MAX_STDERR_LINE);
        let input = format!("starting\r\n{{\"level\":\"info\"}}\n{long}\nno end");
        let mut output = Vec::new();
        relay(input.as_bytes(), &mut output, &tap.handle());
        tap.finish();
        assert_eq!(output, input.as_bytes(), "copied as it came");
        let frames = ring.frames();
        let texts: Vec<_> = frames.iter().map(|f| String::from_utf8_lossy(&f.raw).into_owned()).collect();
        assert_eq!(texts[0], "starting");
        assert!(frames.iter().all(|f| f.from == Side::Stderr && f.message.is_none()), "text, never read as JSON");
        assert_eq!(texts[1], r#"{"level":"info"}"#);
        assert_eq!(frames[2].size, long.len());
        assert_eq!(frames[2].raw.len(), MAX_STDERR_LINE, "cut on a character: é is two bytes");
        assert!(!frames[2].kept() && frames[2].has_text());
        let line = record_value(&frames[2]);
        assert_eq!(line["note"], "cut: the first 64.0 KiB of a 128.0 KiB line kept");
        assert_eq!(texts[3], "no end");
        assert_eq!(frames.len(), 4);
    }

    /// A proxy whose own stderr is gone still reads the server's: the server never blocks.
    #[test]
    fn a_closed_stderr_of_ours_still_drains_the_servers() {
        struct Gone;
        impl Write for Gone {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let ring = Ring::new(10);
        let tap = Tap::spawn(vec![Box::new(ring.sink())], Box::new(|_| {}));
        relay(&b"one\ntwo\n"[..], Gone, &tap.handle());
        tap.finish();
        assert_eq!(ring.frames().len(), 2);
    }
}
