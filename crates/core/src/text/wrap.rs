//! Fitting text into terminal cells: width, truncation and word wrapping.

use std::borrow::Cow;

use unicode_width::UnicodeWidthStr;

/// Display width in terminal cells.
pub fn width(text: &str) -> usize {
    // Printable ASCII is one cell a byte: the common case skips the Unicode tables.
    if printable_ascii(text) { text.len() } else { text.width() }
}

/// Every byte a printable ASCII character (space to `~`): one cell each, nothing to escape.
pub fn printable_ascii(text: &str) -> bool {
    text.bytes().all(|b| (b' '..=b'~').contains(&b))
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
    fn truncates_by_cell_width() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("日本語テキスト", 7), "日本語…");
        assert_eq!(truncate("short", 10), "short");
    }
}
