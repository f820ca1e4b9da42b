//! Transports: how frames get to and from a server. Each transport timestamps
//! nothing and interprets nothing: it hands complete frames, stderr lines and
//! connection events to a `Sink` (the session engine), in arrival order.

pub mod http;
pub mod lines;
pub mod sse;
pub mod stdio;

/// Receives what a transport reads. Called from the transport's reader threads.
pub trait Sink: Send + Sync + 'static {
    /// Complete frames read on `channel`, in order (terminators removed).
    /// Returns the ids of the responses among them, so a transport knows
    /// which of its requests were answered without parsing them again.
    fn frames(&self, channel: &str, frames: &[&[u8]]) -> Vec<crate::protocol::IdKey>;
    /// Lines the server wrote to stderr.
    fn stderr(&self, channel: &str, lines: &[&[u8]]);
    /// A transport-level event (spawn, exit, HTTP exchange, ...).
    fn event(&self, channel: &str, event: Event);
    /// The connection is gone for good; `exit` tells how the process ended.
    fn closed(&self, channel: &str, exit: ExitInfo);
    /// A request will get no response on this transport (HTTP error, stream
    /// closed); `None` means the whole connection failed.
    fn failed(&self, channel: &str, request: Option<crate::protocol::IdKey>, why: Loss);
    /// A frame over the size cap: its first `kept` bytes, and how long it
    /// was (`total`, at least). Both are kept: the cut frame and an
    /// `oversized` event naming it.
    fn oversized(&self, channel: &str, kept: &[u8], total: u64) {
        self.frames(channel, &[kept]);
        self.event(channel, Event::oversized(kept.len(), total, None));
    }
    /// Frames (and stderr lines, SSE events, HTTP bodies) longer than this
    /// are cut: a transport holds at most this much of one while reading it.
    fn max_frame(&self) -> usize {
        lines::max_frame()
    }
}

pub use crate::event::ExitInfo;
use crate::event::{Event, Loss};

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("cannot start {program:?}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("the server's stdin is closed")]
    Closed,
    #[error("the server is not reading its stdin: {queued} bytes already wait to be written")]
    Backlog { queued: usize },
}
