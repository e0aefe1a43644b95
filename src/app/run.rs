//! Running the selected tool: Run asks the runtime to send it, the result comes back as a
//! message, stale results (of a call since replaced or cancelled) are dropped.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect, Focus, Popup, Run, RunState};
use crate::form::TextInput;
use crate::invoke::Status;
use crate::invoke::otc::CallRequest;

/// Ctrl-R: sends the form's arguments; invalid input only on a second press (`armed`).
pub fn start(app: &mut App, armed: bool) -> Vec<Effect> {
    let Some(tool_id) = app.selected_tool().map(|t| t.id.clone()) else { return Vec::new() };
    let Some(form) = app.form_mut() else { return Vec::new() };
    let arguments = form.arguments().clone();
    let errors = form.validation.error_count;
    if errors > 0 && !armed {
        app.run_armed = true;
        let plural = if errors == 1 { "error" } else { "errors" };
        app.status = Some(format!("{errors} {plural}: not sent. Press Ctrl-R again to send it anyway"));
        return Vec::new();
    }
    app.status = None;
    let mut request = CallRequest::new(tool_id.clone(), arguments);
    request.tokens = app.tokens.iter().map(|(p, t)| (p.clone(), t.clone())).collect();
    send(app, request)
}

/// Sends `request` as a new run, cancelling the one still in flight.
fn send(app: &mut App, request: CallRequest) -> Vec<Effect> {
    let mut effects = Vec::new();
    if let Some(Run { id, state: RunState::Running, .. }) = &app.run {
        effects.push(Effect::Cancel { id: *id });
    }
    let id = app.next_run_id;
    app.next_run_id += 1;
    app.result_scroll = 0;
    app.value_view = super::value_view::ValueView::default();
    app.artifact = None;
    app.run = Some(Run {
        id,
        tool_id: request.tool_id.clone(),
        request: request.clone(),
        elapsed_ms: 0,
        progress: None,
        state: RunState::Running,
    });
    let output_schema = app.catalog.get(&request.tool_id).and_then(|t| t.output_schema.clone());
    effects.push(Effect::Invoke { id, request, output_schema });
    effects
}

/// The same call again (after a token, or when the server said it can be retried).
pub fn retry(app: &mut App) -> Vec<Effect> {
    let Some(run) = &app.run else { return Vec::new() };
    let mut request = CallRequest::new(run.request.tool_id.clone(), run.request.arguments.clone());
    request.tokens = app.tokens.iter().map(|(p, t)| (p.clone(), t.clone())).collect();
    send(app, request)
}

pub fn cancel(app: &mut App) -> Vec<Effect> {
    match &mut app.run {
        Some(run) if run.state == RunState::Running => {
            run.state = RunState::Cancelled;
            vec![Effect::Cancel { id: run.id }]
        }
        _ => Vec::new(),
    }
}

pub fn progress(app: &mut App, id: u64, progress: crate::invoke::Progress) {
    if let Some(run) = app.run.as_mut().filter(|r| r.id == id && r.state == RunState::Running) {
        run.progress = Some(progress);
    }
}

pub fn tick(app: &mut App, elapsed_ms: u64) {
    if let Some(run) = app.run.as_mut().filter(|r| r.state == RunState::Running) {
        run.elapsed_ms = elapsed_ms;
    }
}

/// A call came back: show it, and record it in the history.
pub fn done(app: &mut App, id: u64, result: Result<Box<super::Answer>, String>) -> Vec<Effect> {
    let endpoint = app.endpoint.clone();
    let Some(run) = app.run.as_mut().filter(|r| r.id == id && r.state == RunState::Running) else { return Vec::new() };
    run.state = match result {
        Ok(answer) => {
            let super::Answer { outcome, exchange, value_lines } = *answer;
            run.elapsed_ms = outcome.duration_ms.max(exchange.duration_ms);
            RunState::Done { outcome: Box::new(outcome), exchange: Box::new(exchange), value_lines }
        }
        Err(error) => RunState::Failed { error },
    };
    let (outcome, call_id, http_status) = match &run.state {
        RunState::Done { outcome, exchange, .. } => {
            (outcome.status.name().to_string(), outcome.call_id.clone(), exchange.status)
        }
        _ => ("no_answer".to_string(), run.request.call_id.clone(), None),
    };
    let entry = crate::history::Entry {
        at: String::new(),
        tool: run.tool_id.clone(),
        arguments: run.request.arguments.clone(),
        endpoint,
        outcome,
        duration_ms: run.elapsed_ms,
        call_id,
        http_status,
    };
    app.history.push(entry.clone());
    let mut effects = vec![Effect::Record(Box::new(entry))];
    // Waiting for the user to finish authorizing in the browser: ask again in a moment.
    let still_asking =
        matches!(&run.state, RunState::Done { outcome, .. } if outcome.status == Status::RequiresAuthorization);
    if app.waiting_for_authorization {
        if still_asking {
            effects.push(Effect::RetryAfter { id, ms: RETRY_EVERY_MS });
        } else {
            app.waiting_for_authorization = false;
        }
    }
    effects
}

