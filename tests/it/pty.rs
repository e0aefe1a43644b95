//! The real binary in a real pseudo-terminal: keys go in as bytes, the output is parsed by a vt100
//! emulator, and the tests look at the screen a user would see. This is the only place where
//! crossterm's input parsing, the event loop, resizes and the terminal restore on exit are exercised
//! end to end; everything else is tested against ratatui's TestBackend.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};

const ROWS: u16 = 40;
const COLS: u16 = 120;
/// Generous: a debug build on a busy two-core CI machine can take seconds to draw its first frame.
/// Nothing here measures time; the timeout only turns a hang into a readable failure.
const TIMEOUT: Duration = Duration::from_secs(10);

const DOWN: &str = "\x1b[B";
const ENTER: &str = "\r";
const BACKSPACE: &str = "\x7f";
const CTRL_C: &str = "\x03";
/// Quit from the form, where `q` types: the every-pane chord.
const CTRL_Q: &str = "\x11";

/// Everything the app wrote, both as raw bytes (to look for exact escape sequences) and as the
/// screen a terminal would show.
struct Output {
    parser: vt100::Parser,
    raw: Vec<u8>,
    /// The reader saw end of file (or EIO): the child and every copy of the slave side are gone.
    /// Also set when the reader stopped because `detach` asked it to.
    closed: bool,
    /// Asks the reader to stop after its next read and so close its copy of the master side.
    detach: bool,
}

/// Our side of the pseudo-terminal. The terminal hangs up once every copy of it is closed.
struct Master {
    pty: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
}

/// One run of the binary in a pseudo-terminal. Dropping it kills the child, so a failed assertion
/// never leaves a stray process behind.
struct Tui {
    /// `None` once the test has hung up.
    master: Option<Master>,
    child: Box<dyn Child + Send + Sync>,
    output: Arc<Mutex<Output>>,
}

impl Tui {
    /// Runs the binary as a terminal's session leader, as a shell's foreground job would run.
    fn spawn<S: AsRef<OsStr>>(args: &[S]) -> Tui {
        Tui::spawn_with(args, true)
    }

    /// `controlling_tty: false` runs it in a session of its own without a controlling terminal:
    /// it then gets no SIGHUP when the terminal goes away, as under `nohup`, a shell that does
    /// not forward SIGHUP, or a host that does not make the terminal the controlling one.
    fn spawn_with<S: AsRef<OsStr>>(args: &[S], controlling_tty: bool) -> Tui {
        Tui::spawn_env(args, controlling_tty, &[])
    }

