//! Positions for YAML documents, read from the YAML event stream (serde-saphyr gives the value
//! but no positions).

use super::document::Span;
use crate::text::LineIndex;

/// Pre-order spans of the first YAML document's values, or `None` if it uses aliases, merge keys
/// or complex keys (then the serde value has a different shape than the events).
pub(super) fn spans(text: &str) -> Option<Vec<Span>> {
    use serde_saphyr::granit_parser::{Event, Parser};
    enum Frame {
        Sequence(usize),
        Mapping { start: usize, expect_key: bool },
    }
    let lines = LineIndex::new(text);
    let mut spans = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut started = false;
    for event in Parser::new_from_str(text) {
        let (event, span) = event.ok()?;
        let at = || lines.offset(span.start.line(), span.start.col());
        // A key of a mapping is no value of its own.
        let is_key = matches!(stack.last(), Some(Frame::Mapping { expect_key: true, .. }));
        match event {
            Event::Alias(_) => return None,
            Event::Scalar(ref text, ..) if is_key => {
                if text == "<<" {
                    return None;
                }
                if let Some(Frame::Mapping { expect_key, .. }) = stack.last_mut() {
                    *expect_key = false;
                }
                continue;
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if is_key => return None,
            Event::Scalar(..) => {
                if started && stack.is_empty() {
                    break;
                }
                started = true;
                spans.push(Span::at(at()?));
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if started && stack.is_empty() {
                    break;
                }
                started = true;
                let start = spans.len();
                spans.push(Span::at(at()?));
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Frame::Sequence(start)
                } else {
                    Frame::Mapping { start, expect_key: true }
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (Frame::Sequence(start) | Frame::Mapping { start, .. }) = stack.pop()?;
                let size = spans.len() - start;
                spans[start].set_size(size);
            }
            _ => continue,
        }
        // A value just ended: its mapping now expects a key again.
        if let Some(Frame::Mapping { expect_key, .. }) = stack.last_mut() {
            *expect_key = true;
        }
    }
    Some(spans)
}