/// How often `w` asks again while the user authorizes.
pub const RETRY_EVERY_MS: u64 = 3000;

/// `w` on an authorization prompt: retry every few seconds until it is granted (or `w` again).
fn toggle_waiting(app: &mut App) -> Vec<Effect> {
    let asking = matches!(app.run.as_ref().map(|r| &r.state), Some(RunState::Done { outcome, .. }) if outcome.status == Status::RequiresAuthorization);
    if app.waiting_for_authorization || !asking {
        app.waiting_for_authorization = false;
        app.status = Some(if asking { "stopped waiting".into() } else { "w waits on an authorization prompt".into() });
        return Vec::new();
    }
    app.waiting_for_authorization = true;
    app.status = Some(format!("asking again every {} s until authorized (w stops)", RETRY_EVERY_MS / 1000));
    let id = app.run.as_ref().map_or(0, |r| r.id);
    vec![Effect::RetryAfter { id, ms: RETRY_EVERY_MS }]
}

/// A scheduled retry: only if still waiting and nothing newer was run meanwhile.
pub fn retry_due(app: &mut App, id: u64) -> Vec<Effect> {
    let current = app.run.as_ref().is_some_and(|r| r.id == id && r.state != RunState::Running);
    if app.waiting_for_authorization && current { retry(app) } else { Vec::new() }
}

/// Enter on a history entry: select its tool and put its arguments back in the form.
pub fn reopen(app: &mut App, index: usize) {
    let Some(entry) = app.history.iter().rev().nth(index).cloned() else { return };
    let Some(position) = app.catalog.tools().iter().position(|t| t.id == entry.tool) else {
        app.status = Some(format!("{} is not in this catalog", entry.tool));
        return;
    };
    app.list.filter.clear();
    app.list.refresh(&app.catalog);
    if let Some(entry_index) = app.list.entries.iter().position(|e| *e == super::list::Entry::Tool(position)) {
        app.list.select_entry(entry_index);
    }
    super::update::tool_changed(app);
    if let Some(form) = app.form_mut() {
        form.set_arguments(&entry.arguments);
    }
    app.focus = Focus::Form;
    app.status = Some(format!("arguments of the call at {} back in the form: Ctrl-R runs it again", entry.at));
}

/// Keys while the result pane has the focus.
pub fn result_key(app: &mut App, key: KeyEvent, run_armed: bool) -> Vec<Effect> {
    // Ctrl-R and F5 run the form again, as everywhere; other chords are not the letters they hold.
    if key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) || key.code == KeyCode::F(5) {
        return match super::keymap::action_for(key) {
            Some(super::Action::Run) => start(app, run_armed),
            _ => Vec::new(),
        };
    }
    if value_key(app, key) {
        return Vec::new();
    }
    match key.code {
        KeyCode::Esc | KeyCode::Tab => app.focus = Focus::Form,
        KeyCode::Up | KeyCode::Char('k') => app.result_scroll = app.result_scroll.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => app.result_scroll += 1,
        KeyCode::PageUp => app.result_scroll = app.result_scroll.saturating_sub(10),
        KeyCode::PageDown => app.result_scroll += 10,
        KeyCode::Home | KeyCode::Char('g') => app.result_scroll = 0,
        KeyCode::Char('r') => return retry(app),
        KeyCode::Char('t') => ask_token(app),
        KeyCode::Char('x') => {
            app.show_exchange = !app.show_exchange;
            app.result_scroll = 0;
        }
        KeyCode::Char('c') => return copy_curl(app),
        KeyCode::Char('f') => return super::artifact::fetch(app),
        KeyCode::Char('w') => return toggle_waiting(app),
        KeyCode::Char('/') => app.popup = Some(Popup::Search { input: TextInput::new(app.result_search.clone()) }),
        KeyCode::Char('n') => find_next(app),
        KeyCode::Char('s') => super::artifact::ask_where_to_save(app),
        KeyCode::Char('S') => return super::cases::save_current(app),
        KeyCode::Char('y') => return copy_link_or_value(app),
        KeyCode::Char('o') => return link(app).map(Effect::Open).into_iter().collect(),
        _ => {}
    }
    Vec::new()
}