    /// [`Tui::spawn_with`] with variables set in the binary's environment.
    fn spawn_env<S: AsRef<OsStr>>(args: &[S], controlling_tty: bool, envs: &[(&str, &OsStr)]) -> Tui {
        let pair = native_pty_system().openpty(size(ROWS, COLS)).expect("a pseudo-terminal opens");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tooldeck"));
        cmd.args(args);
        cmd.cwd(env!("CARGO_MANIFEST_DIR"));
        cmd.env("TERM", "xterm-256color");
        // The themes' colours are part of what a user sees; a NO_COLOR in the test environment
        // would take a different rendering path.
        cmd.env_remove("NO_COLOR");
        // Calls made in a test go to a history of their own, never the user's.
        cmd.env(
            "TOOLDECK_HISTORY",
            std::env::temp_dir().join(format!("tooldeck-pty-history-{}.jsonl", std::process::id())),
        );
        for (name, value) in envs {
            cmd.env(name, value);
        }
        cmd.set_controlling_tty(controlling_tty);
        let child = pair.slave.spawn_command(cmd).expect("the binary starts");
        // Our copy of the slave side would keep the terminal open after the child exits, and the
        // reader would then never see end of file.
        drop(pair.slave);

        let output = Arc::new(Mutex::new(Output {
            parser: vt100::Parser::new(nonzero(ROWS), nonzero(COLS), 0),
            raw: Vec::new(),
            closed: false,
            detach: false,
        }));
        let mut reader = pair.master.try_clone_reader().expect("the terminal can be read");
        let sink = Arc::clone(&output);
        // Read continuously: a terminal whose output is not drained eventually blocks the app's writes.
        thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut out = sink.lock().unwrap_or_else(|e| e.into_inner());
                        out.parser.process(&buf[..n]);
                        out.raw.extend_from_slice(&buf[..n]);
                        if out.detach {
                            break;
                        }
                    }
                }
            }
            sink.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        });
        let writer = pair.master.take_writer().expect("the terminal can be written");
        Tui { master: Some(Master { pty: pair.master, writer }), child, output }
    }

    fn output(&self) -> MutexGuard<'_, Output> {
        // A panic in another test thread must not hide this test's screen.
        self.output.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Types keys: plain text, or the byte sequences a terminal sends for special keys.
    fn send(&mut self, keys: &str) {
        let writer = &mut self.master().writer;
        writer.write_all(keys.as_bytes()).expect("the terminal accepts input");
        writer.flush().expect("the terminal accepts input");
    }

    fn master(&mut self) -> &mut Master {
        self.master.as_mut().expect("the terminal is still open")
    }

    fn screen_text(&self) -> String {
        self.output().parser.screen().contents()
    }

    /// Polls the screen's text until `ready` holds for it, and returns that text; panics with the
    /// screen after `timeout`.
    fn wait_for(&self, what: &str, timeout: Duration, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.screen_text();
            if ready(&text) {
                return text;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {what}; the screen shows:\n{text}");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_text(&self, needle: &str) -> String {
        self.wait_for(&format!("{needle:?} on screen"), TIMEOUT, |text| text.contains(needle))
    }

    /// Resizes the emulator and the terminal together, as a terminal window would.
    fn resize(&mut self, rows: u16, cols: u16) {
        // The emulator first: whatever the app draws after the resize is drawn for the new size.
        self.output().parser.set_size(nonzero(rows), nonzero(cols));
        self.master().pty.resize(size(rows, cols)).expect("the terminal resizes");
    }

    /// Closes the terminal under the app, as closing a terminal window or losing an ssh
    /// connection does.
    fn hang_up(&mut self) {
        // The reader holds a copy of the master side and sits in read(); a key makes the app
        // redraw, which wakes the reader so that it can stop and close its copy.
        self.output().detach = true;
        self.send(DOWN);
        self.wait_until("the reader to stop", || self.output().closed);
        self.master = None;
    }

    fn wait_until(&self, what: &str, done: impl Fn() -> bool) {
        let start = Instant::now();
        while !done() {
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; the screen shows:\n{}", self.screen_text());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the child to exit and for its last output to be read.
    fn wait_exit(&mut self) -> ExitStatus {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited for") {
                break status;
            }
            if start.elapsed() > TIMEOUT {
                panic!("the app did not exit; the screen shows:\n{}", self.screen_text());
            }
            thread::sleep(Duration::from_millis(20));
        };
        // The restore sequences are the last thing written; they may still be in flight.
        self.wait_until("the end of the output", || self.output().closed);
        status
    }

    fn pid(&self) -> u32 {
        self.child.process_id().expect("the child has a process id")
    }

    /// The raw bytes written since the app last entered the alternate screen.
    fn raw_after_last_enter(&self) -> Vec<u8> {
        let out = self.output();
        let start = rfind(&out.raw, b"\x1b[?1049h").expect("the app entered the alternate screen");
        out.raw[start..].to_vec()
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[path = "pty/flows.rs"]
mod flows;
#[path = "support/oauth_server.rs"]
mod oauth_server;
#[path = "pty/sign_in.rs"]
mod sign_in;

fn size(rows: u16, cols: u16) -> PtySize {
    PtySize { rows, cols, pixel_width: 0, pixel_height: 0 }
}

fn nonzero(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).expect("a terminal dimension is not zero")
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    rfind(haystack, needle).is_some()
}

/// The last line with text: the status bar with key hints and the validation summary.
fn bottom_line(text: &str) -> &str {
    text.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("")
}

/// The line below the first line matching `row`.
fn line_after(text: &str, row: impl Fn(&str) -> bool) -> Option<&str> {
    let mut lines = text.lines();
    lines.position(row)?;
    lines.next()
}

/// A form row starts, inside its panel's border, with the focus marker or a space, then the name.
fn is_field_row(line: &str, name: &str) -> bool {
    line.split('│')
        .any(|cell| cell.trim_start_matches(['›', ' ']).strip_prefix(name).is_some_and(|rest| rest.starts_with(' ')))
}

/// The tool list has been drawn (any sample tool from the start of the catalog will do).
fn list_shown(text: &str) -> bool {
    text.contains("Show Map at Address and Zoom")
}

/// Whether the terminal's line discipline is cooked (canonical input, echo, signals): what raw
/// mode turns off. Raw mode is a property of the terminal, not of its output, so only the terminal
/// can say. `None` where the platform cannot tell.
fn cooked(tui: &Tui) -> Option<bool> {
    let termios = tui.master.as_ref()?.pty.get_termios()?;
    // `nix` is not a dependency of ours; its bitflags' Debug output names the flags that are set.
    let flags = format!("{:?}", termios.local_flags);
    let flags: Vec<&str> = flags.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    Some(["ICANON", "ECHO", "ISIG"].iter().all(|flag| flags.contains(flag)))
}

/// While the app runs it owns the terminal; checked before quitting so that `assert_restored`
/// is seen to detect a change rather than a terminal that was never touched.
fn assert_taken_over(tui: &Tui) {
    {
        let out = tui.output();
        let screen = out.parser.screen();
        assert!(screen.alternate_screen(), "the app is not on the alternate screen");
        assert!(screen.bracketed_paste(), "bracketed paste is off");
        assert_ne!(screen.mouse_protocol_mode(), vt100::MouseProtocolMode::None, "mouse capture is off");
    }
    assert_ne!(cooked(tui), Some(true), "the terminal is not in raw mode");
}

/// After the app exits the terminal must be usable again: main screen, cursor visible, no mouse
/// reports or paste brackets arriving at the shell, line editing back, and the sequences that
/// undo all that were actually sent (a vt100 state alone could come from its defaults).
fn assert_restored(tui: &Tui) {
    {
        let out = tui.output();
        let screen = out.parser.screen();
        assert!(!screen.alternate_screen(), "still on the alternate screen");
        assert!(!screen.hide_cursor(), "the cursor is still hidden");
        assert!(!screen.bracketed_paste(), "bracketed paste is still on");
        assert_eq!(screen.mouse_protocol_mode(), vt100::MouseProtocolMode::None, "mouse capture is still on");
    }
    let tail = tui.raw_after_last_enter();
    assert!(contains(&tail, b"\x1b[?1000l") || contains(&tail, b"\x1b[?1006l"), "mouse capture was never disabled");
    assert!(contains(&tail, b"\x1b[?2004l"), "bracketed paste was never disabled");
    assert!(contains(&tail, b"\x1b[?1049l"), "the alternate screen was never left");
    assert!(contains(&tail, b"\x1b[?25h"), "the cursor was never shown");
    assert_ne!(cooked(tui), Some(false), "raw mode is still on");
}

/// Quits with `keys` and checks the exit status and the terminal left behind.
fn quit_restored(tui: &mut Tui, keys: &str) {
    assert_taken_over(tui);
    tui.send(keys);
    let status = tui.wait_exit();
    assert!(status.success(), "exit status {status}");
    assert_restored(tui);
}

/// Filters the list to `query` and opens the best match's form (one Enter).
fn open_tool(tui: &mut Tui, query: &str) {
    tui.send(&format!("/{query}"));
    tui.wait_text(&format!("/{query}"));
    tui.send(ENTER);
}

/// Picks Math.Add, fills a = 2 and b = 40, and runs it (Ctrl-R) against the demo server.
fn run_math_add_2_plus_40(tui: &mut Tui) {
    tui.wait_for("the tool list", TIMEOUT, list_shown);
    // One Enter opens the best match's form; another chooses the field to type into.
    open_tool(tui, "Math.Add");
    tui.send(ENTER);
    tui.send("2");
    tui.send(ENTER);
    tui.send(DOWN);
    tui.send(ENTER);
    tui.send("40");
    tui.send(ENTER);
    tui.wait_for("a valid form", TIMEOUT, |text| bottom_line(text).contains("ready"));
    tui.send("\x12"); // Ctrl-R
}

/// Ctrl-R sends the call to the built-in demo server and the result shows on screen.
#[test]
fn run_a_tool_and_read_the_result() {
    let mut tui = Tui::spawn::<&str>(&[]);
    run_math_add_2_plus_40(&mut tui);
    tui.wait_for("the value 42 in the result pane", TIMEOUT, |text| {
        text.contains("result · Math.Add@1.0.0") && text.contains("● value") && text.lines().any(|l| l.contains("││42"))
    });
    quit_restored(&mut tui, CTRL_Q);
}

/// The authorization flow as a user goes through it: the prompt, `t`, a token typed (and never
/// shown), and the same call run again with it.
#[test]
fn authorization_prompt_then_a_token_then_the_value() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);
    open_tool(&mut tui, "Gmail.List");
    tui.wait_text("Gmail_ListEmails");
    tui.send("\x12"); // Ctrl-R
    let screen = tui.wait_text("requires_authorization");
    assert!(screen.contains("/oauth/authorize?provider=google"), "the URL to open:\n{screen}");
    assert!(screen.contains("gmail.readonly"), "the scope:\n{screen}");
    tui.send("\x0f"); // Ctrl-O: into the result
    tui.send("t");
    tui.wait_text("type the token");
    tui.send("demo-google");
    let screen = tui.wait_for("the typed token", TIMEOUT, |text| text.contains("•••••••••••"));
    // The demo server's message names the token to use, and now reads whole; the box masks it.
    assert_eq!(screen.matches("demo-google").count(), 1, "only the server's message names it:\n{screen}");
    assert!(screen.lines().all(|l| !(l.contains("•••") && l.contains("demo-google"))), "masked:\n{screen}");
    tui.send(ENTER);
    let screen = tui.wait_text("● value");
    assert!(!screen.contains("demo-google"), "the token is never shown:\n{screen}");
    quit_restored(&mut tui, CTRL_C);
}

