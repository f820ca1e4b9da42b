//! What a stored event is, as every reader of the store sees it: who
//! produced it (`Dir`), which side issued a request id (`Origin`), its
//! flags, its parsed progress, and the borrowed view of it (`EventRef`).
//! Below the store, its indexes and its recorder, which all speak of it.

use crate::protocol::frame::{Frame, FrameKind, classify};

/// Who produced an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Dir {
    /// mcpscope → server.
    Out = 0,
    /// server → mcpscope.
    In = 1,
    /// A line the server wrote to stderr.
    Stderr = 2,
    /// Something mcpscope observed about the connection (spawn, exit, timeout…).
    Meta = 3,
}

impl Dir {
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::Out => "out",
            Dir::In => "in",
            Dir::Stderr => "stderr",
            Dir::Meta => "meta",
        }
    }
    pub fn parse(s: &str) -> Option<Dir> {
        Some(match s {
            "out" => Dir::Out,
            "in" => Dir::In,
            "stderr" => Dir::Stderr,
            "meta" => Dir::Meta,
            _ => return None,
        })
    }
}

/// Which side issued a request id: ids are only unique per side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    Client,
    Server,
}

/// Event flags.
pub mod flags {
    /// An element of a batch (the batch itself is stored just before).
    pub const IN_BATCH: u8 = 1;
    /// A response for a request that had already been cancelled.
    pub const LATE: u8 = 2;
    /// A second response for the same request.
    pub const DUPLICATE: u8 = 4;
    /// A response whose id matches no request.
    pub const UNKNOWN_ID: u8 = 8;
    /// A malformed progress or log notification.
    pub const MALFORMED: u8 = 16;
    /// The first bytes of a frame over the size cap (an `oversized` event
    /// follows with its length).
    pub const CUT: u8 = 32;
    /// A valid progress notification that carries a `message` (its other
    /// values are in `ProgressInfo`, so folds need not parse it).
    pub const PROGRESS_MESSAGE: u8 = 64;
    /// The flags that mark something wrong with a frame.
    pub const PROBLEMS: u8 = LATE | DUPLICATE | UNKNOWN_ID | MALFORMED | CUT;
}

/// A progress notification's values, as parsed once at ingest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProgressInfo {
    /// The token's slot in the store (`Store::token_by_slot`); reused once
    /// the token was pruned, so a cache keyed by it checks `serial` too.
    pub slot: u32,
    pub serial: u64,
    pub progress: f64,
    pub total: Option<f64>,
}

/// One stored event, borrowed from the store.
#[derive(Debug, Clone, Copy)]
pub struct EventRef<'a> {
    pub seq: u64,
    pub t_us: u64,
    pub dir: Dir,
    pub kind: FrameKind,
    pub channel: &'a str,
    /// The method (requests, notifications), the answered request's method
    /// (responses), or the meta event's type.
    pub method: Option<&'a str>,
    pub flags: u8,
    pub bytes: &'a [u8],
    /// Set for well-formed `notifications/progress` frames.
    pub progress: Option<ProgressInfo>,
}

impl EventRef<'_> {
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.bytes)
    }
    pub fn frame(&self) -> Frame<'_> {
        classify(self.bytes)
    }
    /// The meta event this is, if it is one this version knows.
    pub fn event(&self) -> Option<crate::event::Event> {
        if self.dir == Dir::Meta {
            crate::event::Event::parse(self.bytes)
        } else {
            None
        }
    }
}
