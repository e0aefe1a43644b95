//! The fuzz pane, over the main screen: the run's progress line (phase, calls, findings, calls
//! per second), then its findings (kind and message), and the chosen finding's shrunk arguments
//! with what Enter does. Tool names, messages and arguments came from a server: each goes
//! through `text::visible` and is cut to the width.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::pane;
use crate::app::App;
use crate::app::fuzz::{FuzzRun, FuzzState};
use crate::app::keymap::{Action, Context};
use crate::app::layout::inner;
use crate::text::{truncate, visible, wrap};
use crate::theme::Styles;

/// Rows the chosen finding's arguments take at most.
const ARGUMENT_ROWS: usize = 6;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    frame.render_widget(Clear, area);
    let Some(run) = app.fuzz.run() else { return };
    let title = format!("fuzz · {}", truncate(&visible(run.tool_id()), usize::from(area.width).saturating_sub(12)));
    frame.render_widget(pane(&title, true, styles).style(styles.base), area);
    let body = inner(area);
    let columns = usize::from(body.width);
    let mut lines = vec![state_line(app, run, columns, styles)];
    if let FuzzState::Failed(why) = &run.state() {
        for line in wrap(&visible(why), columns, 4) {
            lines.push(Line::styled(line, styles.error));
        }
    }
    lines.push(Line::default());
    let rows = usize::from(body.height);
    // Under the list: a rule, the arguments and the hint.
    let list_rows = rows.saturating_sub(lines.len() + ARGUMENT_ROWS + 3).max(1);
    lines.extend(findings(app, run, list_rows, columns, styles));
    if let Some(finding) = app.fuzz.selected_finding() {
        lines.push(Line::styled(
            format!(
                "── shrunk arguments ({}, found in {}, {} calls shrinking) ",
                if finding.valid { "valid" } else { "the schema refuses them" },
                finding.phase.name(),
                finding.shrink_calls
            ),
            styles.title,
        ));
        let text = visible(&finding.arguments.to_string()).into_owned();
        for line in wrap(&text, columns, ARGUMENT_ROWS) {
            lines.push(Line::styled(line, styles.text));
        }
        let enter = app.key_name(Context::Fuzz, Action::Activate);
        let run_key = app.key_name(Context::Main, Action::Run);
        lines.push(Line::styled(format!("{enter} puts them in the form, where {run_key} sends them"), styles.muted));
    }
    frame.render_widget(Paragraph::new(lines), body);
}

/// Where the run is: its phase and counts while it goes, its totals once it has ended.
fn state_line(app: &App, run: &FuzzRun, columns: usize, styles: &Styles) -> Line<'static> {
    let stop = app.key_name(Context::Fuzz, Action::Back);
    let (text, style) = match &run.state() {
        FuzzState::Running | FuzzState::Stopping => {
            let said = match &run.progress() {
                None => "connecting…".to_string(),
                Some(p) => format!(
                    "{} · {} calls · {} finding{} · {:.0} calls/s",
                    p.phase.name(),
                    p.calls,
                    p.findings,
                    if p.findings == 1 { "" } else { "s" },
                    p.calls_per_second()
                ),
            };
            let how = match run.state() {
                FuzzState::Stopping => "stopping…".to_string(),
                _ => format!("{stop} stops"),
            };
            (format!("⟳ {said} · {how}"), styles.accent)
        }
        FuzzState::Done { calls, elapsed_ms, seed, restarts, stopped, .. } => {
            let seconds = *elapsed_ms as f64 / 1000.0;
            let mut said = format!(
                "✓ {} finding{} · {calls} calls in {seconds:.1} s · {restarts} restart{} · seed {seed}",
                run.findings().len(),
                if run.findings().len() == 1 { "" } else { "s" },
                if *restarts == 1 { "" } else { "s" },
            );
            if let Some(why) = stopped {
                said.push_str(&format!(" · {}", visible(why)));
            }
            (said, if run.findings().is_empty() { styles.ok } else { styles.warning })
        }
        FuzzState::Failed(_) => ("✗ not fuzzed".to_string(), styles.error),
    };
    Line::styled(truncate(&text, columns).into_owned(), style)
}

/// The findings, the chosen one marked, scrolled to keep it in view.
fn findings(app: &App, run: &FuzzRun, rows: usize, columns: usize, styles: &Styles) -> Vec<Line<'static>> {
    if run.findings().is_empty() {
        let said = match &run.state() {
            FuzzState::Done { stopped: Some(_), .. } => "no findings before the run ended".to_string(),
            // What the command says too: a tool that refused most inputs was hardly tried.
            FuzzState::Done { note: Some(note), .. } => format!("no findings, but {}", visible(note)),
            FuzzState::Done { .. } => "no findings: every answer was what its schemas promise".to_string(),
            FuzzState::Failed(_) => String::new(),
            _ => "findings show here once each is shrunk".to_string(),
        };
        return vec![Line::styled(said, styles.muted)];
    }
    let selected = app.fuzz.selected().min(run.findings().len() - 1);
    let first = (selected + 1).saturating_sub(rows);
    run.findings()
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, finding)| {
            let chosen = i == selected;
            let kind = format!("{}{:<17}", if chosen { "▸ " } else { "  " }, finding.kind.name());
            let room = columns.saturating_sub(crate::text::width(&kind));
            let message = finding.message.lines().next().unwrap_or_default();
            let style = if chosen { styles.selection } else { styles.text };
            Line::from(vec![
                // A note is not a bug: it does not take the bugs' colour.
                Span::styled(
                    kind,
                    match (chosen, finding.severity) {
                        (true, _) => styles.selection,
                        (false, crate::fuzz::Severity::Bug) => styles.warning,
                        (false, crate::fuzz::Severity::Note) => styles.muted,
                    },
                ),
                Span::styled(truncate(&visible(message), room).into_owned(), style),
            ])
        })
        .collect()
}
