//! Artifacts in the result: `f` fetches one (or takes inline content as it is), its preview and
//! picture are made off the UI thread where they can be large, `s` saves it.

use std::sync::Arc;

use super::result::{ArtifactState, ArtifactView, ResultPane, RunState};
use super::{Effect, Popup, Reply};
use crate::form::TextInput;
use crate::invoke::save::SaveSource;
use crate::invoke::thumbnail::Thumbnail;

impl ResultPane {
    /// `f`: download the result's first artifact and preview it.
    pub fn fetch_artifact(&mut self) -> Reply {
        let artifact = match self.run.as_ref().map(|r| &r.state) {
            Some(RunState::Done { outcome, .. }) => outcome.artifacts.first().cloned(),
            _ => None,
        };
        let Some(artifact) = artifact else {
            return Reply::status("f fetches an artifact; this result has none");
        };
        // Content that came inline (MCP image, audio, embedded resources) needs no download, only
        // decoding, which is done off the UI thread like a download's picture.
        if let Some(data) = artifact.data_base64.clone() {
            self.artifact = Some(ArtifactView {
                url: artifact.url.clone(),
                declared_size: artifact.size,
                received: 0,
                total: artifact.size,
                state: ArtifactState::Fetching,
            });
            return Reply::effect(Effect::DecodeInline { data_base64: data, content_type: artifact.content_type });
        }
        if !(artifact.url.starts_with("http://") || artifact.url.starts_with("https://")) {
            return Reply::status(format!("only http(s) artifacts are fetched, not {}", artifact.url));
        }
        self.artifact = Some(ArtifactView {
            url: artifact.url.clone(),
            declared_size: artifact.size,
            received: 0,
            total: artifact.size,
            state: ArtifactState::Fetching,
        });
        Reply::effect(Effect::Fetch(artifact.url))
    }

    /// `s`: ask where to save the fetched artifact.
    pub fn ask_where_to_save(&self) -> Reply {
        match &self.artifact {
            Some(view) if matches!(view.state, ArtifactState::Ready { .. }) => {
                let name = crate::invoke::artifact::file_name(&view.url);
                Reply::popup(Popup::SavePrompt { input: TextInput::new(name) })
            }
            _ => Reply::status("f fetches the artifact first; then s saves it"),
        }
    }

    pub fn artifact_progress(&mut self, received: u64, total: Option<u64>) {
        if let Some(view) = self.artifact.as_mut() {
            view.received = received;
            view.total = total.or(view.total);
        }
    }

    pub fn artifact_fetched(&mut self, result: Result<Box<crate::invoke::artifact::Fetched>, String>) {
        let Some(view) = self.artifact.as_mut() else { return };
        view.state = match result {
            Ok(fetched) => {
                let mut lines = crate::invoke::artifact::preview(
                    &fetched.bytes,
                    fetched.content_type.as_deref(),
                    view.declared_size,
                );
                if fetched.truncated {
                    lines.insert(0, "⚠ larger than 16 MiB: cut off".into());
                }
                view.received = fetched.bytes.len() as u64;
                let image = picture_or_why(fetched.thumbnail, &mut lines);
                ArtifactState::Ready { lines, bytes: Arc::new(fetched.bytes), image, cut_off: fetched.truncated }
            }
            Err(error) => ArtifactState::Failed(error),
        };
    }

    /// Enter in the save prompt (`overwrite`: the user said `y` to replacing what is there).
    pub fn save_artifact(&self, path: String, overwrite: bool) -> Vec<Effect> {
        let Some(view) = &self.artifact else { return Vec::new() };
        let source = match &view.state {
            ArtifactState::Ready { cut_off: true, .. } => SaveSource::Download(view.url.clone()),
            ArtifactState::Ready { bytes, .. } => SaveSource::Bytes(Arc::clone(bytes)),
            _ => return Vec::new(),
        };
        if path.trim().is_empty() {
            return Vec::new();
        }
        vec![Effect::Save { path, source, overwrite }]
    }
}

/// The picture, or a line saying why there is none.
fn picture_or_why(picture: Option<Result<Thumbnail, String>>, lines: &mut Vec<String>) -> Option<Thumbnail> {
    match picture? {
        Ok(thumbnail) => Some(thumbnail),
        Err(why) => {
            lines.push(format!("⚠ {why}"));
            None
        }
    }
}
