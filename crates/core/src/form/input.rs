//! A text being edited: the string and a cursor, with the moves an editor needs. Multi-line
//! text keeps its newlines; rendering and key mapping live elsewhere.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextInput {
    text: String,
    /// Byte index into `text`, always on a character boundary.
    cursor: usize,
    /// The text is a prefilled value (a default, a suggested path) that the first typed key
    /// replaces rather than extends; a move of the cursor keeps it for editing instead.
    replace: bool,
}

impl TextInput {
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let cursor = text.len();
        TextInput { text, cursor, replace: false }
    }

    /// A prefilled text: typing replaces it, a cursor move keeps it to be edited.
    pub fn prefilled(text: impl Into<String>) -> Self {
        TextInput { replace: true, ..TextInput::new(text) }
    }

    /// The whole text is replaced by what is typed next (as if it were selected).
    pub fn select_all(&mut self) {
        self.replace = !self.text.is_empty();
    }

    /// True while the next typed key replaces the whole text.
    pub fn is_prefilled(&self) -> bool {
        self.replace
    }

    /// Before an insert or a deletion: a prefilled text goes first; true when it went.
    fn take_prefilled(&mut self) -> bool {
        if !std::mem::take(&mut self.replace) {
            return false;
        }
        self.text.clear();
        self.cursor = 0;
        true
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn set(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.cursor = self.text.len();
        self.replace = false;
    }

    pub fn clear(&mut self) {
        self.set(String::new());
    }

    pub fn insert_char(&mut self, c: char) {
        self.take_prefilled();
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    /// Inserts pasted text; `multiline` false turns newlines into spaces.
    pub fn insert_str(&mut self, s: &str, multiline: bool) {
        let s = if multiline { s.replace("\r\n", "\n") } else { s.replace("\r\n", " ").replace(['\n', '\r'], " ") };
        self.take_prefilled();
        self.text.insert_str(self.cursor, &s);
        self.cursor += s.len();
    }

    pub fn backspace(&mut self) {
        if self.take_prefilled() {
            return;
        }
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
            self.text.remove(self.cursor);
        }
    }

    pub fn delete(&mut self) {
        if self.take_prefilled() {
            return;
        }
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    pub fn left(&mut self) {
        self.replace = false;
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
        }
    }

    pub fn right(&mut self) {
        self.replace = false;
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    pub fn word_left(&mut self) {
        self.replace = false;
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(|c: char| !c.is_alphanumeric());
        self.cursor = trimmed.trim_end_matches(char::is_alphanumeric).len();
    }

    pub fn word_right(&mut self) {
        self.replace = false;
        let after = &self.text[self.cursor..];
        let skip_word = after.len() - after.trim_start_matches(char::is_alphanumeric).len();
        let rest = &after[skip_word..];
        let skip_gap = rest.len() - rest.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
        self.cursor += skip_word + skip_gap;
    }

    /// Deletes the word before the cursor (Ctrl-W, Ctrl-Backspace).
    pub fn delete_word_left(&mut self) {
        if self.take_prefilled() {
            return;
        }
        let end = self.cursor;
        self.word_left();
        self.text.replace_range(self.cursor..end, "");
    }

    /// Deletes from the start of the current line to the cursor (Ctrl-U).
    pub fn delete_to_line_start(&mut self) {
        if self.take_prefilled() {
            return;
        }
        let start = self.line_start();
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes from the cursor to the end of the current line (Ctrl-K).
    pub fn delete_to_line_end(&mut self) {
        if self.take_prefilled() {
            return;
        }
        let end = self.text[self.cursor..].find('\n').map_or(self.text.len(), |i| self.cursor + i);
        self.text.replace_range(self.cursor..end, "");
    }

    /// To the start of the current line.
    pub fn home(&mut self) {
        self.replace = false;
        self.cursor = self.line_start();
    }

    /// To the end of the current line.
    pub fn end(&mut self) {
        self.replace = false;
        self.cursor = self.text[self.cursor..].find('\n').map_or(self.text.len(), |i| self.cursor + i);
    }

    /// Up one line, keeping the column where the line is long enough. False on the first line.
    pub fn up(&mut self) -> bool {
        self.replace = false;
        let start = self.line_start();
        if start == 0 {
            return false;
        }
        let column = self.text[start..self.cursor].chars().count();
        let previous_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.cursor = advance(&self.text, previous_start, start - 1, column);
        true
    }

    /// Down one line. False on the last line.
    pub fn down(&mut self) -> bool {
        self.replace = false;
        let Some(newline) = self.text[self.cursor..].find('\n').map(|i| self.cursor + i) else { return false };
        let column = self.text[self.line_start()..self.cursor].chars().count();
        let next_start = newline + 1;
        let next_end = self.text[next_start..].find('\n').map_or(self.text.len(), |i| next_start + i);
        self.cursor = advance(&self.text, next_start, next_end, column);
        true
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    /// (line, column in characters) of the cursor, both 0-based.
    pub fn cursor_line_col(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let line = before.matches('\n').count();
        let column = before[self.line_start()..].chars().count();
        (line, column)
    }

    pub fn line_count(&self) -> usize {
        self.text.matches('\n').count() + 1
    }
}

/// The byte index `column` characters after `start`, but not past `end`.
fn advance(text: &str, start: usize, end: usize, column: usize) -> usize {
    text[start..end].char_indices().nth(column).map_or(end, |(i, _)| start + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_and_moving() {
        let mut input = TextInput::new("héllo");
        input.left();
        input.left();
        input.insert_char('X');
        assert_eq!(input.text(), "hélXlo");
        input.backspace();
        input.backspace();
        assert_eq!(input.text(), "hélo");
        input.home();
        input.delete();
        assert_eq!(input.text(), "élo");
        input.end();
        assert_eq!(input.cursor(), input.text().len());
    }

    #[test]
    fn a_prefilled_text_is_replaced_by_typing_and_kept_by_a_move() {
        let mut input = TextInput::prefilled("42");
        input.insert_char('5');
        input.insert_char('0');
        assert_eq!(input.text(), "50", "typing replaces the default, not appends to it");
        let mut input = TextInput::prefilled("human-1");
        input.end();
        input.insert_char('2');
        assert_eq!(input.text(), "human-12", "after a move the text is edited");
        let mut input = TextInput::prefilled("a@example.com");
        input.backspace();
        assert_eq!(input.text(), "", "a deletion takes the whole prefilled text");
        let mut input = TextInput::new("kept");
        input.insert_char('!');
        assert_eq!(input.text(), "kept!", "a text not prefilled is extended");
    }

    #[test]
    fn words() {
        let mut input = TextInput::new("one two, three");
        input.word_left();
        assert_eq!(&input.text()[input.cursor()..], "three");
        input.word_left();
        assert_eq!(&input.text()[input.cursor()..], "two, three");
        input.word_right();
        assert_eq!(&input.text()[input.cursor()..], "three");
        input.end();
        input.delete_word_left();
        assert_eq!(input.text(), "one two, ");
    }

    #[test]
    fn lines() {
        let mut input = TextInput::new("first line\nab\nthird");
        assert_eq!(input.cursor_line_col(), (2, 5));
        assert!(input.up());
        assert_eq!(input.cursor_line_col(), (1, 2));
        assert!(input.up());
        assert_eq!(input.cursor_line_col(), (0, 2));
        assert!(!input.up());
        input.end();
        assert!(input.down());
        assert_eq!(input.cursor_line_col(), (1, 2));
        assert_eq!(input.line_count(), 3);
    }

    #[test]
    fn paste_keeps_single_lines_single() {
        let mut input = TextInput::default();
        input.insert_str("a\r\nb\nc", false);
        assert_eq!(input.text(), "a b c");
        let mut input = TextInput::default();
        input.insert_str("a\r\nb", true);
        assert_eq!(input.text(), "a\nb");
    }
}
