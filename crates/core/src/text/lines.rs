//! The one place that turns a byte offset into the line and column every diagnostic names.

use std::borrow::Cow;

/// Maps byte offsets to 1-based line and column (columns count characters, not bytes), and back.
///
/// A lookup counts at most about one block of bytes, however long the line: minified definition
/// files are one line of many megabytes, and counting from the line's start on every lookup (one
/// per tool) made loading them quadratic.
pub struct LineIndex<'a> {
    /// Borrowed while a text is read; owned when the index outlives the reading (the linter
    /// keeps each file's index to place every finding).
    text: Cow<'a, str>,
    line_starts: Vec<usize>,
    /// `chars_before[k]`: how many characters start in `text[..k * BLOCK]`. Counted the first
    /// time a column lies more than a block from its line's start (a long line); most files
    /// never need it.
    chars_before: std::sync::OnceLock<Vec<usize>>,
}

const BLOCK: usize = 1024;

/// Characters that start in `bytes` (UTF-8 continuation bytes are `0b10xx_xxxx`). Counted on
/// bytes so that a range need not fall on character boundaries.
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

impl LineIndex<'static> {
    /// An index that keeps its text.
    pub fn owned(text: String) -> Self {
        LineIndex::of(Cow::Owned(text))
    }
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        LineIndex::of(Cow::Borrowed(text))
    }

    fn of(text: Cow<'a, str>) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { text, line_starts, chars_before: std::sync::OnceLock::new() }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let column = if offset - start <= BLOCK {
            chars_in(&self.text.as_bytes()[start..offset])
        } else {
            self.chars_before(offset) - self.chars_before(start)
        };
        (line + 1, column + 1)
    }

    /// The 1-based line that holds `offset`, without counting its column.
    pub fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset.min(self.text.len()))
    }

    /// Byte offset where the line that holds `offset` starts.
    pub fn line_start(&self, offset: usize) -> usize {
        let line = self.line_starts.partition_point(|&start| start <= offset);
        self.line_starts[line.saturating_sub(1)]
    }

    /// Byte offset of the character `column` characters (0-based) after the start of `line`
    /// (1-based), as YAML parsers give positions; past the end of the text, the text's length.
    pub fn offset(&self, line: usize, column: usize) -> Option<usize> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let target = self.chars_before(start).saturating_add(column);
        // The last block boundary with at most `target` characters before it: the character
        // wanted starts in that block (or after `start`, if that is later).
        let block = self.blocks().partition_point(|&n| n <= target).saturating_sub(1);
        let from = (block * BLOCK).max(start).min(self.text.len());
        let mut seen = self.chars_before(from);
        for (i, &byte) in self.text.as_bytes()[from..].iter().enumerate() {
            if byte & 0xC0 != 0x80 {
                if seen == target {
                    return Some(from + i);
                }
                seen += 1;
            }
        }
        Some(self.text.len())
    }

    /// Characters that start in `text[..offset]`.
    /// How many characters start before each block boundary, counted on first use.
    fn blocks(&self) -> &[usize] {
        self.chars_before.get_or_init(|| {
            let mut counts = Vec::with_capacity(self.text.len() / BLOCK + 2);
            counts.push(0);
            for block in self.text.as_bytes().chunks(BLOCK) {
                counts.push(counts.last().copied().unwrap_or(0) + chars_in(block));
            }
            counts
        })
    }

    fn chars_before(&self, offset: usize) -> usize {
        let block = offset / BLOCK;
        let counted = self.blocks().get(block).copied().unwrap_or(0);
        counted + chars_in(self.text.as_bytes().get(block * BLOCK..offset).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_single_line_gives_character_columns_both_ways() {
        // Several blocks long, with two- and four-byte characters straddling block boundaries.
        let line: String = (0..5_000).map(|i| ["a", "é", "😀", "xyz"][i % 4]).collect();
        let text = format!("first\n{line}\nlast");
        let lines = LineIndex::new(&text);
        let line_start = "first\n".len();
        for (column, (at, _)) in line.char_indices().enumerate().step_by(97) {
            let offset = line_start + at;
            assert_eq!(lines.line_col(offset), (2, column + 1), "column {column}");
            assert_eq!(lines.offset(2, column), Some(offset), "column {column}");
            assert_eq!(lines.line_start(offset), line_start);
        }
        let end = line_start + line.len();
        assert_eq!(lines.line_col(end), (2, line.chars().count() + 1));
        assert_eq!(lines.line_col(text.len()), (3, 5));
        assert_eq!(lines.line_col(usize::MAX), (3, 5));
        assert_eq!(lines.offset(3, 2), Some(end + 3));
        assert_eq!(lines.offset(3, 99), Some(text.len()));
        assert_eq!((lines.offset(0, 0), lines.offset(4, 0)), (None, None));
        assert_eq!(lines.line_start(end - 1), line_start);
    }
}
