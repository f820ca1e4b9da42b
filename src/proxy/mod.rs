//! Proxy mode: mcpscope between a real host (Claude Desktop, Cursor, an SDK
//! client…) and a server, changing nothing on the wire and observing both
//! directions beside the forwarding path into a trace, which is recorded,
//! checked and followed by `attach`.
//!
//! - `stdio`: the forwarding itself (threads copying, ends and signals);
//! - `observer`: framing the copies into the trace, bounded, never waited for;
//! - `registry`: live sessions on this machine (`sessions`, `attach`);
//! - `follow`: reading a live session's trace as it grows;
//! - `wrap`: a host config entry rewritten to run through the proxy.

pub mod follow;
pub mod observer;
pub mod registry;
pub mod stdio;
pub mod wrap;

pub use registry::Entry;
pub use stdio::{Outcome, StdioProxy};
