//! Artifacts in the result: `f` fetches one (for an MCP result, previews the selected content item:
//! see `content`), its preview and picture are made off the UI thread where they can be large, `s`
//! saves it.

use std::sync::Arc;

use super::{ArtifactState, ArtifactView, ResultPane, RunState};
use crate::app::{Effect, EffectError, Popup, Reply, WorkEffect};
use crate::form::TextInput;
use crate::invoke::artifact::Fetched;
use crate::invoke::save::SaveSource;
use crate::invoke::thumbnail::{Thumbnail, ThumbnailError};

impl ResultPane {
    /// `f`: download the result's first artifact and preview it; for an MCP result, preview the
    /// selected item.
    pub fn fetch_artifact(&mut self) -> Reply {
        if self.has_items() {
            return self.preview_item();
        }
        let artifact = match self.run.as_ref().map(|r| &r.state) {
            Some(RunState::Done { outcome, .. }) => outcome.artifacts.first().cloned(),
            _ => None,
        };
        let Some(artifact) = artifact else {
            return Reply::status("{key:fetch_artifact} fetches an artifact; this result has none");
        };
        if !(artifact.url.starts_with("http://") || artifact.url.starts_with("https://")) {
            return Reply::status(format!("only http(s) artifacts are fetched, not {}", artifact.url));
        }
        self.artifact = Some(ArtifactView {
            url: artifact.url.clone(),
            declared_size: artifact.size,
            received: 0,
            total: artifact.size,
            state: ArtifactState::Fetching,
            item: None,
        });
        Reply::effect(Effect::Work(WorkEffect::Fetch(artifact.url)))
    }

    /// `s`: ask where to save the fetched artifact (or the selected item).
    pub fn ask_where_to_save(&self) -> Reply {
        if self.has_items() {
            return self.ask_where_to_save_item();
        }
        match &self.artifact {
            Some(view) if matches!(view.state, ArtifactState::Ready { .. }) => {
                let name = crate::invoke::artifact::file_name(&view.url);
                Reply::popup(Popup::SavePrompt { input: TextInput::prefilled(name) })
            }
            _ => Reply::status("{key:fetch_artifact} fetches the artifact first; then {key:save_artifact} saves it"),
        }
    }

    pub fn artifact_progress(&mut self, received: u64, total: Option<u64>) {
        if let Some(view) = self.artifact.as_mut() {
            view.received = received;
            view.total = total.or(view.total);
        }
    }

    /// A download ended (`ContentMsg::ArtifactFetched`); an item's preview comes as its own message.
    pub fn artifact_fetched(&mut self, result: Result<Box<Fetched>, EffectError>) {
        let Some(view) = self.artifact.as_mut().filter(|v| v.item.is_none()) else { return };
        view.state = match result {
            Ok(fetched) => {
                view.received = fetched.bytes.len() as u64;
                ready(*fetched, view.declared_size)
            }
            Err(error) => ArtifactState::Failed(error.to_string()),
        };
    }

    /// Enter in the save prompt (`overwrite`: the user said `y` to replacing what is there).
    pub fn save_artifact(&self, path: String, overwrite: bool) -> Vec<Effect> {
        if self.has_items() {
            return self.save_item(path, overwrite);
        }
        let Some(view) = &self.artifact else { return Vec::new() };
        let source = match &view.state {
            ArtifactState::Ready { cut_off: true, .. } => SaveSource::Download(view.url.clone()),
            ArtifactState::Ready { bytes, .. } => SaveSource::Bytes(Arc::clone(bytes)),
            _ => return Vec::new(),
        };
        if path.trim().is_empty() {
            return Vec::new();
        }
        vec![Effect::Work(WorkEffect::Save { path, source, overwrite })]
    }
}

/// What a fetch or a decode brought, made ready to show: its preview lines (the server's notes
/// first) and its picture.
pub(super) fn ready(fetched: Fetched, declared_size: Option<u64>) -> ArtifactState {
    let mut lines = fetched.notes;
    if fetched.truncated {
        lines.push("⚠ larger than 16 MiB: cut off".into());
    }
    lines.extend(crate::invoke::artifact::preview(&fetched.bytes, fetched.content_type.as_deref(), declared_size));
    let image = picture_or_why(fetched.thumbnail, &mut lines);
    ArtifactState::Ready {
        lines,
        bytes: Arc::new(fetched.bytes),
        image,
        cut_off: fetched.truncated,
        whole: fetched.whole,
    }
}

/// The picture, or a line saying why there is none.
fn picture_or_why(picture: Option<Result<Thumbnail, ThumbnailError>>, lines: &mut Vec<String>) -> Option<Thumbnail> {
    match picture? {
        Ok(thumbnail) => Some(thumbnail),
        Err(why) => {
            lines.push(format!("⚠ {why}"));
            None
        }
    }
}
