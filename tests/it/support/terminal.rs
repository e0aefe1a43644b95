//! A small real-terminal harness for tests outside `tests/pty.rs`: the binary in a
//! pseudo-terminal, keys in as bytes, the screen read back through a vt100 emulator.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// Generous: a debug build on a busy two-core machine can take seconds to draw a frame. Nothing
/// here measures time; the timeout only turns a hang into a readable failure.
pub const TIMEOUT: Duration = Duration::from_secs(15);

pub const ENTER: &str = "\r";
pub const ESC: &str = "\x1b";
pub const CTRL_C: &str = "\x03";
pub const CTRL_O: &str = "\x0f";
pub const CTRL_R: &str = "\x12";

/// One run of the binary in a pseudo-terminal; dropping it kills the child.
pub struct Terminal {
    _master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    screen: Arc<Mutex<vt100::Parser>>,
}

impl Terminal {
    /// `rows` x `cols`, with `env` set and the history in a file of the test's own.
    pub fn spawn<S: AsRef<OsStr>>(args: &[S], rows: u16, cols: u16, env: &[(&str, &str)]) -> Terminal {
        let size = PtySize { rows, cols, pixel_width: 0, pixel_height: 0 };
        let pair = native_pty_system().openpty(size).expect("a pseudo-terminal opens");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tooldeck"));
        cmd.args(args);
        cmd.cwd(env!("CARGO_MANIFEST_DIR"));
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        let history =
            std::env::temp_dir().join(format!("tooldeck-keys-pty-{}-{rows}x{cols}.jsonl", std::process::id()));
        cmd.env("TOOLDECK_HISTORY", history);
        for (name, value) in env {
            cmd.env(name, value);
        }
        let child = pair.slave.spawn_command(cmd).expect("the binary starts");
        drop(pair.slave);
        let nonzero = |n: u16| NonZeroU16::new(n).expect("a terminal dimension is not zero");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(nonzero(rows), nonzero(cols), 0)));
        let mut reader = pair.master.try_clone_reader().expect("the terminal can be read");
        let sink = Arc::clone(&screen);
        // Drained all the time: an undrained terminal would block the app's writes.
        thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                sink.lock().unwrap_or_else(|e| e.into_inner()).process(&buf[..n]);
            }
        });
        let writer = pair.master.take_writer().expect("the terminal can be written");
        Terminal { _master: pair.master, writer, child, screen }
    }

    fn parser(&self) -> MutexGuard<'_, vt100::Parser> {
        self.screen.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).expect("the terminal takes input");
        self.writer.flush().expect("the terminal takes input");
    }

    /// Sends keys one at a time, each after the screen settled, as a person types.
    pub fn type_slowly(&mut self, keys: &str) {
        for c in keys.chars() {
            self.send(&c.to_string());
            thread::sleep(Duration::from_millis(60));
        }
    }

    pub fn text(&self) -> String {
        self.parser().screen().contents()
    }

    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if ready(&text) {
                return text;
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; the screen shows:\n{text}");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_text(&self, needle: &str) -> String {
        self.wait_for(&format!("{needle:?} on screen"), |text| text.contains(needle))
    }

    /// Quits with Ctrl-C and waits for the app to end.
    pub fn quit(&mut self) {
        self.send(CTRL_C);
        let start = Instant::now();
        while self.child.try_wait().ok().flatten().is_none() {
            assert!(start.elapsed() < TIMEOUT, "the app did not quit:\n{}", self.text());
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The last line with text: the status bar.
pub fn bottom_line(text: &str) -> &str {
    text.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("")
}

/// The form row of field `name` (inside its panel's border, after the focus marker).
pub fn field_row<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find(|line| {
        line.split('│').any(|cell| {
            cell.trim_start_matches(['›', ' ']).strip_prefix(name).is_some_and(|rest| rest.starts_with(' '))
        })
    })
}
