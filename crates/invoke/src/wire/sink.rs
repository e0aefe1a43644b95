//! Where frames go: a [`FrameSink`] each. Sinks run on the tap's own thread, never on the wire's,
//! so a slow disk slows the record, not the messages.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
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

/// The record: a JSON Lines file, one frame a line ([`super::record_line`]), appended to.
pub struct JsonLinesSink {
    path: String,
    out: BufWriter<File>,
}

impl JsonLinesSink {
    /// Opens `path` for appending: created 0600 (Unix), and only ever a regular file, never a
    /// symlink (a record holds the session's messages: a link could send them anywhere) nor a
    /// FIFO (a write there would wait for a reader).
    pub fn open(path: &Path) -> io::Result<JsonLinesSink> {
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is a symlink"));
        }
        let file = crate::files::append_private(path)?;
        Ok(JsonLinesSink { path: path.display().to_string(), out: BufWriter::with_capacity(64 * 1024, file) })
    }

    fn write_value(&mut self, value: &serde_json::Value) -> io::Result<()> {
        let line = crate::json_out::to_line(value).map_err(io::Error::other)?;
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")
    }
}

impl FrameSink for JsonLinesSink {
    fn accept(&mut self, frame: &Frame) -> io::Result<()> {
        self.write_value(&super::record_line(frame))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn note_dropped(&mut self, dropped: u64) -> io::Result<()> {
        let line = serde_json::json!({
            "time": crate::text::rfc3339_now(),
            "dropped": dropped,
            "note": "messages passed but were not recorded: the record fell behind",
        });
        self.write_value(&line)
    }

    fn name(&self) -> String {
        format!("the record {}", self.path)
    }
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
    use crate::wire::From;

    #[test]
    fn a_ring_keeps_the_last_frames() {
        let ring = Ring::new(2);
        let mut sink = ring.sink();
        for n in 0..3 {
            let frame = Frame::new(From::Client, SystemTime::now(), Bytes::from(n.to_string()), None);
            sink.accept(&frame).unwrap();
        }
        let kept: Vec<_> = ring.frames().iter().map(|f| f.raw.clone()).collect();
        assert_eq!(kept, vec![Bytes::from("1"), Bytes::from("2")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_record_is_private_and_never_a_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        drop(JsonLinesSink::open(&path).unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(JsonLinesSink::open(&link).err().unwrap().to_string().contains("symlink"));
    }
}
