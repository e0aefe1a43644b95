//! The live feed of a running proxy, for `tooldeck attach`: each proxy publishes its frames on a
//! socket of its own in the user's runtime folder (`tooldeck/proxies/NAME.sock`, the folder
//! 0700, the socket 0600; elsewhere than Unix a loopback port whose number and secret are in
//! `NAME.port`, 0600). A watcher reads one line saying who the proxy is, the recent frames,
//! then each frame as it passes, every line a record line (docs/proxy.md): the feed and a saved
//! record read the same way.
//!
//! The feed is a sink of the proxy's tap, so it never runs on the wire's threads; each watcher
//! has a bounded queue of its own that drops (counted, and said to it) rather than waits.

pub mod control;
mod feed;
mod follow;
mod place;
mod port;
mod publish;
mod taking;
mod watcher;

pub use crate::wire::Marks;
pub use control::{Breakpoint, Control, Notice, Release};
pub use feed::{Announcement, Controls, Feed, FeedLine, Running, frame_of_line, list, open, recorded_tools};
pub use follow::RecordTail;
pub use place::{LiveError, check_owner, default_name, file_name, folder};
pub use publish::{LiveSink, publish};
pub use watcher::{Controller, LiveHub};

/// What `tooldeck attach` follows after what it read at first: a running proxy's feed, or a
/// record file (which a proxy may still be writing).
pub enum Following {
    Proxy(Feed),
    Record(RecordTail),
}

impl Following {
    /// Hands `take` each line as it comes, until `stop` is set (false) or the source ends
    /// (true: the proxy ended, the record can no longer be read). A record's lines are frames.
    pub fn follow(
        self,
        take: &mut (dyn FnMut(FeedLine) -> std::io::Result<()> + Send),
        stop: &std::sync::atomic::AtomicBool,
    ) -> bool {
        match self {
            Following::Proxy(feed) => feed.follow(take, stop),
            Following::Record(tail) => tail.follow(&mut Frames(take), stop),
        }
    }

    /// The way back to a proxy (breakpoints): a record has none.
    pub fn controls(&mut self) -> Option<Controls> {
        match self {
            Following::Proxy(feed) => feed.controls(),
            Following::Record(_) => None,
        }
    }

    /// What is said when it ends.
    pub fn ended(&self) -> &'static str {
        match self {
            Following::Proxy(_) => "the proxy ended: its traffic stops here",
            Following::Record(_) => "the record can no longer be read: its traffic stops here",
        }
    }
}

/// A record's frames handed on as feed lines.
struct Frames<'a>(&'a mut (dyn FnMut(FeedLine) -> std::io::Result<()> + Send));

impl crate::wire::FrameSink for Frames<'_> {
    fn accept(&mut self, frame: &crate::wire::Frame) -> std::io::Result<()> {
        (self.0)(FeedLine::Frame(Box::new(frame.clone()), Marks::default()))
    }

    fn name(&self) -> String {
        "the record followed".to_string()
    }
}

/// The extension of a proxy's file in the folder: a socket, or a port file.
#[cfg(unix)]
pub const EXTENSION: &str = "sock";
#[cfg(not(unix))]
pub const EXTENSION: &str = "port";

/// The first line's key that says it is a tooldeck proxy's feed, and the feed's version.
const FEED_KEY: &str = "tooldeck_proxy";
const FEED_VERSION: u64 = 1;
