//! The result's value as a foldable JSON viewer: the value pretty-printed once (off the UI thread),
//! its bracket structure indexed, and a cursor, a window and the folded containers over it. Every
//! move is O(lines in view) or O(log folds), never O(value), so a 50 MB value folds as fast as a
//! small one.

use std::collections::BTreeSet;

/// The value's lines and which of them open and close containers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValueLines {
    lines: Vec<String>,
    /// For a line that opens a multi-line container, the line that closes it; for a line that
    /// closes one, the line that opened it; else the line itself.
    partner: Vec<u32>,
    /// The line that opens the container a line is in (the root's lines point at themselves).
    parent: Vec<u32>,
}

impl ValueLines {
    /// The value's lines, pretty-printed.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Indexes `serde_json::to_string_pretty` output: a line opens a container when it ends in
    /// `{` or `[` (a string ending in one ends in `"` instead) and closes one when it starts with
    /// `}` or `]`.
    pub fn new(pretty: &str) -> ValueLines {
        let lines: Vec<String> = pretty.lines().map(str::to_string).collect();
        let mut partner: Vec<u32> = (0..lines.len() as u32).collect();
        let mut parent = vec![0u32; lines.len()];
        let mut open: Vec<u32> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let trimmed = line.trim();
            if trimmed.starts_with(['}', ']'])
                && let Some(opener) = open.pop()
            {
                partner[opener as usize] = i as u32;
                partner[i] = opener;
            }
            parent[i] = open.last().copied().unwrap_or(i as u32);
            if trimmed.ends_with(['{', '[']) {
                open.push(i as u32);
            }
        }
        ValueLines { lines, partner, parent }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The line closing the container that line `i` opens.
    pub fn closer(&self, i: usize) -> Option<usize> {
        let partner = *self.partner.get(i)? as usize;
        (partner > i).then_some(partner)
    }

    /// The string on line `i` (`"key": "text",` or `"text"`) and its key, when the line holds
    /// a string value: what Enter opens as text.
    pub fn string_at(&self, i: usize) -> Option<(Option<String>, String)> {
        let line = self.lines.get(i)?.trim();
        let line = line.strip_suffix(',').unwrap_or(line);
        if let Ok(text) = serde_json::from_str::<String>(line) {
            return Some((None, text));
        }
        // `"key": value`: the key is a JSON string, so its end is the first unescaped quote.
        let mut escaped = false;
        let end = line.char_indices().skip(1).find_map(|(at, c)| match c {
            '\\' if !escaped => {
                escaped = true;
                None
            }
            '"' if !escaped => Some(at),
            _ => {
                escaped = false;
                None
            }
        })?;
        let key = serde_json::from_str::<String>(&line[..=end]).ok()?;
        let value = line[end + 1..].trim_start().strip_prefix(':')?.trim();
        serde_json::from_str::<String>(value).ok().map(|text| (Some(key), text))
    }

    /// The line opening the container that line `i` is in.
    pub fn enclosing(&self, i: usize) -> Option<usize> {
        let parent = *self.parent.get(i)? as usize;
        (parent != i).then_some(parent)
    }
}

/// Where the user is in the value and what they folded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValueView {
    /// The line under the cursor (always a visible one).
    pub(super) cursor: usize,
    /// The first line in view (always a visible one).
    pub(super) top: usize,
    /// Opening lines of folded containers.
    folded: BTreeSet<usize>,
}

impl ValueView {
    /// The line under the cursor (always a visible one).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The first line in view (always a visible one).
    pub fn top(&self) -> usize {
        self.top
    }

    pub fn is_folded(&self, line: usize) -> bool {
        self.folded.contains(&line)
    }

    /// The visible line after `i`: a folded container is skipped to just past its closer.
    pub fn next_visible(&self, lines: &ValueLines, i: usize) -> Option<usize> {
        let next = match self.is_folded(i) {
            true => lines.closer(i)? + 1,
            false => i + 1,
        };
        (next < lines.len()).then_some(next)
    }

    /// The visible line before `i`. Lines hidden by a fold end at its closer, so landing on a
    /// closer of a folded container means its opener is the line shown.
    pub fn previous_visible(&self, lines: &ValueLines, i: usize) -> Option<usize> {
        let previous = i.checked_sub(1)?;
        let opener = lines.partner.get(previous).map_or(previous, |p| *p as usize);
        Some(if opener < previous && self.is_folded(opener) { opener } else { previous })
    }

