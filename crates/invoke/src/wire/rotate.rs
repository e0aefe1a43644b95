//! A record that stays in bounds (`--max-record-size`, `--keep-records`): past its size, FILE
//! becomes FILE.1 (the newest of the old ones, as logrotate names them), FILE.1 becomes FILE.2,
//! and so on; the oldest past the number kept is removed. A new FILE starts with the latest
//! `initialize` and `tools/list` exchanges again, so the newest file alone names the server and
//! lists its tools (`tooldeck list FILE`, `serve-mock --record FILE`).

use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::frame::{Frame, Side};

/// How many old files are kept when none is said.
pub const DEFAULT_KEEP: usize = 3;
/// How many requests for the server's name or tools wait for their answer, at most.
const MAX_ASKED: usize = 32;
/// How many pages of a tool listing are carried, at most.
const MAX_PAGES: usize = 64;

/// How a record is kept in bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLimits {
    /// Past this many bytes the record is rotated; `None`: it grows (said once past
    /// [`super::sink::NOTE_PAST`]).
    pub max_size: Option<u64>,
    /// How many rotated files are kept (FILE.1 … FILE.N).
    pub keep: usize,
}

impl Default for RecordLimits {
    fn default() -> RecordLimits {
        RecordLimits { max_size: None, keep: DEFAULT_KEEP }
    }
}

/// FILE.n.
pub fn numbered(path: &Path, n: usize) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}

/// Moves FILE to FILE.1 and each FILE.n to FILE.n+1, removing what would pass FILE.`keep`
/// (and leftovers past it, from a run that kept more). Renames and removals act on a link
/// itself, never on what it points to.
pub fn rotate(path: &Path, keep: usize) -> io::Result<()> {
    let gone = |result: io::Result<()>| match result {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    };
    // Leftovers past what is kept (a run that kept more), found in a row from FILE.`keep`+1.
    let mut past = keep + 1;
    while past <= keep + 1000 && std::fs::symlink_metadata(numbered(path, past)).is_ok() {
        gone(std::fs::remove_file(numbered(path, past)))?;
        past += 1;
    }
    if keep == 0 {
        return gone(std::fs::remove_file(path));
    }
    // Each rename replaces its target: FILE.`keep` goes as FILE.`keep`-1 takes its name.
    for n in (1..keep).rev() {
        gone(std::fs::rename(numbered(path, n), numbered(path, n + 1)))?;
    }
    gone(std::fs::rename(path, numbered(path, 1)))
}

/// What a new file starts with: the latest `initialize` (or `server/discover`) and `tools/list` exchanges (every page
/// of the listing), and the requests for them not answered yet, as their record lines.
#[derive(Default)]
pub struct Carried {
    /// Requests waiting for their answer: id, what they ask, their line.
    asked: VecDeque<(Value, Asked, String)>,
    initialize: Vec<String>,
    listing: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Initialize,
    FirstPage,
    NextPage,
}

