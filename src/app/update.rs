//! `update`: the one place the app's state changes. It hands each message to the component
//! it is for; a key goes to `actions`, which asks the keymap what it means.

use super::keymap::{Action, Context};
use super::view::{keep_in_view, mouse_event};
use super::{App, Effect, EffectError, Msg, Popup};
use crate::catalog::SessionId;
use crate::invoke::save::Saved;

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // A message said anew (or again, after a key) is fresh: its age starts over.
    let said_before = app.status.clone();
    // A key clears the message unless a server's question has the keys (then it is untouched).
    let keyed = matches!(msg, Msg::Key(_)) && !app.asks.is_open();
    // A session's news is applied to that session; anything else concerns the current one.
    let (from, msg) = match msg {
        Msg::Session { id, msg } => (Some(id), *msg),
        msg => (None, msg),
    };
    let clock = matches!(msg, Msg::Clock { .. });
    let session = from.unwrap_or(app.sessions.current_id());
    let effects = update_one(app, session, msg);
    if app.status.is_some() && (keyed || app.status != said_before) {
        app.status_age.restart();
    }
    if from.is_none() && !clock {
        // What the person does goes to the server of the selected tool.
        app.follow_selected_server();
    }
    // A session's news gets answers for that session; what the person does, for the current
    // one once there are several.
    match from {
        Some(id) => super::sessions::addressed(effects, id),
        None if app.sessions.several() => super::sessions::addressed(effects, app.sessions.current_id()),
        None => effects,
    }
}

fn update_one(app: &mut App, session: SessionId, msg: Msg) -> Vec<Effect> {
    // Each group of messages has its function; a message goes to exactly one of them.
    let mut effects = match msg {
        Msg::Key(_) | Msg::Paste(_) | Msg::Mouse(_) | Msg::Resize(..) | Msg::Said(_) | Msg::Clock { .. } => {
            input(app, msg)
        }
        Msg::FilesChanged { summary, at } => app.files_changed(&summary, &at),
        Msg::Tick { .. }
        | Msg::InvocationDone { .. }
        | Msg::RetryDue { .. }
        | Msg::Progress { .. }
        | Msg::ArtifactProgress { .. }
        | Msg::FailedExchange { .. }
        | Msg::ArtifactFetched(_)
        | Msg::ItemDecoded { .. }
        | Msg::ResourceRead { .. }
        | Msg::CaseSaved(_)
        | Msg::Saved(_)
        | Msg::SaveProgress { .. } => call_msg(app, msg),
        Msg::ServerProtocol(_)
        | Msg::Asked { .. }
        | Msg::ServerNamed { .. }
        | Msg::SignInProgress(_)
        | Msg::SignInDone { .. }
        | Msg::ServerWantsToken { .. }
        | Msg::ServerEvents(_)
        | Msg::Traffic(_)
        | Msg::ServerInfo(_)
        | Msg::Reconnected(_)
        | Msg::LogLevelRefused(_) => server_msg(app, session, msg),
        Msg::LoadProgress(_)
        | Msg::CatalogLoaded { .. }
        | Msg::CheckerCompiled { .. }
        | Msg::Linted { .. }
        | Msg::HistoryRead(_)
        | Msg::ServerTools { .. }
        | Msg::ServerFaces { .. }
        | Msg::Completed { .. }
        | Msg::Subscribed { .. }
        | Msg::FuzzProgress { .. }
        | Msg::FuzzDone { .. } => loaded(app, session, msg),
        // Unwrapped by `update`; one nested in another is applied to the inner session.
        Msg::Session { id, msg } => update_one(app, id, *msg),
    };
    keep_in_view(app);
    // Forms opened by this message have their schemas compiled elsewhere.
    for (tool_id, schema) in app.form_pane.take_compiles() {
        if let Some(tool) = app.catalog.get(&tool_id).filter(|t| t.written.face.is_tool()) {
            effects.extend(app.lint.lint(tool));
        }
        effects.push(Effect::CompileChecker { tool_id, schema });
    }
    effects
}

