//! `update`: the one place the app's state changes. It hands each message to the function of
//! its group, which matches every variant of the group's enum (no wildcard: clippy's
//! `wildcard_enum_match_arm` is denied here), so a new message does not compile until it is
//! handled. A key goes to `actions`, which asks the keymap what it means.
#![deny(clippy::wildcard_enum_match_arm)]

use super::keymap::{Action, Context};
use super::view::{keep_in_view, mouse_event};
use super::{
    App, CallMsg, ContentMsg, Effect, EffectError, InputMsg, LoadMsg, Msg, Popup, SaveMsg, ServerEffect, ServerMsg,
    SignInMsg, WorkEffect,
};
use crate::catalog::SessionId;
use crate::invoke::save::Saved;

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // A message said anew (or again, after a key) is fresh: its age starts over.
    let said_before = app.status().map(str::to_owned);
    // A key clears the message unless a server's question has the keys (then it is untouched).
    let keyed = matches!(msg, Msg::Input(InputMsg::Key(_))) && !app.asks.is_open();
    // A session's news is applied to that session; anything else concerns the current one.
    let (from, msg) = if let Msg::Session { id, msg } = msg { (Some(id), *msg) } else { (None, msg) };
    let clock = matches!(msg, Msg::Input(InputMsg::Clock { .. }));
    let session = from.unwrap_or(app.sessions.current_id());
    let mut effects = update_one(app, session, msg);
    // The hosted app ends when the selection leaves its tool or its server goes away; a link
    // it asked to open is asked about once no popup is open.
    effects.extend(app.follow_hosted_app());
    app.status_said(said_before.as_deref(), keyed);
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
    // Each group of messages has its function, which matches every variant of its enum.
    let mut effects = match msg {
        Msg::Input(msg) => input(app, msg),
        Msg::Status(said) => {
            app.tell(said);
            Vec::new()
        }
        Msg::FilesChanged { summary, at } => app.files_changed(&summary, &at),
        Msg::Call(msg) => call_msg(app, msg),
        Msg::Content(msg) => content_msg(app, msg),
        Msg::Save(msg) => save_msg(app, msg),
        Msg::Server(msg) => server_msg(app, session, msg),
        Msg::SignIn(msg) => sign_in_msg(app, msg),
        Msg::Load(msg) => loaded(app, msg),
        Msg::Face(msg) => app.face_msg(session, msg),
        Msg::Fuzz(msg) => {
            app.fuzz_msg(msg);
            Vec::new()
        }
        Msg::Eval(msg) => {
            app.eval_msg(msg);
            Vec::new()
        }
        // Unwrapped by `update`; one nested in another is applied to the inner session.
        Msg::Session { id, msg } => update_one(app, id, *msg),
    };
    keep_in_view(app);
    // Forms opened by this message have their schemas compiled elsewhere.
    for (tool_id, schema) in app.form_pane.take_compiles() {
        if let Some(tool) = app.catalog.get(&tool_id).filter(|t| t.written.face.is_tool()) {
            effects.extend(app.lint.lint(tool));
        }
        effects.push(Effect::Work(WorkEffect::CompileChecker { tool_id, schema }));
    }
    effects
}

