//! The result pane: how the last call went, then what came back (value, error, authorization
//! prompt, artifacts), then every way the response broke its protocol.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::json::highlight;
use super::pane;
use crate::app::layout::inner;
use crate::app::result::value_view::{ValueLines, ValueView};
use crate::app::{Action, App, ArtifactState, Context, FailureKind, Focus, Run, RunState};
use crate::invoke::thumbnail::Thumbnail;
use crate::invoke::{Exchange, Outcome, Status};
use crate::text::{human_bytes, visible};
use crate::theme::Styles;

/// The most of one line of server text the pane draws (an inline blob is one line of megabytes:
/// only its start can show).
const LINE_BYTES: usize = 4096;

/// The most of the exchange's response body drawn (wrapped, so a one-line body reads whole).
const EXCHANGE_BYTES: usize = 256 * 1024;

/// A line of server text as drawn: made visible, and only as much of it as could show.
pub(super) fn drawable(line: &str) -> String {
    drawable_upto(line, LINE_BYTES)
}

fn drawable_upto(line: &str, limit: usize) -> String {
    let mut end = line.len().min(limit);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let cut = if end < line.len() { "…" } else { "" };
    format!("{}{cut}", visible(&line[..end]))
}

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let Some(run) = &app.result.run() else { return };
    let focused = app.focus == Focus::Result;
    let title = format!("result · {}", visible(run.tool_id()));
    frame.render_widget(pane(&title, focused, styles), area);
    let body = inner(area);
    let lines = match run.state() {
        RunState::Running => running_lines(app, run, styles),
        RunState::Cancelled => {
            let run_key = app.key_name(Context::Main, Action::Run);
            vec![Line::styled(format!("cancelled · {run_key} runs again"), styles.warning)]
        }
        RunState::Failed { error, kind } => failed_lines(app, run, error, *kind, styles),
        RunState::Done { .. } => return done(app, run, styles, frame, body),
    };
    frame.render_widget(scrolled(lines, app, body), body);
}

/// A call on its way: how long it has run, where, how to cancel it, the server's progress.
fn running_lines(app: &App, run: &Run, styles: &Styles) -> Vec<Line<'static>> {
    let frame_index = (run.elapsed_ms() / 100) as usize % SPINNER.len();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} running ", SPINNER[frame_index]), styles.accent),
        Span::styled(
            format!(
                "{:.1} s · {} · {} cancels",
                run.elapsed_ms() as f64 / 1000.0,
                run.server(),
                app.key_name(Context::Main, Action::Back)
            ),
            styles.muted,
        ),
    ])];
    if let Some(progress) = &run.progress() {
        lines.push(progress_line(progress, styles));
    }
    lines
}

/// A call that got no answer: why, and what to try.
fn failed_lines(app: &App, run: &Run, error: &str, kind: FailureKind, styles: &Styles) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(kind.headline(), styles.error)];
    // Read whole (wrapped below): why there was no answer is the one thing this pane says.
    lines.extend(error.lines().map(|l| Line::styled(visible(l).into_owned(), styles.text)));
    let retry = app.key_name(Context::Result, Action::Retry);
    let keys = match kind.restart_helps() {
        true => format!(
            "{retry} tries again · {} restarts the server or opens a new session",
            app.key_name(Context::Result, Action::Reconnect)
        ),
        false => format!("{retry} tries again"),
    };
    lines.push(Line::styled(keys, styles.muted));
    if let Some(exchange) = run.failed_exchange() {
        if app.result.show_exchange() {
            lines.push(Line::raw(""));
            exchange_lines(app, exchange, styles, &mut lines);
        } else {
            let key = app.key_name(Context::Result, Action::ToggleExchange);
            lines.push(Line::styled(format!("{key} shows what went over the wire"), styles.muted));
        }
    }
    lines
}

