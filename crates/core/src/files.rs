//! The user's files, read and written with care: reads are bounded and never block on a FIFO or
//! a device (`/dev/zero` as a config file, a FIFO in a folder of definitions), and the files that
//! hold calls (history, saved cases) are private to the user.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// The most any file the user names is read to (definition files have their own, same limit).
pub const MAX_READ_BYTES: u64 = 32 * 1024 * 1024;

/// True for what may be read as a file: a regular file (after symlinks).
fn regular(path: &Path) -> io::Result<()> {
    let kind = fs::metadata(path)?.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() { "it is a folder" } else { "it is not a regular file (a FIFO, socket or device)" };
    Err(io::Error::new(io::ErrorKind::InvalidInput, what))
}

/// Opens `path` for reading if it is a regular file. On Unix the open itself cannot block (a FIFO
/// swapped in after the check would wait for a writer), and the opened file is checked again.
fn open_regular(path: &Path) -> io::Result<File> {
    regular(path)?;
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is not a regular file"));
    }
    Ok(file)
}

/// The first `limit` bytes of a regular file (callers that report an oversized file themselves
/// ask for one byte more than they accept).
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    // Sized from the file's length, so a large file is read without growing (and copying) the
    // buffer at each doubling; the length is only a hint, the limit still bounds the read.
    let expected = file.metadata().map_or(0, |m| m.len()).min(limit);
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).saturating_add(1));
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The whole file, if it is a regular file of at most `max` bytes. Errors do not name the path:
/// the caller says which file it was.
pub fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let bytes = read_at_most(path, max + 1)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is larger than {}", crate::text::human_bytes(max)),
        ));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text, at most [`MAX_READ_BYTES`].
pub fn read_text(path: &Path) -> io::Result<String> {
    let bytes = read_bounded(path, MAX_READ_BYTES)?;
    String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// Opens a file that holds calls for appending: created readable by the user alone (0600, in
/// folders made 0700), and only ever a regular file (a FIFO there would hang the write).
pub fn append_private(path: &Path) -> io::Result<File> {
    if fs::symlink_metadata(path).is_ok() {
        regular(path)?;
    } else if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        create_private_dir(folder)?;
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Opens an existing file that holds calls to write it anew (a case file getting its server):
/// only ever a regular file, kept private to the user.
pub fn write_private(path: &Path) -> io::Result<File> {
    regular(path)?;
    let mut options = OpenOptions::new();
    options.write(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Writes `bytes` as the whole of a file that holds calls (a cassette, an eval report): created
/// 0600 (its folder made 0700), only ever a regular file, and an older file made private too.
pub fn replace_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let existed = fs::symlink_metadata(path).is_ok();
    if existed {
        regular(path)?;
    } else if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        create_private_dir(folder)?;
    }
    let mut options = OpenOptions::new();
    options.create(true).write(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NONBLOCK);
    }
    let mut file = options.open(path)?;
    // The mode is only given to a file the open creates.
    #[cfg(unix)]
    if existed {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.flush()
}

/// Makes `folder` and its missing parents, each new one private to the user.
pub fn create_private_dir(folder: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounded_and_regular_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        fs::write(&path, "12345").unwrap();
        assert_eq!(read_bounded(&path, 5).unwrap(), b"12345");
        assert!(read_bounded(&path, 4).unwrap_err().to_string().contains("larger than"));
        assert!(read_text(dir.path()).unwrap_err().to_string().contains("a folder"));
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_without_blocking() {
        assert!(read_text(Path::new("/dev/zero")).unwrap_err().to_string().contains("not a regular file"));
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        assert!(read_text(&fifo).unwrap_err().to_string().contains("not a regular file"));
        assert!(append_private(&fifo).unwrap_err().to_string().contains("not a regular file"));
    }

    #[cfg(unix)]
    #[test]
    fn files_that_hold_calls_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/deeper/history.jsonl");
        drop(append_private(&path).unwrap());
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("new/deeper")), 0o700);
        assert_eq!(mode(&dir.path().join("new")), 0o700);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_written_whole_is_private_even_when_it_was_not() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let new = dir.path().join("cassettes/kelvin.jsonl");
        replace_private(&new, b"one").unwrap();
        assert_eq!((mode(&new), mode(&dir.path().join("cassettes"))), (0o600, 0o700));
        let old = dir.path().join("report.json");
        fs::write(&old, "an older, longer report").unwrap();
        fs::set_permissions(&old, fs::Permissions::from_mode(0o644)).unwrap();
        replace_private(&old, b"new").unwrap();
        assert_eq!((fs::read_to_string(&old).unwrap().as_str(), mode(&old)), ("new", 0o600));
        assert!(replace_private(dir.path(), b"x").unwrap_err().to_string().contains("a folder"));
    }
}
