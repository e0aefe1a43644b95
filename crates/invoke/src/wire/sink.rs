//! Where frames go: a [`FrameSink`] each. Sinks run on the tap's own thread, never on the wire's,
//! so a slow disk slows the record, not the messages.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex};

use super::frame::Frame;

/// Something frames are handed to, in the order they passed.
pub trait FrameSink: Send {
    /// Takes one frame. An error ends this sink (the tap says so once); the wire goes on.
    fn accept(&mut self, frame: &Frame) -> io::Result<()>;
    /// Called when no frame is waiting: write out what is buffered.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// A line the tap adds of its own (frames dropped because the sinks fell behind).
    fn note_dropped(&mut self, _dropped: u64) -> io::Result<()> {
        Ok(())
    }
    /// What the tap's warning calls this sink.
    fn name(&self) -> String;
}

/// The last frames in memory, at most a fixed number: what a live view reads.
#[derive(Clone)]
pub struct Ring {
    frames: Arc<Mutex<VecDeque<Frame>>>,
    capacity: usize,
}

impl Ring {
    pub fn new(capacity: usize) -> Ring {
        Ring { frames: Arc::new(Mutex::new(VecDeque::with_capacity(capacity.min(1024)))), capacity: capacity.max(1) }
    }

    /// A sink that fills this ring.
    pub fn sink(&self) -> RingSink {
        RingSink(self.clone())
    }

    /// The frames held now, oldest first.
    pub fn frames(&self) -> Vec<Frame> {
        crate::sync::lock(&self.frames).iter().cloned().collect()
    }
}

/// The sink of a [`Ring`]: the oldest frame goes when a new one comes to a full ring.
pub struct RingSink(Ring);

impl FrameSink for RingSink {
    fn accept(&mut self, frame: &Frame) -> io::Result<()> {
        let mut frames = crate::sync::lock(&self.0.frames);
        if frames.len() == self.0.capacity {
            frames.pop_front();
        }
        frames.push_back(frame.clone());
        Ok(())
    }

    fn name(&self) -> String {
        "the live view".into()
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use bytes::Bytes;

    use super::*;
    use crate::wire::Side;

    #[test]
    fn a_ring_keeps_the_last_frames() {
        let ring = Ring::new(2);
        let mut sink = ring.sink();
        for n in 0..3 {
            let frame = Frame::new(Side::Client, SystemTime::now(), Bytes::from(n.to_string()), None);
            sink.accept(&frame).unwrap();
        }
        let kept: Vec<_> = ring.frames().iter().map(|f| f.raw.clone()).collect();
        assert_eq!(kept, vec![Bytes::from("1"), Bytes::from("2")]);
    }
}
