//! A proxy's record (`tooldeck proxy --record`, JSON Lines: one message a line, with who sent
//! it) read as a definition file: its tools are the last `tools/list` answer the server gave,
//! every page of it. So `list`, `lint`, `diff` and the app take a record where they take a
//! `tools/list` result, and two sessions' tools can be diffed.
//!
//! Its lines are read as every reader of a record reads them (`record_line`); this keeps only
//! what a catalog needs.

use serde_json::{Value, json};

use crate::record_line::{RecordLine, Side};

/// What a record holds for the catalog.
#[derive(Debug, PartialEq)]
pub enum RecordTools {
    /// The text is not a record.
    NotARecord,
    /// The last `tools/list` answer, as one `{"tools": [...]}` document.
    Listed(String),
    /// A record in which the server never answered `tools/list`.
    NoListing,
}

/// True for a record's line: who sent it, with the message (or the text that was not one).
fn is_record_line(line: &RecordLine) -> bool {
    line.message.is_some() || line.text.is_some()
}

/// Reads `text` as a record, if it is one: its first line decides.
pub fn tools_of_record(text: &str) -> RecordTools {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let Some(first) = lines.next() else { return RecordTools::NotARecord };
    // A record line names its sender near its start (`{"time":…,"from":…`); a definition file,
    // perhaps one line of many megabytes, is not parsed a second time to find that out.
    let head = &first.as_bytes()[..first.len().min(160)];
    if !first.starts_with('{') || !head.windows(6).any(|w| w == b"\"from\"") {
        return RecordTools::NotARecord;
    }
    let first = RecordLine::read(first);
    if !first.as_ref().is_some_and(is_record_line) {
        return RecordTools::NotARecord;
    }
    let mut listing = Listing::default();
    for line in first.into_iter().chain(lines.filter_map(RecordLine::read)) {
        if let Some(message) = &line.message {
            listing.see(line.from, message);
        }
    }
    match listing.last {
        Some(tools) => RecordTools::Listed(json!({ "tools": tools }).to_string()),
        None => RecordTools::NoListing,
    }
}

/// The `tools/list` requests the client made and the answers seen so far.
#[derive(Default)]
struct Listing {
    /// Ids of `tools/list` requests waiting for their answer, and whether each asked for a next
    /// page (a cursor) rather than the first.
    asked: Vec<(Value, bool)>,
    /// The listing being read, page by page.
    pages: Vec<Value>,
    /// The last whole listing.
    last: Option<Vec<Value>>,
}

impl Listing {
    fn see(&mut self, from: Side, message: &Value) {
        let id = message.get("id").cloned();
        match (from, message.get("method").and_then(Value::as_str), id) {
            (Side::Client, Some("tools/list"), Some(id)) => {
                let next_page = message.pointer("/params/cursor").is_some_and(|c| !c.is_null());
                self.asked.push((id, next_page));
            }
            (Side::Server, None, Some(id)) => {
                let Some(at) = self.asked.iter().position(|(asked, _)| *asked == id) else { return };
                let (_, next_page) = self.asked.remove(at);
                let Some(tools) = message.pointer("/result/tools").and_then(Value::as_array) else { return };
                if !next_page {
                    self.pages.clear();
                }
                self.pages.extend(tools.iter().cloned());
                self.last = Some(self.pages.clone());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(from: &str, message: Value) -> String {
        json!({"time": "2026-12-01T00:00:00Z", "from": from, "message": message}).to_string()
    }

    #[test]
    fn the_last_listing_with_every_page_is_the_records_tools() {
        let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
        let record = [
            line("client", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            line("server", json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("old")]}})),
            line("client", json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})),
            json!({"from": "server", "text": "debug: hello", "note": "not JSON-RPC"}).to_string(),
            line("server", json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool("a")], "nextCursor": "p2"}})),
            line("client", json!({"jsonrpc": "2.0", "id": "3", "method": "tools/list", "params": {"cursor": "p2"}})),
            line("server", json!({"jsonrpc": "2.0", "id": "3", "result": {"tools": [tool("b")]}})),
            // A call's answer with tools in it is not a listing.
            line("client", json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "a"}})),
            line("server", json!({"jsonrpc": "2.0", "id": 4, "result": {"tools": [tool("not-a-listing")]}})),
        ]
        .join("\n");
        let RecordTools::Listed(text) = tools_of_record(&record) else { panic!("a listing") };
        let listed: Value = serde_json::from_str(&text).unwrap();
        let names: Vec<&str> = listed["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn a_record_without_a_listing_and_other_text_are_told_apart() {
        let record = line("client", json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}));
        assert_eq!(tools_of_record(&record), RecordTools::NoListing);
        assert_eq!(tools_of_record(r#"{"tools": []}"#), RecordTools::NotARecord);
        assert_eq!(tools_of_record("[{\"from\": \"client\"}]"), RecordTools::NotARecord);
        assert_eq!(tools_of_record("name: x\nfrom: client"), RecordTools::NotARecord);
    }
}
