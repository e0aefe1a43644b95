//! The record as a sink: a JSON Lines file the tap appends each frame to, opened private and
//! never through a link, kept in bounds (`super::rotate`), said once to be large when it is not.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::frame::Frame;
use super::rotate::{Carried, RecordLimits};
use super::sink::FrameSink;
use super::tap::Warn;

/// Past this size a record that is not bounded (`--max-record-size`) is said once to be large.
pub const NOTE_PAST: u64 = 1 << 30;

/// The record: a JSON Lines file, one frame a line ([`super::record_line`]), appended to; kept
/// in bounds by its [`RecordLimits`] (rotated, `super::rotate`).
pub struct JsonLinesSink {
    path: PathBuf,
    out: BufWriter<File>,
    /// The bytes in the current file: what it held when opened, and what was written since.
    size: u64,
    /// True once the current file holds a line of its own (not only carried ones): a file is
    /// rotated only then, so one line larger than the limit is a file of its own, not a loop.
    fresh: bool,
    limits: RecordLimits,
    carried: Carried,
    /// Past this size, an unbounded record is said to be large (once).
    note_past: u64,
    warn: Option<Warn>,
}

impl JsonLinesSink {
    /// Opens `path` for appending: created 0600 (Unix), and only ever a regular file, never a
    /// symlink (a record holds the session's messages: a link could send them anywhere) nor a
    /// FIFO (a write there would wait for a reader). The open itself refuses a link, and what is
    /// checked is the file opened, not the path: a link planted between a check and the open
    /// would otherwise get the session written into its target.
    pub fn open(path: &Path) -> io::Result<JsonLinesSink> {
        JsonLinesSink::open_within(path, RecordLimits::default(), None)
    }

