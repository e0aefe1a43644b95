//! Saving an artifact where the user said: the whole of it (streamed to disk, not the 16 MiB
//! preview), never through a symlink at the target (written to a new file beside it, then moved
//! into place), and never over an existing file unless the user said so.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

/// What to write.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveSource {
    /// Content already here whole (inline content, or a fetch that was not cut off).
    Bytes(Arc<Vec<u8>>),
    /// Downloaded again, straight to disk (the preview was cut off at 16 MiB).
    Download(String),
    /// Content that came inline in an MCP answer, decoded whole as it is written.
    Inline(super::mcp::content::Inline),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Saved {
    Written {
        path: String,
        bytes: u64,
    },
    /// Something is already there: the user is asked before it is replaced.
    Exists {
        path: String,
    },
}

/// Why a save failed; each names the file asked for (the temporary name beside it means nothing
/// to the user) or the download.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("cannot write {path}: {source}")]
    Disk { path: String, source: std::io::Error },
    #[error(transparent)]
    Inline(#[from] super::artifact::InlineError),
    #[error(transparent)]
    Stopped(#[from] tokio::task::JoinError),
    #[error("only http(s) artifacts are downloaded, not {}", crate::text::visible(.0))]
    NotHttp(String),
    #[error(transparent)]
    Client(reqwest::Error),
    #[error(transparent)]
    Download(super::InvokeError),
    /// `url` is masked.
    #[error("GET {url}: {redirect}")]
    Redirected { url: String, redirect: String },
    /// `url` is masked.
    #[error("GET {url} answered {status}")]
    Status { url: String, status: reqwest::StatusCode },
}

/// Writes `source` to `path`. A download that stalls for `timeout` fails; progress is reported as
/// `(written, total)`.
pub async fn save(
    path: &str,
    source: SaveSource,
    overwrite: bool,
    timeout: Duration,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Saved, SaveError> {
    let target = Path::new(path);
    if !overwrite && tokio::fs::symlink_metadata(target).await.is_ok() {
        return Ok(Saved::Exists { path: path.to_string() });
    }
    let part = part_file(target);
    // create_new: never an existing file or a symlink planted at this name.
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&part)
        .await
        .map_err(|source| SaveError::Disk { path: path.to_string(), source })?;
    let written = match write(&mut file, path, source, timeout, &mut progress).await {
        Ok(written) => written,
        Err(e) => {
            drop(file);
            let _ = tokio::fs::remove_file(&part).await;
            return Err(e);
        }
    };
    drop(file);
    let placed = if overwrite {
        // rename replaces the name itself: a symlink there is replaced, not followed.
        tokio::fs::rename(&part, target).await
    } else {
        // A link fails if the name was taken meanwhile, where a rename would replace it.
        let linked = tokio::fs::hard_link(&part, target).await;
        let _ = tokio::fs::remove_file(&part).await;
        if let Err(e) = &linked
            && e.kind() == std::io::ErrorKind::AlreadyExists
        {
            return Ok(Saved::Exists { path: path.to_string() });
        }
        linked
    };
    if let Err(source) = placed {
        let _ = tokio::fs::remove_file(&part).await;
        return Err(SaveError::Disk { path: path.to_string(), source });
    }
    Ok(Saved::Written { path: path.to_string(), bytes: written })
}

/// A new name beside `target`, hidden, that no one else would pick.
fn part_file(target: &Path) -> PathBuf {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let folder = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    folder.join(format!(".{name}.{}.part", uuid::Uuid::new_v4().simple()))
}

/// Writes `source` to `file`, the part file for `path`.
async fn write(
    file: &mut tokio::fs::File,
    path: &str,
    source: SaveSource,
    timeout: Duration,
    progress: &mut impl FnMut(u64, Option<u64>),
) -> Result<u64, SaveError> {
    let disk = |source: std::io::Error| SaveError::Disk { path: path.to_string(), source };
    let written = match source {
        SaveSource::Bytes(bytes) => {
            file.write_all(&bytes).await.map_err(disk)?;
            bytes.len() as u64
        }
        SaveSource::Inline(data) => {
            // Decoding a large blob is CPU work: not on the runtime's threads.
            let bytes = tokio::task::spawn_blocking(move || super::artifact::inline_bytes(&data)).await??;
            file.write_all(&bytes).await.map_err(disk)?;
            bytes.len() as u64
        }
        SaveSource::Download(url) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(SaveError::NotHttp(url));
            }
            // No limit on the whole download (it may be large), only on silence.
            let client = super::http::client_builder()
                .connect_timeout(timeout.min(Duration::from_secs(10)))
                .read_timeout(timeout)
                .build()
                .map_err(SaveError::Client)?;
            let failed = |e: reqwest::Error| SaveError::Download(super::InvokeError::from_reqwest(e, &url));
            let mut response = client.get(&url).send().await.map_err(failed)?;
            if let Some(redirect) = super::http::refused_redirect(&response) {
                return Err(SaveError::Redirected { url: crate::redact::url(&url), redirect });
            }
            if !response.status().is_success() {
                return Err(SaveError::Status { url: crate::redact::url(&url), status: response.status() });
            }
            let total = response.content_length();
            let mut written = 0u64;
            while let Some(chunk) = response.chunk().await.map_err(failed)? {
                file.write_all(&chunk).await.map_err(disk)?;
                written += chunk.len() as u64;
                progress(written, total);
            }
            written
        }
    };
    file.flush().await.map_err(disk)?;
    file.sync_all().await.map_err(disk)?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> SaveSource {
        SaveSource::Bytes(Arc::new(text.as_bytes().to_vec()))
    }

    #[tokio::test]
    async fn an_existing_file_is_kept_unless_told_and_a_symlink_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let at = path.to_str().unwrap();
        let saved = save(at, bytes("one"), false, Duration::from_secs(5), |_, _| {}).await.unwrap();
        assert_eq!(saved, Saved::Written { path: at.into(), bytes: 3 });
        let again = save(at, bytes("two"), false, Duration::from_secs(5), |_, _| {}).await.unwrap();
        assert_eq!(again, Saved::Exists { path: at.into() });
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one");
        save(at, bytes("two"), true, Duration::from_secs(5), |_, _| {}).await.unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        #[cfg(unix)]
        {
            let victim = dir.path().join("victim");
            std::fs::write(&victim, "precious").unwrap();
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&victim, &link).unwrap();
            let link = link.to_str().unwrap();
            assert_eq!(
                save(link, bytes("x"), false, Duration::from_secs(5), |_, _| {}).await.unwrap(),
                Saved::Exists { path: link.into() }
            );
            save(link, bytes("x"), true, Duration::from_secs(5), |_, _| {}).await.unwrap();
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious", "the symlink was followed");
        }
        let leftovers = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".part")));
        assert_eq!(leftovers.count(), 0);
    }

    #[tokio::test]
    async fn inline_content_is_decoded_as_it_is_written() {
        use crate::invoke::mcp::content::Inline;
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
        let blob = SaveSource::Inline(Inline::Base64(Arc::from("AAEC/w==")));
        let saved = save(&at("b.bin"), blob, false, Duration::from_secs(5), |_, _| {}).await.unwrap();
        assert_eq!(saved, Saved::Written { path: at("b.bin"), bytes: 4 });
        assert_eq!(std::fs::read(at("b.bin")).unwrap(), [0, 1, 2, 255]);
        let text = SaveSource::Inline(Inline::Text(Arc::from("héllo")));
        save(&at("t.txt"), text, false, Duration::from_secs(5), |_, _| {}).await.unwrap();
        assert_eq!(std::fs::read_to_string(at("t.txt")).unwrap(), "héllo");
        let broken = SaveSource::Inline(Inline::Base64(Arc::from("not*base64")));
        let error = save(&at("x.bin"), broken, false, Duration::from_secs(5), |_, _| {}).await.unwrap_err();
        assert!(error.to_string().contains("not valid base64"), "{error}");
        assert!(!dir.path().join("x.bin").exists());
    }
}