/// The result pane shows a value (in the foldable viewer).
pub fn shows_value(app: &App) -> bool {
    !app.show_exchange
        && matches!(app.run.as_ref().map(|r| &r.state), Some(RunState::Done { outcome, .. }) if outcome.status == Status::Value)
}

/// Keys of the value viewer (moving, folding), when the result shows a value. True when taken.
fn value_key(app: &mut App, key: KeyEvent) -> bool {
    let height = value_height(app);
    if !shows_value(app) {
        return false;
    }
    let Some(RunState::Done { value_lines: lines, .. }) = app.run.as_ref().map(|r| &r.state) else {
        return false;
    };
    let view = &mut app.value_view;
    match key.code {
        KeyCode::Up | KeyCode::Char('k') => view.move_by(lines, -1, height),
        KeyCode::Down | KeyCode::Char('j') => view.move_by(lines, 1, height),
        KeyCode::PageUp => view.move_by(lines, -(height as isize), height),
        KeyCode::PageDown => view.move_by(lines, height as isize, height),
        KeyCode::Home | KeyCode::Char('g') => view.to_top(),
        KeyCode::End | KeyCode::Char('G') => view.to_bottom(lines, height),
        KeyCode::Left | KeyCode::Char('h') => view.fold(lines, height),
        KeyCode::Right | KeyCode::Char('l') => view.unfold(view.cursor),
        KeyCode::Enter | KeyCode::Char(' ') => view.toggle(lines, height),
        KeyCode::Char('-') => view.fold_all(lines),
        KeyCode::Char('+') | KeyCode::Char('=') => view.unfold_all(),
        _ => return false,
    }
    true
}

/// Lines of value the result pane shows (below its status line).
fn value_height(app: &App) -> usize {
    app.layout().result.map_or(1, |r| usize::from(r.height.saturating_sub(3)).max(1))
}

/// `t` on an authorization prompt: the token for its provider.
pub fn ask_token(app: &mut App) {
    let provider = match app.run.as_ref().map(|r| &r.state) {
        Some(RunState::Done { outcome, .. }) if outcome.status == Status::RequiresAuthorization => outcome
            .authorization
            .as_ref()
            .and_then(|a| a.provider.clone())
            .or_else(|| app.selected_tool().and_then(|t| t.requirements.authorization.first().map(|a| a.id.clone())))
            .unwrap_or_else(|| "default".to_string()),
        _ => {
            app.status = Some("t gives a token when the result asks for authorization".into());
            return;
        }
    };
    app.popup = Some(Popup::TokenPrompt { provider, input: TextInput::default(), why: None });
}

/// Enter in the token prompt: keep the token (memory only) and run again with it.
pub fn token_given(app: &mut App, provider: String, token: String) -> Vec<Effect> {
    app.popup = None;
    if token.trim().is_empty() {
        app.status = Some("no token given".into());
        return Vec::new();
    }
    let mut effects = Vec::new();
    // The server itself wants the token (MCP over HTTP): it may have tools to show only now.
    if provider == crate::invoke::mcp_http::MCP_PROVIDER {
        effects.push(Effect::Authorize { provider: provider.clone(), token: token.clone() });
        app.status = Some("token given to the server; listing its tools again".into());
    }
    app.tokens.insert(provider, token);
    effects.extend(retry(app));
    effects
}

/// The server answered 401 to the listing of its tools: ask for its token straight away.
pub fn server_wants_token(app: &mut App, url: &str, challenge: Option<&str>) {
    let asks = challenge.map(|c| format!(", WWW-Authenticate: {c}")).unwrap_or_default();
    app.popup = Some(Popup::TokenPrompt {
        provider: crate::invoke::mcp_http::MCP_PROVIDER.to_string(),
        input: TextInput::default(),
        why: Some(format!("{url} wants authorization (HTTP 401{asks}). Type its bearer token:")),
    });
}

