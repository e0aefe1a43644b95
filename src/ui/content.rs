//! An MCP result's content items in the result pane: the lines `app::result::content::document` lays out,
//! styled; the selected item marked; a preview's picture drawn (as shades without colours).

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::json::highlight;
use crate::app::App;
use crate::app::result::content::DocLine;
use crate::invoke::thumbnail::Thumbnail;
use crate::text::visible;
use crate::theme::Styles;

/// `height` lines of the items view from its scroll position on.
pub fn lines(app: &App, focused: bool, height: usize, styles: &Styles) -> Vec<Line<'static>> {
    let doc = crate::app::result::content::document(app);
    let picture = match (app.result.artifact().map(|v| v.state()), crate::app::result::content::picture_fit(app)) {
        (Some(crate::app::ArtifactState::Ready { image: Some(image), .. }), Some(fit)) => Some((image, fit)),
        _ => None,
    };
    doc.iter().skip(app.result.scroll()).take(height).map(|line| styled(line, focused, picture, styles)).collect()
}

/// A picture and the columns and rows it is drawn in.
type Picture<'a> = (&'a Thumbnail, (usize, usize));

fn styled(line: &DocLine<'_>, focused: bool, picture: Option<Picture<'_>>, styles: &Styles) -> Line<'static> {
    const INDENT: &str = "    ";
    match line {
        DocLine::Heading(text) => Line::styled(text.clone(), styles.title),
        DocLine::Item { selected: true, text, more, .. } => {
            let style = if focused { styles.selection } else { styles.accent };
            let mark = if *more { " " } else { "›" };
            Line::styled(format!("{mark} {text}"), style)
        }
        DocLine::Item { text, .. } => Line::styled(format!("  {text}"), styles.key_hint),
        DocLine::Text(text) => Line::styled(format!("{INDENT}{}", super::result::drawable(text)), styles.text),
        DocLine::Muted(text) => Line::styled(format!("{INDENT}{}", visible(text)), styles.muted),
        DocLine::Ok(text) => Line::styled(format!("{INDENT}{text}"), styles.ok),
        DocLine::Warning(text) => Line::styled(format!("{INDENT}{}", visible(text)), styles.warning),
        DocLine::Error(text) => Line::styled(format!("{INDENT}{}", visible(text)), styles.error),
        DocLine::Json(text) => {
            let mut line = highlight(text, styles);
            line.spans.insert(0, Span::raw(INDENT));
            line
        }
        DocLine::JsonMore(text) => Line::styled(format!("{INDENT}{}", visible(text)), styles.json_string),
        DocLine::Picture(row) => match picture {
            Some((image, fit)) => picture_row(image, *row, fit, styles.no_color),
            None => Line::raw(""),
        },
    }
}

/// Row `row` of the picture drawn in `columns` × `rows` cells (its thumbnail sampled to fit),
/// two pixels per cell: `▀` in the upper pixel's colour over the lower one's; without colours, a
/// shade for how bright the two are together.
fn picture_row(image: &Thumbnail, row: usize, (columns, rows): (usize, usize), no_color: bool) -> Line<'static> {
    let at = |x: usize, half: usize| {
        let source_x = x * image.width / columns.max(1);
        let source_y = (row * 2 + half) * image.height / (rows * 2).max(1);
        image.pixel(source_x, source_y)
    };
    let mut spans = vec![Span::raw("    ")];
    if no_color {
        let shades = [' ', '░', '▒', '▓', '█'];
        let text: String = (0..columns)
            .map(|x| {
                let light = |[r, g, b]: [u8; 3]| u32::from(r) * 3 + u32::from(g) * 6 + u32::from(b);
                let sum = light(at(x, 0)) + light(at(x, 1));
                shades[(sum * 5 / (2 * 255 * 10 + 1)) as usize]
            })
            .collect();
        spans.push(Span::raw(text));
    } else {
        spans.extend((0..columns).map(|x| {
            let [r, g, b] = at(x, 0);
            let [r2, g2, b2] = at(x, 1);
            Span::styled("▀", Style::new().fg(Color::Rgb(r, g, b)).bg(Color::Rgb(r2, g2, b2)))
        }));
    }
    Line::from(spans)
}
