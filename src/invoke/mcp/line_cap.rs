//! A cap on the lines an MCP server writes to stdout. rmcp drops an oversized message and goes
//! on waiting, so a call whose answer is too big would only time out; past the cap this reader
//! ends the stream instead, and the flag lets the error say why at once.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

pub struct LineCap<R> {
    inner: R,
    max: usize,
    /// Bytes of the line being read so far.
    current: usize,
    oversized: Arc<AtomicBool>,
}

impl<R> LineCap<R> {
    /// `inner`, ending once a line passes `max` bytes; `oversized` is then set.
    pub fn new(inner: R, max: usize, oversized: Arc<AtomicBool>) -> LineCap<R> {
        LineCap { inner, max, current: 0, oversized }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineCap<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        if self.oversized.load(Ordering::Relaxed) {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let read = &buf.filled()[before..];
            for &byte in read {
                this.current = if byte == b'\n' { 0 } else { this.current + 1 };
                if this.current > this.max {
                    this.oversized.store(true, Ordering::Relaxed);
                    // Nothing of the oversized line is passed on: the stream ends here.
                    buf.set_filled(before);
                    return Poll::Ready(Ok(()));
                }
            }
        }
        polled
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
}
