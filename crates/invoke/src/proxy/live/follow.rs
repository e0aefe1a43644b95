//! `tooldeck attach FILE` on a record a proxy may still be writing: what it holds is read, then
//! it is followed as `tail -F` follows a log. New lines are read as they are written (a line
//! written in part waits for its end); when the record is rotated (`--max-record-size`: FILE
//! became FILE.1), the rest of the old file is read, then the file that came after it (FILE.k-1
//! … FILE), each one's carried lines (seen already) skipped. Every read is bounded: what is there at first, and each line.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::BytesMut;
use tokio_util::codec::Decoder;

use crate::wire::{Frame, FrameSink, LineDecoder, MAX_RECORD_BYTES, RecordError};

/// The longest line followed (as a live feed's): a message kept whole, masked, with room.
const MAX_LINE: usize = 48 * 1024 * 1024;
/// How often the record is looked at for more when there was nothing new.
const POLL: Duration = Duration::from_millis(200);
/// How many old files (FILE.1 …) are looked through for where the one read went.
const MAX_OLD_FILES: usize = 1000;

/// What tells one file from another at the same path: a rotation gives the path a new file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    #[cfg(unix)]
    device_and_inode: (u64, u64),
    #[cfg(not(unix))]
    created: Option<std::time::SystemTime>,
}

impl Identity {
    fn of(metadata: &std::fs::Metadata) -> Identity {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Identity { device_and_inode: (metadata.dev(), metadata.ino()) }
        }
        #[cfg(not(unix))]
        {
            Identity { created: metadata.created().ok() }
        }
    }
}

/// A record followed from where it was read to.
pub struct RecordTail {
    path: PathBuf,
    file: File,
    identity: Identity,
    /// Bytes read of the current file.
    position: u64,
    /// Its lines: one read in part (its end not written yet) waits in `read` for the rest.
    lines: LineDecoder,
    read: BytesMut,
    /// True once a new file was opened: its carried lines were read in the old one.
    skip_carried: bool,
}

impl RecordTail {
    /// Opens the record at `path` and reads what it holds now: its frames, and the tail to
    /// follow it from there.
    pub fn open(path: &Path) -> Result<(Vec<Frame>, RecordTail), RecordError> {
        let shown = || path.display().to_string();
        let unreadable = |source| RecordError::Read { path: shown(), source };
        let file = File::open(path).map_err(unreadable)?;
        let metadata = file.metadata().map_err(unreadable)?;
        if metadata.len() > MAX_RECORD_BYTES {
            let larger = format!("it is larger than {}", crate::text::human_bytes(MAX_RECORD_BYTES));
            return Err(unreadable(io::Error::new(io::ErrorKind::InvalidData, larger)));
        }
        let identity = Identity::of(&metadata);
        let path = path.to_path_buf();
        let (lines, read) = (LineDecoder::skipping(MAX_LINE), BytesMut::new());
        let mut tail = RecordTail { path, file, identity, position: 0, lines, read, skip_carried: false };
        let mut frames = Vec::new();
        tail.read_on(&mut |frame| {
            frames.push(frame);
            true
        })
        .map_err(unreadable)?;
        // A last line without its end that reads whole (a record written by hand, or one whose
        // newline is not written yet) is taken now; its newline, when it comes, is an empty line.
        // Looked at as the input's end would give it, and taken only when it reads whole.
        let (mut lines, mut read) = (tail.lines.clone(), tail.read.clone());
        if let Ok(Some(last)) = lines.decode_eof(&mut read)
            && last.is_whole()
            && let Some(last) = tail.frame_of(&last.bytes)
        {
            frames.push(last);
            (tail.lines, tail.read) = (lines, read);
        }
        if frames.is_empty() {
            return Err(RecordError::Empty { path: shown() });
        }
        Ok((frames, tail))
    }

    /// Hands `sink` each frame written from now on, until `stop` is set (false) or the record
    /// cannot be read any more or `sink` fails (true).
    pub fn follow(mut self, sink: &mut dyn FrameSink, stop: &AtomicBool) -> bool {
        let mut accept = |frame: Frame| sink.accept(&frame).is_ok();
        while !stop.load(Ordering::Relaxed) {
            let read = match self.read_on(&mut accept) {
                Ok(Some(read)) => read,
                Ok(None) | Err(_) => return true,
            };
            if read > 0 {
                continue;
            }
            if self.replaced() {
                // What the old file got before it was moved, then the new one from its start.
                if !matches!(self.read_on(&mut accept), Ok(Some(_))) {
                    return true;
                }
                if self.open_next().is_err() {
                    // Not there to open (moved on again, not readable): looked at next poll.
                    std::thread::sleep(POLL);
                }
                continue;
            }
            std::thread::sleep(POLL);
        }
        false
    }