/// An artifact: fetched with a progress bar, previewed as a picture drawn in colour, saved to a
/// file that holds the same PNG.
#[test]
fn artifact_is_fetched_previewed_as_a_picture_and_saved() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("map.png");
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);
    open_tool(&mut tui, "showMap");
    tui.send(ENTER);
    tui.send("Cairo");
    tui.send("\x1b");
    tui.wait_text("Show Map Of \"Cairo\"");
    tui.send("\x12"); // Ctrl-R
    tui.wait_text("● artifact");
    tui.send("\x0f"); // Ctrl-O
    tui.send("f");
    let screen = tui.wait_text("fetched 12.1 KiB");
    assert!(screen.contains("▀▀▀▀▀▀▀▀"), "a picture of the PNG:\n{screen}");
    assert!(contains(&tui.raw_after_last_enter(), b"48;2;"), "the picture is drawn in true colour");
    tui.send("s");
    tui.wait_text("save the artifact as");
    // The prompt offers the artifact's own file name; typing replaces it (it once appended:
    // `…5a3.pngmap.png`).
    tui.send(path.to_str().expect("a UTF-8 path"));
    tui.send(ENTER);
    tui.wait_text("saved 12.1 KiB to");
    let saved = std::fs::read(&path).expect("the artifact was saved");
    assert!(saved.starts_with(b"\x89PNG\r\n\x1a\n"), "the file is the PNG");
    assert_eq!(saved.len(), 12420);
    // Saving again over it asks first; any key but y keeps the file.
    tui.send("s");
    tui.wait_text("save the artifact as");
    tui.send(&BACKSPACE.repeat(80));
    tui.send(path.to_str().expect("a UTF-8 path"));
    tui.send(ENTER);
    tui.wait_text("replace the file?");
    tui.send("n");
    tui.wait_text("is left as it was");
    quit_restored(&mut tui, CTRL_C);
}