/// What the person does: keys, pastes, the mouse, the terminal's size; a message said, and the
/// clock that ages it.
fn input(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Said(said) => app.status = Some(said),
        Msg::Clock { now_ms } => app.clock(now_ms),
        Msg::Resize(width, height) => app.size = (width, height),
        Msg::Key(key) if app.keymap.is(Context::Anywhere, key, Action::ForceQuit) => return vec![Effect::Quit],
        // A screen too small to show anything takes no keys but Quit: a letter would land in a
        // field the person cannot see, a command act out of sight.
        Msg::Key(key) if super::layout::too_small(app.size) && app.keymap.is(Context::Main, key, Action::Quit) => {
            return vec![Effect::Quit];
        }
        Msg::Key(_) | Msg::Paste(_) | Msg::Mouse(_) if super::layout::too_small(app.size) => {}
        Msg::Key(key) => {
            // A server's question takes the keys until it is answered, and leaves the message.
            let question = app.asks.is_open();
            if !question {
                // A message is about what happened last: the next key makes it stale (the hints
                // of the pane come back unless the key has something new to say).
                app.status = None;
            }
            let mut effects = super::actions::key_pressed(app, key);
            if !question {
                effects.extend(app.ask_completion());
            }
            return effects;
        }
        Msg::Paste(text) => {
            let mut effects = super::actions::pasted(app, &text);
            effects.extend(app.ask_completion());
            return effects;
        }
        Msg::Mouse(mouse) => mouse_event(app, mouse),
        // Routed to the other groups by `update_one`.
        _ => {}
    }
    Vec::new()
}

/// A call on its way and its outcome: progress, the answer, what was fetched and saved.
fn call_msg(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Tick { elapsed_ms } => app.result.tick(elapsed_ms),
        Msg::InvocationDone { id, result } => {
            // The call's questions are moot once it has ended (one call runs at a time).
            app.asks.call_ended();
            return app.call_done(id, result);
        }
        Msg::RetryDue { id } => return app.retry_due(id),
        Msg::Progress { id, progress } => app.result.progress(id, progress),
        Msg::ArtifactProgress { received, total } => app.result.artifact_progress(received, total),
        Msg::FailedExchange { id, exchange } => app.result.failed_exchange(id, exchange),
        Msg::ArtifactFetched(result) => app.result.artifact_fetched(result),
        Msg::ItemDecoded { run, item, result } | Msg::ResourceRead { run, item, result } => {
            app.item_previewed(run, item, result)
        }
        Msg::CaseSaved(result) => app.status = Some(app.recorder.saved(result)),
        Msg::Saved(result) => saved(app, result),
        Msg::SaveProgress { written, total } => {
            let of = total.map(|t| format!(" of {}", crate::text::human_bytes(t))).unwrap_or_default();
            app.status = Some(format!("saving… {}{of}", crate::text::human_bytes(written)));
        }
        // Routed to the other groups by `update_one`.
        _ => {}
    }
    Vec::new()
}

fn saved(app: &mut App, result: Result<Saved, EffectError>) {
    match result {
        Ok(Saved::Written { path, bytes }) => {
            app.status = Some(format!("saved {} to {path}", crate::text::human_bytes(bytes)));
        }
        Ok(Saved::Exists { path }) => {
            let said = format!("{path} exists: {{key:confirm}} replaces it, any other key keeps it");
            app.status = Some(app.keymap.say(&said, &[Context::Confirm]));
            app.prompts.open(Popup::ConfirmOverwrite { path });
        }
        Err(e) => app.status = Some(format!("not saved: {e}")),
    }
}