    /// Reads to the end of the current file, handing each whole line's frame on; how many
    /// bytes were read, or `None` when `take` refused a frame.
    fn read_on(&mut self, take: &mut dyn FnMut(Frame) -> bool) -> io::Result<Option<u64>> {
        let mut buffer = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        loop {
            let read = match self.file.read(&mut buffer) {
                Ok(0) => return Ok(Some(total)),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            total += read as u64;
            self.position += read as u64;
            self.read.extend_from_slice(&buffer[..read]);
            while let Ok(Some(line)) = self.lines.decode(&mut self.read) {
                if !line.is_whole() {
                    // Too long to follow: skipped.
                    continue;
                }
                if let Some(frame) = self.frame_of(&line.bytes)
                    && !take(frame)
                {
                    return Ok(None);
                }
            }
        }
    }

    fn frame_of(&self, line: &[u8]) -> Option<Frame> {
        let line = crate::wire::RecordLine::of_value(crate::wire::parse_record_line(line).ok()?)?;
        if self.skip_carried && line.carried {
            return None;
        }
        super::frame_of_line(line)
    }

    /// True when the path now names another file (the record was rotated) or this one was
    /// cut short (written over from its start). A path with no file yet (between the move
    /// and the new file) is waited for.
    fn replaced(&self) -> bool {
        match std::fs::metadata(&self.path) {
            Ok(now) => Identity::of(&now) != self.identity || now.len() < self.position,
            Err(_) => false,
        }
    }

    /// Opens the file that came after the current one: found by where the current one is now
    /// (FILE.k: FILE.k-1 follows it, FILE follows FILE.1); when it was removed already (rotated
    /// past the files kept while this one was read), the oldest file left; when it was only
    /// cut short, FILE again.
    fn open_next(&mut self) -> io::Result<()> {
        let same_file = std::fs::metadata(&self.path).is_ok_and(|now| Identity::of(&now) == self.identity);
        let next = if same_file { self.path.clone() } else { self.after_current() };
        let file = File::open(&next)?;
        self.identity = Identity::of(&file.metadata()?);
        self.file = file;
        self.position = 0;
        (self.lines, self.read) = (LineDecoder::skipping(MAX_LINE), BytesMut::new());
        self.skip_carried = true;
        Ok(())
    }

    fn after_current(&self) -> PathBuf {
        let mut oldest_left = None;
        for n in 1..=MAX_OLD_FILES {
            let numbered = crate::wire::numbered(&self.path, n);
            match std::fs::metadata(&numbered) {
                Ok(old) if Identity::of(&old) == self.identity => {
                    return if n == 1 { self.path.clone() } else { crate::wire::numbered(&self.path, n - 1) };
                }
                Ok(_) => oldest_left = Some(numbered),
                Err(_) => break,
            }
        }
        oldest_left.unwrap_or_else(|| self.path.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::Arc;

    use super::*;
    use crate::wire::{JsonLinesSink, RecordLimits, Ring, Side};

    fn call(n: u64) -> Frame {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "add", "arguments": {"a": n}}});
        Frame::new(Side::Client, std::time::SystemTime::now(), bytes::Bytes::from(call.to_string()), None)
    }

    fn ids(frames: &[Frame]) -> Vec<u64> {
        frames.iter().filter_map(|f| f.id().and_then(serde_json::Value::as_u64)).collect()
    }

    /// A line written in part waits for its end; lines written later arrive; a rotation is
    /// followed into the new file, each message once.
    #[test]
    fn a_record_being_written_is_followed_across_rotations() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let limits = RecordLimits { max_size: Some(600), keep: 8 };
        let mut writer = JsonLinesSink::open_within(&path, limits, None).unwrap();
        writer.accept(&call(0)).unwrap();
        writer.flush().unwrap();
        // Half a line, as a buffer flushed mid-line leaves it.
        let half = crate::wire::record_line(&call(1)).to_text().unwrap();
        let (first, second) = half.split_at(half.len() / 2);
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(first.as_bytes()).unwrap();
        let (read, tail) = RecordTail::open(&path).unwrap();
        assert_eq!(ids(&read), vec![0], "the half line is not read yet");

        let ring = Ring::new(100);
        let stop = Arc::new(AtomicBool::new(false));
        let follower = {
            let (ring, stop) = (ring.clone(), Arc::clone(&stop));
            std::thread::spawn(move || tail.follow(&mut ring.sink(), &stop))
        };
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(format!("{second}\n").as_bytes()).unwrap();
        drop(file);
        // Writes go on through several rotations (about four calls a file).
        let mut writer = JsonLinesSink::open_within(&path, limits, None).unwrap();
        for n in 2..20 {
            writer.accept(&call(n)).unwrap();
            writer.flush().unwrap();
            std::thread::sleep(Duration::from_millis(40));
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while ids(&ring.frames()).last() != Some(&19) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        stop.store(true, Ordering::Relaxed);
        assert!(!follower.join().unwrap(), "stopped, not ended");
        assert!(crate::wire::numbered(&path, 1).exists(), "the record was rotated");
        assert_eq!(ids(&ring.frames()), (1..20).collect::<Vec<_>>(), "each message once, in order");
    }

    #[test]
    fn a_last_line_without_its_end_is_read_when_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let line = |n| crate::wire::record_line(&call(n)).to_text().unwrap();
        std::fs::write(&path, format!("{}\n{}", line(1), line(2))).unwrap();
        let (read, _) = RecordTail::open(&path).unwrap();
        assert_eq!(ids(&read), vec![1, 2]);
    }

    #[test]
    fn a_record_with_no_message_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, "not a record\n").unwrap();
        assert!(matches!(RecordTail::open(&path), Err(RecordError::Empty { .. })));
    }
}
