//! mcpscope's core: the session engine and what reads it, one layer above
//! the other — `protocol` (frames, methods, revisions) and `event` at the
//! bottom; `transport` (stdio, HTTP) under `client` (the session engine),
//! which writes `trace` (the event store, recordings); `calls` (the calls
//! of a session) and `checks` (the rule engine) read the trace; and the
//! utilities any layer may use (`format`, `files`, `priority`, `platform`,
//! `signals`, `sort`).
//!
//! It is a crate of its own so the shipped binary can optimise it for
//! speed — every frame a session sees passes through it — and the rest of
//! mcpscope (the faces, the proxy, the demo server, the exports) for size
//! (docs/performance.md, "The shipped binary"). The `mcpscope` crate
//! re-exports every module, so `mcpscope::trace` is the one path.

pub mod calls;
pub mod checks;
pub mod client;
pub mod event;
pub mod files;
pub mod filter;
pub mod format;
pub mod platform;
pub mod priority;
pub mod protocol;
pub mod signals;
pub mod sort;
pub mod trace;
pub mod transport;
