//! What a user feels in a real terminal, on the 1,000-tool catalog of benches/catalog.rs: the
//! release binary runs in a pseudo-terminal and its screen is read by a vt100 emulator.
//!
//! - first frame: from start to the first drawn screen (a loading screen counts);
//! - usable list: from start to the list showing all 1,000 tools, against `tooldeck list --json`
//!   on the same files (the ratio is printed);
//! - filter keystroke: from a key typed in the filter box to the frame that shows it (p50/p95
//!   printed over 200 keys).

#[path = "support/generated_catalog.rs"]
mod generated_catalog;

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

const ROWS: u16 = 40;
const COLS: u16 = 120;
const PATIENCE: Duration = Duration::from_secs(30);

struct Screen {
    parser: vt100::Parser,
    bytes: usize,
}

/// The app in a pseudo-terminal; its screen updates as output arrives.
struct App {
    _master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    screen: Arc<(Mutex<Screen>, Condvar)>,
    started: Instant,
}

impl App {
    fn start(catalog: &Path) -> App {
        let pair = native_pty_system()
            .openpty(PtySize { rows: ROWS, cols: COLS, pixel_width: 0, pixel_height: 0 })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tooldeck"));
        cmd.arg(catalog);
        cmd.env("TERM", "xterm-256color");
        cmd.env("TOOLDECK_HISTORY", std::env::temp_dir().join("tooldeck-bench-history.jsonl"));
        let started = Instant::now();
        let child = pair.slave.spawn_command(cmd).expect("the binary starts");
        drop(pair.slave);
        let rows = NonZeroU16::new(ROWS).expect("rows");
        let cols = NonZeroU16::new(COLS).expect("cols");
        let screen =
            Arc::new((Mutex::new(Screen { parser: vt100::Parser::new(rows, cols, 0), bytes: 0 }), Condvar::new()));
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let sink = Arc::clone(&screen);
        thread::spawn(move || {
            let mut buf = [0u8; 16384];
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                let (lock, changed) = &*sink;
                let mut screen = lock.lock().unwrap_or_else(|e| e.into_inner());
                screen.parser.process(&buf[..n]);
                screen.bytes += n;
                changed.notify_all();
            }
        });
        let writer = pair.master.take_writer().expect("writer");
        App { _master: pair.master, writer, child, screen, started }
    }

    /// Waits until the screen satisfies `test`; the time since `since`.
    fn wait_for(&self, since: Instant, test: impl Fn(&str) -> bool) -> Duration {
        let (lock, changed) = &*self.screen;
        let mut screen = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if test(&screen.parser.screen().contents()) {
                return since.elapsed();
            }
            let (next, timeout) = changed.wait_timeout(screen, PATIENCE).unwrap_or_else(|e| e.into_inner());
            assert!(!timeout.timed_out(), "the screen never showed it:\n{}", next.parser.screen().contents());
            screen = next;
        }
    }

    fn send(&mut self, keys: &str) -> Instant {
        let at = Instant::now();
        self.writer.write_all(keys.as_bytes()).and_then(|()| self.writer.flush()).expect("keys");
        at
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn catalog() -> PathBuf {
    generated_catalog::write_catalog(&Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-catalog"))
}

fn drawn(screen: &str) -> bool {
    screen.chars().any(|c| !c.is_whitespace())
}

fn all_listed(screen: &str) -> bool {
    screen.contains("tools (1000)")
}

/// The filter box (the list pane's first line) holds exactly `filter`.
fn filter_shows(screen: &str, filter: &str) -> bool {
    screen.lines().nth(1).is_some_and(|line| line.starts_with(&format!("│/{filter} ")))
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn bench_terminal(c: &mut Criterion) {
    let catalog = catalog();
    let mut group = c.benchmark_group("real terminal, 1000 tools");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.bench_function("first frame", |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    let app = App::start(&catalog);
                    app.wait_for(app.started, drawn)
                })
                .sum()
        })
    });
    group.bench_function("list usable", |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    let app = App::start(&catalog);
                    app.wait_for(app.started, all_listed)
                })
                .sum()
        })
    });
    group.bench_function("tooldeck list --json (same files)", |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    let started = Instant::now();
                    let status = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
                        .args(["list", "--json"])
                        .arg(&catalog)
                        .stdout(Stdio::null())
                        .status()
                        .expect("list runs");
                    assert!(status.success());
                    started.elapsed()
                })
                .sum()
        })
    });
    group.finish();
    summary(&catalog);
}

/// Medians of interleaved runs (the machine's speed drifts between criterion's groups), the
/// ratio asked for, and the filter keystroke's percentiles.
fn summary(catalog: &Path) {
    let (mut first, mut usable, mut listed) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..15 {
        let app = App::start(catalog);
        first.push(app.wait_for(app.started, drawn));
        usable.push(app.wait_for(app.started, all_listed));
        drop(app);
        let started = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
            .args(["list", "--json"])
            .arg(catalog)
            .stdout(Stdio::null())
            .status()
            .expect("list runs");
        assert!(status.success());
        listed.push(started.elapsed());
    }
    let (first, usable, listed) =
        (percentile(&mut first, 0.5), percentile(&mut usable, 0.5), percentile(&mut listed, 0.5));
    println!(
        "interleaved medians: first frame {first:.1?}, list usable {usable:.1?}, list --json {listed:.1?}; \
         usable / list --json = {:.2}",
        usable.as_secs_f64() / listed.as_secs_f64()
    );

    let mut app = App::start(catalog);
    app.wait_for(app.started, all_listed);
    let opened = app.send("/");
    app.wait_for(opened, |s| filter_shows(s, ""));
    let mut keystrokes = Vec::new();
    // Type a word a letter at a time (each narrows the list), then take it back out.
    for _ in 0..20 {
        let mut filter = String::new();
        for letter in "param".chars() {
            filter.push(letter);
            let typed = app.send(&letter.to_string());
            keystrokes.push(app.wait_for(typed, |s| filter_shows(s, &filter)));
        }
        while filter.pop().is_some() {
            let erased = app.send("\x7f");
            keystrokes.push(app.wait_for(erased, |s| filter_shows(s, &filter)));
        }
    }
    let p50 = percentile(&mut keystrokes, 0.5);
    let p95 = percentile(&mut keystrokes, 0.95);
    println!("filter keystroke to frame over {} keys: p50 {p50:.2?}, p95 {p95:.2?}", keystrokes.len());
}

criterion_group!(benches, bench_terminal);
criterion_main!(benches);
