use super::*;
use crate::wire::{Ring, Tap};

fn details() -> HttpDetails {
    HttpDetails { method: None, path: None, status: Some(200), headers: Vec::new() }
}

/// What the tap was told of a body fed as `chunks`: each frame's bytes, or its size when it was
/// too large to keep (as `<too large: N>`).
fn told(chunks: &[&[u8]], events: bool, cap: usize) -> Vec<String> {
    let ring = Ring::new(100);
    let tap = Tap::spawn(vec![Box::new(ring.sink())], Box::new(|_| {}));
    let mut seen = Seen::new(tap.handle(), details(), events, cap);
    for chunk in chunks {
        seen.feed(&Bytes::copy_from_slice(chunk));
    }
    drop(seen);
    tap.finish();
    ring.frames()
        .iter()
        .map(|frame| {
            if frame.raw.is_empty() && frame.size > 0 {
                format!("<too large: {}>", frame.size)
            } else {
                String::from_utf8_lossy(&frame.raw).into_owned()
            }
        })
        .collect()
}

const CAP: usize = 1024;

#[test]
fn each_events_data_is_told_once_it_ends() {
    let stream: &[&[u8]] = &[b"event: message\ndata: {\"id\":1}\n\ndata: {\"id\":2}\n\n"];
    assert_eq!(told(stream, true, CAP), [r#"{"id":1}"#, r#"{"id":2}"#]);
}

#[test]
fn an_event_split_across_chunks_is_told_whole() {
    let stream: &[&[u8]] = &[b"da", b"ta: {\"id\"", b":1}", b"\n", b"\r", b"\n", b"data: x\r", b"\n\r", b"\n"];
    assert_eq!(told(stream, true, CAP), [r#"{"id":1}"#, "x"]);
}

#[test]
fn multi_line_data_is_joined_by_newlines() {
    let stream: &[&[u8]] = &[b"data: first\ndata:second\r\ndata: third\n\n"];
    assert_eq!(told(stream, true, CAP), ["first\nsecond\nthird"]);
}

#[test]
fn comments_and_keep_alives_tell_nothing() {
    let stream: &[&[u8]] = &[b": ping\n\n", b":\n\n", b"data: {}\n: a comment inside\n\n", b": ping\n\n"];
    assert_eq!(told(stream, true, CAP), ["{}"]);
}

#[test]
fn id_and_retry_are_read_beside_the_data_and_alone_tell_nothing() {
    let stream: &[&[u8]] = &[b"retry: 3000\n\n", b"id: 7\nevent: message\ndata: seven\nretry: 10\n\n", b"id: 8\n\n"];
    assert_eq!(told(stream, true, CAP), ["seven"]);
}

#[test]
fn a_stream_that_told_nothing_is_told_as_an_empty_answer() {
    assert_eq!(told(&[b": keep-alive\n\n"], true, CAP), [""]);
    assert_eq!(told(&[], true, CAP), [""]);
}

#[test]
fn a_line_the_parser_refuses_costs_that_line_alone() {
    // A field SSE does not know, a second `id:`, a line with no colon: the events around them,
    // in the same chunk, are still told.
    let stream: &[&[u8]] = &[b"data: a\nunknown: x\n\nid: 1\nid: 2\ndata: b\n\nnocolon\ndata: c\n\n"];
    assert_eq!(told(stream, true, CAP), ["a", "b", "c"]);
}

#[test]
fn an_event_over_the_cap_is_told_by_its_size_and_the_next_one_whole() {
    let big = format!("data: {}\n\n", "x".repeat(3 * CAP));
    let halves = big.as_bytes().split_at(CAP);
    let stream: &[&[u8]] = &[b"data: before\n\n", halves.0, halves.1, b"data: after\n\n"];
    assert_eq!(told(stream, true, CAP), ["before".to_string(), format!("<too large: {}>", big.len()), "after".into()]);
}

#[test]
fn a_multi_line_event_over_the_cap_tells_no_part_of_itself() {
    let line = format!("data: {}\n", "y".repeat(CAP / 2));
    let big = format!("{line}{line}{line}\n");
    let stream: &[&[u8]] = &[big.as_bytes(), b"data: after\n\n"];
    assert_eq!(told(stream, true, CAP), [format!("<too large: {}>", big.len()), "after".into()]);
}

#[test]
fn an_event_over_the_cap_cut_by_the_streams_end_is_told_by_its_size() {
    let cut = format!("data: {}", "z".repeat(2 * CAP));
    assert_eq!(told(&[cut.as_bytes()], true, CAP), [format!("<too large: {}>", cut.len())]);
}

#[test]
fn a_body_not_an_event_stream_is_told_whole_at_its_end_or_by_its_size() {
    assert_eq!(told(&[b"{\"result\"", b":{}}"], false, CAP), [r#"{"result":{}}"#]);
    assert_eq!(told(&[], false, CAP), [""]);
    let big = vec![b'x'; CAP + 1];
    assert_eq!(told(&[&big], false, CAP), [format!("<too large: {}>", CAP + 1)]);
}

#[test]
fn one_events_data_is_read_as_the_tap_reads_it() {
    assert_eq!(
        event_data(b"event: message\r\nid: 7\r\ndata: {\"a\":\r\ndata: 1}").as_deref(),
        Some(&b"{\"a\":\n1}"[..])
    );
    assert_eq!(event_data(b": keep-alive\nretry: 500\ndata:{\"id\":1}").as_deref(), Some(&b"{\"id\":1}"[..]));
    assert_eq!(event_data(b"id: 3"), None, "an event of no data has none to judge");
    assert_eq!(event_data(b"data:"), None);
}
