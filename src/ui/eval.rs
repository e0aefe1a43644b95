//! The eval pane, over the main screen: a line for where the run is (or what the report is),
//! then the level opened: the cases with their scores (and per tool, how often it was chosen
//! right), a case's iterations, or an iteration's trajectory (`app::eval_view` makes its rows).
//! Everything in a report came from a model, a server or a file: it goes through the one rule
//! for secrets and `text::visible`, and is cut to the width.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use tooldeck_evals::report::{CaseReport, EvalReport};

use super::pane;
use crate::app::App;
use crate::app::eval::{EvalState, Origin, Shown, View};
use crate::app::eval_view::{RowKind, trajectory, trajectory_area};
use crate::app::keymap::{Action, Context};
use crate::app::layout::inner;
use crate::text::{truncate, visible, wrap};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    frame.render_widget(Clear, area);
    let Some(shown) = app.eval.shown() else { return };
    let title = match shown.origin() {
        Origin::File(path) => format!("eval report · {}", shown_text(path)),
        Origin::Run { tool, .. } => format!("evals · {}", shown_text(tool)),
    };
    let title = truncate(&title, usize::from(area.width).saturating_sub(4)).into_owned();
    frame.render_widget(pane(&title, true, styles).style(styles.base), area);
    let body = inner(area);
    let (columns, rows) = (usize::from(body.width), usize::from(body.height));
    let mut lines = vec![state_line(app, shown, columns, styles)];
    if let EvalState::Failed(why) = shown.state() {
        for line in wrap(&shown_text(why), columns, 4) {
            lines.push(Line::styled(line, styles.error));
        }
    }
    let left = rows.saturating_sub(lines.len());
    match (shown.report(), app.eval.view()) {
        (None, _) => lines.extend(tally(shown, left, columns, styles)),
        (Some(report), View::Cases) => lines.extend(cases(app, report, left, columns, styles)),
        (Some(_), View::Iterations) => lines.extend(iterations(app, left, columns, styles)),
        (Some(_), View::Trajectory) => lines.extend(trajectory_rows(app, left, columns, styles)),
    }
    lines.truncate(rows);
    frame.render_widget(Paragraph::new(lines), body);
}

/// A string from a report, its secrets masked and its controls made visible.
fn shown_text(text: &str) -> String {
    visible(&crate::redact::text(text)).into_owned()
}

/// Where the run is while it goes; what it came to once it has ended.
fn state_line(app: &App, shown: &Shown, columns: usize, styles: &Styles) -> Line<'static> {
    let stop = app.key_name(Context::Eval, Action::Back);
    let (text, style) = match shown.state() {
        EvalState::Running | EvalState::Stopping => {
            let total = match shown.origin() {
                Origin::Run { cases, iterations, .. } => cases.len() * iterations,
                Origin::File(_) => 0,
            };
            let said = match shown.progress() {
                None => format!("0/{total} iterations · asking the model…"),
                Some(p) => format!(
                    "{}/{} iterations · {} iteration {} {}",
                    p.done,
                    p.total,
                    shown_text(&p.case),
                    p.iteration,
                    if p.passed { "passed" } else { "failed" }
                ),
            };
            let how = match shown.state() {
                EvalState::Stopping => "stopping…".to_string(),
                _ => format!("{stop} stops"),
            };
            (format!("⟳ {said} · {how}"), styles.accent)
        }
        EvalState::Done { .. } | EvalState::Read => match shown.report() {
            Some(report) => summary(shown, report, styles),
            None => (String::new(), styles.muted),
        },
        EvalState::Failed(_) => ("✗ the eval cases did not run".to_string(), styles.error),
    };
    Line::styled(truncate(&text, columns).into_owned(), style)
}

/// A report in one line: cases at their bar, the model, and a stop or a replay that proves nothing.
fn summary(shown: &Shown, report: &EvalReport, styles: &Styles) -> (String, Style) {
    let ok = report.cases.iter().filter(|c| c.ok).count();
    let mut said = format!(
        "{} {ok} of {} cases at or above their min_pass_rate · model {}",
        if ok == report.cases.len() { "✓" } else { "✗" },
        report.cases.len(),
        shown_text(&report.model.name)
    );
    if matches!(shown.state(), EvalState::Done { stopped: true }) {
        said.push_str(" · stopped: the iterations cut short failed as stopped");
    }
    if !report.replay_mismatches.is_empty() {
        return (format!("✗ a replay that no longer matches its recording: nothing scored · {said}"), styles.error);
    }
    (said, if ok == report.cases.len() { styles.ok } else { styles.warning })
}

/// While a run goes on: each case and its iterations so far.
fn tally(shown: &Shown, rows: usize, columns: usize, styles: &Styles) -> Vec<Line<'static>> {
    let mut lines = vec![Line::default()];
    let per_case = match shown.origin() {
        Origin::Run { iterations, .. } => *iterations,
        Origin::File(_) => 0,
    };
    for (name, done, passed) in shown.tally().iter().take(rows.saturating_sub(2)) {
        let text = format!("  {}  {done}/{per_case} done · {passed} passed", shown_text(name));
        lines.push(Line::styled(truncate(&text, columns).into_owned(), styles.text));
    }
    if shown.running() {
        lines.push(Line::styled("each iteration's trajectory shows here once the run ends", styles.muted));
    }
    lines
}

