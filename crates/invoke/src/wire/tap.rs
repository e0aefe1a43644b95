//! The tap beside the wire: the wire hands it each message's bytes without waiting (a bounded
//! queue that drops, counted, when full), and its own thread makes the frames and feeds the sinks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::SystemTime;

use bytes::Bytes;

use super::frame::{Frame, HttpDetails, Side};
use super::sink::FrameSink;

/// How many messages may wait for the sinks.
const QUEUE_MESSAGES: usize = 4096;
/// How many bytes may wait for the sinks: a burst of large messages is dropped from the record
/// rather than held in memory.
const QUEUE_BYTES: usize = 64 * 1024 * 1024;
/// The tap thread's stack (std's default is 2 MiB).
const TAP_STACK: usize = 16 * 1024 * 1024;
/// How long the tap's thread lets messages gather after a batch (see [`feed`]).
const LINGER: std::time::Duration = std::time::Duration::from_millis(1);

/// What the tap's thread is handed: a message, or word that the tap is finishing (which wakes it
/// at once, not at its next timeout).
enum Queued {
    Message(Captured),
    Finish,
}

struct Captured {
    from: Side,
    at: SystemTime,
    raw: Bytes,
    /// Set when the bytes were too many to keep: the size on the wire.
    too_large: Option<usize>,
    http: Option<HttpDetails>,
    injected: Option<Arc<str>>,
}

/// What the tap saw, once it is done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TapStats {
    pub frames: u64,
    pub dropped: u64,
}

#[derive(Default)]
struct Counters {
    /// Set by [`Tap::finish`]: the sinks write what is queued and stop, even while a thread of
    /// the wire (one blocked reading a client that never closes) still holds a handle.
    closing: AtomicBool,
    queued_bytes: AtomicUsize,
    frames: AtomicU64,
    dropped: AtomicU64,
}

/// The tap, owned by whoever ends it ([`Tap::finish`]); each thread of the wire holds a
/// [`TapHandle`]. Without sinks it does nothing at all.
pub struct Tap {
    handle: TapHandle,
    thread: Option<JoinHandle<()>>,
}

/// What the wire hands messages to: cheap to clone, never waits.
#[derive(Clone)]
pub struct TapHandle {
    queue: Option<SyncSender<Queued>>,
    counters: Arc<Counters>,
}

/// Says a line on stderr (or wherever the owner wants warnings).
pub type Warn = Box<dyn Fn(&str) + Send>;

impl Tap {
    /// A tap feeding `sinks` on a thread of its own; `warn` hears once of each sink that fails.
    pub fn spawn(sinks: Vec<Box<dyn FrameSink>>, warn: Warn) -> Tap {
        let counters = Arc::new(Counters::default());
        if sinks.is_empty() {
            return Tap { handle: TapHandle { queue: None, counters }, thread: None };
        }
        let (queue, receiver) = sync_channel(QUEUE_MESSAGES);
        let feeding = Arc::clone(&counters);
        // Room to walk a message nested up to `MAX_DEPTH` deep (masking it, writing its record
        // line): reserved, not touched, until used.
        let thread = std::thread::Builder::new()
            .name("tap".into())
            .stack_size(TAP_STACK)
            .spawn(move || feed(&receiver, sinks, &feeding, &warn))
            .ok();
        Tap { handle: TapHandle { queue: thread.as_ref().map(|_| queue), counters }, thread }
    }

    /// A tap with no sinks: the wire as it would be without one.
    pub fn none() -> Tap {
        Tap::spawn(Vec::new(), Box::new(|_| {}))
    }

    /// A handle for a thread of the wire.
    pub fn handle(&self) -> TapHandle {
        self.handle.clone()
    }

    /// Lets the sinks write out what is queued, and says how many frames they took and how many
    /// were dropped.
    pub fn finish(mut self) -> TapStats {
        let counters = Arc::clone(&self.handle.counters);
        counters.closing.store(true, Ordering::Release);
        if let Some(queue) = self.handle.queue.take() {
            // Waits for room: what was queued before it is written first.
            let _ = queue.send(Queued::Finish);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        TapStats { frames: counters.frames.load(Ordering::Relaxed), dropped: counters.dropped.load(Ordering::Relaxed) }
    }
}

impl TapHandle {
    /// True when someone listens (the wire may skip collecting a message's bytes otherwise).
    pub fn listening(&self) -> bool {
        self.queue.is_some()
    }

    /// One message, as it passed. Never waits: when the sinks are behind, it is dropped (counted).
    pub fn send(&self, from: Side, raw: Bytes, http: Option<HttpDetails>) {
        self.enqueue(Captured { from, at: SystemTime::now(), raw, too_large: None, http, injected: None });
    }

    /// A message a `--fault` rule made, or delayed, dropped or corrupted: `rule` as written.
    pub fn send_injected(&self, from: Side, raw: Bytes, http: Option<HttpDetails>, rule: Arc<str>) {
        self.enqueue(Captured { from, at: SystemTime::now(), raw, too_large: None, http, injected: Some(rule) });
    }

    /// A message too large to keep: its size only.
    pub fn send_too_large(&self, from: Side, size: usize, http: Option<HttpDetails>) {
        self.enqueue(Captured {
            from,
            at: SystemTime::now(),
            raw: Bytes::new(),
            too_large: Some(size),
            http,
            injected: None,
        });
    }