/// What the person does: keys, pastes, the mouse, the terminal's size; and the clock that ages
/// the status line.
fn input(app: &mut App, msg: InputMsg) -> Vec<Effect> {
    match msg {
        InputMsg::Clock { now_ms } => app.clock(now_ms),
        InputMsg::Resize(width, height) => app.size = (width, height),
        InputMsg::Key(key) if app.keymap.is(Context::Anywhere, key, Action::ForceQuit) => return vec![Effect::Quit],
        // A screen too small to show anything takes no keys but Quit: a letter would land in a
        // field the person cannot see, a command act out of sight.
        InputMsg::Key(key) if super::layout::too_small(app.size) && app.keymap.is(Context::Main, key, Action::Quit) => {
            return vec![Effect::Quit];
        }
        InputMsg::Key(_) | InputMsg::Paste(_) | InputMsg::Mouse(_) if super::layout::too_small(app.size) => {}
        InputMsg::Key(key) => {
            // A server's question takes the keys until it is answered, and leaves the message.
            let question = app.asks.is_open();
            if !question {
                // A message is about what happened last: the next key makes it stale (the hints
                // of the pane come back unless the key has something new to say).
                app.hush();
            }
            let mut effects = super::actions::key_pressed(app, key);
            if !question {
                effects.extend(app.ask_completion());
            }
            return effects;
        }
        InputMsg::Paste(text) => {
            let mut effects = super::actions::pasted(app, &text);
            effects.extend(app.ask_completion());
            return effects;
        }
        InputMsg::Mouse(mouse) => mouse_event(app, mouse),
    }
    Vec::new()
}

/// A call on its way and its outcome: progress, the answer.
fn call_msg(app: &mut App, msg: CallMsg) -> Vec<Effect> {
    match msg {
        CallMsg::Tick { elapsed_ms } => app.result.tick(elapsed_ms),
        CallMsg::Done { id, result } => {
            // The call's questions are moot once it has ended (one call runs at a time).
            app.asks.call_ended();
            return app.call_done(id, result);
        }
        CallMsg::RetryDue { id } => return app.retry_due(id),
        CallMsg::Progress { id, progress } => app.result.progress(id, progress),
        CallMsg::FailedExchange { id, exchange } => app.result.failed_exchange(id, exchange),
    }
    Vec::new()
}

/// A result's content: an artifact downloaded, an item decoded, a resource read.
fn content_msg(app: &mut App, msg: ContentMsg) -> Vec<Effect> {
    match msg {
        ContentMsg::ArtifactProgress { received, total } => app.result.artifact_progress(received, total),
        ContentMsg::ArtifactFetched(result) => app.result.artifact_fetched(result),
        ContentMsg::ItemDecoded { run, item, result } | ContentMsg::ResourceRead { run, item, result } => {
            app.item_previewed(run, item, result)
        }
    }
    Vec::new()
}

/// What was written: an artifact, a test case.
fn save_msg(app: &mut App, msg: SaveMsg) -> Vec<Effect> {
    match msg {
        SaveMsg::CaseSaved(result) => app.tell(app.recorder.saved(result)),
        SaveMsg::Saved(result) => saved(app, result),
        SaveMsg::Progress { written, total } => {
            let of = total.map(|t| format!(" of {}", crate::text::human_bytes(t))).unwrap_or_default();
            app.tell(format!("saving… {}{of}", crate::text::human_bytes(written)));
        }
    }
    Vec::new()
}

fn saved(app: &mut App, result: Result<Saved, EffectError>) {
    match result {
        Ok(Saved::Written { path, bytes }) => {
            app.tell(format!("saved {} to {path}", crate::text::human_bytes(bytes)));
        }
        Ok(Saved::Exists { path }) => {
            let said = format!("{path} exists: {{key:confirm}} replaces it, any other key keeps it");
            app.tell(app.keymap.say(&said, &[Context::Confirm]));
            app.prompts.open(Popup::ConfirmOverwrite { path });
        }
        Err(e) => app.tell(format!("not saved: {e}")),
    }
}

