//! A huge array is parsed on several cores. A minified file of 69,000 tools is one array of
//! 29 MB on one line, and parsing it alone took half of `tooldeck list`'s time. A quick scan
//! finds the commas between the array's items; each stretch of items is parsed by a parser of
//! its own; the values and position tables are then joined in order, as one parser would have
//! left them. Anything the scan does not expect, and any error in a stretch, leaves the array to
//! the one-core parser, which words the error.

use serde_json::Value;

use super::Parser;
use crate::catalog::document::{NonFinite, Span};

/// Arrays with less text after them than this are parsed on one core: splitting costs a scan
/// and threads, and pays only on megabytes. (The unit tests split arrays of kilobytes, so that
/// they run in a moment on a debug build.)
pub(super) const MIN_BYTES: usize = if cfg!(test) { 64 << 10 } else { 4 << 20 };

/// What one stretch of items gave: its values, their pre-order positions, and its `NaN`s
/// (indexed from the stretch's first value).
struct Stretch {
    items: Vec<Value>,
    spans: Vec<Span>,
    non_finite: Vec<(usize, NonFinite)>,
}

/// Parses the items of the array whose `[` the parser has just stepped over, on all cores, and
/// leaves the parser after its `]`. `None` (the parser untouched) when the array is not worth
/// splitting or anything in it is unusual.
pub(super) fn items(parser: &mut Parser<'_>) -> Option<Vec<Value>> {
    let pieces = crate::sync::cores().min(8);
    if pieces < 2 {
        return None;
    }
    let (cuts, close) = cuts(parser.bytes, parser.pos, pieces)?;
    let mut bounds = Vec::with_capacity(cuts.len() + 1);
    let mut start = parser.pos;
    for &cut in &cuts {
        bounds.push((start, cut));
        start = cut + 1;
    }
    bounds.push((start, close));
    let last = bounds.len() - 1;
    let template = &*parser;
    let stretches: Vec<Option<Stretch>> = std::thread::scope(|scope| {
        let workers: Vec<_> = bounds[1..]
            .iter()
            .enumerate()
            .map(|(i, &(from, to))| scope.spawn(move || stretch(template, from, to, i + 1 == last)))
            .collect();
        let first = stretch(template, bounds[0].0, bounds[0].1, last == 0);
        std::iter::once(first).chain(workers.into_iter().map(|w| w.join().ok().flatten())).collect()
    });
    let stretches: Vec<Stretch> = stretches.into_iter().collect::<Option<_>>()?;
    let mut items = Vec::with_capacity(stretches.iter().map(|s| s.items.len()).sum());
    parser.spans.reserve(stretches.iter().map(|s| s.spans.len()).sum());
    for stretch in stretches {
        let base = parser.spans.len();
        parser.spans.extend(stretch.spans);
        parser.non_finite.extend(stretch.non_finite.into_iter().map(|(i, kind)| (i + base, kind)));
        items.extend(stretch.items);
    }
    parser.pos = close + 1;
    parser.open.pop();
    Some(items)
}

/// Fewer bytes than a value takes in a minified file, to reserve the positions table by.
const BYTES_PER_VALUE: usize = 16;

/// The items between `from` and `to` (a cut comma or the closing `]`), parsed by a parser of
/// their own. Only the last stretch may be empty (after a trailing comma).
fn stretch(template: &Parser<'_>, from: usize, to: usize, last: bool) -> Option<Stretch> {
    let mut parser = Parser::new(template.text, from, template.open.clone(), false);
    // A value takes about twenty bytes of a minified file: room for the table up front, not
    // grown by copying (room never written is never given memory by the system).
    parser.spans.reserve((to - from) / BYTES_PER_VALUE);
    let mut items = Vec::new();
    loop {
        parser.skip_trivia().ok()?;
        if parser.pos >= to {
            // Nothing where an item should be: only a trailing comma may leave that.
            if items.is_empty() && !last {
                return None;
            }
            break;
        }
        items.push(parser.value().ok()?);
        parser.skip_trivia().ok()?;
        match parser.pos {
            at if at == to => break,
            at if at < to && parser.bytes[at] == b',' => parser.pos += 1,
            _ => return None,
        }
    }
    (parser.pos <= to).then_some(Stretch { items, spans: parser.spans, non_finite: parser.non_finite })
}

