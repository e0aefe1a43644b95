//! Fitting text into terminal cells: width, truncation and word wrapping.

use std::borrow::Cow;

use unicode_width::UnicodeWidthStr;

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
