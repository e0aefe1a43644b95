//! Boxes over the screen: pickers, the prompts, past calls, and the help (read from the keymap).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::pane;
use crate::app::keymap::{Action, Context};
use crate::app::layout::inner;
use crate::app::{App, Popup};
use crate::form::TextInput;
use crate::text::{truncate, visible, width, wrap};
use crate::theme::Styles;

/// Where a yes-or-no box's yes key is looked up.
const CONFIRM: &[Context] = &[Context::Confirm];

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, screen: Rect) {
    let Some(popup) = &app.prompts.popup() else { return };
    match popup {
        Popup::Picker { title, options, selected, .. } => picker(frame, screen, title, options, *selected, styles),
        Popup::KeyPrompt { input, .. } => {
            let title = "key of the new entry (Enter: add, Esc: cancel)";
            text_prompt(frame, centered(screen, 50, 3), title, input, styles);
        }
        Popup::TokenPrompt { provider, input, why } => token_prompt(frame, screen, provider, input, why, styles),
        Popup::Roots { input } => {
            let title = "roots, comma-separated (Enter: set, Esc: cancel)";
            text_prompt(frame, centered(screen, 70, 4), title, input, styles);
        }
        Popup::Search { input } => {
            let title = "find in the result (Enter: find, Esc: cancel)";
            text_prompt(frame, centered(screen, 60, 3), title, input, styles);
        }
        Popup::SavePrompt { input } => {
            let what = if app.result.has_items() { "the item" } else { "the artifact" };
            let title = format!("save {what} as (Enter: save, Esc: cancel)");
            text_prompt(frame, centered(screen, 70, 4), &title, input, styles);
        }
        Popup::ConfirmOverwrite { path } => {
            let area = centered(screen, 70, 4);
            let title = app.keymap.say("replace the file? ({key:confirm}: replace, any other key: keep it)", CONFIRM);
            let body = open(frame, area, &title, styles);
            let line = Line::styled(format!("{} already exists", visible(path)), styles.warning);
            frame.render_widget(Paragraph::new(line), body);
        }
        Popup::ConfirmRun { tool_id, title, arguments } => {
            let asked =
                app.keymap.say("run a destructive tool? ({key:confirm}: run it, any other key: do not)", CONFIRM);
            let body = open(frame, centered(screen, 70, 5), &asked, styles);
            confirm_run(frame, body, tool_id, title, arguments, styles);
        }
        Popup::ConfirmLink { url } => {
            let asked = app.keymap.say("open the app's link? ({key:confirm}: open it, any other key: do not)", CONFIRM);
            let body = open(frame, centered(screen, 76, 5), &asked, styles);
            let lines = vec![
                Line::styled("the MCP App in the browser asks to open:", styles.text),
                Line::styled(crate::invoke::browser::shown(url), styles.warning),
            ];
            frame.render_widget(Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }), body);
        }
        Popup::CaseFile { input } => {
            let area = centered(screen, 70, 5);
            let body = open(frame, area, "append test cases to (Enter: save, Esc: cancel)", styles);
            let lines = vec![
                Line::styled(visible(input.text()).into_owned(), styles.text),
                Line::styled("asked once; later cases go to the same file", styles.muted),
            ];
            frame.render_widget(Paragraph::new(lines), body);
            text_cursor(frame, body, input);
        }
        Popup::History { selected } => history(app, styles, frame, screen, *selected),
        Popup::Help { scroll } => help(app, styles, frame, screen, *scroll),
        Popup::Palette { input, selected } => palette(app, styles, frame, screen, input, *selected),
        Popup::Text { title, text, scroll } => {
            let area = centered(screen, screen.width.saturating_sub(4), screen.height.saturating_sub(2));
            let keys = app.keymap.say(crate::app::prompts::TEXT_KEYS, &[Context::Result]);
            let body = open(frame, area, &format!("{} ({keys})", visible(title)), styles);
            let lines: Vec<Line> = crate::app::text_popup::rows(text, usize::from(body.width))
                .into_iter()
                .skip(*scroll)
                .take(usize::from(body.height))
                .map(|row| Line::styled(row, styles.text))
                .collect();
            frame.render_widget(Paragraph::new(lines), body);
        }
    }
}

/// A one-line text box titled `title` in `area`, with the cursor where the typing is.
fn text_prompt(frame: &mut Frame, area: Rect, title: &str, input: &TextInput, styles: &Styles) {
    let body = open(frame, area, title, styles);
    frame.render_widget(Paragraph::new(Line::styled(visible(input.text()).into_owned(), styles.text)), body);
    text_cursor(frame, body, input);
}

/// The terminal's cursor at the typing position of a text box on the first line of `body`.
fn text_cursor(frame: &mut Frame, body: Rect, input: &TextInput) {
    let before = visible(&input.text()[..input.cursor()]).into_owned();
    frame.set_cursor_position((body.x + (width(&before) as u16).min(body.width.saturating_sub(1)), body.y));
}