/// Scans the array whose items start at `from`: up to `pieces - 1` commas between its items,
/// at about equal distances, and where its `]` is. `None` for anything a scan should not judge
/// (a string or comment never closed, a `}` closing the array, fewer than two stretches).
fn cuts(bytes: &[u8], from: usize, pieces: usize) -> Option<(Vec<usize>, usize)> {
    let step = (bytes.len() - from) / pieces;
    let mut targets = (1..pieces).map(|k| from + k * step);
    let mut target = targets.next();
    let mut cuts = Vec::new();
    let mut depth = 0usize;
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            quote @ (b'"' | b'\'') => at = string_end(bytes, at + 1, quote)?,
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at += 2 + memchr::memmem::find(&bytes[at + 2..], b"*/")? + 1;
            }
            b'[' | b'{' => depth += 1,
            b']' if depth == 0 => return (!cuts.is_empty()).then_some((cuts, at)),
            b'}' if depth == 0 => return None,
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 && target.is_some_and(|t| at >= t) => {
                cuts.push(at);
                target = targets.next();
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The position of the quote that closes a string whose text starts at `from`.
fn string_end(bytes: &[u8], mut from: usize, quote: u8) -> Option<usize> {
    loop {
        let at = from + memchr::memchr2(quote, b'\\', &bytes[from..])?;
        if bytes[at] == quote {
            return Some(at);
        }
        // An escape: the next byte is taken as it is, quote or not.
        from = at + 2;
        if from > bytes.len() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fall_on_commas_between_items_only() {
        let text = br#"{"a": [1, 2]}, "x,y", 'q\',r', /* , */ // ,
            [3, 4], 5]"#;
        let (cuts, close) = cuts(text, 0, 8).expect("cuts");
        assert_eq!(close, text.len() - 1);
        for cut in &cuts {
            assert_eq!(text[*cut], b',');
        }
        // The commas after `}`, after "x,y", after 'q\',r' and before the 5: none inside a
        // string, a comment or a nested value.
        let top_level: Vec<usize> = vec![13, 20, 29, text.len() - 4];
        assert!(cuts.iter().all(|c| top_level.contains(c)), "{cuts:?} not among {top_level:?}");
    }

    /// A text of many small items in every shape the parser reads, past [`MIN_BYTES`].
    fn big_array(tail: &str) -> String {
        let mut text = String::from("// many tools\n{ tools: [\n");
        let mut i = 0;
        while text.len() < MIN_BYTES + 100_000 {
            text.push_str(&format!(
                "{{name: 'tool_{i}', \"d\": \"a, [b] {{c}} \\\" ,\", x: NaN, x: [1, 2, {{y: Infinity}}], /* , ] */ n: {i}}},\n"
            ));
            i += 1;
        }
        text.push_str(tail);
        text
    }

    #[test]
    fn a_split_array_reads_as_one_parser_reads_it() {
        for tail in ["'last'\n]}", "'last',\n]}", "]}"] {
            let text = big_array(tail);
            let split = super::super::parse_with(&text, true).expect("parses");
            let whole = super::super::parse_with(&text, false).expect("parses");
            assert_eq!(split.value, whole.value);
            assert_eq!(split.spans, whole.spans);
            assert_eq!(split.non_finite, whole.non_finite);
            assert!(split.non_finite.len() > 1000);
        }
    }

    #[test]
    fn a_broken_big_array_gets_the_one_core_parsers_error() {
        for tail in ["'last',,\n]}", "'last'\n}", "'last\n]}", "{a: 1\n"] {
            let text = big_array(tail);
            let split = super::super::parse_with(&text, true).expect_err("broken");
            let whole = super::super::parse_with(&text, false).expect_err("broken");
            assert_eq!(split, whole, "{tail:?}");
        }
    }

    #[test]
    fn an_unclosed_string_or_comment_is_left_to_the_parser() {
        assert_eq!(cuts(br#"1, 2, "abc"#, 0, 2), None);
        assert_eq!(cuts(b"1, 2, /* abc", 0, 2), None);
        assert_eq!(cuts(b"1, 2, 3}", 0, 2), None);
    }
}
