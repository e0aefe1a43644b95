//! Past invocations, one JSON line each, in the data dir. No secret is written: tokens live in
//! the request's context, which is not part of an entry, and the arguments and where the call
//! went go through the one rule (`redact`), so an `api_key` argument is kept as a mask. A call
//! made again from the file asks for what was masked; one made again in the same session takes it
//! from the entry that session still holds.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One call made, as the history file keeps it (a line of JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PastCall {
    /// RFC 3339, UTC.
    pub at: String,
    pub tool: String,
    pub arguments: Value,
    pub endpoint: String,
    /// `value`, `error`, `requires_authorization`, `artifact`, `null`, or `no_answer` / `cancelled`.
    pub outcome: String,
    pub duration_ms: u64,
    pub call_id: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub http_status: Option<u16>,
}

/// `$TOOLDECK_HISTORY`, else `$XDG_DATA_HOME/tooldeck/history.jsonl`, else
/// `~/.local/share/tooldeck/history.jsonl`.
pub fn default_path() -> Option<PathBuf> {
    crate::config::user_file("TOOLDECK_HISTORY", "XDG_DATA_HOME", ".local/share", "history.jsonl")
}

/// Appends one entry (creating the folder and the file as needed).
pub fn append(path: &Path, entry: &PastCall) -> io::Result<()> {
    // Where the call went may carry a secret (a URL's password, a server's `--api-key`), and the
    // arguments one by name (`api_key`), by shape (`Bearer …`) or as a `${VAR}`'s value.
    let arguments = crate::redact::json_message(&entry.arguments).unwrap_or_else(|| entry.arguments.clone());
    let entry = PastCall { endpoint: crate::redact::command(&entry.endpoint), arguments, ..entry.clone() };
    // Through `json_out`: a tool's name or arguments from a server may hold U+009B or U+202E,
    // and a history file is read with `cat` and `tail` too.
    let mut line = crate::json_out::to_line(&entry).map_err(io::Error::other)?;
    line.push('\n');
    // Private to the user (it holds every call's arguments), and never a FIFO that would hang.
    let mut file = crate::files::append_private(path)?;
    // One write per line, so concurrent tooldecks interleave whole lines.
    file.write_all(line.as_bytes())
}

/// How much of the history's end is read: the last entries are there, and a history that grew
/// for years (or a single enormous line) costs no more than this to open.
const TAIL_BYTES: u64 = 8 * 1024 * 1024;

/// The last `limit` entries, oldest first. Lines that do not parse (a crash mid-write, an older
/// format) are skipped rather than failing the whole history.
pub fn read_last(path: &Path, limit: usize) -> io::Result<Vec<PastCall>> {
    read_tail(path, limit, TAIL_BYTES)
}

fn read_tail(path: &Path, limit: usize, tail_bytes: u64) -> io::Result<Vec<PastCall>> {
    use std::io::{Read, Seek, SeekFrom};
    // Only a regular file is read (a FIFO or a device would never end).
    if fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "the history is not a regular file"));
    }
    let mut file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let start = file.metadata()?.len().saturating_sub(tail_bytes);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.take(tail_bytes).read_to_end(&mut tail)?;
    let mut lines = tail.split(|&b| b == b'\n');
    if start > 0 {
        // Read from the middle of a line: its end is no entry.
        lines.next();
    }
    let mut entries: std::collections::VecDeque<PastCall> = std::collections::VecDeque::with_capacity(limit.min(1024));
    for line in lines {
        if let Ok(entry) = serde_json::from_slice::<PastCall>(line) {
            if entries.len() == limit {
                entries.pop_front();
            }
            entries.push_back(entry);
        }
    }
    Ok(entries.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(n: u64) -> PastCall {
        PastCall {
            at: "2026-01-01T00:00:00.000Z".into(),
            tool: "Math.Add@1.0.0".into(),
            arguments: json!({"a": n}),
            endpoint: "demo".into(),
            outcome: "value".into(),
            duration_ms: n,
            call_id: format!("id-{n}"),
            http_status: Some(200),
        }
    }

    #[test]
    fn appends_and_reads_back_the_last_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/history.jsonl");
        for n in 0..5 {
            append(&path, &entry(n)).unwrap();
        }
        let last = read_last(&path, 3).unwrap();
        assert_eq!(last.iter().map(|e| e.duration_ms).collect::<Vec<_>>(), vec![2, 3, 4]);
    }

    #[test]
    fn broken_lines_are_skipped_and_a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.jsonl");
        assert!(read_last(&path, 10).unwrap().is_empty());
        append(&path, &entry(1)).unwrap();
        fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{not json\n").unwrap();
        append(&path, &entry(2)).unwrap();
        assert_eq!(read_last(&path, 10).unwrap().len(), 2);
    }

    /// Only the history's end is read: a line far longer than that end is not held whole, and
    /// the entries after it are all there.
    #[test]
    fn only_the_end_of_a_long_history_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.jsonl");
        append(&path, &entry(1)).unwrap();
        let huge = format!("{{\"at\": \"{}\"}}\n", "x".repeat(100_000));
        fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(huge.as_bytes()).unwrap();
        for n in 2..=4 {
            append(&path, &entry(n)).unwrap();
        }
        let last = read_tail(&path, 10, 4096).unwrap();
        assert_eq!(last.iter().map(|e| e.duration_ms).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert_eq!(read_last(&path, 10).unwrap().len(), 4, "all of it when it is small");
    }

    #[test]
    fn the_history_keeps_no_secret_in_clear() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.jsonl");
        let mut call = entry(1);
        call.arguments = json!({"api_key": "in-clear-1234", "author": "ann", "max_tokens": 30,
            "note": "sent with Bearer abc123def456"});
        call.endpoint = "node s.js --password hunter22".into();
        append(&path, &call).unwrap();
        let written = fs::read_to_string(&path).unwrap();
        for secret in ["in-clear-1234", "abc123def456", "hunter22"] {
            assert!(!written.contains(secret), "{secret} in {written}");
        }
        let back = &read_last(&path, 1).unwrap()[0];
        assert_eq!(
            back.arguments,
            json!({"api_key": "••••", "author": "ann", "max_tokens": 30,
            "note": "sent with Bearer ••••"})
        );
    }
}
