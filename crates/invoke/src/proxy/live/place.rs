//! Where running proxies are found: a folder of the user's own (`tooldeck/proxies` in the
//! runtime folder, else a private one in the temporary folder), a socket each, named for the
//! proxy. The folder is made 0700 and refused when it is not the user's alone: a socket there is
//! how another user would read the session.

use std::io;
use std::path::{Path, PathBuf};

/// What a proxy's live feed cannot do.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("cannot make the folder of running proxies {path}: {source}")]
    Folder { path: String, source: io::Error },
    #[error(
        "{path} is not private to you (owned by another user, or open to others): no proxy is published or read there"
    )]
    NotPrivate { path: String },
    #[error("cannot publish the live feed at {path}: {source}")]
    Bind { path: String, source: io::Error },
    #[error("no running proxy is named {name} (tooldeck attach lists those running)")]
    NoSuchProxy { name: String },
    #[error("the proxy {name} belongs to another user: attaching to it is refused")]
    OtherUser { name: String },
    #[error("the proxy {name} does not answer ({source}): it may have just ended")]
    NoAnswer { name: String, source: io::Error },
    #[error("the proxy {name} said something that is not a tooldeck proxy's feed")]
    NotAFeed { name: String },
}

/// The folder of running proxies' sockets (made, private), or why there is none.
pub fn folder() -> Result<PathBuf, LiveError> {
    let folder = match dirs::runtime_dir() {
        Some(runtime) => runtime.join("tooldeck").join("proxies"),
        // No runtime folder (macOS, Windows, a bare session): a folder of the user's own in the
        // temporary folder, by name; whose it is is checked below, not trusted from the name.
        None => {
            let user = std::env::var("USER").or_else(|_| std::env::var("USERNAME")).unwrap_or_default();
            let user: String = user.chars().filter(char::is_ascii_alphanumeric).take(32).collect();
            std::env::temp_dir().join(format!("tooldeck-{user}")).join("proxies")
        }
    };
    crate::files::create_private_dir(&folder)
        .map_err(|source| LiveError::Folder { path: folder.display().to_string(), source })?;
    private(&folder)?;
    Ok(folder)
}

/// Refuses a folder that others may enter (Unix: group or others have any right on it) or that
/// another user owns.
fn private(folder: &Path) -> Result<(), LiveError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let me = own_uid();
        let open = std::fs::metadata(folder)
            .map(|m| m.permissions().mode() & 0o077 != 0 || Some(m.uid()) != me)
            .unwrap_or(true);
        if open {
            return Err(LiveError::NotPrivate { path: folder.display().to_string() });
        }
    }
    // Elsewhere (Windows) the folder is under the user's own temporary folder, which the
    // system's default access rules keep to that user.
    #[cfg(not(unix))]
    let _ = folder;
    Ok(())
}

/// A proxy's name as a file name: letters, digits, `.`, `_` and `-` (anything else a `-`),
/// at most 64 characters; empty becomes `proxy`.
pub fn file_name(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' })
        .take(64)
        .collect();
    let name = name.trim_start_matches('.').to_string();
    if name.is_empty() { "proxy".to_string() } else { name }
}

/// The name a proxy gets when `--name` gives none: the server's script or program, without its
/// folder and extension (`node /srv/notes.js` is `notes`).
pub fn default_name(command: &[String]) -> String {
    const RUNNERS: [&str; 12] =
        ["node", "nodejs", "python", "python3", "deno", "bun", "npx", "uv", "uvx", "java", "ruby", "sh"];
    let stem = |word: &str| {
        let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
        base.split('.').next().unwrap_or(base).to_string()
    };
    let program = command.first().map(|w| stem(w)).unwrap_or_default();
    let script = command.iter().skip(1).find(|w| !w.starts_with('-') && !matches!(w.as_str(), "run" | "-y"));
    match script {
        Some(script) if RUNNERS.contains(&program.as_str()) => file_name(&stem(script)),
        _ => file_name(&program),
    }
}

/// The path of the socket (Unix) or port file (elsewhere) named `name` in `folder`.
pub fn path_of(folder: &Path, name: &str) -> PathBuf {
    folder.join(format!("{}.{}", file_name(name), super::EXTENSION))
}

/// The user this process runs as, read from a file it makes and removes at once (no `unsafe`
/// call for it). `None` when no file can be made.
#[cfg(unix)]
pub fn own_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let probe = std::env::temp_dir().join(format!(".tooldeck-me-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
    let made = std::fs::OpenOptions::new().write(true).create_new(true).open(&probe).ok()?;
    let uid = made.metadata().ok().map(|m| m.uid());
    let _ = std::fs::remove_file(&probe);
    uid
}

/// Refuses a socket that another user owns (Unix), with the proxy's name.
pub fn owned_by_me(path: &Path, name: &str) -> Result<(), LiveError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let owner = std::fs::symlink_metadata(path).map(|m| m.uid()).ok();
        check_owner(owner, own_uid(), name)?;
    }
    #[cfg(not(unix))]
    let _ = (path, name);
    Ok(())
}

/// The owner check itself: a socket whose owner is not known, or not the user, is refused.
pub fn check_owner(owner: Option<u32>, me: Option<u32>, name: &str) -> Result<(), LiveError> {
    match (owner, me) {
        (Some(owner), Some(me)) if owner == me => Ok(()),
        (None, _) => Err(LiveError::NoSuchProxy { name: name.to_string() }),
        _ => Err(LiveError::OtherUser { name: name.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_file_names_and_default_to_the_script() {
        assert_eq!(file_name("my notes/../x"), "my-notes-..-x");
        assert_eq!(file_name("..."), "proxy");
        let words = |line: &str| line.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert_eq!(default_name(&words("node /srv/notes.js")), "notes");
        assert_eq!(default_name(&words("/usr/bin/my-server --port 1")), "my-server");
        assert_eq!(default_name(&words("npx -y @acme/files-mcp")), "files-mcp");
        assert_eq!(default_name(&[]), "proxy");
    }

    #[test]
    fn another_users_socket_is_refused() {
        assert!(check_owner(Some(1000), Some(1000), "n").is_ok());
        let refused = check_owner(Some(0), Some(1000), "notes").unwrap_err().to_string();
        assert_eq!(refused, "the proxy notes belongs to another user: attaching to it is refused");
        assert!(matches!(check_owner(None, Some(1), "n"), Err(LiveError::NoSuchProxy { .. })));
    }
}
