//! The live feed of a running proxy, for `tooldeck attach`: each proxy publishes its frames on a
//! socket of its own in the user's runtime folder (`tooldeck/proxies/NAME.sock`, the folder
//! 0700, the socket 0600; elsewhere than Unix a loopback port whose number and secret are in
//! `NAME.port`, 0600). A watcher reads one line saying who the proxy is, the recent frames,
//! then each frame as it passes, every line a record line (docs/proxy.md): the feed and a saved
//! record read the same way.
//!
//! The feed is a sink of the proxy's tap, so it never runs on the wire's threads; each watcher
//! has a bounded queue of its own that drops (counted, and said to it) rather than waits.

mod feed;
mod follow;
mod place;
mod port;
mod publish;

pub use feed::{Announcement, Feed, Running, frame_of_line, list, open, recorded_tools};
pub use follow::RecordTail;
pub use place::{LiveError, check_owner, default_name, file_name, folder};
pub use publish::{LiveSink, publish};

/// What `tooldeck attach` follows after what it read at first: a running proxy's feed, or a
/// record file (which a proxy may still be writing).
pub enum Following {
    Proxy(Feed),
    Record(RecordTail),
}

impl Following {
    /// Hands `sink` each frame as it comes, until `stop` is set (false) or the source ends
    /// (true: the proxy ended, the record can no longer be read).
    pub fn follow(self, sink: &mut dyn crate::wire::FrameSink, stop: &std::sync::atomic::AtomicBool) -> bool {
        match self {
            Following::Proxy(feed) => feed.follow(sink, stop),
            Following::Record(tail) => tail.follow(sink, stop),
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

/// The extension of a proxy's file in the folder: a socket, or a port file.
#[cfg(unix)]
pub const EXTENSION: &str = "sock";
#[cfg(not(unix))]
pub const EXTENSION: &str = "port";

/// The first line's key that says it is a tooldeck proxy's feed, and the feed's version.
const FEED_KEY: &str = "tooldeck_proxy";
const FEED_VERSION: u64 = 1;
