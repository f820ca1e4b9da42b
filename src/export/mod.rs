//! Exports of a recorded session for other tools and for people: `har`
//! (HAR 1.2 of an HTTP session's exchanges), `mermaid` (a sequence
//! diagram), `stats` (latency percentiles, counts, findings by rule) and
//! `html` (one self-contained page that opens offline in any browser).
//!
//! Each reads a store already filled from a trace and the findings the
//! rule engine made over it (the command line runs the engine, as
//! `check --trace` does); none of them keeps a secret the trace header or
//! a spawn event redacted, and header values are redacted again here, so a
//! trace recorded with `--no-redact` exports redacted too.

mod error;
pub mod har;
pub mod html;
pub mod mermaid;
pub mod stats;

pub use error::ExportError;

use crate::checks::Finding;
use crate::trace::Store;
use serde_json::Value;

/// A recorded session as the exports read it.
pub struct Session<'a> {
    /// The trace's first line (`mcpscope_trace`, `server`, `started`, …).
    pub header: &'a Value,
    pub store: &'a Store,
    pub findings: &'a [Finding],
}

impl Session<'_> {
    /// A proxy's recording (the host's view) rather than mcpscope's own
    /// session as the client.
    pub fn is_proxy(&self) -> bool {
        crate::trace::reader::is_proxy_recording(self.header)
    }

    /// Frames went over HTTP (any channel but stdio's).
    pub fn is_http(&self) -> bool {
        self.store.range(0, self.store.next_seq()).any(|ev| {
            matches!(ev.dir, crate::trace::Dir::In | crate::trace::Dir::Out)
                && ev.channel != "stdio"
        }) || self
            .header
            .pointer("/server/transport")
            .and_then(Value::as_str)
            .is_some_and(|t| t != "stdio")
    }
}

/// Which mcpscope made an export (the HTML page says it).
pub fn generator() -> String {
    format!("mcpscope {}", env!("CARGO_PKG_VERSION"))
}

/// A percentile by nearest rank over sorted values (`p` in 0..=100).
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}
