//! Where each case of a YAML case file is, from the YAML event stream, without building the
//! file's whole value: a case file of 10,000 cases is then read one case at a time, and memory
//! stays flat however many it holds.

use serde_saphyr::granit_parser::{Event, Parser, StructureStyle};

use crate::text::LineIndex;

/// Byte ranges in a YAML case file: the `cases` list's value, and each case in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// From the list's first item to the line of the next top-level key (or the end).
    pub cases: (usize, usize),
    /// Each case, from its first character to the line of the next one.
    pub items: Vec<(usize, usize)>,
}

/// The outline of a block-style `cases:` list, or `None` when the file needs reading whole:
/// aliases (one case may borrow from another), a flow-style list, a `cases` that is not a list,
/// or YAML that does not parse (reading it whole says where).
pub fn outline(text: &str) -> Option<Outline> {
    enum Frame {
        Sequence,
        Mapping { expect_key: bool },
    }
    let lines = LineIndex::new(text);
    let line_start = |at: usize| lines.line_start(at);
    let mut stack: Vec<Frame> = Vec::new();
    let mut next_is_cases = false;
    let mut starts: Vec<usize> = Vec::new();
    let mut cases: Option<(usize, Option<usize>)> = None;
    let mut inside_cases = false;
    for event in Parser::new_from_str(text) {
        let (event, span) = event.ok()?;
        let at = lines.offset(span.start.line(), span.start.col())?;
        let is_key = matches!(stack.last(), Some(Frame::Mapping { expect_key: true }));
        let depth = stack.len();
        match event {
            Event::Alias(_) => return None,
            Event::Scalar(ref key, ..) if is_key => {
                if depth == 1 {
                    // The next top-level key ends the cases list, on the line it starts.
                    if let Some((_, end @ None)) = &mut cases {
                        *end = Some(line_start(at));
                    }
                    next_is_cases = key == "cases";
                }
                if let Some(Frame::Mapping { expect_key }) = stack.last_mut() {
                    *expect_key = false;
                }
                continue;
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if is_key => return None,
            Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..) => {
                if depth == 1 && next_is_cases {
                    // A flow list (`[...]`, also every list in a `{...}` file) has no lines to cut
                    // it at: the range below would run on past its closing brackets.
                    if !matches!(event, Event::SequenceStart(StructureStyle::Block, ..)) {
                        return None;
                    }
                    next_is_cases = false;
                    cases = Some((at, None));
                    inside_cases = true;
                } else if inside_cases && depth == 2 {
                    starts.push(at);
                }
                match event {
                    Event::SequenceStart(..) => stack.push(Frame::Sequence),
                    Event::MappingStart(..) => stack.push(Frame::Mapping { expect_key: true }),
                    _ => {}
                }
                if matches!(event, Event::SequenceStart(..) | Event::MappingStart(..)) {
                    continue;
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                stack.pop()?;
                if inside_cases && stack.len() == 1 {
                    inside_cases = false;
                }
            }
            _ => continue,
        }
        // A value just ended: its mapping now expects a key again.
        if let Some(Frame::Mapping { expect_key }) = stack.last_mut() {
            *expect_key = true;
        }
    }
    let (cases_start, cases_end) = cases?;
    let cases_end = cases_end.unwrap_or(text.len());
    // Block style only: every case on a line of its own, right after its `- `.
    let mut lines_seen = std::collections::HashSet::new();
    for &start in &starts {
        let before = &text[line_start(start)..start];
        if before.trim_end().trim_start() != "-" || !lines_seen.insert(line_start(start)) {
            return None;
        }
    }
    if starts.first().is_some_and(|&first| line_start(first) != line_start(cases_start)) {
        return None;
    }
    let items = starts
        .iter()
        .enumerate()
        .map(|(i, &start)| (start, starts.get(i + 1).map_or(cases_end, |&next| line_start(next))))
        .collect();
    Some(Outline { cases: (cases_start, cases_end), items })
}

/// `text[range]` as a YAML text of its own, positions unchanged: the range's line up to its
/// start (indentation, `- `, a key) becomes spaces, so an indented block still lines up.
pub fn fragment(lines: &LineIndex, (start, end): (usize, usize)) -> (usize, String) {
    let text = lines.text();
    let line_start = lines.line_start(start);
    let mut fragment = " ".repeat(start - line_start);
    fragment.push_str(&text[start..end]);
    (line_start, fragment)
}

/// The file without its cases, every line where it was: the list becomes `[]` and as many line
/// breaks as it had (not a blanked copy: the cases are most of a large file).
pub fn without_cases(text: &str, (start, end): (usize, usize)) -> String {
    let (before, cases, after) = (&text[..start], &text[start..end], &text[end..]);
    let breaks = cases.bytes().filter(|&b| b == b'\n').count();
    let mut rest = String::with_capacity(before.len() + 2 + breaks + after.len());
    rest.push_str(before);
    if !cases.is_empty() {
        rest.push_str("[]");
    }
    rest.extend(std::iter::repeat_n('\n', breaks));
    rest.push_str(after);
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "endpoint: http://x\ncases:\n  - name: a\n    tool: t\n    expect: {status: value}\n\n  # a comment\n  - tool: u\n    args:\n      k: [1, 2]\n    expect: {value: 1}\ndefs: [d]\n";

    #[test]
    fn each_case_is_found_and_reads_alone() {
        let outline = outline(TEXT).expect("a block list");
        assert_eq!(outline.items.len(), 2);
        let (base, first) = fragment(&LineIndex::new(TEXT), outline.items[0]);
        assert_eq!(&TEXT[base..base + 4], "  - ");
        let value: serde_json::Value = serde_saphyr::from_str(&first).unwrap();
        assert_eq!(value["name"], "a");
        let (_, second) = fragment(&LineIndex::new(TEXT), outline.items[1]);
        let value: serde_json::Value = serde_saphyr::from_str(&second).unwrap();
        assert_eq!(value["args"]["k"], serde_json::json!([1, 2]));
        assert!(!second.contains("defs"), "the list ends at the next top-level key: {second:?}");
        let rest: serde_json::Value = serde_saphyr::from_str(&without_cases(TEXT, outline.cases)).unwrap();
        assert_eq!(rest, serde_json::json!({"endpoint": "http://x", "cases": [], "defs": ["d"]}));
        let rest = without_cases(TEXT, outline.cases);
        assert_eq!(rest.lines().count(), TEXT.lines().count(), "lines unchanged");
        assert_eq!(rest.lines().position(|l| l.starts_with("defs")), TEXT.lines().position(|l| l.starts_with("defs")));
    }

    #[test]
    fn files_that_need_reading_whole() {
        assert_eq!(outline("cases: [{tool: a}, {tool: b}]\n"), None, "flow style");
        assert_eq!(outline("cases:\n  - &x {tool: a}\n  - *x\n"), None, "aliases");
        assert_eq!(outline("cases: {tool: a}\n"), None, "not a list");
        assert_eq!(outline("cases:\n  - [unclosed\n"), None, "broken YAML");
        assert_eq!(outline("- tool: a\n"), None, "no cases key");
        assert_eq!(outline("cases:\n  -\n    tool: a\n"), None, "a dash alone on its line");
        // Found by the property tests: the range ran to the end of the file, `}` included, and
        // the rest of the file no longer parsed.
        assert_eq!(outline("{\"cases\":[]}"), None, "a flow mapping");
        assert_eq!(outline("cases: []\n"), None, "an empty flow list");
    }
}
