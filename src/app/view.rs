//! What is where in the form and the list: row heights, scrolling, and mouse clicks and wheels.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

use super::layout::{contains, inner};
use super::{App, Focus};
use crate::form::Widget;

/// Lines a text area shows at most before it scrolls within itself.
pub const TEXTAREA_LINES: usize = 6;

pub(super) fn mouse_event(app: &mut App, mouse: MouseEvent) {
    let layout = app.layout();
    if layout.too_small || app.prompts.popup().is_some() {
        return;
    }
    let (column, row) = (mouse.column, mouse.row);
    let over_list = contains(layout.list, column, row);
    let over_form = contains(layout.form, column, row);
    match mouse.kind {
        MouseEventKind::ScrollUp if over_list => app.select_tool(-1),
        MouseEventKind::ScrollDown if over_list => app.select_tool(1),
        MouseEventKind::ScrollUp if over_form => app.form_op(|pane, id| pane.move_cursor(id, -1)),
        MouseEventKind::ScrollDown if over_form => app.form_op(|pane, id| pane.move_cursor(id, 1)),
        MouseEventKind::Down(MouseButton::Left) if over_list => {
            let area = inner(layout.list);
            if row >= area.y {
                let index = app.list.offset() + usize::from(row - area.y);
                if app.list.select_entry(index) {
                    app.focus = Focus::List;
                    app.tool_changed();
                }
            }
        }
        MouseEventKind::Down(MouseButton::Left) if over_form => {
            let area = inner(layout.form);
            if row < area.y {
                return;
            }
            let line = app.form_pane.scroll() + usize::from(row - area.y);
            if let Some(index) = row_at_line(app, line) {
                app.focus = Focus::Form;
                app.form_pane.click_row(index);
            }
        }
        MouseEventKind::Down(MouseButton::Left) if layout.json.is_some_and(|j| contains(j, column, row)) => {
            app.focus = Focus::Json;
            app.form_pane.stop_editing();
        }
        _ => {}
    }
    app.sync_json();
}

/// The error lines each form row shows in a pane `width` columns wide, each message wrapped
/// whole under its field (`✗ ` then its continuation lines indented to match).
pub fn row_error_lines(
    app: &App,
    form: &crate::form::Form,
    rows: &[crate::form::Row],
    width: usize,
) -> Vec<Vec<String>> {
    row_errors(app, form, rows)
        .into_iter()
        .zip(rows)
        .map(|(messages, row)| {
            let room = width.saturating_sub(row.depth * 2 + 4).max(10);
            messages
                .iter()
                .flat_map(|message| {
                    let text = crate::text::visible(message);
                    let wrapped = crate::text::wrap_whole(&text, room);
                    let wrapped = if wrapped.is_empty() { vec![String::new()] } else { wrapped };
                    wrapped
                        .into_iter()
                        .enumerate()
                        .map(|(i, line)| if i == 0 { format!("✗ {line}") } else { format!("  {line}") })
                        .collect::<Vec<_>>()
                })
                .collect()
        })
        .collect()
}

/// The error messages each form row shows: a pointer's errors under its first row only (a
/// variant and its field share one), and for a folded group how many errors it hides.
pub fn row_errors(app: &App, form: &crate::form::Form, rows: &[crate::form::Row]) -> Vec<Vec<String>> {
    let server = server_errors(app);
    let mut shown = std::collections::HashSet::new();
    rows.iter()
        .map(|row| {
            let mut lines: Vec<String> =
                if shown.insert(row.pointer.clone()) { form.errors_at(&row.pointer).to_vec() } else { Vec::new() };
            let folded = form.field(&row.path).is_some_and(|f| f.collapsed);
            let hidden = if folded { form.errors_inside(&row.pointer) } else { 0 };
            if hidden > 0 {
                lines.push(format!("{hidden} error{} inside (→ unfolds)", if hidden == 1 { "" } else { "s" }));
            }
            if let Some(message) = server.get(&row.pointer).filter(|_| lines.len() < 8) {
                lines.push(format!("server: {message}"));
            }
            lines
        })
        .collect()
}

