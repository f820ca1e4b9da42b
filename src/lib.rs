//! mcpscope: an inspector and debugger for MCP servers.
//!
//! Layers, one-way: `protocol` ← `transport` ← `client` → `trace`; `calls`
//! (the calls of a session, from the store) sits on `trace`, under both
//! `checks` and `tui`; `demo` is a stand-alone MCP server used for demos and
//! tests; `cli` drives the headless commands; `tui` is the only module that
//! touches the terminal.

pub mod calls;
pub mod checks;
pub mod cli;
pub mod client;
pub mod demo;
pub mod event;
pub mod files;
pub mod protocol;
pub mod selflog;
pub mod trace;
pub mod transport;
pub mod tui;