fn picker(frame: &mut Frame, screen: Rect, title: &str, options: &[String], selected: usize, styles: &Styles) {
    let area = centered(screen, 50, options.len() as u16 + 2);
    let body = open(frame, area, &visible(title), styles);
    let height = usize::from(body.height).max(1);
    let first = selected.saturating_sub(height - 1);
    let lines: Vec<Line> = options
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, option)| {
            let text = truncate(&visible(option), usize::from(body.width).saturating_sub(2)).into_owned();
            let style = if i == selected { styles.selection } else { styles.text };
            Line::styled(
                format!(
                    "{} {text:<w$}",
                    if i == selected { "›" } else { " " },
                    w = usize::from(body.width).saturating_sub(2)
                ),
                style,
            )
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

fn token_prompt(
    frame: &mut Frame,
    screen: Rect,
    provider: &str,
    input: &TextInput,
    why: &Option<String>,
    styles: &Styles,
) {
    let why_lines: Vec<Line> = why
        .as_deref()
        .map(|why| wrap(&visible(why), 74, 4).into_iter().map(|l| Line::styled(l, styles.warning)).collect())
        .unwrap_or_default();
    let area = centered(screen, 80, 4 + why_lines.len() as u16);
    let body = open(frame, area, &format!("token for {} (kept in memory only)", visible(provider)), styles);
    let masked = "•".repeat(input.text().chars().count());
    let input_row = why_lines.len() as u16;
    let mut lines = why_lines;
    lines.push(Line::styled(masked.clone(), styles.text));
    lines.push(Line::styled("Enter: use it and run again · Esc: cancel", styles.muted));
    frame.render_widget(Paragraph::new(lines), body);
    frame.set_cursor_position((
        body.x + (masked.chars().count() as u16).min(body.width.saturating_sub(1)),
        body.y + input_row.min(body.height.saturating_sub(1)),
    ));
}

/// What a destructive tool would be run with, in the box that asks.
fn confirm_run(
    frame: &mut Frame,
    body: Rect,
    tool_id: &str,
    title: &str,
    arguments: &serde_json::Value,
    styles: &Styles,
) {
    let width = usize::from(body.width);
    let lines = vec![
        Line::styled(truncate(&format!("{title} ({})", visible(tool_id)), width).into_owned(), styles.warning),
        Line::styled(truncate(&visible(&arguments.to_string()), width).into_owned(), styles.text),
        Line::styled(
            truncate("asked once a session (config: [app] confirm_destructive)", width).into_owned(),
            styles.muted,
        ),
    ];
    frame.render_widget(Paragraph::new(lines), body);
}

/// Past calls, newest first.
fn history(app: &App, styles: &Styles, frame: &mut Frame, screen: Rect, selected: usize) {
    let area = centered(screen, 100, app.recorder.history().len().min(20) as u16 + 2);
    let body = open(
        frame,
        area,
        &app.keymap.say(
            "past calls (newest first) · {key:activate} puts back · {key:retry} runs again · {key:save_case} saves as a case",
            &[Context::History],
        ),
        styles,
    );
    let height = usize::from(body.height).max(1);
    let first = selected.saturating_sub(height - 1);
    let lines: Vec<Line> = app
        .recorder
        .history()
        .iter()
        .rev()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, e)| {
            let text = format!(
                "{} {:<24} {:<22} {:>6} ms  {}",
                if e.at.is_empty() { "just now           " } else { e.at.get(..19).unwrap_or(&e.at) },
                e.tool,
                e.outcome,
                e.duration_ms,
                e.arguments
            );
            let text = truncate(&visible(&text), usize::from(body.width).saturating_sub(2)).into_owned();
            let style = if i == selected { styles.selection } else { styles.text };
            Line::styled(format!("{} {text}", if i == selected { "›" } else { " " }), style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

/// Every action, narrowed by what is typed.
fn palette(app: &App, styles: &Styles, frame: &mut Frame, screen: Rect, input: &TextInput, selected: usize) {
    let matches = crate::app::prompts::palette_matches(&app.keymap, input.text());
    let area = centered(screen, 78, matches.len().min(16) as u16 + 4);
    let body = open(frame, area, "actions (type to narrow · Enter runs · Esc closes)", styles);
    let height = usize::from(body.height.saturating_sub(2)).max(1);
    let first = selected.saturating_sub(height - 1);
    let mut lines = vec![Line::styled(format!("› {}", visible(input.text())), styles.text), Line::raw("")];
    let key_width = matches.iter().map(|m| width(&m.2)).max().unwrap_or(0);
    lines.extend(matches.iter().enumerate().skip(first).take(height).map(|(i, (context, action, key, help))| {
        let pad = " ".repeat(key_width.saturating_sub(width(key)) + 2);
        let text = format!("{key}{pad}{}  {help} ({})", action.name(), context.title());
        let text = truncate(&text, usize::from(body.width).saturating_sub(2)).into_owned();
        let style = if i == selected { styles.selection } else { styles.text };
        Line::styled(format!("{} {text}", if i == selected { "›" } else { " " }), style)
    }));
    if matches.is_empty() {
        lines.push(Line::styled("no action matches", styles.muted));
    }
    frame.render_widget(Paragraph::new(lines), body);
    let before = visible(&input.text()[..input.cursor()]).into_owned();
    frame.set_cursor_position((body.x + 2 + (width(&before) as u16).min(body.width.saturating_sub(3)), body.y));
}

/// Every binding of the keymap, context by context: the list and form on the left, the result
/// pane and past calls on the right, or one column under the other on a narrow screen.
fn help(app: &App, styles: &Styles, frame: &mut Frame, screen: Rect, scroll: usize) {
    let sections = app.keymap.help();
    let column = |contexts: &[Context]| -> Vec<Line<'static>> {
        let chosen: Vec<_> = contexts.iter().filter_map(|c| sections.iter().find(|(s, _)| s == c)).collect();
        let key_width =
            chosen.iter().flat_map(|(_, lines)| lines.iter().map(|(keys, _)| width(keys))).max().unwrap_or(0);
        let mut lines = Vec::new();
        for (context, bindings) in chosen {
            if !lines.is_empty() {
                lines.push(Line::raw(""));
            }
            lines.push(Line::styled(crate::app::help::title(app, *context), styles.title));
            lines.extend(bindings.iter().map(|(keys, help)| {
                let pad = " ".repeat(key_width.saturating_sub(width(keys)) + 2);
                Line::from(vec![
                    Span::styled(format!("{keys}{pad}"), styles.key_hint),
                    Span::styled(*help, styles.text),
                ])
            }));
        }
        lines
    };
    // The keys of the pane the help was asked in, with those that work everywhere; the app works
    // out the same shape, so its scrolling stops where the last line shows.
    let (left, right) = crate::app::help::contexts(app);
    let (left, right) = (column(left), column(right));
    let shape = crate::app::help::shape(app);
    let line_width = |lines: &[Line]| lines.iter().map(Line::width).max().unwrap_or(0) as u16;
    let (left_width, right_width) = (line_width(&left), line_width(&right));
    let side_by_side = shape.side_by_side;
    let (width, height) = if side_by_side {
        (left_width + 2 + right_width + 2, shape.tallest as u16 + 4)
    } else {
        (left_width.max(right_width) + 2, shape.tallest as u16 + 4)
    };
    let body = open(frame, centered(screen, width, height), "keys", styles);
    let footer = Rect { y: body.y + body.height.saturating_sub(1), height: 1.min(body.height), ..body };
    let columns = Rect { height: body.height.saturating_sub(2), ..body };
    let tallest = shape.tallest;
    // Taller than the screen: it scrolls, and never past its last line.
    let scroll = scroll.min(tallest.saturating_sub(usize::from(columns.height)));
    let offset = (u16::try_from(scroll).unwrap_or(u16::MAX), 0);
    if side_by_side {
        frame.render_widget(Paragraph::new(left).scroll(offset), Rect { width: left_width, ..columns });
        let x = columns.x + left_width + 2;
        frame.render_widget(
            Paragraph::new(right).scroll(offset),
            Rect { x, width: columns.width.saturating_sub(left_width + 2), ..columns },
        );
    } else {
        let mut lines = left;
        lines.push(Line::raw(""));
        lines.extend(right);
        frame.render_widget(Paragraph::new(lines).scroll(offset), columns);
    }
    let palette = app.keymap.name(Context::Anywhere, Action::Palette).unwrap_or_default();
    let below = tallest.saturating_sub(scroll + usize::from(columns.height));
    let footer_text = match (below, app.keymap.name(Context::Result, Action::Down)) {
        (0, _) | (_, None) => format!("{palette}: every action · any key closes this"),
        (n, Some(down)) => format!("{n} more lines: {down} scrolls · {palette}: every action"),
    };
    frame.render_widget(Paragraph::new(Line::styled(footer_text, styles.muted)), footer);
}

pub(super) fn open(frame: &mut Frame, area: Rect, title: &str, styles: &Styles) -> Rect {
    frame.render_widget(Clear, area);
    // The border's corners and the spaces around the title: a longer title ends with `…`
    // rather than being cut off by the corner.
    let title = truncate(title, usize::from(area.width.saturating_sub(4)));
    frame.render_widget(pane(&title, true, styles).style(styles.base), area);
    inner(area)
}

/// A box `width` x `height` in the middle of `screen`, shrunk to fit.
pub(super) fn centered(screen: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(screen.width.saturating_sub(4)).max(10);
    let height = height.min(screen.height.saturating_sub(2)).max(3);
    Rect::new(
        screen.x + (screen.width.saturating_sub(width)) / 2,
        screen.y + (screen.height.saturating_sub(height)) / 2,
        width,
        height,
    )
}
