//! The lines an MCP server writes to stdout, on their way to rmcp. rmcp drops an oversized
//! message and goes on waiting, so a call whose answer is too big would only time out; past the
//! cap this reader ends the stream instead, and the flag lets the error say why at once. rmcp
//! also drops a line no JSON parser takes: each whole line is handed to an inspector first
//! (`raw::inspect`), which may give another line in its place (a JSON-RPC error for the request
//! the line answered), so that the call fails at once rather than time out.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use bytes::BytesMut;
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::codec::Decoder;

use crate::wire::{Line, LineDecoder};

/// Looks at a whole line (without its `\n`); `Some` is the line to pass on instead.
pub type Inspect = Box<dyn Fn(&[u8]) -> Option<String> + Send + Sync>;

pub struct LineCap<R> {
    inner: R,
    lines: LineDecoder,
    /// Read and not cut into lines yet: the line being read, not passed on until it is whole.
    read: BytesMut,
    /// Whole lines ready to be read, and how far they have been.
    ready: Vec<u8>,
    taken: usize,
    /// The inner stream ended.
    ended: bool,
    oversized: Arc<AtomicBool>,
    inspect: Option<Inspect>,
}

impl<R> LineCap<R> {
    /// `inner`, ending once a line passes `max` bytes; `oversized` is then set.
    pub fn new(inner: R, max: usize, oversized: Arc<AtomicBool>) -> LineCap<R> {
        LineCap {
            inner,
            // Nothing of a line past the cap is passed on: none of it is kept.
            lines: LineDecoder::skipping(max),
            read: BytesMut::new(),
            ready: Vec::new(),
            taken: 0,
            ended: false,
            oversized,
            inspect: None,
        }
    }

    /// Each whole line goes through `inspect` first.
    pub fn inspecting(mut self, inspect: Inspect) -> LineCap<R> {
        self.inspect = Some(inspect);
        self
    }

    /// Moves each line of what was read that is whole to `ready`; false once a line is over
    /// the cap (as soon as it passes it: its end may be far off, or never come).
    fn take_in(&mut self) -> bool {
        while let Ok(Some(line)) = self.lines.decode(&mut self.read) {
            if !line.is_whole() {
                return false;
            }
            self.pass(&line);
        }
        !self.lines.past_cap()
    }

    fn pass(&mut self, line: &Line) {
        match self.inspect.as_ref().and_then(|inspect| inspect(&line.bytes)) {
            Some(instead) => self.ready.extend_from_slice(instead.as_bytes()),
            None => self.ready.extend_from_slice(&line.bytes),
        }
        self.ready.push(b'\n');
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineCap<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.taken < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.taken);
                buf.put_slice(&this.ready[this.taken..this.taken + n]);
                this.taken += n;
                if this.taken == this.ready.len() {
                    this.ready.clear();
                    this.taken = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.oversized.load(Ordering::Relaxed) {
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                // A last line without its `\n` is passed on as it is (rmcp leaves it unread).
                if let Ok(Some(last)) = this.lines.decode_eof(&mut this.read)
                    && last.is_whole()
                {
                    this.ready.extend_from_slice(&last.bytes);
                    continue;
                }
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) if read.filled().is_empty() => this.ended = true,
                Poll::Ready(Ok(())) => {
                    this.read.extend_from_slice(read.filled());
                    if !this.take_in() {
                        // Nothing of the oversized line is passed on: the stream ends here.
                        this.oversized.store(true, Ordering::Relaxed);
                        this.read = BytesMut::new();
                    }
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn lines_within_the_cap_pass_and_a_longer_one_ends_the_stream() {
        let flag = Arc::new(AtomicBool::new(false));
        let mut ok = LineCap::new(&b"12345\n12345\n"[..], 5, Arc::clone(&flag));
        let mut out = Vec::new();
        ok.read_to_end(&mut out).await.unwrap();
        assert_eq!(out, b"12345\n12345\n");
        assert!(!flag.load(Ordering::Relaxed));
        let mut long = LineCap::new(&b"12345\n123456\n"[..], 5, Arc::clone(&flag));
        let mut out = Vec::new();
        long.read_to_end(&mut out).await.unwrap();
        assert!(out.len() <= 6, "{out:?}");
        assert!(flag.load(Ordering::Relaxed));
    }

    /// A server that never ends its line: the stream ends once the cap is passed.
    #[tokio::test]
    async fn a_line_past_the_cap_ends_the_stream_before_its_end() {
        use tokio::io::AsyncWriteExt;
        let flag = Arc::new(AtomicBool::new(false));
        let (mut server, client) = tokio::io::duplex(64);
        server.write_all(b"ok\n123456").await.unwrap();
        let mut out = Vec::new();
        LineCap::new(client, 5, Arc::clone(&flag)).read_to_end(&mut out).await.unwrap();
        assert_eq!(out, b"ok\n");
        assert!(flag.load(Ordering::Relaxed));
        drop(server);
    }

    #[tokio::test]
    async fn an_inspected_line_may_be_replaced() {
        let flag = Arc::new(AtomicBool::new(false));
        let inspect: Inspect = Box::new(|line| (line == b"bad").then(|| "good".to_string()));
        let mut lines = LineCap::new(&b"one\nbad\ntail"[..], 100, flag).inspecting(inspect);
        let mut out = Vec::new();
        lines.read_to_end(&mut out).await.unwrap();
        assert_eq!(out, b"one\ngood\ntail");
    }
}