/// `S` on a result writes a case file that reads back as the call and what it returned.
#[test]
fn a_result_saved_as_a_test_case_lands_in_the_case_file() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("cases.yaml");
    let mut tui = Tui::spawn::<&str>(&[]);
    run_math_add_2_plus_40(&mut tui);
    tui.wait_text("● value");
    tui.send("\x13"); // Ctrl-S: on the form `S` types
    tui.wait_text("append test cases to");
    tui.send(&BACKSPACE.repeat(40));
    tui.send(path.to_str().expect("a UTF-8 path"));
    tui.send(ENTER);
    tui.wait_text("case saved to");
    let text = std::fs::read_to_string(&path).expect("the case file was written");
    assert!(text.contains("tool: \"Math.Add@1.0.0\""), "{text}");
    assert!(text.contains("status: \"value\""), "{text}");
    assert!(text.contains("value: 42"), "{text}");
    quit_restored(&mut tui, CTRL_Q);
}

/// `tooldeck test` on a terminal: a progress bar instead of a line per passing case, cleared
/// before the closing line.
#[test]
fn tooldeck_test_draws_a_progress_bar_on_a_terminal() {
    let mut tui = Tui::spawn(&["test", "tests/cases/demo.yaml"]);
    let status = tui.wait_exit();
    assert!(status.success(), "exit status {status}: {}", tui.screen_text());
    let raw = tui.output().raw.clone();
    assert!(contains(&raw, "░".as_bytes()) || contains(&raw, "█".as_bytes()), "a bar was drawn");
    let screen = tui.screen_text();
    assert!(screen.contains("6 passed, 0 failed"), "{screen}");
    assert!(!screen.contains("ok    "), "no line per passing case on a terminal: {screen}");
    assert!(!screen.contains('░'), "the bar is gone at the end: {screen}");
}

