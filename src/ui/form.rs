//! The form pane: one line per field (indented by depth), a text area's lines below it, and the
//! field's errors below that. The focused field's description shows at the bottom.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

use super::pane;
use crate::app::layout::inner;
use crate::app::view::TEXTAREA_LINES;
use crate::app::view::{form_area, row_error_lines};
use crate::app::{App, Focus};
use crate::form::build::show;
use crate::form::{Field, Form, Row, TextInput, Widget};
use crate::text::{truncate, visible, width};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Focus::Form;
    let Some(form) = app.form() else { return unopened(app, styles, frame, area, focused) };
    frame.render_widget(pane(&title(form), focused, styles), area);
    let body = inner(area);
    let rows = form.rows();
    let area = form_area(app, body);
    if let Some((help_area, help)) = area.help {
        let lines: Vec<Line> = help.into_iter().map(|l| Line::styled(l, styles.muted)).collect();
        frame.render_widget(Paragraph::new(lines), help_area);
    }
    if let Some(line_area) = area.run_options {
        frame.render_widget(Paragraph::new(run_options(app, form, styles)), line_area);
    }
    let body = area.rows;
    if rows.is_empty() {
        frame.render_widget(Paragraph::new(Line::styled(app.nothing_to_fill_in(), styles.muted)), body);
        return;
    }
    let (lines, cursor_at) = field_lines(app, form, &rows, usize::from(body.width), focused, styles);
    let visible_lines: Vec<Line> =
        lines.into_iter().skip(app.form_pane.scroll()).take(usize::from(body.height)).collect();
    frame.render_widget(Paragraph::new(visible_lines), body);
    if let Some((line, column)) = cursor_at
        && line >= app.form_pane.scroll()
        && line < app.form_pane.scroll() + usize::from(body.height)
    {
        let x = body.x + (column as u16).min(body.width.saturating_sub(1));
        frame.set_cursor_position((x, body.y + (line - app.form_pane.scroll()) as u16));
    }
}

/// The pane before the selected tool's form is opened: how to open it.
fn unopened(app: &App, styles: &Styles, frame: &mut Frame, area: Rect, focused: bool) {
    let title = match app.selected_tool() {
        Some(_) => app.say("arguments ({key:activate} to fill in)"),
        None => "arguments".to_string(),
    };
    frame.render_widget(pane(&title, focused, styles), area);
    if let Some(tool) = app.selected_tool() {
        let hint = app.say(&format!(
            "{} parameter(s). Press {{key:activate}} or {{key:expand}} to fill in the form.",
            tool.parameter_count()
        ));
        frame.render_widget(Paragraph::new(Line::styled(hint, styles.muted)), inner(area));
    }
}

/// The pane's title: whether the form is being checked, and how many errors it has.
fn title(form: &Form) -> String {
    if form.checking() {
        "arguments · checking…".to_string()
    } else if form.validation.error_count == 0 {
        "arguments".to_string()
    } else {
        format!(
            "arguments · {} error{}",
            form.validation.error_count,
            if form.validation.error_count == 1 { "" } else { "s" }
        )
    }
}

/// The run options' line: each option's key and whether it is on.
fn run_options(app: &App, form: &Form, styles: &Styles) -> Line<'static> {
    let mut spans = vec![Span::styled("run options ", styles.muted)];
    for (i, (_, field)) in form.run_options().iter().enumerate().take(9) {
        let mark = match field.widget {
            Widget::Bool(Some(true)) => "[x]",
            Widget::Bool(Some(false)) => "[ ]",
            _ => "[-]",
        };
        let key = app.keymap.keys(crate::app::Context::Main, crate::app::Action::ToggleRunOption(0)).get(i);
        let key = key.map_or_else(|| "(none)".to_string(), ToString::to_string);
        spans.push(Span::styled(format!(" {key} "), styles.key_hint));
        spans.push(Span::styled(format!("{mark} {}", visible(field.label())), styles.text));
    }
    Line::from(spans)
}

