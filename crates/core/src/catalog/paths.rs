//! Files, folders and stdin → a [`Loaded`] catalog: folders walked for definition files, every
//! file read bounded and parsed on all cores, progress told as each file is done. One bad file
//! never stops the others.

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::load::{FileOutcome, LoadOptions, Syntax, parse_bytes, run_in_parallel, whole_file};
use super::{Diagnostic, Loaded, Severity};

pub(super) const EXTENSIONS: &[&str] = &["json", "json5", "jsonc", "yaml", "yml"];

/// How far a load has come: files read of how many, and their bytes (for a loading screen).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadProgress {
    pub files_done: usize,
    pub files: usize,
    pub bytes_done: u64,
    pub bytes: u64,
}

/// Loads files and folders (recursively, by extension) and `-` for stdin, in the order given.
/// Files are read and parsed on all cores; tools and diagnostics keep the order of the files.
pub fn load_paths(paths: &[PathBuf], options: &LoadOptions) -> Loaded {
    load_paths_reporting(paths, options, &|_| {})
}

/// [`load_paths`], telling `report` after each file how far the load has come.
pub fn load_paths_reporting(
    paths: &[PathBuf],
    options: &LoadOptions,
    report: &(dyn Fn(LoadProgress) + Sync),
) -> Loaded {
    super::budget::for_catalog(|| load_jobs(paths, options, report))
}

fn load_jobs(paths: &[PathBuf], options: &LoadOptions, report: &(dyn Fn(LoadProgress) + Sync)) -> Loaded {
    let mut jobs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            let result = std::io::stdin().lock().take(options.max_file_bytes + 1).read_to_end(&mut bytes);
            jobs.push(match result {
                Ok(_) => Job::Stdin(bytes),
                Err(e) => Job::Problem(whole_file("<stdin>", format!("cannot read standard input: {e}"))),
            });
            continue;
        }
        let label = path.display().to_string();
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut files = Vec::new();
                let mut problems = Vec::new();
                walk(path, &mut files, &mut HashSet::new(), &mut problems);
                jobs.extend(problems.into_iter().map(Job::Problem));
                if files.is_empty() {
                    let message = format!("no definition files (.{}) in this folder", EXTENSIONS.join(", ."));
                    jobs.push(Job::Problem(Diagnostic { severity: Severity::Warning, ..whole_file(&label, message) }));
                }
                jobs.extend(files.into_iter().map(|path| Job::File { path, named_by_user: false }));
            }
            Ok(_) => jobs.push(Job::File { path: path.clone(), named_by_user: true }),
            Err(e) => jobs.push(Job::Problem(whole_file(&label, format!("cannot open: {e}")))),
        }
    }
    let sizes: Vec<u64> = jobs.iter().map(Job::size).collect();
    let files = jobs.iter().filter(|job| !matches!(job, Job::Problem(_))).count();
    let bytes = sizes.iter().sum();
    let files_done = std::sync::atomic::AtomicUsize::new(0);
    let bytes_done = std::sync::atomic::AtomicU64::new(0);
    report(LoadProgress { files, bytes, ..LoadProgress::default() });
    let options = &LoadOptions { parallel_tools: options.parallel_tools && files <= 1, ..*options };
    let indexed: Vec<(usize, &Job)> = jobs.iter().enumerate().collect();
    let outcomes = run_in_parallel(indexed, |(i, job)| {
        let outcome = job.run(options);
        if !matches!(job, Job::Problem(_)) {
            use std::sync::atomic::Ordering::Relaxed;
            let files_done = files_done.fetch_add(1, Relaxed) + 1;
            let bytes_done = bytes_done.fetch_add(sizes[i], Relaxed) + sizes[i];
            report(LoadProgress { files_done, files, bytes_done, bytes });
        }
        outcome
    });
    let mut loaded = Loaded::default();
    for outcome in outcomes {
        loaded.merge(outcome);
    }
    loaded
}

enum Job {
    Stdin(Vec<u8>),
    File { path: PathBuf, named_by_user: bool },
    Problem(Diagnostic),
}

impl Job {
    /// The bytes it will read, as far as known before reading.
    fn size(&self) -> u64 {
        match self {
            Job::Stdin(bytes) => bytes.len() as u64,
            Job::File { path, .. } => fs::metadata(path).map_or(0, |m| m.len()),
            Job::Problem(_) => 0,
        }
    }

    fn run(&self, options: &LoadOptions) -> FileOutcome {
        match self {
            Job::Stdin(bytes) => {
                parse_bytes("<stdin>", bytes, &LoadOptions { syntax: Syntax::Json5, named_by_user: true, ..*options })
            }
            Job::File { path, named_by_user } => {
                let label = path.display().to_string();
                let syntax = Syntax::of_name(&label);
                // One byte over the cap, so an oversized file is reported as such.
                let bytes = crate::files::read_at_most(path, options.max_file_bytes + 1);
                match bytes {
                    Ok(bytes) => {
                        parse_bytes(&label, &bytes, &LoadOptions { syntax, named_by_user: *named_by_user, ..*options })
                    }
                    Err(e) => FileOutcome::problem(whole_file(&label, format!("cannot read: {e}"))),
                }
            }
            Job::Problem(diagnostic) => FileOutcome::not_a_file(diagnostic.clone()),
        }
    }
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, visited: &mut HashSet<PathBuf>, diagnostics: &mut Vec<Diagnostic>) {
    // Following a symlink back to a folder already walked would loop forever.
    let Ok(canonical) = fs::canonicalize(dir) else { return };
    if !visited.insert(canonical) {
        return;
    }
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            diagnostics.push(whole_file(&dir.display().to_string(), format!("cannot read folder: {e}")));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let hidden = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        let definition = EXTENSIONS.contains(&extension(&path).as_str());
        let kind = fs::metadata(&path).map(|m| m.file_type());
        if kind.as_ref().is_ok_and(|k| k.is_dir()) {
            walk(&path, files, visited, diagnostics);
        } else if definition && kind.as_ref().is_ok_and(|k| !k.is_file()) {
            // A FIFO would block the read forever, a device would never end.
            let message = "skipped: not a regular file (a FIFO, socket or device)".to_string();
            diagnostics
                .push(Diagnostic { severity: Severity::Warning, ..whole_file(&path.display().to_string(), message) });
        } else if definition {
            // A regular file, or one that cannot be looked at: reading it says which.
            files.push(path);
        }
    }
}

fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loading screen's numbers: every file and byte is counted once, and the last report
    /// says all were read.
    #[test]
    fn a_load_reports_its_progress_file_by_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = 0;
        for n in 0..5 {
            let text = format!(r#"{{"name": "tool_{n}", "parameters": {{"type": "object"}}}}"#);
            bytes += text.len() as u64;
            fs::write(dir.path().join(format!("t{n}.json")), text).unwrap();
        }
        let reports = std::sync::Mutex::new(Vec::new());
        let loaded = load_paths_reporting(&[dir.path().to_path_buf()], &LoadOptions::default(), &|p| {
            reports.lock().unwrap().push(p);
        });
        assert_eq!(loaded.catalog.len(), 5);
        let reports = reports.into_inner().unwrap();
        assert_eq!(reports.len(), 6, "one before reading, one per file: {reports:?}");
        assert_eq!(reports[0], LoadProgress { files: 5, bytes, ..LoadProgress::default() });
        let mut done: Vec<usize> = reports.iter().map(|p| p.files_done).collect();
        done.sort_unstable();
        assert_eq!(done, [0, 1, 2, 3, 4, 5]);
        assert!(reports.iter().any(|p| p.files_done == 5 && p.bytes_done == bytes));
    }
}
