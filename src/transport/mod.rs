//! Transports: how frames get to and from a server. Each transport timestamps
//! nothing and interprets nothing: it hands complete frames, stderr lines and
//! connection events to a `Sink` (the session engine), in arrival order.

pub mod http;
pub mod lines;
pub mod sse;
pub mod stdio;

use std::fmt;

/// Receives what a transport reads. Called from the transport's reader threads.
pub trait Sink: Send + Sync + 'static {
    /// Complete frames read on `channel`, in order (terminators removed).
    /// Returns the ids of the responses among them, so a transport knows
    /// which of its requests were answered without parsing them again.
    fn frames(&self, channel: &str, frames: &[&[u8]]) -> Vec<crate::protocol::IdKey>;
    /// Lines the server wrote to stderr.
    fn stderr(&self, channel: &str, lines: &[&[u8]]);
    /// A transport-level event (`{"event": "spawn", ...}`).
    fn event(&self, channel: &str, event: serde_json::Value);
    /// The connection is gone for good; `exit` tells how the process ended.
    fn closed(&self, channel: &str, exit: ExitInfo);
    /// A request will get no response on this transport (HTTP error, stream
    /// closed); `None` means the whole connection failed.
    fn failed(&self, channel: &str, request: Option<crate::protocol::IdKey>, why: String);
    /// A frame over the size cap: its first `kept` bytes, and how long it
    /// was (`total`, at least). Both are kept: the cut frame and an
    /// `oversized` event naming it.
    fn oversized(&self, channel: &str, kept: &[u8], total: u64) {
        self.frames(channel, &[kept]);
        self.event(channel, oversized_event(kept.len(), total, None));
    }
}

/// The `oversized` meta event: `frame` is the seq of the cut frame.
pub fn oversized_event(kept: usize, total: u64, frame: Option<u64>) -> serde_json::Value {
    serde_json::json!({"event": "oversized", "bytes": total, "kept": kept, "frame": frame})
}

/// How a server process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

impl ExitInfo {
    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({"event": "exit", "code": self.code, "signal": self.signal})
    }
}

impl fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exited with status {c}"),
            (None, Some(s)) => write!(f, "was killed by signal {s} ({})", signal_name(s)),
            (None, None) => write!(f, "ended (status unknown)"),
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        _ => "signal",
    }
}

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
