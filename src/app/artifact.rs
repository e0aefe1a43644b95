//! Artifacts in the result: `f` fetches one (or takes inline content as it is), its preview and
//! picture are made off the UI thread where they can be large, `s` saves it.

use super::{App, Effect, Popup, RunState};
use crate::form::TextInput;

/// `f`: download the result's first artifact and preview it.
pub fn fetch(app: &mut App) -> Vec<Effect> {
    let artifact = match app.run.as_ref().map(|r| &r.state) {
        Some(RunState::Done { outcome, .. }) => outcome.artifacts.first().cloned(),
        _ => None,
    };
    let Some(artifact) = artifact else {
        app.status = Some("f fetches an artifact; this result has none".into());
        return Vec::new();
    };
    // Content that came inline (MCP image, audio, embedded resources) needs no download.
    if let Some(data) = &artifact.data_base64 {
        let Some(bytes) = crate::invoke::artifact::decode_base64(data) else {
            app.status = Some("the inline content is not valid base64".into());
            return Vec::new();
        };
        let mut lines = crate::invoke::artifact::preview(&bytes, artifact.content_type.as_deref(), artifact.size);
        // Inline content is small (it came in the answer), so its picture is made right here.
        let image = picture_or_why(crate::invoke::artifact::picture(&bytes), &mut lines);
        app.artifact = Some(super::ArtifactView {
            url: artifact.url.clone(),
            declared_size: artifact.size,
            received: bytes.len() as u64,
            total: Some(bytes.len() as u64),
            state: super::ArtifactState::Ready { lines, bytes: std::sync::Arc::new(bytes), image },
        });
        return Vec::new();
    }
    if !(artifact.url.starts_with("http://") || artifact.url.starts_with("https://")) {
        app.status = Some(format!("only http(s) artifacts are fetched, not {}", artifact.url));
        return Vec::new();
    }
    app.artifact = Some(super::ArtifactView {
        url: artifact.url.clone(),
        declared_size: artifact.size,
        received: 0,
        total: artifact.size,
        state: super::ArtifactState::Fetching,
    });
    vec![Effect::Fetch(artifact.url)]
}

/// `s`: ask where to save the fetched artifact.
pub fn ask_where_to_save(app: &mut App) {
    match &app.artifact {
        Some(view) if matches!(view.state, super::ArtifactState::Ready { .. }) => {
            let name = crate::invoke::artifact::file_name(&view.url);
            app.popup = Some(Popup::SavePrompt { input: TextInput::new(name) });
        }
        _ => app.status = Some("f fetches the artifact first; then s saves it".into()),
    }
}

pub fn progress(app: &mut App, received: u64, total: Option<u64>) {
    if let Some(view) = app.artifact.as_mut() {
        view.received = received;
        view.total = total.or(view.total);
    }
}

pub fn fetched(app: &mut App, result: Result<Box<crate::invoke::artifact::Fetched>, String>) {
    let Some(view) = app.artifact.as_mut() else { return };
    view.state = match result {
        Ok(fetched) => {
            let mut lines =
                crate::invoke::artifact::preview(&fetched.bytes, fetched.content_type.as_deref(), view.declared_size);
            if fetched.truncated {
                lines.insert(0, "⚠ larger than 16 MiB: cut off".into());
            }
            view.received = fetched.bytes.len() as u64;
            let image = picture_or_why(fetched.thumbnail, &mut lines);
            super::ArtifactState::Ready { lines, bytes: std::sync::Arc::new(fetched.bytes), image }
        }
        Err(error) => super::ArtifactState::Failed(error),
    };
}

/// The picture, or a line saying why there is none.
fn picture_or_why(
    picture: Option<Result<crate::invoke::thumbnail::Thumbnail, String>>,
    lines: &mut Vec<String>,
) -> Option<crate::invoke::thumbnail::Thumbnail> {
    match picture? {
        Ok(thumbnail) => Some(thumbnail),
        Err(why) => {
            lines.push(format!("⚠ {why}"));
            None
        }
    }
}

/// Enter in the save prompt.
pub fn save_to(app: &mut App, path: String) -> Vec<Effect> {
    app.popup = None;
    match app.artifact.as_ref().map(|v| &v.state) {
        Some(super::ArtifactState::Ready { bytes, .. }) if !path.trim().is_empty() => {
            vec![Effect::Save { path, bytes: std::sync::Arc::clone(bytes) }]
        }
        _ => Vec::new(),
    }
}
