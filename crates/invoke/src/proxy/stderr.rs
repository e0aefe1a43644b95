//! The server's stderr: copied to the proxy's own stderr as it comes (the client's log shows it
//! as it would without the proxy), and each line handed to the tap as a frame `Side::Stderr`,
//! so the record and `tooldeck attach` have the server's logs beside its messages. A line is
//! kept up to [`MAX_STDERR_LINE`]; a longer one is kept cut, with its size.

use std::io::{self, Read, Write};

use crate::wire::{BlockingLines, Line, LineDecoder, Side, TapHandle};

/// The most of one stderr line kept: logs are prose; a 20 MB line of them is a dump, kept by
/// its start.
pub const MAX_STDERR_LINE: usize = 64 * 1024;

/// Copies `input` (the server's stderr) to `output` until it closes, telling `tap` each line.
/// When `output` fails, the server's stderr is still read (and told): a server is never left
/// blocked on a full pipe.
pub fn relay(input: impl Read, output: impl Write, tap: &TapHandle) {
    let copied = CopiedTo { input, output, writing: true };
    for line in BlockingLines::new(copied, LineDecoder::cutting(MAX_STDERR_LINE)) {
        let Ok(line) = line else { break };
        if tap.listening() {
            tell(tap, line);
        }
    }
}

/// [`relay`] for a server of a `--listen` session (tokio's pipes): the same copy, the same
/// lines.
pub async fn relay_async(
    mut input: impl tokio::io::AsyncRead + Unpin,
    mut output: impl tokio::io::AsyncWrite + Unpin,
    tap: &TapHandle,
) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio_util::codec::Decoder as _;
    let mut lines = LineDecoder::cutting(MAX_STDERR_LINE);
    let mut buffer = bytes::BytesMut::with_capacity(8 * 1024);
    let mut writing = true;
    loop {
        let before = buffer.len();
        // A stderr that fails is at its end: the line it was in is still told.
        let read = input.read_buf(&mut buffer).await.unwrap_or(0);
        if read == 0 {
            break;
        }
        if writing {
            let chunk = &buffer[before..];
            writing = output.write_all(chunk).await.is_ok() && output.flush().await.is_ok();
        }
        while let Ok(Some(line)) = lines.decode(&mut buffer) {
            if tap.listening() {
                tell(tap, line);
            }
        }
    }
    if let Ok(Some(line)) = lines.decode_eof(&mut buffer)
        && tap.listening()
    {
        tell(tap, line);
    }
}

/// One line to the tap: whole, or its start cut on a character (so it reads as the text it
/// was) with its size.
fn tell(tap: &TapHandle, line: Line) {
    if line.is_whole() {
        tap.send(Side::Stderr, line.bytes, None);
        return;
    }
    let whole = match std::str::from_utf8(&line.bytes) {
        Ok(_) => line.bytes.len(),
        Err(e) => e.valid_up_to().max(line.bytes.len().saturating_sub(3)),
    };
    tap.send_cut(Side::Stderr, line.bytes.slice(..whole), line.size);
}

/// `input`, each read copied to `output` as it comes, before it is cut into lines: the
/// client's log sees the server's stderr when the server writes it, a line ended or not.
struct CopiedTo<R, W> {
    input: R,
    output: W,
    /// False once `output` failed: what follows is read, not written.
    writing: bool,
}

impl<R: Read, W: Write> Read for CopiedTo<R, W> {
    fn read(&mut self, into: &mut [u8]) -> io::Result<usize> {
        let read = match self.input.read(into) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
            // A stderr that fails is at its end: the line it was in is still told.
            Err(_) => 0,
        };
        let chunk = &into[..read];
        if read > 0 && self.writing && self.output.write_all(chunk).and_then(|()| self.output.flush()).is_err() {
            self.writing = false;
        }
        Ok(read)
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

    #[tokio::test]
    async fn a_listen_sessions_stderr_is_relayed_and_told_the_same_way() {
        let ring = Ring::new(10);
        let tap = Tap::spawn(vec![Box::new(ring.sink())], Box::new(|_| {}));
        let long = "é".repeat(MAX_STDERR_LINE);
        let input = format!("starting\r\n{long}\nno end");
        let mut output = Vec::new();
        relay_async(input.as_bytes(), &mut output, &tap.handle()).await;
        tap.finish();
        assert_eq!(output, input.as_bytes(), "copied as it came");
        let frames = ring.frames();
        let texts: Vec<_> = frames.iter().map(|f| String::from_utf8_lossy(&f.raw).into_owned()).collect();
        assert_eq!((texts[0].as_str(), texts[2].as_str()), ("starting", "no end"));
        assert_eq!((frames[1].size, frames[1].raw.len()), (long.len(), MAX_STDERR_LINE));
        assert!(frames.iter().all(|f| f.from == Side::Stderr));
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
