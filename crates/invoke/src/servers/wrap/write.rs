//! Writing a config anew without a moment where its secrets (the `env` of its servers) are
//! readable by others: the new text goes to a file beside it that is created readable by the
//! user alone before a byte is written, is given its final permissions, and is renamed over the
//! config. A write that fails removes that file.

use std::fs::Permissions;
use std::io::{self, Write as _};
use std::path::Path;

use tempfile::NamedTempFile;

/// What a temporary file's name ends with, so a stray one (tooldeck killed while writing) says
/// whose it is.
const TEMPORARY_SUFFIX: &str = ".tooldeck-tmp";

/// Writes `bytes` to `path` through a private file beside it renamed over it, with
/// `permissions` (the config's own, so a rename keeps the file's mode).
pub(super) fn replace(path: &Path, bytes: &[u8], permissions: Permissions) -> io::Result<()> {
    let mut temporary = private_beside(path)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    temporary.as_file().set_permissions(permissions)?;
    // On failure the error holds the temporary file, and dropping it removes it.
    temporary.persist(path).map(drop).map_err(|failed| failed.error)
}

/// A new empty file in `path`'s folder, named after it, readable and writable by the user
/// alone from its creation (0600 on Unix); removed when dropped unless persisted.
pub(super) fn private_beside(path: &Path) -> io::Result<NamedTempFile> {
    let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(TEMPORARY_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(Permissions::from_mode(0o600));
    }
    // Elsewhere the file is created with the folder's access rules, which the user's own
    // folders keep to the user.
    builder.tempfile_in(folder)
}

/// Permissions readable by the user alone, for a backup of a config that may hold secrets.
#[cfg(unix)]
pub(super) fn private_like(_like: Permissions) -> Permissions {
    use std::os::unix::fs::PermissionsExt;
    Permissions::from_mode(0o600)
}

/// Where there are no Unix modes, the config's own (its folder's access rules keep it).
#[cfg(not(unix))]
pub(super) fn private_like(like: Permissions) -> Permissions {
    like
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(folder: &Path) -> Vec<String> {
        std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(TEMPORARY_SUFFIX))
            .collect()
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn the_temporary_file_is_private_before_a_byte_is_written_and_the_config_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let config = folder.path().join("mcp.json");
        std::fs::write(&config, "{}").unwrap();
        std::fs::set_permissions(&config, Permissions::from_mode(0o640)).unwrap();
        let temporary = private_beside(&config).unwrap();
        assert_eq!(temporary.path().parent(), Some(folder.path()), "beside the config: a rename, not a copy");
        assert_eq!(mode(temporary.path()), 0o600, "private while empty, so while written too");
        drop(temporary);
        assert!(leftovers(folder.path()).is_empty());

        let original = std::fs::metadata(&config).unwrap().permissions();
        replace(&config, b"{\"new\": 1}", original.clone()).unwrap();
        assert_eq!(std::fs::read(&config).unwrap(), b"{\"new\": 1}");
        assert_eq!(mode(&config), 0o640, "the config keeps its mode");
        let backup = folder.path().join("mcp.json.tooldeck-backup");
        replace(&backup, b"{}", private_like(original)).unwrap();
        assert_eq!(mode(&backup), 0o600);
        assert!(leftovers(folder.path()).is_empty(), "{:?}", leftovers(folder.path()));
    }

    #[test]
    fn a_write_that_fails_leaves_no_file_behind() {
        let folder = tempfile::tempdir().unwrap();
        // A folder where the config should be: the rename over it fails after the write.
        let config = folder.path().join("settings.json");
        std::fs::create_dir(&config).unwrap();
        std::fs::write(config.join("inside"), "x").unwrap();
        let permissions = std::fs::metadata(folder.path()).unwrap().permissions();
        assert!(replace(&config, b"secret", permissions).is_err());
        assert!(leftovers(folder.path()).is_empty(), "{:?}", leftovers(folder.path()));
        assert!(config.join("inside").is_file());
    }
}