impl Carried {
    /// Takes note of `frame`, written as `line`.
    pub fn see(&mut self, frame: &Frame, line: &str) {
        let Some(id) = frame.id() else { return };
        match frame.from {
            Side::Client => {
                let asked = match frame.method() {
                    // How a client meets the server: `server/discover` from revision 2026-07-28.
                    Some("initialize" | "server/discover") => Asked::Initialize,
                    Some("tools/list") => {
                        let next = frame.message.as_ref().and_then(|m| m.pointer("/params/cursor"));
                        if next.is_some_and(|c| !c.is_null()) { Asked::NextPage } else { Asked::FirstPage }
                    }
                    _ => return,
                };
                if self.asked.len() == MAX_ASKED {
                    self.asked.pop_front();
                }
                self.asked.push_back((id.clone(), asked, line.to_string()));
            }
            Side::Server if frame.is_response() => {
                let Some(at) = self.asked.iter().position(|(asked, _, _)| asked == id) else { return };
                let Some((_, asked, request)) = self.asked.remove(at) else { return };
                let result = frame.message.as_ref().and_then(|m| m.get("result"));
                let exchange = [request, line.to_string()];
                match asked {
                    Asked::Initialize if result.is_some() => self.initialize = exchange.into(),
                    Asked::FirstPage if result.is_some_and(|r| r.get("tools").is_some()) => {
                        self.listing = exchange.into();
                    }
                    Asked::NextPage
                        if result.is_some_and(|r| r.get("tools").is_some()) && self.listing.len() < 2 * MAX_PAGES =>
                    {
                        self.listing.extend(exchange);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// The lines a new file starts with, each marked `"carried": true` (a reader following the
    /// record across files has seen them already).
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        let waiting = self.asked.iter().map(|(_, _, line)| line);
        self.initialize.iter().chain(&self.listing).chain(waiting).map(|line| marked(line))
    }
}

/// `line` (a JSON object) with `"carried": true` as its last key.
fn marked(line: &str) -> String {
    match line.strip_suffix('}') {
        Some(open) if open.len() > 1 => format!("{open},\"carried\":true}}"),
        _ => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use bytes::Bytes;

    use super::*;

    #[test]
    fn rotation_shifts_the_old_files_and_removes_the_oldest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let write = |path: &Path, text: &str| std::fs::write(path, text).unwrap();
        let read = |path: PathBuf| std::fs::read_to_string(path).ok();
        write(&path, "a");
        rotate(&path, 2).unwrap();
        write(&path, "b");
        rotate(&path, 2).unwrap();
        write(&path, "c");
        write(&numbered(&path, 3), "leftovers of a run that kept more");
        write(&numbered(&path, 4), "leftovers of a run that kept more");
        rotate(&path, 2).unwrap();
        assert_eq!(read(path.clone()), None, "the record moved");
        assert_eq!(read(numbered(&path, 1)).as_deref(), Some("c"), "FILE.1 is the newest");
        assert_eq!(read(numbered(&path, 2)).as_deref(), Some("b"));
        assert_eq!(read(numbered(&path, 3)), None, "past the number kept: removed");
        assert_eq!(read(numbered(&path, 4)), None);
        write(&path, "d");
        rotate(&path, 0).unwrap();
        assert_eq!(read(path.clone()), None, "none kept: the record starts over");
        assert_eq!(read(numbered(&path, 1)), None, "nor any old one");
    }

    fn frame(from: Side, message: serde_json::Value) -> Frame {
        Frame::new(from, SystemTime::now(), Bytes::from(message.to_string()), None)
    }

    #[test]
    fn the_latest_exchanges_are_carried_every_page() {
        let mut carried = Carried::default();
        let mut see = |from, message: serde_json::Value| {
            let line = serde_json::json!({"from": from, "message": message}).to_string();
            let from = if from == "client" { Side::Client } else { Side::Server };
            carried.see(&frame(from, message), &line);
        };
        see("client", serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}));
        see("server", serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {"serverInfo": {}}}));
        see("client", serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        see("server", serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "old"}]}}));
        see("client", serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
        see(
            "server",
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a"}], "nextCursor": "p"}}),
        );
        see(
            "client",
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "p"}}),
        );
        see("server", serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "b"}]}}));
        see("client", serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call"}));
        see("client", serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}));
        let lines: Vec<String> = carried.lines().collect();
        assert_eq!(lines.len(), 7, "initialize, two pages, the listing still asked for: {lines:#?}");
        let text = lines.join("\n");
        assert!(lines.iter().all(|l| l.ends_with(",\"carried\":true}")));
        assert!(!text.contains("old") && !text.contains("tools/call"), "{text}");
        match crate::catalog::record::tools_of_record(&text) {
            crate::catalog::record::RecordTools::Listed(tools) => {
                assert_eq!(tools, r#"{"tools":[{"name":"a"},{"name":"b"}]}"#);
            }
            other => panic!("{other:?}"),
        }
    }
}