/// A call answered: its status line, then the exchange, the items, the value (a window of it)
/// or the outcome's other parts.
fn done(app: &App, run: &Run, styles: &Styles, frame: &mut Frame, body: Rect) {
    let RunState::Done { outcome, exchange, value_lines } = run.state() else { return };
    let focused = app.focus == Focus::Result;
    let http = exchange.status.map(|s| format!(" · HTTP {s}")).unwrap_or_default();
    let call = outcome.call_id.chars().take(8).collect::<String>();
    let (mark, style) = match outcome.status {
        Status::Value | Status::Null | Status::Artifact => ("●", styles.ok),
        Status::RequiresAuthorization => ("⚿", styles.warning),
        Status::Error => ("✗", styles.error),
    };
    let status = vec![Line::from(vec![
        Span::styled(format!("{mark} {} ", outcome.status.name()), style),
        Span::styled(format!("· {} ms · call {call}… · {}{http}", run.elapsed_ms(), run.server()), styles.muted),
    ])];
    // One row, cut with `…` where the pane ends (a long endpoint would be cut mid-word).
    let mut lines = vec![one_row(status, usize::from(body.width))];
    if app.result.show_exchange() {
        exchange_lines(app, exchange, styles, &mut lines);
    } else if app.result.shows_items() {
        // The status line stays, one row whatever the endpoint's length; the items scroll
        // below it, in rows already wrapped to the pane (or cut, scrolled sideways with `W`).
        let width = usize::from(body.width);
        frame.render_widget(Paragraph::new(one_row(lines, width)), Rect { height: 1, ..body });
        let height = usize::from(body.height).saturating_sub(1);
        let rows = super::content::lines(app, focused, height, styles);
        let column = if app.result.unwrapped() { app.result.column().min(u16::MAX as usize) as u16 } else { 0 };
        let below = Rect { y: body.y + 1, height: body.height.saturating_sub(1), ..body };
        frame.render_widget(Paragraph::new(rows).scroll((0, column)), below);
        return;
    } else if outcome.status == Status::Value {
        let height = usize::from(body.height);
        lines.extend(value_window(app, value_lines, focused, height.saturating_sub(1), styles));
        let shown_all = app.result.value_view().window(value_lines).nth(height).is_none();
        if shown_all {
            lines.extend(outcome.warnings.iter().map(|w| Line::styled(format!("⚠ {}", visible(w)), styles.warning)));
        }
        lines.truncate(height);
        let column = app.result.column().min(u16::MAX as usize) as u16;
        frame.render_widget(Paragraph::new(lines).scroll((0, column)), body);
        return;
    } else {
        outcome_lines(app, outcome, styles, &mut lines);
        artifact_lines(app, styles, &mut lines);
    }
    frame.render_widget(scrolled(lines, app, body), body);
}

/// The first of `lines` cut to `width` cells with `…` where it was cut.
fn one_row(lines: Vec<Line<'static>>, width: usize) -> Line<'static> {
    let Some(line) = lines.into_iter().next() else { return Line::raw("") };
    let mut left = width;
    let mut spans = Vec::new();
    for span in line.spans {
        if left == 0 {
            break;
        }
        let cut = crate::text::truncate(&span.content, left).into_owned();
        left = left.saturating_sub(crate::text::width(&cut));
        let ended = cut.ends_with('…') && cut != span.content;
        spans.push(Span::styled(cut, span.style));
        if ended {
            break;
        }
    }
    Line::from(spans)
}

/// The pane's lines wrapped (or cut, scrolled sideways, with `W`), from its scroll position;
/// never scrolled past its last line.
fn scrolled<'a>(lines: Vec<Line<'a>>, app: &App, body: Rect) -> Paragraph<'a> {
    let unwrapped = app.result.unwrapped();
    let paragraph = if unwrapped { Paragraph::new(lines) } else { Paragraph::new(lines).wrap(Wrap { trim: false }) };
    let last = paragraph.line_count(body.width).saturating_sub(usize::from(body.height));
    let row = app.result.scroll().min(last).min(u16::MAX as usize) as u16;
    let column = if unwrapped { app.result.column().min(u16::MAX as usize) as u16 } else { 0 };
    paragraph.scroll((row, column))
}

/// The value lines in view. Virtual: only these are styled, so a huge value scrolls as fast as
/// a small one. A folded container shows as its first line with how much it hides.
fn value_window(
    app: &App,
    value_lines: &ValueLines,
    focused: bool,
    height: usize,
    styles: &Styles,
) -> Vec<Line<'static>> {
    let view = &app.result.value_view();
    view.window(value_lines)
        .take(height)
        .map(|i| {
            let mut line = highlight(&value_lines.lines()[i], styles);
            if view.is_folded(i) {
                let closer = value_lines.closer(i).map_or("", |c| value_lines.lines()[c].trim());
                line.spans.push(Span::styled(format!(" … {closer}"), styles.text));
                let hidden = ValueView::hidden_lines(value_lines, i);
                let plural = if hidden == 1 { "" } else { "s" };
                line.spans.push(Span::styled(format!("  {hidden} line{plural} folded"), styles.muted));
            }
            if focused && i == view.cursor() {
                line = line.style(styles.selection);
            }
            line
        })
        .collect()
}

