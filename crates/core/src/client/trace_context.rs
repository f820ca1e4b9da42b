//! W3C Trace Context on the requests mcpscope sends (SEP-414): each one
//! starts a trace of its own, its `traceparent` naming mcpscope's client
//! span, so a server that traces (the Python SDK, FastMCP, the C# SDK)
//! parents its span on it.

use super::Session;
use crate::protocol::meta;
use crate::protocol::trace_context::{self, TraceParent};
use serde_json::{Map, Value, json};

impl Session {
    /// A fresh trace for this request (SEP-414): a `traceparent` whose span
    /// id stands for mcpscope's client span. One the caller put there (a
    /// request written by hand) is kept.
    pub(super) fn with_trace_context(&self, params: Option<Value>) -> Option<Value> {
        if !self.opts.trace_context {
            return params;
        }
        let mut params = match params {
            Some(Value::Object(m)) => m,
            // Params that are not an object are sent as given.
            Some(other) => return Some(other),
            None => Map::new(),
        };
        let envelope = params.entry(meta::META).or_insert_with(|| json!({}));
        if let Value::Object(envelope) = envelope
            && !envelope.contains_key(trace_context::TRACEPARENT)
        {
            envelope.insert(
                trace_context::TRACEPARENT.into(),
                json!(fresh_trace().header()),
            );
        }
        Some(Value::Object(params))
    }
}

/// A new trace id and span id from the OS's randomness. Without it (an OS
/// that refuses), ids from the clock, the process and a counter are still
/// unique to this process, which is all a trace id must be here.
pub fn fresh_trace() -> TraceParent {
    let mut b = [0u8; 24];
    if getrandom::fill(&mut b).is_err() {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNT: AtomicU64 = AtomicU64::new(1);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        b[..8].copy_from_slice(&now.to_be_bytes());
        b[8..16].copy_from_slice(&(u64::from(std::process::id()) ^ n).to_be_bytes());
        b[16..].copy_from_slice(&(now ^ n.rotate_left(32)).to_be_bytes());
    }
    TraceParent::from_bytes(b)
}