#[test]
fn filter_fill_see_inline_error_and_tile_then_quit_restored() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);

    // Enter opens the form of the best match.
    open_tool(&mut tui, "showmap");
    tui.wait_text("▶ Show Map");

    tui.send(ENTER);
    tui.send("Cairo");
    tui.send(ENTER);
    tui.wait_text("▶ Show Map Of \"Cairo\"");

    tui.send(DOWN);
    tui.send(ENTER);
    tui.send("12.5");
    tui.send(ENTER);
    tui.wait_for("the inline error under the zoom field", TIMEOUT, |text| {
        line_after(text, |line| is_field_row(line, "zoom"))
            .is_some_and(|line| line.contains("✗ 12.5 is not an integer"))
    });

    tui.send(ENTER);
    tui.send(&BACKSPACE.repeat(4));
    tui.send("12");
    tui.send(ENTER);
    // One predicate for the whole expected state: a frame arrives in several writes, so a screen
    // showing its first rows may not show its status bar yet.
    tui.wait_for("the fixed tile line, no error, and \"ready\"", TIMEOUT, |text| {
        text.contains("▶ Show Map Of \"Cairo\" At Zoom Level 12")
            && !text.contains("is not an integer")
            && bottom_line(text).contains("ready")
    });

    quit_restored(&mut tui, CTRL_Q);
}

#[test]
fn too_small_then_recovers_and_ctrl_c_quits() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);

    tui.resize(10, 40);
    tui.wait_text("terminal too small");

    tui.resize(ROWS, COLS);
    tui.wait_for("the tool list after growing back", TIMEOUT, |text| {
        list_shown(text) && !text.contains("terminal too small")
    });

    quit_restored(&mut tui, CTRL_C);
}

#[test]
fn q_quits_a_too_small_terminal_even_from_a_field_being_typed_in() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);
    // The form, then its first field chosen to type into: at full size `q` would be typed.
    open_tool(&mut tui, "Math.Add");
    tui.send(ENTER);
    tui.wait_for("the field being typed in", TIMEOUT, |text| bottom_line(text).contains("done"));

    tui.resize(10, 40);
    tui.wait_text("q quits");
    quit_restored(&mut tui, "q");
}

#[test]
fn escape_sequences_in_a_definition_are_shown_not_executed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil.json");
    std::fs::write(
        &path,
        r#"{"name":"evil","description":"\u001b[2J\u001b[31mred\u0007","parameters":{"type":"object","properties":{}}}"#,
    )
    .unwrap();
    let mut tui = Tui::spawn(&[path.as_os_str()]);

    // The status bar is the last row drawn: once it is there, the whole first frame is.
    let text = tui.wait_for("the description and the status bar", TIMEOUT, |text| {
        text.contains("␛[2J␛[31mred␇") && bottom_line(text).contains("q quit")
    });
    // Had the sequences reached the terminal, the screen would have been cleared around them.
    assert!(text.contains("┌ tools (1)") && text.contains("› evil"), "the tool list is gone:\n{text}");
    assert!(text.contains("evil · jsonschema"), "the header is gone:\n{text}");
    let raw = tui.raw_after_last_enter();
    assert!(!contains(&raw, b"\x1b[31mred"), "the definition's colour sequence reached the terminal");
    assert!(!contains(&raw, b"\x07"), "the definition's bell reached the terminal");

    quit_restored(&mut tui, "q");
}

#[test]
fn sigterm_restores_the_terminal() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);
    assert_taken_over(&tui);

    let kill = std::process::Command::new("kill").args(["-TERM", &tui.pid().to_string()]).status();
    assert!(kill.is_ok_and(|status| status.success()), "kill -TERM failed");
    let status = tui.wait_exit();
    assert!(status.success(), "exit status {status}");
    assert_restored(&tui);
}

#[test]
fn closing_the_terminal_ends_the_app() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);

    // The kernel sends SIGHUP to the terminal's session; the app treats it as a quit. Only the
    // exit itself is checked here (no stray process); its status is the next test's concern.
    tui.hang_up();
    tui.wait_exit();
}