    /// The visible lines from the top of the window down.
    pub fn window<'a>(&'a self, lines: &'a ValueLines) -> impl Iterator<Item = usize> + 'a {
        let first = (self.top < lines.len()).then_some(self.top);
        std::iter::successors(first, move |&i| self.next_visible(lines, i))
    }

    /// Moves the cursor `delta` visible lines, scrolling to keep it in a window of `height`.
    pub fn move_by(&mut self, lines: &ValueLines, delta: isize, height: usize) {
        for _ in 0..delta.unsigned_abs() {
            let step = match delta > 0 {
                true => self.next_visible(lines, self.cursor),
                false => self.previous_visible(lines, self.cursor),
            };
            match step {
                Some(line) => self.cursor = line,
                None => break,
            }
        }
        self.scroll_to_cursor(lines, height);
    }

    pub fn to_top(&mut self) {
        self.cursor = 0;
        self.top = 0;
    }

    pub fn to_bottom(&mut self, lines: &ValueLines, height: usize) {
        // The last line is the root's closer: hidden only when the root is folded.
        self.cursor = self.previous_visible(lines, lines.len()).unwrap_or(0);
        self.scroll_to_cursor(lines, height);
    }

    /// `←`: folds the container opening at the cursor, or else the one the cursor is in (and
    /// moves there).
    pub fn fold(&mut self, lines: &ValueLines, height: usize) {
        let target = match lines.closer(self.cursor) {
            Some(_) if !self.is_folded(self.cursor) => Some(self.cursor),
            _ => lines.enclosing(self.cursor),
        };
        if let Some(opener) = target {
            self.folded.insert(opener);
            self.cursor = opener;
            self.scroll_to_cursor(lines, height);
        }
    }

    /// `→`: unfolds the container at the cursor.
    pub fn unfold(&mut self, line: usize) {
        self.folded.remove(&line);
    }

    /// Enter: folds or unfolds the container opening at the cursor.
    pub fn toggle(&mut self, lines: &ValueLines, height: usize) {
        if self.is_folded(self.cursor) {
            self.unfold(self.cursor);
        } else if lines.closer(self.cursor).is_some() {
            self.fold(lines, height);
        }
    }

    /// Folds every container below the top level, so the value reads as an outline.
    pub fn fold_all(&mut self, lines: &ValueLines) {
        self.folded = (1..lines.len()).filter(|&i| lines.closer(i).is_some()).collect();
        self.top = 0;
        self.cursor = 0;
    }

    pub fn unfold_all(&mut self) {
        self.folded.clear();
    }

    /// Puts the cursor on `line`, unfolding what hides it (a search hit, say).
    pub fn reveal(&mut self, lines: &ValueLines, line: usize, height: usize) {
        let mut container = lines.enclosing(line);
        while let Some(opener) = container {
            self.folded.remove(&opener);
            container = lines.enclosing(opener);
        }
        self.cursor = line.min(lines.len().saturating_sub(1));
        self.scroll_to_cursor(lines, height);
    }

    /// Keeps the cursor inside the window: above it, the window starts at the cursor; below it,
    /// the window ends there.
    fn scroll_to_cursor(&mut self, lines: &ValueLines, height: usize) {
        if self.cursor <= self.top {
            self.top = self.cursor;
            return;
        }
        let mut first = self.cursor;
        for _ in 1..height.max(1) {
            match self.previous_visible(lines, first) {
                Some(line) if line >= self.top => first = line,
                _ => return,
            }
        }
        self.top = first;
    }

