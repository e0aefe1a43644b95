use super::*;

fn next(watch: &mut Watch, within: Duration) -> Option<Change> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    runtime.block_on(async { tokio::time::timeout(within, watch.changed()).await.ok().flatten() })
}

fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp folder");
    let path = std::fs::canonicalize(dir.path()).expect("canonical");
    (dir, path)
}

#[test]
fn a_burst_of_writes_is_one_change() {
    let (_dir, path) = folder();
    let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
    for i in 0..5 {
        std::fs::write(path.join("server.sh"), format!("echo {i}")).expect("write");
    }
    std::fs::write(path.join("tools.json"), "[]").expect("write");
    let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
    assert!(change.paths.contains(&path.join("server.sh")), "{change:?}");
    assert!(change.paths.contains(&path.join("tools.json")), "{change:?}");
    assert_eq!(next(&mut watch, Duration::from_millis(500)), None, "one change for the burst");
}

#[test]
fn an_editors_scratch_files_are_not_named() {
    let (_dir, path) = folder();
    let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
    // vim's save: its write test, its swap file and backup, then the file itself.
    for scratch in ["4913", ".server.js.swp", "server.js~", ".#server.js", "#server.js#", "s.js___jb_tmp___"] {
        std::fs::write(path.join(scratch), "x").expect("write");
    }
    std::fs::write(path.join("server.js"), "new").expect("write");
    let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
    assert_eq!(change.paths, vec![path.join("server.js")], "{change:?}");
    for kept in ["server.js", "notes.swp", "#1", "tmp", "a.kate"] {
        assert!(!is_editor_scratch(kept), "{kept}");
    }
}

#[test]
fn ignored_folders_are_not_changes_unless_named() {
    let (_dir, path) = folder();
    for name in IGNORED {
        std::fs::create_dir(path.join(name)).expect("mkdir");
    }
    let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
    for name in IGNORED {
        std::fs::write(path.join(name).join("x"), "1").expect("write");
    }
    assert_eq!(next(&mut watch, Duration::from_millis(600)), None);
    std::fs::write(path.join("src.rs"), "1").expect("write");
    let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
    assert_eq!(change.paths, vec![path.join("src.rs")]);

    // Named, an ignored folder is watched.
    let mut named = Watch::start(&[path.join("target")]).expect("watch");
    std::fs::write(path.join("target").join("y"), "1").expect("write");
    let change = next(&mut named, Duration::from_secs(5)).expect("a change");
    assert_eq!(change.paths, vec![path.join("target").join("y")]);
}

#[test]
fn a_watched_file_survives_a_save_by_rename_and_reading_is_no_change() {
    let (_dir, path) = folder();
    let file = path.join("server.sh");
    std::fs::write(&file, "v1").expect("write");
    let mut watch = Watch::start(std::slice::from_ref(&file)).expect("watch");
    // Reading is not a change; another file in its folder is not either.
    let _ = std::fs::read(&file).expect("read");
    std::fs::write(path.join("other"), "x").expect("write");
    assert_eq!(next(&mut watch, Duration::from_millis(600)), None);
    for version in ["v2", "v3"] {
        std::fs::write(path.join("server.sh.tmp"), version).expect("write");
        std::fs::rename(path.join("server.sh.tmp"), &file).expect("rename");
        let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
        assert_eq!(change.paths, vec![file.clone()]);
    }
}

#[test]
fn a_missing_path_is_an_error() {
    let (_dir, path) = folder();
    let error = Watch::start(&[path.join("nope")]).err().expect("an error");
    assert!(matches!(error, WatchError::Missing { .. }), "{error}");
}

#[test]
fn a_summary_names_a_few_files_and_counts_the_rest() {
    let mut change = Change::default();
    for i in 0..20 {
        change.add(PathBuf::from(format!("/p/f{i}.js")));
    }
    change.add(PathBuf::from("/p/f0.js"));
    assert_eq!(change.summary(), "f0.js, f1.js, f2.js and 17 more");
    assert_eq!(Change::default().summary(), "files");
}

#[test]
fn a_file_changed_while_another_is_still_settling_joins_its_change() {
    // The debouncer settles each path on its own; the burst is one all the same.
    let (_dir, path) = folder();
    let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
    std::fs::write(path.join("a.js"), "1").expect("write");
    std::thread::sleep(QUIET / 2);
    std::fs::write(path.join("b.js"), "1").expect("write");
    let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
    assert_eq!(change.paths, vec![path.join("a.js"), path.join("b.js")], "{change:?}");
    assert_eq!(next(&mut watch, Duration::from_millis(500)), None, "one change for the burst");
}

#[test]
fn a_change_names_at_most_a_few_paths_and_counts_the_rest() {
    let (_dir, path) = folder();
    let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
    for i in 0..PATHS_KEPT + 4 {
        std::fs::write(path.join(format!("f{i:02}")), "1").expect("write");
    }
    let change = next(&mut watch, Duration::from_secs(5)).expect("a change");
    assert_eq!((change.paths.len(), change.more), (PATHS_KEPT, 4), "{change:?}");
}

#[test]
fn files_that_stay_busy_are_reported_within_the_longest_wait() {
    let (_dir, path) = folder();
    let mut watch = Watch::start(std::slice::from_ref(&path)).expect("watch");
    let busy = path.join("build.log");
    let began = Instant::now();
    let writing = std::thread::spawn(move || {
        while began.elapsed() < LONGEST_WAIT + Duration::from_secs(1) {
            std::fs::write(&busy, format!("{:?}", began.elapsed())).expect("write");
            std::thread::sleep(QUIET / 3);
        }
    });
    let change = next(&mut watch, LONGEST_WAIT + Duration::from_secs(2)).expect("a change while busy");
    let waited = began.elapsed();
    assert!(waited < LONGEST_WAIT + QUIET * 2, "said after {waited:?}");
    assert!(waited >= LONGEST_WAIT - QUIET, "said after {waited:?}, before the files were quiet");
    assert_eq!(change.paths, vec![path.join("build.log")]);
    writing.join().expect("the writer");
}
