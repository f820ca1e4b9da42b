//! mcpscope: an inspector and debugger for MCP servers.
//!
//! Layers, one-way, from the bottom:
//! - `protocol` (frames, methods, revisions) at the bottom, and `event`
//!   (what mcpscope observes besides frames) on it;
//! - `transport` (stdio, HTTP) ← `client` (the session engine) → `trace`
//!   (the event store, recordings); `auth` (OAuth) plugs into the HTTP
//!   transport through its `Authorize` trait, which the transport defines;
//! - `calls` (the calls of a session, from the store) and `checks` (the rule
//!   engine) read the trace; `diff` compares two sessions (and a session
//!   with pinned definitions) over both; `suite` reads test files and
//!   judges their expectations over the store;
//! - `session` opens a session: a resolved server, its trace and recording;
//! - `proxy` sits between a host and a server, forwarding byte for byte
//!   and observing beside the path into a trace; live sessions are found
//!   through a per-user registry;
//! - two faces over that core, which never import each other: `cli` (the
//!   headless commands) and `tui` (the only module that touches the terminal);
//! - `demo` is a stand-alone MCP server used for demos and tests, `mock`
//!   one that serves a recorded session;
//! - low-level utilities any layer may use, which depend on nothing in the
//!   crate: `format`, `files`, `priority`, `listen_guard` (the DNS-rebinding
//!   gate every local HTTP listener applies), `signals` (the stopping
//!   signals, caught one way for both faces and the proxy) and `browser`
//!   (opening a URL).
//!
//! `tests/layers.rs` holds the table of which module may use which, and
//! fails on any other arrow.

// The session engine and what reads it, built as their own crate
// (`crates/core`): the shipped binary optimises it for speed and the rest
// of mcpscope for size. Re-exported, so `crate::trace` is one path.
pub use mcpscope_core::{
    calls, checks, client, event, files, filter, format, platform, priority, protocol, signals,
    sort, trace, transport,
};

pub mod auth;
pub mod browser;
pub mod cli;
pub mod demo;
pub mod diff;
pub mod export;
pub mod intercept;
pub mod listen_guard;
pub mod load;
pub mod mock;
pub mod otel;
pub mod proxy;
pub mod selflog;
pub mod session;
pub mod suite;
pub mod tui;