/// Every row's lines (its field, a text area, its errors), then the form-wide problems; and
/// where the cursor is (line, column) when a field is being typed in.
fn field_lines(
    app: &App,
    form: &Form,
    rows: &[Row],
    body_width: usize,
    focused: bool,
    styles: &Styles,
) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    let label_width = rows
        .iter()
        .filter_map(|r| form.field(&r.path).map(|f| r.depth * 2 + width(&visible(f.label())) + 1))
        .max()
        .unwrap_or(0)
        .clamp(8, body_width / 2);
    let mut lines: Vec<Line> = Vec::new();
    let mut cursor_at: Option<(usize, usize)> = None;
    let errors = row_error_lines(app, form, rows, body_width);
    for ((index, row), row_errors) in rows.iter().enumerate().zip(errors) {
        let Some(field) = form.field(&row.path) else { continue };
        let is_cursor = index == app.form_pane.cursor() && focused;
        let editing = is_cursor && app.form_pane.editing();
        let parent = row.path.split_last().and_then(|(_, parent)| form.field(parent));
        let label = match parent.map(|p| &p.widget) {
            // A variant's own field: named after the picked variant, never "required" itself.
            Some(Widget::Variant { variants, selected, .. }) => {
                Some(format!("↳ {}", variants.get(*selected).map(|c| c.label.as_str()).unwrap_or("value")))
            }
            _ => None,
        };
        let required = field.required && label.is_none() && !form.is_item(&row.path);
        // An unset variant's field is unset too, whatever it holds for when it is picked.
        let inside_unset = label.is_some() && parent.is_some_and(|p| !p.set);
        let start_key = app.key_name(crate::app::Context::Form, crate::app::Action::Activate);
        let add_key = app.key_name(crate::app::Context::Form, crate::app::Action::AddItem);
        let shape = RowShape {
            label,
            required,
            inside_unset,
            depth: row.depth,
            label_width,
            is_cursor,
            editing,
            start_key,
            add_key,
        };
        let (line, column) = field_line(field, &shape, body_width, styles);
        if let Some(column) = column {
            cursor_at = Some((lines.len(), column));
        }
        lines.push(line);
        if let Some((text_lines, cursor)) = text_area(field, row.depth, editing, styles) {
            if let Some((line, column)) = cursor {
                cursor_at = Some((lines.len() + line, column));
            }
            lines.extend(text_lines);
        }
        // Wrapped whole (`view::row_error_lines`), so a long message reads to its end.
        for text in row_errors {
            let indent = " ".repeat(row.depth * 2 + 2);
            lines.push(Line::from(vec![Span::raw(indent), Span::styled(text, styles.error)]));
        }
    }
    // Form-wide problems (a schema that cannot be compiled) come last.
    for message in form.errors_at("") {
        lines.push(Line::styled(format!("✗ {}", visible(message)), styles.error));
    }
    (lines, cursor_at)
}

/// How one row is drawn, beside its field.
pub(super) struct RowShape {
    /// In place of the field's own label.
    pub(super) label: Option<String>,
    pub(super) required: bool,
    pub(super) inside_unset: bool,
    pub(super) depth: usize,
    pub(super) label_width: usize,
    pub(super) is_cursor: bool,
    pub(super) editing: bool,
    /// How an unset text area is started ("Enter to write"), as the key table names it.
    pub(super) start_key: String,
    /// What adds an item to an array or an entry to a map, as the key table names it.
    pub(super) add_key: String,
}

/// The field's line, and the cursor column when its one-line text is being edited.
pub(super) fn field_line(
    field: &Field,
    shape: &RowShape,
    total_width: usize,
    styles: &Styles,
) -> (Line<'static>, Option<usize>) {
    let indent = " ".repeat(shape.depth * 2);
    let marker = if shape.is_cursor { "›" } else { " " };
    let name = shape.label.clone().unwrap_or_else(|| visible(field.label()).into_owned());
    let label_style = if shape.is_cursor { styles.selection } else { styles.text };
    let mut spans = vec![
        Span::styled(marker.to_string(), styles.accent),
        Span::raw(indent.clone()),
        Span::styled(name.clone(), label_style),
    ];
    let mut used = 1 + indent.len() + width(&name);
    if shape.required {
        spans.push(Span::styled("*", styles.required));
        used += 1;
    }
    let pad = (shape.label_width + 2).saturating_sub(used).max(1);
    spans.push(Span::raw(" ".repeat(pad)));
    used += pad;
    let room = total_width.saturating_sub(used);
    let (value, value_style, cursor) = if shape.inside_unset && !shape.editing && !field.is_group() {
        ("—".to_string(), styles.muted, None)
    } else {
        value_text(field, shape, room, styles)
    };
    let value_width = width(&value);
    spans.push(Span::styled(value, value_style));
    let hint = hint(field);
    if !hint.is_empty() && value_width + 2 + width(&hint) <= room {
        spans.push(Span::styled(format!("  {hint}"), styles.muted));
    }
    (Line::from(spans), cursor.map(|c| used + c))
}