/// A 422's `parameter_errors` for the selected tool's last call, by the field's JSON pointer.
fn server_errors(app: &App) -> std::collections::BTreeMap<String, String> {
    let Some(run) = app.result.run().filter(|r| Some(r.tool_id()) == app.selected_tool().map(|t| t.id.as_str())) else {
        return Default::default();
    };
    let super::RunState::Done { outcome, .. } = run.state() else { return Default::default() };
    let Some(error) = &outcome.error else { return Default::default() };
    error
        .parameter_errors
        .iter()
        .map(|(name, message)| {
            // A name that is already a pointer stays one; a plain name is a top-level field.
            let pointer = if name.starts_with('/') || name.is_empty() {
                name.clone()
            } else {
                format!("/{}", crate::catalog::schema::escape_pointer(name))
            };
            (pointer, message.clone())
        })
        .collect()
}

/// How many lines each form row takes: the row, its text area, its errors.
pub fn row_heights(app: &App) -> Vec<usize> {
    let Some(form) = app.form() else { return Vec::new() };
    let rows = form.rows();
    let width = usize::from(inner(app.layout().form).width);
    let errors = row_error_lines(app, form, &rows, width);
    rows.iter()
        .zip(errors)
        .map(|(row, errors)| {
            let text_lines = match form.field(&row.path).map(|f| &f.widget) {
                Some(Widget::Text { multiline: true, input }) => input.line_count().min(TEXTAREA_LINES),
                Some(Widget::Raw { input }) if input.line_count() > 1 => input.line_count().min(TEXTAREA_LINES),
                _ => 0,
            };
            1 + text_lines + errors.len()
        })
        .collect()
}

fn row_at_line(app: &App, line: usize) -> Option<usize> {
    let mut start = 0;
    for (index, height) in row_heights(app).into_iter().enumerate() {
        if line < start + height {
            return Some(index);
        }
        start += height;
    }
    None
}

/// How the form pane's inner area is shared: the rows, then at the bottom the run options line
/// and the focused field's description. `ui` draws into it and scrolling measures with it.
pub struct FormArea {
    pub rows: Rect,
    pub run_options: Option<Rect>,
    pub help: Option<(Rect, Vec<String>)>,
}

pub fn form_area(app: &App, inner_area: Rect) -> FormArea {
    let mut rows = inner_area;
    let Some(form) = app.form() else { return FormArea { rows, run_options: None, help: None } };
    let description = form
        .rows()
        .get(app.form_pane.cursor())
        .and_then(|r| form.field(&r.path))
        .and_then(|f| f.description.as_deref())
        // As much of it as a third of the pane holds (at least 2 lines): zoomed, it reads whole.
        .map(|d| {
            crate::text::wrap(&crate::text::visible(d), usize::from(rows.width), usize::from(rows.height / 3).max(2))
        })
        .unwrap_or_default();
    let mut help = None;
    if !description.is_empty() && rows.height > description.len() as u16 + 3 {
        let height = description.len() as u16;
        help = Some((Rect { y: rows.y + rows.height - height, height, ..rows }, description));
        rows.height -= height + 1;
    }
    let mut run_options = None;
    if !form.run_options().is_empty() && rows.height > 4 {
        run_options = Some(Rect { y: rows.y + rows.height - 1, height: 1, ..rows });
        rows.height -= 2;
    }
    FormArea { rows, run_options, help }
}

/// Scrolls the list and the form so the selection and the cursor show.
pub(super) fn keep_in_view(app: &mut App) {
    let layout = app.layout();
    if layout.too_small {
        return;
    }
    app.list.ensure_visible(usize::from(inner(layout.list).height));
    let heights = row_heights(app);
    app.form_pane.clamp_cursor(heights.len());
    if heights.is_empty() {
        return;
    }
    // The focused field's description takes room at the bottom: measured with the cursor clamped.
    let height = usize::from(form_area(app, inner(layout.form)).rows.height).max(1);
    app.form_pane.scroll_to_cursor(&heights, height);
}