#[test]
fn closing_the_terminal_exits_cleanly() {
    let mut tui = Tui::spawn::<&str>(&[]);
    tui.wait_for("the tool list", TIMEOUT, list_shown);

    // On SIGHUP the app restores the terminal (errors ignored) and drops its ratatui `Terminal`,
    // whose Drop still thinks the cursor is hidden, fails to show it (EIO), and reports that with
    // `eprintln!` to the hung-up terminal: printing to stderr fails, and `eprintln!` panics.
    tui.hang_up();
    let status = tui.wait_exit();
    assert!(status.success(), "exit status {status}");
}

#[test]
fn closing_the_terminal_ends_the_app_even_without_sighup() {
    let mut tui = Tui::spawn_with::<&str>(&[], false);
    tui.wait_for("the tool list", TIMEOUT, list_shown);

    // Reads from a hung-up terminal return end of file / EIO at once. crossterm 0.29's event
    // source retries them in a tight loop instead of reporting an error, so the event stream
    // never ends and the app keeps a core busy with no terminal left.
    tui.hang_up();
    tui.wait_exit();
}

/// SIGINT from outside (the terminal is raw, so Ctrl-C is a key; `kill -INT` is not): the app
/// ends as on `q`, the terminal restored, and the server's whole process group (here a "server"
/// that forked a child and never answers) is gone.
#[cfg(target_os = "linux")] // reads /proc
#[test]
fn sigint_restores_the_terminal_and_ends_the_servers_process_group() {
    let dir = tempfile::tempdir().expect("temp dir");
    let notes = dir.path().join("pids");
    let server = forking_server(&notes);
    let mut tui = Tui::spawn(&["--mcp", &server]);
    tui.wait_for("the app", TIMEOUT, |text| text.contains("listing"));
    let pids = tui_wait_for_pids(&notes);
    assert_taken_over(&tui);
    let kill = std::process::Command::new("kill").args(["-INT", &tui.pid().to_string()]).status();
    assert!(kill.is_ok_and(|status| status.success()), "kill -INT failed");
    let status = tui.wait_exit();
    assert!(status.success(), "exit status {status}");
    assert_restored(&tui);
    for pid in pids {
        assert!(process_gone(pid), "{pid} of the server's group outlived the app");
    }
}

/// A terminal closed under the app with the SIGHUP a controlling terminal sends: the app leaves
/// through its ordinary way out (the same as `q`), so it exits 0 and its MCP server's whole
/// process group (a stdio "server" that forked a child and never answers) is gone after it.
/// The kernel sends SIGHUP only to the terminal's session leader (the app): the server runs in a
/// process group of its own, so only the app can end it.
#[cfg(target_os = "linux")] // reads /proc
#[test]
fn sighup_ends_the_servers_process_group() {
    let dir = tempfile::tempdir().expect("temp dir");
    let notes = dir.path().join("pids");
    let server = forking_server(&notes);
    let mut tui = Tui::spawn(&["--mcp", &server]);
    tui.wait_for("the app", TIMEOUT, |text| text.contains("listing"));
    let pids = tui_wait_for_pids(&notes);
    tui.hang_up();
    let status = tui.wait_exit();
    assert!(status.success(), "exit status {status}");
    for pid in pids {
        assert!(process_gone(pid), "{pid} of the server's group outlived the app");
    }
}

/// A terminal closed under the app (no SIGHUP: the hang-up watcher's path, where the event loop
/// may be stuck): the app still ends its MCP server's whole process group before it exits, even a
/// stubborn one that ignores SIGTERM (it and its child inherit the ignored signal, so only the
/// SIGKILL that follows ends them).
#[cfg(target_os = "linux")] // reads /proc
#[test]
fn closing_the_terminal_ends_a_stubborn_server_and_its_child() {
    let dir = tempfile::tempdir().expect("temp dir");
    let notes = dir.path().join("pids");
    let server = format!("sh -c 'trap \"\" TERM; echo $$ > {0}; sleep 600 & echo $! >> {0}; wait'", notes.display());
    let mut tui = Tui::spawn_with(&["--mcp", &server], false);
    tui.wait_for("the app", TIMEOUT, |text| text.contains("listing"));
    let pids = tui_wait_for_pids(&notes);
    tui.hang_up();
    tui.wait_exit();
    for pid in pids {
        assert!(process_gone(pid), "{pid} of the server's group outlived the app");
    }
}

