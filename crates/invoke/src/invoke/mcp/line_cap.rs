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

use tokio::io::{AsyncRead, ReadBuf};

/// Looks at a whole line (without its `\n`); `Some` is the line to pass on instead.
pub type Inspect = Box<dyn Fn(&[u8]) -> Option<String> + Send + Sync>;

pub struct LineCap<R> {
    inner: R,
    max: usize,
    /// The line being read, not passed on until it is whole.
    line: Vec<u8>,
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
        LineCap { inner, max, line: Vec::new(), ready: Vec::new(), taken: 0, ended: false, oversized, inspect: None }
    }

    /// Each whole line goes through `inspect` first.
    pub fn inspecting(mut self, inspect: Inspect) -> LineCap<R> {
        self.inspect = Some(inspect);
        self
    }

    /// Takes in `read`, moving each line that is whole to `ready`; false once a line is over the cap.
    fn take_in(&mut self, read: &[u8]) -> bool {
        let mut rest = read;
        while let Some(at) = rest.iter().position(|b| *b == b'\n') {
            if self.line.len() + at > self.max {
                return false;
            }
            self.line.extend_from_slice(&rest[..at]);
            match self.inspect.as_ref().and_then(|inspect| inspect(&self.line)) {
                Some(instead) => self.ready.extend_from_slice(instead.as_bytes()),
                None => self.ready.extend_from_slice(&self.line),
            }
            self.ready.push(b'\n');
            self.line.clear();
            rest = &rest[at + 1..];
        }
        if self.line.len() + rest.len() > self.max {
            return false;
        }
        self.line.extend_from_slice(rest);
        true
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
            if this.ended || this.oversized.load(Ordering::Relaxed) {
                // A last line without its `\n` is passed on as it is (rmcp leaves it unread).
                let last = std::mem::take(&mut this.line);
                if last.is_empty() || this.oversized.load(Ordering::Relaxed) {
                    return Poll::Ready(Ok(()));
                }
                this.ready = last;
                continue;
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) if read.filled().is_empty() => this.ended = true,
                Poll::Ready(Ok(())) => {
                    if !this.take_in(read.filled()) {
                        // Nothing of the oversized line is passed on: the stream ends here.
                        this.oversized.store(true, Ordering::Relaxed);
                        this.line.clear();
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