    /// A line cut to its first bytes (`kept`) out of `size`: kept as text, said to be cut.
    pub fn send_cut(&self, from: Side, kept: Bytes, size: usize) {
        self.enqueue(Captured {
            from,
            at: SystemTime::now(),
            raw: kept,
            too_large: Some(size),
            http: None,
            injected: None,
        });
    }

    fn enqueue(&self, captured: Captured) {
        let Some(queue) = &self.queue else { return };
        if self.counters.closing.load(Ordering::Acquire) {
            return;
        }
        let size = captured.raw.len();
        let counters = &self.counters;
        if counters.queued_bytes.fetch_add(size, Ordering::AcqRel) + size > QUEUE_BYTES {
            counters.queued_bytes.fetch_sub(size, Ordering::AcqRel);
            counters.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = queue.try_send(Queued::Message(captured)) {
            counters.queued_bytes.fetch_sub(size, Ordering::AcqRel);
            counters.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The tap's thread: frames made and handed to each sink; a sink that fails is told of once and
/// dropped; sinks flush whenever the queue runs empty.
fn feed(receiver: &Receiver<Queued>, mut sinks: Vec<Box<dyn FrameSink>>, counters: &Counters, warn: &Warn) {
    let mut noted_drops = 0;
    let mut finishing = false;
    let fail = |sinks: &mut Vec<Box<dyn FrameSink>>, at: usize, error: std::io::Error| {
        let sink = sinks.remove(at);
        warn(&format!("{} cannot be written ({error}); messages still pass, unrecorded", sink.name()));
    };
    loop {
        let first = match receiver.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(Queued::Message(first)) => first,
            Ok(Queued::Finish) => break,
            Err(RecvTimeoutError::Timeout) if counters.closing.load(Ordering::Acquire) => break,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let mut next = Some(first);
        while let Some(captured) = next {
            counters.queued_bytes.fetch_sub(captured.raw.len(), Ordering::AcqRel);
            let dropped = counters.dropped.load(Ordering::Relaxed);
            let frame = match captured.too_large {
                Some(size) if captured.raw.is_empty() => {
                    Frame::too_large(captured.from, captured.at, size, captured.http)
                }
                Some(size) => Frame::cut(captured.from, captured.at, captured.raw, size),
                None => Frame::new(captured.from, captured.at, captured.raw, captured.http),
            }
            .injected_by(captured.injected);
            counters.frames.fetch_add(1, Ordering::Relaxed);
            let mut at = 0;
            while at < sinks.len() {
                let mut accepted = sinks[at].accept(&frame);
                if dropped > noted_drops && accepted.is_ok() {
                    accepted = sinks[at].note_dropped(dropped - noted_drops);
                }
                match accepted {
                    Ok(()) => at += 1,
                    Err(error) => fail(&mut sinks, at, error),
                }
            }
            noted_drops = dropped;
            next = match receiver.try_recv() {
                Ok(Queued::Message(captured)) => Some(captured),
                Ok(Queued::Finish) => {
                    finishing = true;
                    None
                }
                Err(_) => None,
            };
        }
        if finishing {
            break;
        }
        let mut at = 0;
        while at < sinks.len() {
            match sinks[at].flush() {
                Ok(()) => at += 1,
                Err(error) => fail(&mut sinks, at, error),
            }
        }
        // A short nap before waiting again: while the thread is not blocked on the queue, the
        // wire's sends wake nobody, so a busy session costs the wire a push per message, not a
        // wake-up of this thread (which on a loaded machine is what made the proxy slow).
        if !counters.closing.load(Ordering::Acquire) {
            std::thread::sleep(LINGER);
        }
    }
    for sink in &mut sinks {
        let _ = sink.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Ring;

    #[test]
    fn a_sink_sees_both_directions() {
        let ring = Ring::new(10);
        let tap = Tap::spawn(vec![Box::new(ring.sink())], Box::new(|_| {}));
        let wire = tap.handle();
        wire.send(Side::Client, Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        wire.send(Side::Server, Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(tap.finish(), TapStats { frames: 2, dropped: 0 });
        let froms: Vec<_> = ring.frames().iter().map(|f| f.from).collect();
        assert_eq!(froms, vec![Side::Client, Side::Server]);
    }

    struct Failing;
    impl FrameSink for Failing {
        fn accept(&mut self, _: &Frame) -> std::io::Result<()> {
            Err(std::io::Error::other("disk full"))
        }
        fn name(&self) -> String {
            "the record x".into()
        }
    }

    #[test]
    fn a_failing_sink_warns_once_and_the_others_go_on() {
        let warned = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let said = Arc::clone(&warned);
        let ring = Ring::new(10);
        let sinks: Vec<Box<dyn FrameSink>> = vec![Box::new(Failing), Box::new(ring.sink())];
        let tap = Tap::spawn(sinks, Box::new(move |line| said.lock().unwrap().push(line.to_string())));
        for _ in 0..3 {
            tap.handle().send(Side::Client, Bytes::from_static(b"{}"), None);
        }
        tap.finish();
        assert_eq!(warned.lock().unwrap().len(), 1);
        assert!(warned.lock().unwrap()[0].contains("disk full"));
        assert_eq!(ring.frames().len(), 3);
    }
}
