//! A tool's or field's description as a reader wants it: paragraphs kept apart, list items
//! with their bullets, `code spans` set off, line breaks where the author put them (not `↵`).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::text::{visible, wrap};

/// The description wrapped to `width` columns, at most `max_lines` lines (the last one says
/// when more was cut). `code` styles what is between backticks.
pub fn lines(text: &str, width: usize, max_lines: usize, style: Style, code: Style) -> Vec<Line<'static>> {
    let mut plain: Vec<String> = Vec::new();
    for (index, (gap, block)) in blocks(text).into_iter().enumerate() {
        // Blocks keep the blank lines the author put between them, and only those.
        if gap && index > 0 {
            plain.push(String::new());
        }
        match block {
            Block::Paragraph(text) => plain.extend(wrap(&visible(&text), width, usize::MAX)),
            Block::Item(bullet, text) => {
                let indent = crate::text::width(&bullet) + 1;
                for (n, line) in wrap(&visible(&text), width.saturating_sub(indent), usize::MAX).into_iter().enumerate()
                {
                    let lead = if n == 0 { format!("{bullet} ") } else { " ".repeat(indent) };
                    plain.push(format!("{lead}{line}"));
                }
            }
        }
    }
    if plain.len() > max_lines {
        plain.truncate(max_lines);
        if let Some(last) = plain.last_mut() {
            *last = format!("{}…", crate::text::truncate(last, width.saturating_sub(1)).trim_end_matches('…'));
        }
    }
    let mut in_code = false;
    plain.into_iter().map(|line| styled(&line, &mut in_code, style, code)).collect()
}

enum Block {
    Paragraph(String),
    /// A list item: its bullet (`•`, `1.`) and text.
    Item(String, String),
}

/// Paragraphs (split at blank lines, lines inside joined) and list items (`-`, `*`, `+`, `1.`),
/// each with whether a blank line came before it.
fn blocks(text: &str) -> Vec<(bool, Block)> {
    let mut blocks: Vec<(bool, Block)> = Vec::new();
    let mut paragraph = String::new();
    let mut gap = false;
    let mut paragraph_gap = false;
    let flush = |paragraph: &mut String, blocks: &mut Vec<(bool, Block)>, gap: bool| {
        if !paragraph.trim().is_empty() {
            blocks.push((gap, Block::Paragraph(std::mem::take(paragraph))));
        }
        paragraph.clear();
    };
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut paragraph, &mut blocks, paragraph_gap);
            gap = true;
            continue;
        }
        if let Some((bullet, rest)) = list_item(trimmed) {
            flush(&mut paragraph, &mut blocks, paragraph_gap);
            blocks.push((std::mem::take(&mut gap), Block::Item(bullet, rest.to_string())));
            continue;
        }
        match blocks.last_mut() {
            // A line right under an item, indented, carries on the item.
            Some((_, Block::Item(_, item))) if paragraph.is_empty() && !gap && line.starts_with([' ', '\t']) => {
                item.push(' ');
                item.push_str(trimmed);
            }
            _ => {
                if paragraph.is_empty() {
                    paragraph_gap = std::mem::take(&mut gap);
                } else {
                    paragraph.push(' ');
                }
                paragraph.push_str(trimmed);
            }
        }
    }
    flush(&mut paragraph, &mut blocks, paragraph_gap);
    blocks
}

fn list_item(line: &str) -> Option<(String, &str)> {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")).or_else(|| line.strip_prefix("+ "))
    {
        return Some(("•".to_string(), rest));
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = &line[digits..];
    if digits > 0 && digits < 4 && (rest.starts_with(". ") || rest.starts_with(") ")) {
        return Some((line[..digits + 1].to_string(), &rest[2..]));
    }
    None
}

/// A line with its `code spans` in `code` (a span may go on from the line before).
fn styled(line: &str, in_code: &mut bool, style: Style, code: Style) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, part) in line.split('`').enumerate() {
        if i > 0 {
            *in_code = !*in_code;
        }
        if !part.is_empty() {
            spans.push(Span::styled(part.to_string(), if *in_code { code } else { style }));
        }
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn paragraphs_lists_and_code_spans() {
        let description = "Reads a file.\nWhole.\n\nOptions:\n- `head`: first lines\n- `tail`: last\n  lines\n1. one";
        let lines = lines(description, 40, 20, Style::new(), Style::new().bold());
        assert_eq!(
            text(&lines),
            ["Reads a file. Whole.", "", "Options:", "• head: first lines", "• tail: last lines", "1. one"]
        );
        let code: Vec<&str> =
            lines[3].spans.iter().filter(|s| s.style == Style::new().bold()).map(|s| s.content.as_ref()).collect();
        assert_eq!(code, ["head"]);
    }

    #[test]
    fn long_items_hang_and_the_end_is_marked() {
        let lines = lines("- a b c d e f g h", 8, 2, Style::new(), Style::new());
        assert_eq!(text(&lines), ["• a b c", "  d e f…"]);
    }
}