/// What the field's line shows after the label, its style, and the cursor offset in it.
fn value_text(field: &Field, shape: &RowShape, room: usize, styles: &Styles) -> (String, Style, Option<usize>) {
    let editing = shape.editing;
    let value_style = if field.from_default { styles.default_value } else { styles.text };
    // An unset field with a default shows it, dimmed: the server applies it, it is not sent.
    let default = crate::form::defaults::shown_default(field).filter(|_| !field.set);
    let default_text = default.map(|d| format!("default {}", visible(&show(d))));
    let unset = || match &default_text {
        Some(text) => (truncate(text, room).into_owned(), styles.default_value, None),
        None => ("—".to_string(), styles.muted, None),
    };
    match &field.widget {
        Widget::Text { multiline: true, .. } => {
            let note =
                if field.set { "text below".to_string() } else { format!("unset · {} to write", shape.start_key) };
            (format!("¶ {note}"), styles.muted, None)
        }
        Widget::Raw { input } if input.line_count() > 1 => ("{ JSON below }".into(), styles.muted, None),
        Widget::Text { input, .. }
        | Widget::Suggest { input, .. }
        | Widget::Number { input, .. }
        | Widget::Raw { input } => {
            if editing {
                let (text, cursor) = scrolled(input, room);
                return (text, styles.text, Some(cursor));
            }
            if !field.set {
                return unset();
            }
            let quoted = matches!(field.widget, Widget::Text { .. } | Widget::Suggest { .. });
            let text =
                if quoted { format!("\"{}\"", visible(input.text())) } else { visible(input.text()).into_owned() };
            (truncate(&text, room).into_owned(), value_style, None)
        }
        Widget::Bool(value) => match value {
            Some(true) => ("[x] true".into(), value_style, None),
            Some(false) => ("[ ] false".into(), value_style, None),
            None => match &default_text {
                Some(text) => (format!("[-] {text}"), styles.default_value, None),
                None => ("[-] unset".into(), styles.muted, None),
            },
        },
        Widget::Choice { choices, selected } => match selected.and_then(|i| choices.get(i)) {
            Some(choice) => (format!("‹{}› ▾", visible(&choice.label)), value_style, None),
            None => match &default_text {
                Some(text) => (format!("{text} ▾"), styles.default_value, None),
                None => ("— ▾".into(), styles.muted, None),
            },
        },
        Widget::Const(value) => (visible(&show(value)).into_owned(), styles.muted, None),
        Widget::Object { fields, entries, additional, .. } => {
            let fold = if field.collapsed { "▸" } else { "▾" };
            let count = fields.len() + entries.len();
            let map = if additional.is_some() { format!(" · {}: add entry", shape.add_key) } else { String::new() };
            let state = if field.set || field.required { "" } else { " (unset)" };
            (format!("{fold} {{{count} field{}}}{state}{map}", if count == 1 { "" } else { "s" }), styles.muted, None)
        }
        Widget::Array { items, .. } => {
            let fold = if field.collapsed { "▸" } else { "▾" };
            let state = if field.set || field.required || !items.is_empty() { "" } else { " (unset)" };
            (
                format!(
                    "{fold} [{} item{}]{state} · {}: add",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" },
                    shape.add_key
                ),
                styles.muted,
                None,
            )
        }
        Widget::Variant { variants, selected, .. } => {
            let label = variants.get(*selected).map(|c| visible(&c.label).into_owned()).unwrap_or_default();
            let state = if field.set { "" } else { " (unset)" };
            (format!("◆ {label} ▾{state}"), styles.accent, None)
        }
    }
}

/// A one-line text cut to `room` cells around the cursor; the cursor's cell offset in it.
fn scrolled(input: &TextInput, room: usize) -> (String, usize) {
    let text = visible(input.text()).into_owned();
    let before = visible(&input.text()[..input.cursor()]).chars().count();
    let chars: Vec<char> = text.chars().collect();
    let room = room.max(2);
    let start = before.saturating_sub(room - 1);
    let shown: String = chars[start..].iter().take(room).collect();
    let cursor = width(&chars[start..before].iter().collect::<String>());
    (shown, cursor)
}

/// A number's bounds as a person reads them: `0…70` when both ends are allowed, `> 0 · ≤ 70`
/// when an end is excluded (`exclusiveMinimum: 0`, or draft 4's `exclusiveMinimum: true` beside
/// `minimum`), since `0…70` would promise that 0 is taken.
fn number_range(schema: &Value) -> Option<String> {
    // Draft 4 says an excluded end with a boolean beside the bound; later drafts with the bound itself.
    let end = |inclusive: &str, exclusive: &str| match schema.get(exclusive) {
        Some(Value::Bool(true)) => schema.get(inclusive).map(|v| (show(v), true)),
        Some(v @ Value::Number(_)) => Some((show(v), true)),
        _ => schema.get(inclusive).filter(|v| v.is_number()).map(|v| (show(v), false)),
    };
    let lower = end("minimum", "exclusiveMinimum");
    let upper = end("maximum", "exclusiveMaximum");
    let low = |(min, excluded): &(String, bool)| format!("{} {min}", if *excluded { ">" } else { "≥" });
    let high = |(max, excluded): &(String, bool)| format!("{} {max}", if *excluded { "<" } else { "≤" });
    match (&lower, &upper) {
        (Some((min, false)), Some((max, false))) => Some(format!("{min}…{max}")),
        (Some(l), Some(h)) => Some(format!("{} · {}", low(l), high(h))),
        (Some(l), None) => Some(low(l)),
        (None, Some(h)) => Some(high(h)),
        (None, None) => None,
    }
}