fn outcome_lines(app: &App, outcome: &Outcome, styles: &Styles, lines: &mut Vec<Line<'static>>) {
    let labelled = |label: &'static str, text: &str| {
        Line::from(vec![Span::styled(label, styles.key_hint), Span::styled(visible(text).into_owned(), styles.text)])
    };
    match outcome.status {
        // Drawn by `render` itself, a window at a time.
        Status::Value => {}
        Status::Null => lines.push(Line::styled("the tool returned nothing", styles.muted)),
        Status::Error => {
            if let Some(error) = &outcome.error {
                lines.push(labelled("message            ", &error.message));
                if let Some(developer) = &error.developer_message {
                    lines.push(labelled("developer message  ", developer));
                }
                if error.can_retry == Some(true) {
                    let after = error.retry_after_ms.map(|ms| format!(" after {ms} ms")).unwrap_or_default();
                    lines.push(Line::styled(
                        app.say(&format!("the server says it can be retried{after} · {{key:retry}} retries")),
                        styles.muted,
                    ));
                }
                for (parameter, message) in &error.parameter_errors {
                    lines.push(labelled("parameter          ", &format!("{parameter}: {message}")));
                }
                if let Some(extra) = &error.additional_prompt_content {
                    lines.push(labelled("for the model      ", extra));
                }
            }
        }
        Status::RequiresAuthorization => {
            if let Some(auth) = &outcome.authorization {
                lines.push(labelled("message   ", &auth.message));
                if let Some(provider) = &auth.provider {
                    lines.push(labelled("provider  ", provider));
                }
                if let Some(url) = &auth.url {
                    lines.push(labelled("open      ", url));
                }
                if !auth.scopes.is_empty() {
                    lines.push(labelled("scopes    ", &auth.scopes.join(" ")));
                }
            }
            lines.push(Line::styled(
                app.say("{key:give_token} gives a token (kept in memory) and runs again · {key:wait_for_authorization} asks again every 3 s"),
                styles.muted,
            ));
        }
        Status::Artifact => {
            lines.push(Line::styled(
                app.say("{key:fetch_artifact} fetches and previews it · {key:save_artifact} saves it · {key:open_link} opens it"),
                styles.muted,
            ));
            for artifact in &outcome.artifacts {
                lines.push(labelled("url           ", &artifact.url));
                if let Some(kind) = &artifact.content_type {
                    lines.push(labelled("content type  ", kind));
                }
                if let Some(size) = artifact.size {
                    lines.push(labelled("size          ", &format!("{} ({size} bytes)", human_bytes(size))));
                }
                if let Some(description) = &artifact.description {
                    lines.push(labelled("description   ", description));
                }
            }
        }
    }
    for warning in &outcome.warnings {
        lines.push(Line::styled(format!("⚠ {}", visible(warning)), styles.warning));
    }
}