/// The cases, the chosen one marked, scrolled to keep it in view; then per tool.
fn cases(app: &App, report: &EvalReport, rows: usize, columns: usize, styles: &Styles) -> Vec<Line<'static>> {
    let mut lines = vec![Line::default()];
    if report.cases.is_empty() {
        lines.push(Line::styled("no cases in this report", styles.muted));
        return lines;
    }
    let tools = report.per_tool.len().min(rows / 3);
    let mismatches = report.replay_mismatches.len().min(3);
    let list_rows = rows.saturating_sub(3 + tools + mismatches).max(1);
    let selected = app.eval.case_index().min(report.cases.len() - 1);
    let first = (selected + 1).saturating_sub(list_rows);
    for (i, case) in report.cases.iter().enumerate().skip(first).take(list_rows) {
        lines.push(case_line(case, i == selected, columns, styles));
    }
    for mismatch in report.replay_mismatches.iter().take(mismatches) {
        lines.push(Line::styled(
            truncate(&format!("replay: {}", shown_text(mismatch)), columns).into_owned(),
            styles.error,
        ));
    }
    lines.push(Line::default());
    for tool in report.per_tool.iter().take(tools) {
        let text = format!(
            "tool {}: chosen {}/{} times expected, right {}{}{}",
            shown_text(&tool.tool),
            tool.chosen,
            tool.expected,
            tool.right,
            if tool.unexpected > 0 { format!(", {} calls not expected", tool.unexpected) } else { String::new() },
            if tool.refused > 0 { format!(", {} refused", tool.refused) } else { String::new() },
        );
        lines.push(Line::styled(truncate(&text, columns).into_owned(), styles.muted));
    }
    let enter = app.key_name(Context::Eval, Action::Activate);
    lines.push(Line::styled(format!("{enter} opens the case's iterations"), styles.muted));
    lines
}

fn case_line(case: &CaseReport, chosen: bool, columns: usize, styles: &Styles) -> Line<'static> {
    let mark = if case.ok { "ok  " } else { "FAIL" };
    let head = format!("{}{mark} ", if chosen { "▸ " } else { "  " });
    let refused = if case.refused > 0 { format!(" · {} refused", case.refused) } else { String::new() };
    let text = format!("{}: {}{refused}", shown_text(&case.name), case.score());
    let room = columns.saturating_sub(crate::text::width(&head));
    let (head_style, style) = match (chosen, case.ok) {
        (true, _) => (styles.selection, styles.selection),
        (false, true) => (styles.ok, styles.text),
        (false, false) => (styles.error, styles.text),
    };
    Line::from(vec![Span::styled(head, head_style), Span::styled(truncate(&text, room).into_owned(), style)])
}

/// The chosen case's iterations: passed, or its first reason to fail.
fn iterations(app: &App, rows: usize, columns: usize, styles: &Styles) -> Vec<Line<'static>> {
    let Some(case) = app.eval.selected_case() else { return Vec::new() };
    let mut lines = vec![
        Line::styled(
            truncate(&format!("{} · {}", shown_text(&case.name), shown_text(&case.location)), columns).into_owned(),
            styles.title,
        ),
        case_line(case, false, columns, styles),
    ];
    let list_rows = rows.saturating_sub(lines.len() + 1).max(1);
    let selected = app.eval.iteration_index().min(case.verdicts.len().saturating_sub(1));
    let first = (selected + 1).saturating_sub(list_rows);
    for (i, it) in case.verdicts.iter().enumerate().skip(first).take(list_rows) {
        let chosen = i == selected;
        let head = format!("{}#{:<3} ", if chosen { "▸ " } else { "  " }, it.iteration);
        let said = match it.failures.first() {
            None => "passed".to_string(),
            Some(first) if it.failures.len() > 1 => {
                format!("failed: {} (+{} more)", shown_text(first), it.failures.len() - 1)
            }
            Some(first) => format!("failed: {}", shown_text(first)),
        };
        let room = columns.saturating_sub(crate::text::width(&head));
        let style = match (chosen, it.passed) {
            (true, _) => styles.selection,
            (false, true) => styles.ok,
            (false, false) => styles.warning,
        };
        lines.push(Line::from(vec![
            Span::styled(head, if chosen { styles.selection } else { styles.muted }),
            Span::styled(truncate(&said, room).into_owned(), style),
        ]));
    }
    let enter = app.key_name(Context::Eval, Action::Activate);
    let back = app.key_name(Context::Eval, Action::Back);
    lines.push(Line::styled(format!("{enter} reads its trajectory · {back} back to the cases"), styles.muted));
    lines
}

/// The chosen iteration's trajectory, from the row scrolled to.
fn trajectory_rows(app: &App, rows: usize, columns: usize, styles: &Styles) -> Vec<Line<'static>> {
    let (Some(case), Some(it)) = (app.eval.selected_case(), app.eval.selected_iteration()) else { return Vec::new() };
    // The same width the pane scrolls by (`trajectory_area`), so a scroll lands where it shows.
    let (width, _) = trajectory_area(app.size);
    let doc = trajectory(it, width.min(columns));
    let page = rows.saturating_sub(1).max(1);
    let scroll = app.eval.scroll().min(doc.len().saturating_sub(page));
    let back = app.key_name(Context::Eval, Action::Back);
    let where_ = format!(
        "{} › iteration {} · rows {}–{} of {} · {back} back",
        shown_text(&case.name),
        it.iteration,
        (scroll + 1).min(doc.len()),
        (scroll + page).min(doc.len()),
        doc.len()
    );
    let mut lines = vec![Line::styled(truncate(&where_, columns).into_owned(), styles.muted)];
    for row in doc.into_iter().skip(scroll).take(page) {
        let style = match row.kind {
            RowKind::Heading => styles.title,
            RowKind::Prompt => styles.accent,
            RowKind::Model | RowKind::Call => styles.text,
            RowKind::Right => styles.ok,
            RowKind::Failure => styles.error,
            RowKind::Result | RowKind::Muted => styles.muted,
        };
        lines.push(Line::styled(truncate(&row.text, columns).into_owned(), style));
    }
    lines
}
