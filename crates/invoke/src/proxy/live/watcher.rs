//! The proxy's watchers, one by one: each is written the feed on a thread of its own (from a
//! bounded queue: a slow one loses lines, counted), and what it writes is read on another and
//! handed to the proxy's [`Controller`] (breakpoints); a watcher that closes its end is gone.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::publish::{Line, Shared};
use crate::wire::{BlockingLines, LineDecoder};

/// Lines a watcher may be behind before its lines are dropped.
pub(super) const WATCHER_QUEUE: usize = 4096;
/// Watchers at once; more are turned away (each has a thread and a queue).
const MAX_WATCHERS: usize = 16;
/// The longest line a watcher may write (an edited message, with room to spare).
const MAX_CONTROL_LINE: usize = 48 * 1024 * 1024;

/// What the proxy does with its watchers' lines (breakpoints: `proxy::intercept::Holds`).
pub trait Controller: Send + Sync {
    /// A line a watcher wrote; what to answer that watcher alone (an error), if anything.
    fn control(&self, line: &[u8]) -> Option<Value>;
    /// What a new watcher is told right after the first line (the breakpoints set, what is
    /// held).
    fn greeting(&self) -> Vec<Value>;
    /// The last watcher went away.
    fn unwatched(&self);
}

/// The proxy's voice to every watcher at once, beside the frames: held messages, releases,
/// breakpoints.
#[derive(Clone)]
pub struct LiveHub {
    pub(super) shared: Arc<Mutex<Shared>>,
}

impl LiveHub {
    /// Says `line` to every watcher (and not to the backlog: it is no frame).
    pub fn say(&self, line: &Value) {
        let line: Line = crate::json_out::to_line(line).unwrap_or_default().into();
        crate::sync::lock(&self.shared).offer(&line);
    }

    /// How many watchers are attached.
    pub fn watchers(&self) -> usize {
        crate::sync::lock(&self.shared).watchers.len()
    }
}

pub(super) struct Watcher {
    pub(super) number: u64,
    pub(super) queue: SyncSender<Line>,
    pub(super) dropped: Arc<AtomicU64>,
}

/// A new watcher: the first line, the breakpoints and the recent lines are its own to write;
/// from now on, each line as it comes goes to its queue too, and what it writes is read. Past
/// [`MAX_WATCHERS`], it is turned away.
pub(super) fn welcome(reading: Box<dyn Read + Send>, stream: Box<dyn Write + Send>, shared: &Arc<Mutex<Shared>>) {
    let (queue, lines) = sync_channel(WATCHER_QUEUE);
    let dropped = Arc::new(AtomicU64::new(0));
    let (first, number) = {
        let mut shared = crate::sync::lock(shared);
        shared.watchers.retain(|w| !matches!(w.queue.try_send(Line::from("")), Err(TrySendError::Disconnected(_))));
        if shared.watchers.len() >= MAX_WATCHERS {
            return;
        }
        let oldest = shared.backlog.front().map_or(u64::MAX, |(seq, _)| *seq);
        let listed = shared.listed.iter().filter(|(seq, _)| *seq < oldest);
        let mut recent: Vec<Line> = listed.chain(shared.backlog.iter()).map(|(_, line)| Arc::clone(line)).collect();
        if let Some(controls) = &shared.controls {
            let greeting = controls.greeting();
            let greeting = greeting.iter().map(|line| Line::from(crate::json_out::to_line(line).unwrap_or_default()));
            recent.splice(0..0, greeting);
        }
        let mut about = shared.about.clone();
        about.insert("messages".into(), json!(shared.messages));
        about.insert("backlog".into(), json!(recent.len()));
        let number = shared.next_watcher;
        shared.next_watcher += 1;
        shared.watchers.push(Watcher { number, queue, dropped: Arc::clone(&dropped) });
        let about: Line = crate::json_out::to_line(&Value::Object(about)).unwrap_or_default().into();
        (std::iter::once(about).chain(recent).collect::<Vec<_>>(), number)
    };
    let _ = std::thread::Builder::new().name("live-watcher".into()).spawn(move || {
        let _ = write_to(stream, &first, &lines, &dropped);
    });
    let listening = Arc::clone(shared);
    let _ = std::thread::Builder::new().name("live-control".into()).spawn(move || {
        read_from(reading, number, &listening);
        gone(number, &listening);
    });
}

/// A watcher's lines, read until it closes its end: each handed to the proxy's controls, an
/// answer (an error) queued to that watcher alone.
fn read_from(reading: Box<dyn Read + Send>, number: u64, shared: &Mutex<Shared>) {
    let Some(controls) = crate::sync::lock(shared).controls.clone() else {
        // Nothing to control: read only to know when the watcher goes.
        let _ = io::copy(&mut Read::take(reading, u64::MAX), &mut io::sink());
        return;
    };
    for line in BlockingLines::new(reading, LineDecoder::skipping(MAX_CONTROL_LINE)) {
        let Ok(line) = line else { return };
        if !line.newline {
            // The watcher closed in the middle of a line.
            return;
        }
        let answer = if line.is_whole() {
            controls.control(line.bytes.trim_ascii_end())
        } else {
            Some(json!({"error": "the line is too long"}))
        };
        if let Some(answer) = answer {
            let answer: Line = crate::json_out::to_line(&answer).unwrap_or_default().into();
            let shared = crate::sync::lock(shared);
            if let Some(watcher) = shared.watchers.iter().find(|w| w.number == number) {
                let _ = watcher.queue.try_send(answer);
            }
        }
    }
}

/// Watcher `number` closed its end: it leaves the feed, and when it was the last, the controls
/// hear so (held messages go on).
fn gone(number: u64, shared: &Mutex<Shared>) {
    let (controls, left) = {
        let mut shared = crate::sync::lock(shared);
        shared.watchers.retain(|w| w.number != number);
        (shared.controls.clone(), shared.watchers.len())
    };
    if left == 0
        && let Some(controls) = controls
    {
        controls.unwatched();
    }
}

/// A watcher's thread: the first lines, then each from its queue; a `dropped` line when lines
/// were let go meanwhile. Ends when the watcher goes or the proxy does.
fn write_to(
    mut stream: Box<dyn Write + Send>,
    first: &[Line],
    lines: &Receiver<Line>,
    dropped: &AtomicU64,
) -> io::Result<()> {
    for line in first {
        stream.write_all(line.as_bytes())?;
        stream.write_all(b"\n")?;
    }
    stream.flush()?;
    for line in lines {
        let lost = dropped.swap(0, Ordering::Relaxed);
        if lost > 0 {
            let note = json!({"time": crate::text::rfc3339_now(), "dropped": lost,
                "note": "messages passed but were not sent to this watcher: it fell behind"});
            stream.write_all(crate::json_out::to_line(&note).unwrap_or_default().as_bytes())?;
            stream.write_all(b"\n")?;
        }
        if line.is_empty() {
            continue;
        }
        stream.write_all(line.as_bytes())?;
        stream.write_all(b"\n")?;
        stream.flush()?;
    }
    Ok(())
}