    /// [`JsonLinesSink::open`], kept within `limits`; `warn` says when an unbounded record
    /// passes [`NOTE_PAST`].
    pub fn open_within(path: &Path, limits: RecordLimits, warn: Option<Warn>) -> io::Result<JsonLinesSink> {
        if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty() && !f.exists()) {
            crate::files::create_private_dir(folder)?;
        }
        let file = open_no_link(path)?;
        let size = file.metadata()?.len();
        Ok(JsonLinesSink {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(64 * 1024, file),
            size,
            fresh: size > 0,
            limits,
            carried: Carried::default(),
            note_past: NOTE_PAST,
            warn,
        })
    }

    fn write_value(&mut self, value: &serde_json::Value) -> io::Result<()> {
        let line = crate::json_out::to_line(value).map_err(io::Error::other)?;
        self.write_line(&line)
    }

    fn write_line(&mut self, line: &str) -> io::Result<()> {
        let bytes = line.len() as u64 + 1;
        if self.fresh && self.limits.max_size.is_some_and(|max| self.size + bytes > max) {
            self.rotate()?;
        }
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.size += bytes;
        self.fresh = true;
        if self.limits.max_size.is_none()
            && self.size > self.note_past
            && let Some(warn) = self.warn.take()
        {
            warn(&format!(
                "the record {} passed {}: --max-record-size 100MB keeps it in bounds (FILE.1 … \
                 FILE.{} kept, --keep-records N), --trim-payload 64KB cuts long strings in it",
                self.path.display(),
                crate::text::human_bytes(self.note_past),
                self.limits.keep.max(1),
            ));
        }
        Ok(())
    }

    /// The size past which an unbounded record is said to be large, lowered for a test.
    #[cfg(test)]
    fn noting_past(mut self, bytes: u64) -> JsonLinesSink {
        self.note_past = bytes;
        self
    }

    /// FILE becomes FILE.1 (`super::rotate`) and a new FILE starts with the carried lines.
    fn rotate(&mut self) -> io::Result<()> {
        self.out.flush()?;
        super::rotate::rotate(&self.path, self.limits.keep)?;
        let file = open_no_link(&self.path)?;
        self.size = file.metadata()?.len();
        self.out = BufWriter::with_capacity(64 * 1024, file);
        let carried: Vec<String> = self.carried.lines().collect();
        for line in carried {
            self.out.write_all(line.as_bytes())?;
            self.out.write_all(b"\n")?;
            self.size += line.len() as u64 + 1;
        }
        self.fresh = false;
        Ok(())
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
        let line = frame.record_text().map_err(io::Error::other)?;
        self.write_line(&line)?;
        if self.limits.max_size.is_some() {
            self.carried.see(frame, &line);
        }
        Ok(())
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
        format!("the record {}", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use bytes::Bytes;

    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::wire::{Ring, Side};

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
                let frame = Frame::new(Side::Client, SystemTime::now(), Bytes::from_static(b"{}"), None);
                sink.accept(&frame).unwrap();
                sink.flush().unwrap();
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        planter.join().unwrap();
        assert!(!target.exists(), "the session was written through a planted link");
    }

    fn message(from: Side, message: serde_json::Value) -> Frame {
        Frame::new(from, SystemTime::now(), Bytes::from(message.to_string()), None)
    }

    fn session_start(sink: &mut dyn FrameSink) {
        let frames = [
            message(Side::Client, serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"})),
            message(
                Side::Server,
                serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {"serverInfo": {"name": "s"}}}),
            ),
            message(Side::Client, serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            message(
                Side::Server,
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "add"}]}}),
            ),
        ];
        for frame in &frames {
            sink.accept(frame).unwrap();
        }
    }

    fn call(n: u64) -> Frame {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": n + 10, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": n, "b": 2}}});
        message(Side::Client, call)
    }

    /// Rotation through the sink: at most `keep` old files, each private, each within the size
    /// (a line is never split), and the newest alone lists the tools.
    #[test]
    fn a_bounded_record_rotates_and_the_newest_file_lists_the_tools() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let limits = RecordLimits { max_size: Some(1500), keep: 2 };
        let mut sink = JsonLinesSink::open_within(&path, limits, None).unwrap();
        session_start(&mut sink);
        for n in 0..200 {
            sink.accept(&call(n)).unwrap();
        }
        sink.flush().unwrap();
        let files = [path.clone(), crate::wire::numbered(&path, 1), crate::wire::numbered(&path, 2)];
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            assert!(text.len() <= 1500, "{}: {} bytes", file.display(), text.len());
            assert!(text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "whole lines");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                assert_eq!(std::fs::metadata(file).unwrap().permissions().mode() & 0o777, 0o600);
            }
        }
        assert!(!crate::wire::numbered(&path, 3).exists(), "two old files kept");
        let newest = std::fs::read_to_string(&path).unwrap();
        let first: serde_json::Value = serde_json::from_str(newest.lines().next().unwrap()).unwrap();
        assert_eq!((first["message"]["method"].as_str(), first["carried"].as_bool()), (Some("initialize"), Some(true)));
        assert_eq!(
            crate::catalog::record::tools_of_record(&newest),
            crate::catalog::record::RecordTools::Listed(r#"{"tools":[{"name":"add"}]}"#.into())
        );
        assert!(newest.contains(r#""b":2"#) && newest.contains(r#""a":199"#), "the last call is in the newest file");
        let older = std::fs::read_to_string(crate::wire::numbered(&path, 1)).unwrap();
        assert!(!older.contains(r#""a":199,"#) && older.contains("tools/call"));
    }

    /// A line larger than the limit is a file of its own: the record does not rotate in a loop.
    #[test]
    fn a_line_larger_than_the_limit_is_a_file_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let mut sink = JsonLinesSink::open_within(&path, RecordLimits { max_size: Some(100), keep: 5 }, None).unwrap();
        for n in 0..3 {
            sink.accept(&call(n)).unwrap();
        }
        sink.flush().unwrap();
        for file in [path.clone(), crate::wire::numbered(&path, 1), crate::wire::numbered(&path, 2)] {
            assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 1, "{}", file.display());
        }
        assert!(!crate::wire::numbered(&path, 3).exists());
    }

    /// Without a limit, a record past [`NOTE_PAST`] (lowered here) is said once to be large, with
    /// how to bound it.
    #[test]
    fn an_unbounded_record_is_said_once_to_be_large() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let said = Arc::new(Mutex::new(Vec::<String>::new()));
        let heard = Arc::clone(&said);
        let warn: Warn = Box::new(move |line| heard.lock().unwrap().push(line.to_string()));
        let mut sink =
            JsonLinesSink::open_within(&path, RecordLimits::default(), Some(warn)).unwrap().noting_past(1000);
        for n in 0..100 {
            sink.accept(&call(n)).unwrap();
        }
        let said = said.lock().unwrap();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("passed 1000 B") && said[0].contains("--max-record-size"), "{}", said[0]);
        let bounded = dir.path().join("b.jsonl");
        let quiet: Warn = Box::new(|line| panic!("a bounded record said {line}"));
        let limits = RecordLimits { max_size: Some(1 << 20), keep: 1 };
        let mut sink = JsonLinesSink::open_within(&bounded, limits, Some(quiet)).unwrap().noting_past(1000);
        for n in 0..100 {
            sink.accept(&call(n)).unwrap();
        }
    }

    /// A record that cannot be written (a full disk: `/dev/full` answers every write with
    /// ENOSPC) is said once, with why, and dropped: the tap never tries it again, and the other
    /// sinks (the live view) go on.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_stops_the_record_once_and_the_rest_goes_on() {
        let full = std::fs::OpenOptions::new().append(true).open("/dev/full").unwrap();
        let sink = JsonLinesSink {
            path: PathBuf::from("/records/r.jsonl"),
            out: BufWriter::with_capacity(16, full),
            size: 0,
            fresh: false,
            limits: RecordLimits::default(),
            carried: Carried::default(),
            note_past: NOTE_PAST,
            warn: None,
        };
        let said = Arc::new(Mutex::new(Vec::<String>::new()));
        let heard = Arc::clone(&said);
        let ring = Ring::new(1000);
        let sinks: Vec<Box<dyn FrameSink>> = vec![Box::new(sink), Box::new(ring.sink())];
        let tap = crate::wire::Tap::spawn(sinks, Box::new(move |line| heard.lock().unwrap().push(line.to_string())));
        for n in 0..500 {
            tap.handle().send(Side::Client, Bytes::from(call(n).raw.to_vec()), None);
        }
        tap.finish();
        let said = said.lock().unwrap();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("/records/r.jsonl") && said[0].contains("No space left on device"), "{}", said[0]);
        assert_eq!(ring.frames().len(), 500, "the other sinks had every message");
    }
}