/// True when `pid` no longer runs (gone, or a zombie waiting for its parent).
#[cfg(target_os = "linux")]
fn process_gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
        || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z"))
}

/// A stdio "server" that writes its pid and its child's to `notes`, and never answers.
#[cfg(target_os = "linux")]
fn forking_server(notes: &std::path::Path) -> String {
    format!("sh -c 'echo $$ > {0}; sleep 600 & echo $! >> {0}; wait'", notes.display())
}

/// The pids the fake server wrote (itself, then its child).
#[cfg(target_os = "linux")]
fn tui_wait_for_pids(notes: &std::path::Path) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(notes).unwrap_or_default();
        let pids: Vec<u32> = text.lines().filter_map(|line| line.trim().parse().ok()).collect();
        if pids.len() == 2 {
            return pids;
        }
        assert!(start.elapsed() < TIMEOUT, "the server never wrote its pids: {text:?}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// Set: this test binary is a small MCP stdio server (see `mcp_server_mode`).
const MCP_SERVER_ENV: &str = "TOOLDECK_PTY_MCP_SERVER";

/// Not a test: the MCP server `mcp_server_command` starts (does nothing in a normal run). It
/// writes a line with escape sequences to stderr as it starts, and its one tool, `speak`, sends
/// a log entry and writes to stderr.
#[tokio::test]
async fn mcp_server_mode() {
    use rmcp::ServiceExt;
    if std::env::var(MCP_SERVER_ENV).is_err() {
        return;
    }
    // libtest wrote "test mcp_server_mode ... " without a newline: JSON-RPC starts a new line.
    let _ = std::io::stdout().write_all(b"\n").and_then(|()| std::io::stdout().flush());
    eprintln!("server starting \x1b[31mred\x1b[0m\x1b[2J");
    let server = PtyServer.serve(rmcp::transport::stdio()).await.expect("serve stdio");
    let _ = server.waiting().await;
    std::process::exit(0);
}

struct PtyServer;

impl rmcp::handler::server::ServerHandler for PtyServer {
    #[allow(deprecated)] // logging: deprecated by rmcp (SEP-2577), offered by MCP 2025-06-18 servers
    fn get_info(&self) -> rmcp::model::ServerConfig {
        let capabilities = rmcp::model::ServerCapabilities::builder().enable_tools().enable_logging().build();
        rmcp::model::ServerConfig::new(capabilities)
            .with_server_info(rmcp::model::Implementation::new("pty-server", "1.2.3"))
            .with_instructions("Say hello first.")
    }

    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
        let tool = rmcp::model::Tool::new("speak", "Logs and writes to stderr", std::sync::Arc::new(schema));
        Ok(rmcp::model::ListToolsResult::with_all_items(vec![tool]))
    }

    #[allow(deprecated)]
    async fn call_tool(
        &self,
        _request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        eprintln!("speaking on stderr");
        let mut entry = rmcp::model::LoggingMessageNotificationParam::new(
            rmcp::model::LoggingLevel::Warning,
            serde_json::json!("a warning from the log"),
        );
        entry.logger = Some("voice".into());
        let _ = context.peer.notify_logging_message(entry).await;
        Ok(rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text("spoken")]).into())
    }
}

fn mcp_server_command() -> String {
    let exe = std::env::current_exe().unwrap();
    format!("env {MCP_SERVER_ENV}=1 '{}' --exact pty::mcp_server_mode --nocapture --test-threads=1", exe.display())
}

/// The server pane in the real binary: `i` opens it over the screen with what the server said of
/// itself and its stderr (escapes shown, not obeyed); a call's log entry and stderr arrive live;
/// Esc closes it.
#[test]
fn the_server_pane_shows_the_servers_stderr_and_log_live() {
    let mut tui = Tui::spawn(&["--mcp".to_string(), mcp_server_command()]);
    tui.wait_text("speak");
    tui.send("i");
    let text = tui.wait_text("pty-server 1.2.3");
    assert!(text.contains("Say hello first."), "{text}");
    let text = tui.wait_text("server starting ␛[31mred␛[0m␛[2J");
    assert!(text.contains("stderr"), "{text}");
    // Close, run `speak` (the only tool: selected), and look again.
    tui.send("\x1b");
    tui.wait_for("the pane closed", TIMEOUT, |text| !text.contains("pty-server 1.2.3"));
    tui.send("\x12");
    tui.wait_text("spoken");
    tui.send("i");
    let text = tui.wait_text("a warning from the log");
    assert!(text.contains("warning   voice a warning from the log"), "{text}");
    tui.wait_text("speaking on stderr");
    assert!(!contains(&tui.output().raw, b"\x1b[2J\x1b[31m"), "the server's escapes were never written raw");
    // The status line is the last row drawn: wait for it rather than read the screen mid-frame.
    tui.wait_text("v log level");
    tui.send("\x1b");
    tui.wait_for("the pane closed", TIMEOUT, |text| !text.contains("pty-server 1.2.3"));
    quit_restored(&mut tui, "q");
}