    /// How many lines are inside a container, for a folded one's "N lines folded" marker.
    pub fn hidden_lines(lines: &ValueLines, opener: usize) -> usize {
        lines.closer(opener).map_or(0, |closer| closer - opener - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_line_gives_its_text() {
        let lines = ValueLines::new(&crate::form::value::pretty(&serde_json::json!({
            "diff": "a\nb", "n": 1, "q\"k": "x"
        })));
        assert_eq!(lines.string_at(1), Some((Some("diff".into()), "a\nb".into())));
        assert_eq!(lines.string_at(2), None, "a number is no text");
        assert_eq!(lines.string_at(3), Some((Some("q\"k".into()), "x".into())));
        let top = ValueLines::new("\"only\"");
        assert_eq!(top.string_at(0), Some((None, "only".into())));
    }
    use serde_json::json;

    fn lines_of(value: serde_json::Value) -> ValueLines {
        ValueLines::new(&serde_json::to_string_pretty(&value).unwrap())
    }

    fn window(view: &ValueView, lines: &ValueLines) -> Vec<String> {
        view.window(lines).map(|i| lines.lines[i].trim().to_string()).collect()
    }

    #[test]
    fn brackets_are_paired_and_strings_are_not_brackets() {
        let lines = lines_of(json!({"a": [1, 2], "s": "ends with {", "e": {}, "o": {"b": true}}));
        // {  "a": [  1,  2  ],  "s": ..., "e": {}, "o": {  "b": true  }  }
        assert_eq!(lines.closer(0), Some(lines.len() - 1));
        assert_eq!(lines.closer(1), Some(4));
        assert_eq!(lines.closer(5), None, "a string ending in {{ opens nothing");
        assert_eq!(lines.closer(6), None, "an empty object is one line");
        assert_eq!(lines.enclosing(2), Some(1));
        assert_eq!(lines.enclosing(0), None);
    }

    #[test]
    fn folding_hides_the_inside_and_moving_skips_it() {
        let lines = lines_of(json!({"a": [1, 2, 3], "b": 4}));
        let mut view = ValueView::default();
        view.move_by(&lines, 1, 10);
        assert_eq!(lines.lines[view.cursor].trim(), "\"a\": [");
        view.fold(&lines, 10);
        assert_eq!(window(&view, &lines), ["{", "\"a\": [", "\"b\": 4", "}"]);
        view.move_by(&lines, 1, 10);
        assert_eq!(lines.lines[view.cursor].trim(), "\"b\": 4");
        view.move_by(&lines, -1, 10);
        assert_eq!(lines.lines[view.cursor].trim(), "\"a\": [", "moving up lands on the folded opener");
        assert_eq!(ValueView::hidden_lines(&lines, view.cursor), 3);
        view.toggle(&lines, 10);
        assert_eq!(window(&view, &lines).len(), lines.len());
    }

    #[test]
    fn fold_inside_a_container_folds_that_container() {
        let lines = lines_of(json!({"a": [1, 2, 3]}));
        let mut view = ValueView::default();
        view.move_by(&lines, 3, 10);
        assert_eq!(lines.lines[view.cursor].trim(), "2,");
        view.fold(&lines, 10);
        assert_eq!(view.cursor, 1);
        assert!(view.is_folded(1));
    }

    #[test]
    fn the_window_follows_the_cursor() {
        let lines = lines_of(json!((0..100).collect::<Vec<_>>()));
        let mut view = ValueView::default();
        view.move_by(&lines, 50, 10);
        assert_eq!((view.cursor, view.top), (50, 41));
        view.move_by(&lines, -45, 10);
        assert_eq!((view.cursor, view.top), (5, 5));
        view.to_bottom(&lines, 10);
        assert_eq!((view.cursor, view.top), (101, 92));
    }

    #[test]
    fn fold_all_gives_an_outline_and_reveal_opens_the_way_to_a_line() {
        let lines = lines_of(json!({"a": {"b": {"c": 1}}, "d": [1]}));
        let mut view = ValueView::default();
        view.fold_all(&lines);
        assert_eq!(window(&view, &lines), ["{", "\"a\": {", "\"d\": [", "}"]);
        let c = lines.lines.iter().position(|l| l.contains("\"c\"")).unwrap();
        view.reveal(&lines, c, 10);
        assert_eq!(view.cursor, c);
        assert!(window(&view, &lines).contains(&"\"c\": 1".to_string()));
        view.unfold_all();
        assert_eq!(window(&view, &lines).len(), lines.len());
    }

    #[test]
    fn folding_the_root_leaves_one_line() {
        let lines = lines_of(json!([1, 2]));
        let mut view = ValueView::default();
        view.toggle(&lines, 10);
        assert_eq!(window(&view, &lines), ["["]);
        view.to_bottom(&lines, 10);
        assert_eq!(view.cursor, 0);
        assert_eq!(view.next_visible(&lines, 0), None);
    }
}
