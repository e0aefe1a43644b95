//! Text from definitions and servers, made safe to print: a tool's description must never be able
//! to move the cursor or change the terminal. Also [`LineIndex`], the one place that turns a byte
//! offset into the line and column every diagnostic names.

use std::borrow::Cow;

use unicode_width::UnicodeWidthStr;

/// Control characters replaced by visible stand-ins: `\n` → `↵`, tab → `→`, ESC → `␛`, other C0
/// controls by their Control Pictures (`␀`...), DEL → `␡`, C1 controls and bidi overrides as
/// `<U+XXXX>`.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push('↵'),
            '\t' => out.push('→'),
            '\u{00}'..='\u{1F}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            '\u{7F}' => out.push('␡'),
            c if needs_escape(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Display width in terminal cells.
pub fn width(text: &str) -> usize {
    text.width()
}

/// Cuts `text` to at most `max` cells, ending with `…` when it was cut.
pub fn truncate(text: &str, max: usize) -> Cow<'_, str> {
    if width(text) <= max {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    Cow::Owned(out)
}

/// A byte count for people: `512 B`, `1.5 KiB`, `32.0 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit < UNITS.len() - 1 {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// Word-wraps `text` (newlines already made visible) into at most `max_lines` lines of `width`
/// cells; the last line ends with `…` when text was left out.
pub fn wrap(text: &str, columns: usize, max_lines: usize) -> Vec<String> {
    if columns == 0 || max_lines == 0 {
        return Vec::new();
    }
    let mut lines = wrap_words(text, columns, false);
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        if let Some(last) = lines.last_mut() {
            *last = format!("{}…", truncate(last, columns.saturating_sub(1)).trim_end_matches('…'));
        }
    }
    lines
}

/// `text` in lines of at most `columns` cells, broken at spaces, and inside a word longer than
/// a line (a pattern, a URL, a token): nothing is cut off, unlike [`wrap`].
pub fn wrap_whole(text: &str, columns: usize) -> Vec<String> {
    wrap_words(text, columns.max(1), true)
}

/// One line (made visible) in rows of at most `columns` cells, every character kept, spaces
/// included: broken after the last space that fits, inside a word only when it is longer than a
/// row. A space where a row breaks is dropped, as a terminal's own wrapping would.
pub fn wrap_keep(text: &str, columns: usize) -> Vec<String> {
    let columns = columns.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut row_width = 0;
    // Byte offset in `row` just after its last space.
    let mut after_space: Option<usize> = None;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if row_width + w > columns && !row.is_empty() {
            if c == ' ' {
                rows.push(std::mem::take(&mut row));
                row_width = 0;
                after_space = None;
                continue;
            }
            let rest = match after_space {
                Some(at) => row.split_off(at),
                None => String::new(),
            };
            rows.push(std::mem::replace(&mut row, rest));
            row_width = width(&row);
            after_space = None;
        }
        row.push(c);
        row_width += w;
        if c == ' ' {
            after_space = Some(row.len());
        }
    }
    rows.push(row);
    rows
}

/// Lines of at most `columns` cells, broken at spaces; a word longer than a line is broken over
/// several (`break_long`) or cut with `…`.
fn wrap_words(text: &str, columns: usize, break_long: bool) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let candidate = if current.is_empty() { word.to_string() } else { format!("{current} {word}") };
        if width(&candidate) <= columns {
            current = candidate;
            continue;
        }
        if !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        if !break_long {
            current = truncate(word, columns).into_owned();
            continue;
        }
        for c in word.chars() {
            if width(&current) + width(c.encode_utf8(&mut [0; 4])) > columns {
                lines.push(std::mem::take(&mut current));
            }
            current.push(c);
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// The current UTC time as RFC 3339 with milliseconds (`2025-06-02T14:00:00.123Z`).
pub fn rfc3339_now() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs();
    let (year, month, day) = civil_from_days(i64::try_from(secs / 86_400).unwrap_or_default());
    let rem = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar (Howard
/// Hinnant's algorithm), so no date crate is needed.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Maps byte offsets to 1-based line and column (columns count characters, not bytes), and back.
///
/// A lookup counts at most about one block of bytes, however long the line: minified definition
/// files are one line of many megabytes, and counting from the line's start on every lookup (one
/// per tool) made loading them quadratic.
pub struct LineIndex<'a> {
    text: &'a str,
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

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { text, line_starts, chars_before: std::sync::OnceLock::new() }
    }

    pub fn text(&self) -> &'a str {
        self.text
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
    fn wrap_keep_keeps_every_character_and_fits() {
        assert_eq!(wrap_keep("ab cd  ef", 5), ["ab cd", " ef"]);
        assert_eq!(wrap_keep("ab cdef", 5), ["ab ", "cdef"]);
        assert_eq!(wrap_keep("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_keep("  indented", 20), ["  indented"]);
        assert_eq!(wrap_keep("", 5), [""]);
        assert_eq!(wrap_keep("abcd efgh", 4), ["abcd", "efgh"]);
        let long = "word ".repeat(700);
        let rows = wrap_keep(&long, 48);
        assert!(rows.iter().all(|r| width(r) <= 48));
        assert_eq!(rows.concat().replace(' ', ""), long.replace(' ', ""));
    }

    #[test]
    fn wrap_whole_breaks_long_words_and_loses_nothing() {
        assert_eq!(wrap_whole("ab cdefghij k", 4), ["ab", "cdef", "ghij", "k"]);
        assert_eq!(wrap_whole("a b", 10), ["a b"]);
        assert!(wrap_whole("", 5).is_empty());
    }

    #[test]
    fn escapes_cannot_reach_the_terminal() {
        assert_eq!(visible("a\u{1b}[2Jb"), "a␛[2Jb");
        assert_eq!(visible("x\u{9b}31m\u{202E}"), "x<U+009B>31m<U+202E>");
        assert_eq!(visible("line\nnext\ttab"), "line↵next→tab");
        assert!(matches!(visible("plain ♠ text"), Cow::Borrowed(_)));
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(32 * 1024 * 1024), "32.0 MiB");
    }

    #[test]
    fn truncates_by_cell_width() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("日本語テキスト", 7), "日本語…");
        assert_eq!(truncate("short", 10), "short");
    }

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