/// What a server says of itself: its name, tools and protocol, questions, events, traffic.
fn server_msg(app: &mut App, session: SessionId, msg: ServerMsg) -> Vec<Effect> {
    match msg {
        ServerMsg::Protocol(version) => {
            // The first screen points to the pane where the server says more of itself.
            let pane = app.key_here(super::Action::ServerPane);
            let said = format!("MCP {} · {pane} the server pane", crate::text::visible(&version));
            // Said once: a server that is listed again (its tools changed) says its protocol again.
            let before = app.take_status();
            app.tell(match before {
                Some(status) if status.contains(&said) => status,
                Some(status) => format!("{said} · {status}"),
                None => said,
            });
            app.asks.agreed(version);
        }
        ServerMsg::Asked { id, ask } => app.asks.asked(id, ask),
        ServerMsg::App(event) => return app.app_event(session, event),
        ServerMsg::Named { label, lists_tools } => {
            let reply = app.sessions.server_mut(session).named(label, lists_tools);
            return app.apply(reply);
        }
        ServerMsg::WantsToken { url, challenge } => {
            app.hush();
            app.auth.challenged(challenge.clone());
            let popup = app.sessions.server_mut(session).wants_token(&url, challenge.as_deref());
            app.prompts.open(popup);
        }
        ServerMsg::Tools { label, result } => {
            let listed = result.is_ok();
            let mut effects = app.server_tools(session, &label, result);
            // Its resources, templates and prompts join its tools in the list.
            if listed {
                effects.insert(0, Effect::Server(ServerEffect::ListFaces));
            }
            return effects;
        }
        ServerMsg::Events(events) => {
            let mut effects = app.resources_updated(&events);
            let reconnect = app.key_name(Context::Main, Action::Reconnect);
            let reply = app.sessions.pane_mut(session).events(events, &reconnect);
            if reply.effects.contains(&Effect::Server(ServerEffect::ListTools)) {
                app.sessions.server_mut(session).start_listing();
            }
            effects.extend(app.apply(reply));
            return effects;
        }
        ServerMsg::Traffic(entries) => {
            app.sessions.pane_mut(session).traffic_mut().receive(entries);
            app.open_held_arrivals(session);
        }
        ServerMsg::Proxy(msg) => app.proxy_msg(session, msg),
        ServerMsg::Info(info) => app.sessions.pane_mut(session).introduced(*info),
        ServerMsg::Reconnected(result) => return reconnected(app, session, result),
        ServerMsg::LogLevelRefused(why) => app.tell(format!("logging/setLevel: {why}")),
    }
    Vec::new()
}

/// A sign-in's steps, and how it ended.
fn sign_in_msg(app: &mut App, msg: SignInMsg) -> Vec<Effect> {
    match msg {
        SignInMsg::Progress(steps) => app.auth.progressed(steps),
        SignInMsg::Done { steps, outcome } => {
            app.tell(match &outcome {
                Ok(said) => said.clone(),
                Err(why) => format!("sign-in failed: {why}"),
            });
            app.auth.finished(steps, outcome);
        }
    }
    Vec::new()
}

fn reconnected(app: &mut App, session: SessionId, result: Result<(), EffectError>) -> Vec<Effect> {
    match result {
        Ok(()) => {
            let server = app.sessions.server_mut(session);
            server.reconnected();
            let said = format!("reconnected to {}: listing its tools again", server.endpoint());
            app.tell(said);
            app.sessions.pane_mut(session).reconnected(None).into_iter().collect()
        }
        Err(e) => {
            app.restart_failed(session);
            app.sessions.server_mut(session).listed();
            app.sessions.pane_mut(session).note(format!("reconnecting failed: {e}"));
            app.tell(format!("reconnecting failed: {e}"));
            Vec::new()
        }
    }
}

/// What slow work brought back: the catalog, checkers, lint findings, the history.
fn loaded(app: &mut App, msg: LoadMsg) -> Vec<Effect> {
    match msg {
        LoadMsg::Progress(progress) => app.load_progress = Some(progress),
        LoadMsg::Catalog { tools, diagnostics } => app.catalog_loaded(tools, &diagnostics),
        LoadMsg::Checker { tool_id, checker } => app.form_pane.checker_compiled(&tool_id, checker),
        LoadMsg::Linted { tool_id, findings } => app.lint.linted(tool_id, findings),
        LoadMsg::History(entries) => app.recorder.history_read(entries),
    }
    Vec::new()
}