/// What a server says of itself: its name and protocol, questions, sign-in, events, traffic.
fn server_msg(app: &mut App, session: SessionId, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::ServerProtocol(version) => {
            // The first screen points to the pane where the server says more of itself.
            let pane = app.key_here(super::Action::ServerPane);
            let said = format!("MCP {} · {pane} the server pane", crate::text::visible(&version));
            // Said once: a server that is listed again (its tools changed) says its protocol again.
            app.status = Some(match app.status.take() {
                Some(status) if status.contains(&said) => status,
                Some(status) => format!("{said} · {status}"),
                None => said,
            });
            app.asks.agreed(version);
        }
        Msg::Asked { id, ask } => app.asks.asked(id, ask),
        Msg::ServerNamed { label, lists_tools } => {
            let reply = app.sessions.server_mut(session).named(label, lists_tools);
            return app.apply(reply);
        }
        Msg::SignInProgress(steps) => app.auth.progressed(steps),
        Msg::SignInDone { steps, outcome } => {
            app.status = Some(match &outcome {
                Ok(said) => said.clone(),
                Err(why) => format!("sign-in failed: {why}"),
            });
            app.auth.finished(steps, outcome);
        }
        Msg::ServerWantsToken { url, challenge } => {
            app.status = None;
            app.auth.challenged(challenge.clone());
            let popup = app.sessions.server_mut(session).wants_token(&url, challenge.as_deref());
            app.prompts.open(popup);
        }
        Msg::ServerEvents(events) => {
            let mut effects = app.resources_updated(&events);
            let reconnect = app.key_name(Context::Main, Action::Reconnect);
            let reply = app.sessions.pane_mut(session).events(events, &reconnect);
            if reply.effects.contains(&super::Effect::ListServerTools) {
                app.sessions.server_mut(session).start_listing();
            }
            effects.extend(app.apply(reply));
            return effects;
        }
        Msg::Traffic(entries) => app.sessions.pane_mut(session).traffic_mut().receive(entries),
        Msg::ServerInfo(info) => app.sessions.pane_mut(session).introduced(*info),
        Msg::Reconnected(result) => return reconnected(app, session, result),
        Msg::LogLevelRefused(why) => app.status = Some(format!("logging/setLevel: {why}")),
        // Routed to the other groups by `update_one`.
        _ => {}
    }
    Vec::new()
}

fn reconnected(app: &mut App, session: SessionId, result: Result<(), EffectError>) -> Vec<Effect> {
    match result {
        Ok(()) => {
            let server = app.sessions.server_mut(session);
            server.reconnected();
            app.status = Some(format!("reconnected to {}: listing its tools again", server.endpoint()));
            app.sessions.pane_mut(session).reconnected(None).into_iter().collect()
        }
        Err(e) => {
            app.sessions.server_mut(session).listed();
            app.sessions.pane_mut(session).note(format!("reconnecting failed: {e}"));
            app.status = Some(format!("reconnecting failed: {e}"));
            Vec::new()
        }
    }
}

/// What slow work brought back: the catalog, a server's tools and faces, checkers, lint
/// findings, the history, a fuzz run.
fn loaded(app: &mut App, session: SessionId, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::LoadProgress(progress) => app.load_progress = Some(progress),
        Msg::CatalogLoaded { tools, diagnostics } => app.catalog_loaded(tools, &diagnostics),
        Msg::CheckerCompiled { tool_id, checker } => app.form_pane.checker_compiled(&tool_id, checker),
        Msg::Linted { tool_id, findings } => app.lint.linted(tool_id, findings),
        Msg::HistoryRead(entries) => app.recorder.history_read(entries),
        Msg::ServerTools { label, result } => {
            let listed = result.is_ok();
            let mut effects = app.server_tools(session, &label, result);
            // Its resources, templates and prompts join its tools in the list.
            if listed {
                effects.insert(0, Effect::ListFaces);
            }
            return effects;
        }
        msg @ (Msg::ServerFaces { .. } | Msg::Completed { .. } | Msg::Subscribed { .. }) => {
            return app.face_msg(session, msg);
        }
        msg @ (Msg::FuzzProgress { .. } | Msg::FuzzDone { .. }) => app.fuzz_msg(msg),
        // The other groups went to their functions in `update_one`.
        _ => {}
    }
    Vec::new()
}