/// Type, format, bounds and markers, shown dim after the value.
fn hint(field: &Field) -> String {
    let schema = &field.schema;
    let mut parts: Vec<String> = Vec::new();
    let kind = match &field.widget {
        Widget::Number { integer: true, .. } => "integer",
        Widget::Number { .. } => "number",
        Widget::Suggest { .. } => "text · ↓ suggestions",
        Widget::Raw { .. } => "JSON",
        Widget::Choice { choices, .. } => {
            parts.push(format!("{} options", choices.len()));
            ""
        }
        _ => "",
    };
    if !kind.is_empty() {
        parts.push(kind.into());
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        parts.push(format.into());
    }
    let bound = |key: &str| schema.get(key).map(show);
    if let Some(range) = number_range(schema) {
        parts.push(range);
    }
    match (bound("minLength"), bound("maxLength")) {
        (Some(min), Some(max)) => parts.push(format!("{min}…{max} chars")),
        (Some(min), None) => parts.push(format!("≥ {min} chars")),
        (None, Some(max)) => parts.push(format!("≤ {max} chars")),
        _ => {}
    }
    match (bound("minItems"), bound("maxItems")) {
        (Some(min), Some(max)) => parts.push(format!("{min}…{max} items")),
        (Some(min), None) => parts.push(format!("≥ {min} items")),
        (None, Some(max)) => parts.push(format!("≤ {max} items")),
        _ => {}
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        parts.push(format!("/{}/", visible(pattern)));
    }
    if field.from_default {
        parts.push("default".into());
    }
    if field.run_option {
        parts.push("run option".into());
    }
    parts.join(" · ")
}

/// The lines of a text area (or multi-line JSON) below its field, and the cursor in them.
#[allow(clippy::type_complexity)]
fn text_area(
    field: &Field,
    depth: usize,
    editing: bool,
    styles: &Styles,
) -> Option<(Vec<Line<'static>>, Option<(usize, usize)>)> {
    let input = match &field.widget {
        Widget::Text { multiline: true, input } => input,
        Widget::Raw { input } if input.line_count() > 1 => input,
        _ => return None,
    };
    let indent = depth * 2 + 3;
    let (cursor_line, cursor_column) = input.cursor_line_col();
    let total = input.line_count();
    let shown = total.min(TEXTAREA_LINES);
    // Keep the cursor's line in view while editing.
    let first = if editing { cursor_line.saturating_sub(shown - 1).min(total - shown) } else { 0 };
    let lines: Vec<Line<'static>> = input
        .text()
        .split('\n')
        .skip(first)
        .take(shown)
        .map(|l| {
            Line::from(vec![
                Span::raw(" ".repeat(indent - 2)),
                Span::styled("│ ", styles.border),
                Span::styled(visible(l).into_owned(), styles.text),
            ])
        })
        .collect();
    let cursor = editing.then(|| {
        let line_text = input.text().split('\n').nth(cursor_line).unwrap_or_default();
        let before: String = line_text.chars().take(cursor_column).collect();
        (cursor_line - first, indent + width(&visible(&before)))
    });
    Some((lines, cursor))
}

#[cfg(test)]
mod tests {
    use super::number_range;
    use serde_json::json;

    #[test]
    fn an_excluded_end_is_not_shown_as_taken() {
        assert_eq!(number_range(&json!({"minimum": 0, "maximum": 70})).as_deref(), Some("0…70"));
        assert_eq!(number_range(&json!({"exclusiveMinimum": 0, "maximum": 70})).as_deref(), Some("> 0 · ≤ 70"));
        assert_eq!(number_range(&json!({"minimum": 1, "exclusiveMaximum": 10})).as_deref(), Some("≥ 1 · < 10"));
        // Draft 4: a boolean beside the bound.
        let draft4 = json!({"minimum": 0, "exclusiveMinimum": true, "maximum": 5, "exclusiveMaximum": false});
        assert_eq!(number_range(&draft4).as_deref(), Some("> 0 · ≤ 5"));
        assert_eq!(number_range(&json!({"exclusiveMinimum": 0})).as_deref(), Some("> 0"));
        assert_eq!(number_range(&json!({"maximum": 3})).as_deref(), Some("≤ 3"));
        assert_eq!(number_range(&json!({"type": "number"})), None);
    }
}