/// The exact request and response (secrets masked), for the exchange view.
fn exchange_lines(app: &App, exchange: &Exchange, styles: &Styles, lines: &mut Vec<Line<'static>>) {
    let request = exchange.request_json();
    lines.push(Line::styled(
        format!("{} {}", exchange.method, visible(request["url"].as_str().unwrap_or_default())),
        styles.title,
    ));
    if let Some(headers) = request["headers"].as_object() {
        for (name, value) in headers {
            lines.push(Line::styled(format!("{name}: {}", visible(value.as_str().unwrap_or_default())), styles.muted));
        }
    }
    let body = crate::form::value::pretty(&request["body"]);
    lines.extend(body.lines().map(|l| highlight(l, styles)));
    lines.push(Line::raw(""));
    let status = match exchange.status {
        Some(s) => format!("HTTP {s}"),
        None if exchange.method == "JSON-RPC" => "answer".to_string(),
        None => "no status".to_string(),
    };
    lines.push(Line::styled(format!("{status} · {} ms", exchange.duration_ms), styles.title));
    for (name, value) in exchange.response_headers_shown() {
        lines.push(Line::styled(format!("{name}: {}", visible(&value)), styles.muted));
    }
    // The body as received; made visible, up to a limit that keeps the pane light.
    let mut left = EXCHANGE_BYTES;
    for line in exchange.response_body.lines().take(5000) {
        if left == 0 {
            lines.push(Line::styled(app.say("… more of the body: {key:copy} copies it whole"), styles.warning));
            break;
        }
        lines.push(Line::styled(drawable_upto(line, left), styles.text));
        left = left.saturating_sub(line.len());
    }
    if exchange.response_truncated {
        lines.push(Line::styled("… the body was cut off at 16 MiB", styles.warning));
    }
    if exchange.response_body.is_empty() && exchange.method == "JSON-RPC" {
        lines.push(Line::styled("no answer came", styles.warning));
    }
    if !exchange.during.is_empty() {
        lines.push(Line::raw(""));
        lines
            .push(Line::styled(format!("during the call, from the server ({}):", exchange.during.len()), styles.title));
        for message in exchange.during.iter().take(200) {
            for line in message.lines().take(40) {
                lines.push(Line::styled(drawable(line), styles.muted));
            }
        }
    }
}

/// The fetched artifact: a progress bar while it comes, then its preview.
fn artifact_lines(app: &App, styles: &Styles, lines: &mut Vec<Line<'static>>) {
    let Some(view) = &app.result.artifact() else { return };
    lines.push(Line::raw(""));
    match view.state() {
        ArtifactState::Fetching => {
            let bar = match view.total().filter(|t| *t > 0) {
                Some(total) => {
                    let done = (view.received().min(total) * 30 / total) as usize;
                    format!(
                        "[{}{}] {} of {}",
                        "█".repeat(done),
                        "░".repeat(30 - done),
                        human_bytes(view.received()),
                        human_bytes(total)
                    )
                }
                None => format!("{} received", human_bytes(view.received())),
            };
            lines.push(Line::styled(format!("fetching {bar}"), styles.accent));
        }
        ArtifactState::Failed(error) => {
            lines.push(Line::styled(format!("✗ fetch failed: {}", visible(error)), styles.error))
        }
        ArtifactState::Ready { lines: preview, bytes, image, .. } => {
            let said = format!("fetched {} · {{key:save_artifact}} saves it", human_bytes(bytes.len() as u64));
            lines.push(Line::styled(app.say(&said), styles.ok));
            // Without colours a picture would be blank blocks: the size line says enough.
            if let Some(image) = image.as_ref().filter(|_| !styles.no_color) {
                lines.extend(picture_lines(image));
            }
            lines.extend(preview.iter().take(2000).map(|l| Line::styled(drawable(l), styles.text)));
        }
    }
}

/// Two pixels per cell: `▀` in the upper pixel's colour over the lower one's.
fn picture_lines(image: &Thumbnail) -> impl Iterator<Item = Line<'static>> + '_ {
    (0..image.height / 2).map(move |row| {
        let spans: Vec<Span> = (0..image.width)
            .map(|x| {
                let [r, g, b] = image.pixel(x, row * 2);
                let [r2, g2, b2] = image.pixel(x, row * 2 + 1);
                Span::styled("▀", Style::new().fg(Color::Rgb(r, g, b)).bg(Color::Rgb(r2, g2, b2)))
            })
            .collect();
        Line::from(spans)
    })
}

/// The server's progress report: a bar when it gave a total, the count otherwise.
fn progress_line(progress: &crate::invoke::Progress, styles: &Styles) -> Line<'static> {
    let count = match progress.total.filter(|t| *t > 0.0) {
        Some(total) => {
            let done = ((progress.progress / total).clamp(0.0, 1.0) * 30.0) as usize;
            format!("[{}{}] {} of {}", "█".repeat(done), "░".repeat(30 - done), progress.progress, total)
        }
        // A task's state has no number (see invoke::mcp::drive).
        None if progress.progress.is_nan() => String::new(),
        None => format!("{} so far", progress.progress),
    };
    let separator = if count.is_empty() { "" } else { " · " };
    let message = progress.message.as_deref().map(|m| format!("{separator}{}", visible(m))).unwrap_or_default();
    Line::styled(format!("{count}{message}"), styles.accent)
}