/// Set: this test binary is a tiny MCP server over stdio (`pty_mcp_server_mode`) whose tool
/// `signup` asks the client for a name and a colour (elicitation, form mode) and echoes them.
const PTY_SERVER_ENV: &str = "TOOLDECK_TEST_PTY_MCP";

/// Not a test: the MCP server `signup_server_command` starts (does nothing in a normal run).
/// Written out by hand, line by line, as any server in any language would speak.
#[test]
fn pty_mcp_server_mode() {
    if std::env::var_os(PTY_SERVER_ENV).is_none() {
        return;
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    // libtest wrote "test pty_mcp_server_mode ... " without a newline: end that line.
    let _ = out.write_all(b"\n").and_then(|()| out.flush());
    let mut send = |value: serde_json::Value| {
        let _ = out.write_all(format!("{value}\n").as_bytes()).and_then(|()| out.flush());
    };
    let mut call_id = None;
    let mut line = String::new();
    while stdin.read_line(&mut line).is_ok_and(|n| n > 0) {
        let message: serde_json::Value = serde_json::from_str(line.trim()).unwrap_or_default();
        line.clear();
        let id = message.get("id").cloned();
        match message.get("method").and_then(|m| m.as_str()) {
            Some("initialize") => send(serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "signup", "version": "1"}}})),
            Some("tools/list") => send(serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "signup", "description": "asks who you are", "inputSchema": {"type": "object"}}]}})),
            Some("tools/call") => {
                call_id = id;
                send(serde_json::json!({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
                    "mode": "form", "message": "Who are you?",
                    "requestedSchema": {"type": "object", "required": ["name"], "properties": {
                        "name": {"type": "string", "title": "Name"},
                        "colour": {"type": "string", "enum": ["red", "green", "blue"], "default": "red"}}}}}));
            }
            Some(_) if id.is_some() => send(serde_json::json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}})),
            Some(_) => {}
            // The answer to the elicitation: echo it as the tool's result.
            None if id == Some(serde_json::json!("ask-1")) => {
                let answer = message.get("result").cloned().unwrap_or_default();
                let text = format!("signed up: {}", answer["content"]);
                send(serde_json::json!({"jsonrpc": "2.0", "id": call_id.take(), "result": {
                    "content": [{"type": "text", "text": text}]}}));
            }
            None => {}
        }
    }
    std::process::exit(0);
}

/// The command that runs this test binary as the signup server.
fn signup_server_command() -> String {
    let exe = std::env::current_exe().expect("the test binary's path");
    format!("env {PTY_SERVER_ENV}=1 '{}' --exact pty::pty_mcp_server_mode --nocapture --test-threads=1", exe.display())
}

/// A server asks during a call: the form opens over the screen, the person types a name, picks a
/// colour with →, and Enter sends it; the server's echo is the result.
#[test]
fn an_elicitation_form_is_filled_and_sent() {
    let server = signup_server_command();
    let mut tui = Tui::spawn(&["--mcp", &server]);
    tui.wait_for("the server's tool", TIMEOUT, |text| text.contains("signup"));
    open_tool(&mut tui, "signup");
    tui.send("\x12"); // Ctrl-R
    tui.wait_for("the server's question", TIMEOUT, |text| text.contains("Who are you?") && text.contains("name*"));
    tui.send("Ada");
    tui.send(DOWN);
    tui.send("\x1b[C"); // → : the next colour
    tui.wait_for("the form filled", TIMEOUT, |text| text.contains("\"Ada\"") && text.contains("green"));
    tui.send(ENTER);
    tui.wait_for("the server's echo", TIMEOUT, |text| {
        text.contains("signed up") && text.contains("Ada") && text.contains("green")
    });
    quit_restored(&mut tui, "q");
}