/// The server's tools after a token: those not yet in the catalog join it.
pub fn server_tools(app: &mut App, label: &str, result: Result<Vec<crate::catalog::Tool>, String>) {
    let tools = match result {
        Ok(tools) => tools,
        Err(e) => {
            app.status = Some(format!("the server's tools could not be listed: {e}"));
            return;
        }
    };
    let mut added = 0;
    for tool in tools {
        if app.catalog.get(&tool.id).is_none() {
            app.catalog.add(tool);
            added += 1;
        }
    }
    app.list.refresh(&app.catalog);
    super::update::tool_changed(app);
    app.status = Some(match added {
        0 => format!("{label} listed no new tools"),
        n => format!("{n} tool{} from {label}", if n == 1 { "" } else { "s" }),
    });
}

/// `y`: the result's link when it has one, else its value as JSON.
fn copy_link_or_value(app: &mut App) -> Vec<Effect> {
    let value = match app.run.as_ref().map(|r| &r.state) {
        Some(RunState::Done { outcome, .. }) if outcome.authorization.is_none() && outcome.artifacts.is_empty() => {
            outcome.value.as_ref().map(crate::form::value::pretty)
        }
        _ => None,
    };
    if let Some(value) = value {
        app.status = Some(format!("the value is on the clipboard ({})", crate::text::human_bytes(value.len() as u64)));
        return vec![Effect::Copy(value)];
    }
    link(app).map(Effect::Copy).into_iter().collect()
}

/// The URL the result points at: the authorization page, else the first artifact.
fn link(app: &mut App) -> Option<String> {
    let url = match app.run.as_ref().map(|r| &r.state) {
        Some(RunState::Done { outcome, .. }) => outcome
            .authorization
            .as_ref()
            .and_then(|a| a.url.clone())
            .or_else(|| outcome.artifacts.first().map(|a| a.url.clone())),
        _ => None,
    };
    match &url {
        // Only web links go to the opener: a server must not make us launch something else.
        Some(u) if u.starts_with("http://") || u.starts_with("https://") => app.status = Some(u.clone()),
        Some(u) => {
            app.status = Some(format!("not an http(s) link, left alone: {u}"));
            return None;
        }
        None => app.status = Some("this result has no link".into()),
    }
    url
}

/// `c`: the request as a curl command, token masked.
fn copy_curl(app: &mut App) -> Vec<Effect> {
    let Some(run) = &app.run else { return Vec::new() };
    let body = (crate::invoke::Exchange {
        method: "POST".into(),
        url: String::new(),
        request_body: serde_json::to_string(&run.request.body()).unwrap_or_default(),
        ..crate::invoke::Exchange::default()
    })
    .request_json()["body"]
        .to_string();
    let url = match &run.state {
        RunState::Done { exchange, .. } if !exchange.url.is_empty() => exchange.url.clone(),
        _ => format!("{}/tools/call", app.endpoint.rsplit(' ').next().unwrap_or_default()),
    };
    let command =
        format!("curl -sS -X POST {} -H 'content-type: application/json' --data {}", quote(&url), quote(&body));
    app.status = Some("the request is on the clipboard as a curl command (token masked)".into());
    vec![Effect::Copy(command)]
}

/// Quoted for a POSIX shell. No shell argument can hold a NUL byte, so one is left out.
fn quote(text: &str) -> String {
    shlex::try_quote(&text.replace('\0', "")).unwrap_or_default().into_owned()
}

/// Scrolls the result to the next line (after the one at the top) holding the search text.
pub fn find_next(app: &mut App) {
    let needle = app.result_search.to_lowercase();
    if needle.is_empty() {
        return;
    }
    let height = value_height(app);
    let Some(RunState::Done { value_lines, .. }) = app.run.as_ref().map(|r| &r.state) else { return };
    let from = app.value_view.cursor + 1;
    let found = value_lines
        .lines
        .iter()
        .enumerate()
        .skip(from)
        .chain(value_lines.lines.iter().enumerate().take(from))
        .find(|(_, line)| line.to_lowercase().contains(&needle))
        .map(|(i, _)| i);
    match found {
        Some(i) => {
            app.value_view.reveal(value_lines, i, height);
            app.status = Some(format!("\"{}\" on line {} · n finds the next", app.result_search, i + 1));
        }
        None => app.status = Some(format!("\"{}\" is not in the value", app.result_search)),
    }
}
