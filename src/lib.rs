//! mcpscope: an inspector and debugger for MCP servers.
//!
//! Layers, one-way, from the bottom:
//! - `event` (what mcpscope observes besides frames) and `format` (how
//!   numbers and progress read as text) depend on nothing else;
//! - `protocol` (frames, methods, revisions) ← `transport` (stdio, HTTP) ←
//!   `client` (the session engine) → `trace` (the event store, recordings);
//! - `calls` (the calls of a session, from the store) and `checks` (the rule
//!   engine) read the trace;
//! - `session` opens a session: a resolved server, its trace and recording;
//! - `proxy` sits between a host and a server, forwarding byte for byte
//!   and observing beside the path into a trace; live sessions are found
//!   through a per-user registry;
//! - two faces over that core, which never import each other: `cli` (the
//!   headless commands) and `tui` (the only module that touches the terminal);
//! - `demo` is a stand-alone MCP server used for demos and tests;
//!   `listen_guard` is the DNS-rebinding protection its HTTP listener (and
//!   any later local listener) applies.

pub mod auth;
pub mod browser;
pub mod calls;
pub mod checks;
pub mod cli;
pub mod client;
pub mod demo;
pub mod event;
pub mod files;
pub mod format;
pub mod listen_guard;
pub mod priority;
pub mod protocol;
pub mod proxy;
pub mod selflog;
pub mod session;
pub mod signals;
pub mod trace;
pub mod transport;
pub mod tui;
