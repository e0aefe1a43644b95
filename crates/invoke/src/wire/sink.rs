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
    /// FIFO (a write there would wait for a reader). The open itself refuses a link, and what is
    /// checked is the file opened, not the path: a link planted between a check and the open
    /// would otherwise get the session written into its target.
    pub fn open(path: &Path) -> io::Result<JsonLinesSink> {
        if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty() && !f.exists()) {
            crate::files::create_private_dir(folder)?;
        }
        let file = open_no_link(path)?;
        Ok(JsonLinesSink { path: path.display().to_string(), out: BufWriter::with_capacity(64 * 1024, file) })
    }

    fn write_value(&mut self, value: &serde_json::Value) -> io::Result<()> {
        let line = crate::json_out::to_line(value).map_err(io::Error::other)?;
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")
    }
}

/// Opens `path` for appending, creating it 0600, never through a link: on Unix `O_NOFOLLOW`
/// (and `O_NONBLOCK`, so a FIFO cannot hold the open), on Windows the link itself is opened
/// (`FILE_FLAG_OPEN_REPARSE_POINT`) and refused; then the file opened must be a regular one.
fn open_no_link(path: &Path) -> io::Result<File> {
    let is_a_link = || io::Error::new(io::ErrorKind::InvalidInput, "it is a symlink");
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        /// FILE_FLAG_OPEN_REPARSE_POINT: a symlink or junction is opened as itself, not followed.
        const OPEN_REPARSE_POINT: u32 = 0x0020_0000;
        options.custom_flags(OPEN_REPARSE_POINT);
    }
    // O_NOFOLLOW on a link fails with ELOOP: said as the link it is.
    #[cfg(unix)]
    let file = options.open(path).map_err(|e| if e.raw_os_error() == Some(libc::ELOOP) { is_a_link() } else { e })?;
    #[cfg(not(unix))]
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    #[cfg(windows)]
    {
        use std::os::windows::fs::MetadataExt;
        /// FILE_ATTRIBUTE_REPARSE_POINT: what was opened is a link (or another reparse point).
        const REPARSE_POINT: u32 = 0x400;
        if metadata.file_attributes() & REPARSE_POINT != 0 {
            return Err(is_a_link());
        }
    }
    if !metadata.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is not a regular file (a FIFO, socket or device)"));
    }
    Ok(file)
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

    /// No check before the open to race: the open itself refuses a link, to a file there or not
    /// there yet (which `O_CREAT` alone would create through the link).
    #[cfg(unix)]
    #[test]
    fn the_open_itself_refuses_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let there = dir.path().join("there");
        std::fs::write(&there, "").unwrap();
        let to_a_file = dir.path().join("to-a-file.jsonl");
        std::os::unix::fs::symlink(&there, &to_a_file).unwrap();
        assert_eq!(open_no_link(&to_a_file).unwrap_err().to_string(), "it is a symlink");
        let dangling = dir.path().join("dangling.jsonl");
        std::os::unix::fs::symlink(dir.path().join("planted-target"), &dangling).unwrap();
        assert_eq!(open_no_link(&dangling).unwrap_err().to_string(), "it is a symlink");
        assert!(!dir.path().join("planted-target").exists(), "not created through the link");
        assert_eq!(std::fs::read(&there).unwrap(), b"", "nothing written through the link");
    }

    /// The race: the record's path swapped between a file and a link, over and over, while the
    /// record is opened: it is never written through the link (a check before the open could
    /// see the file and the open then follow the link). Timing-bound: on a busy machine the swap
    /// rarely lands between a check and an open, so `the_open_itself_refuses_a_link` is the
    /// test that holds either way.
    #[cfg(unix)]
    #[test]
    fn a_link_planted_while_the_record_opens_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        let path = dir.path().join("r.jsonl");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let planter = {
            let (stop, target, path) = (std::sync::Arc::clone(&stop), target.clone(), path.clone());
            std::thread::spawn(move || {
                let (file, link) = (path.with_extension("file"), path.with_extension("link"));
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::fs::write(&file, "");
                    let _ = std::fs::rename(&file, &path);
                    let _ = std::os::unix::fs::symlink(&target, &link);
                    let _ = std::fs::rename(&link, &path);
                }
            })
        };
        for _ in 0..2000 {
            if let Ok(mut sink) = JsonLinesSink::open(&path) {
                let frame = Frame::new(From::Client, SystemTime::now(), Bytes::from_static(b"{}"), None);
                sink.accept(&frame).unwrap();
                sink.flush().unwrap();
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        planter.join().unwrap();
        assert!(!target.exists(), "the session was written through a planted link");
    }
}
