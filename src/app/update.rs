//! `update`: the one place the app's state changes. It hands each message to the component
//! it is for; a key goes to `actions`, which asks the keymap what it means.

use super::keymap::{Action, Context};
use super::view::{keep_in_view, mouse_event};
use super::{App, Effect, Msg, Popup};
use crate::invoke::save::Saved;

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // With several servers, what the person does goes to the server of the selected tool.
    let addressed =
        app.servers.several() && !app.servers.applying && !matches!(msg, Msg::FromServer { .. } | Msg::Clock { .. });
    // A message said anew (or again, after a key) is fresh: its age starts over.
    let said_before = app.status.clone();
    // A key clears the message unless a server's question has the keys (then it is untouched).
    let keyed = matches!(msg, Msg::Key(_)) && !app.asks.is_open();
    let mut effects = update_one(app, msg);
    if app.status.is_some() && (keyed || app.status != said_before) {
        app.status_age.restart();
    }
    if addressed {
        app.follow_selected_server();
        if let Some(label) = app.servers.current_label() {
            effects = super::servers::addressed(effects, label);
        }
    }
    effects
}

fn update_one(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut effects = match msg {
        Msg::FromServer { label, msg } => app.apply_from_server(label, *msg),
        Msg::Said(said) => {
            app.status = Some(said);
            Vec::new()
        }
        Msg::Resize(width, height) => {
            app.size = (width, height);
            Vec::new()
        }
        Msg::Key(key) if app.keymap.is(Context::Anywhere, key, Action::ForceQuit) => vec![Effect::Quit],
        // A server's question takes the keys until it is answered.
        Msg::Key(key) if app.asks.is_open() => app.asks.key(&app.keymap, key),
        Msg::ServerProtocol(version) => {
            // The first screen points to the pane where the server says more of itself.
            let pane = app.key_name(super::Context::Main, super::Action::ServerPane);
            let said = format!("MCP {} · {pane} the server pane", crate::text::visible(&version));
            app.status = Some(match app.status.take() {
                Some(status) => format!("{said} · {status}"),
                None => said,
            });
            app.asks.protocol = Some(version);
            Vec::new()
        }
        Msg::Asked { id, ask } => {
            app.asks.asked(id, ask);
            Vec::new()
        }
        Msg::Key(key) => {
            // A message is about what happened last: the next key makes it stale (the hints of
            // the pane come back unless the key has something new to say).
            app.status = None;
            let mut effects = super::actions::key_pressed(app, key);
            effects.extend(app.ask_completion());
            effects
        }
        Msg::Paste(text) => {
            app.paste(&text);
            app.ask_completion()
        }
        Msg::Mouse(mouse) => {
            mouse_event(app, mouse);
            Vec::new()
        }
        Msg::Clock { now_ms } => {
            app.clock(now_ms);
            Vec::new()
        }
        Msg::Tick { elapsed_ms } => {
            app.result.tick(elapsed_ms);
            Vec::new()
        }
        Msg::InvocationDone { id, result } => {
            // The call's questions are moot once it has ended (one call runs at a time).
            app.asks.call_ended();
            app.call_done(id, result)
        }
        Msg::RetryDue { id } => app.retry_due(id),
        Msg::Progress { id, progress } => {
            app.result.progress(id, progress);
            Vec::new()
        }
        Msg::ArtifactProgress { received, total } => {
            app.result.artifact_progress(received, total);
            Vec::new()
        }
        Msg::ServerNamed { label, lists_tools } => {
            let reply = app.server.named(label, lists_tools);
            app.apply(reply)
        }
        Msg::SignInProgress(steps) => {
            app.auth.progressed(steps);
            Vec::new()
        }
        Msg::SignInDone { steps, outcome } => {
            app.status = Some(match &outcome {
                Ok(said) => said.clone(),
                Err(why) => format!("sign-in failed: {why}"),
            });
            app.auth.finished(steps, outcome);
            Vec::new()
        }
        Msg::ServerWantsToken { url, challenge } => {
            app.status = None;
            app.auth.challenge.clone_from(&challenge);
            app.prompts.popup = Some(app.server.wants_token(&url, challenge.as_deref()));
            Vec::new()
        }
        Msg::LoadProgress(progress) => {
            app.load_progress = Some(progress);
            Vec::new()
        }
        Msg::CatalogLoaded { tools, diagnostics } => {
            app.catalog_loaded(tools, &diagnostics);
            Vec::new()
        }
        Msg::CheckerCompiled { tool_id, checker } => {
            app.form_pane.checker_compiled(&tool_id, checker);
            Vec::new()
        }
        Msg::Linted { tool_id, findings } => {
            app.lint.linted(tool_id, findings);
            Vec::new()
        }
        Msg::HistoryRead(entries) => {
            app.recorder.history_read(entries);
            Vec::new()
        }
        Msg::ServerTools { label, result } => {
            let listed = result.is_ok();
            app.server_tools(&label, result);
            // Its resources, templates and prompts join its tools in the list.
            if listed { vec![Effect::ListFaces] } else { Vec::new() }
        }
        msg @ (Msg::ServerFaces { .. } | Msg::Completed { .. } | Msg::Subscribed { .. }) => app.face_msg(msg),
        Msg::ArtifactFetched(result) => {
            app.result.artifact_fetched(result);
            Vec::new()
        }
        Msg::ItemDecoded { run, item, result } | Msg::ResourceRead { run, item, result } => {
            app.item_previewed(run, item, result);
            Vec::new()
        }
        Msg::CaseSaved(result) => {
            app.status = Some(app.recorder.saved(result));
            Vec::new()
        }
        Msg::Saved(result) => {
            match result {
                Ok(Saved::Written { path, bytes }) => {
                    app.status = Some(format!("saved {} to {path}", crate::text::human_bytes(bytes)));
                }
                Ok(Saved::Exists { path }) => {
                    app.status = Some(format!("{path} exists: y replaces it, any other key keeps it"));
                    app.prompts.popup = Some(Popup::ConfirmOverwrite { path });
                }
                Err(e) => app.status = Some(format!("not saved: {e}")),
            }
            Vec::new()
        }
        Msg::FailedExchange { id, exchange } => {
            app.result.failed_exchange(id, exchange);
            Vec::new()
        }
        Msg::ServerEvents(events) => {
            let mut effects = app.resources_updated(&events);
            let reconnect = app.key_name(Context::Main, Action::Reconnect);
            let reply = app.server_pane.events(events, &reconnect);
            if reply.effects.contains(&super::Effect::ListServerTools) {
                app.server.listing = true;
            }
            effects.extend(app.apply(reply));
            effects
        }
        Msg::Traffic(entries) => {
            app.server_pane.traffic.receive(entries);
            Vec::new()
        }
        Msg::ServerInfo(info) => {
            app.server_pane.info = Some(*info);
            Vec::new()
        }
        Msg::Reconnected(result) => match result {
            Ok(()) => {
                app.status = Some(format!("reconnected to {}: listing its tools again", app.server.endpoint));
                app.server.reconnected = true;
                app.server_pane.reconnected(None).into_iter().collect()
            }
            Err(e) => {
                app.server.listed();
                app.server_pane.note(format!("reconnecting failed: {e}"));
                app.status = Some(format!("reconnecting failed: {e}"));
                Vec::new()
            }
        },
        msg @ (Msg::FuzzProgress { .. } | Msg::FuzzDone { .. }) => {
            app.fuzz_msg(msg);
            Vec::new()
        }
        Msg::LogLevelRefused(why) => {
            app.status = Some(format!("logging/setLevel: {why}"));
            Vec::new()
        }
        Msg::SaveProgress { written, total } => {
            let of = total.map(|t| format!(" of {}", crate::text::human_bytes(t))).unwrap_or_default();
            app.status = Some(format!("saving… {}{of}", crate::text::human_bytes(written)));
            Vec::new()
        }
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
