//! The built-in demo server (`mcpscope demo-server`) over stdio and
//! Streamable HTTP: its tools and faults, its conformance fixtures, resource
//! subscriptions, and its DNS-rebinding protection.

#[path = "../support/mod.rs"]
mod support;

mod fixtures;
mod http;
mod listen_resources;
mod origin;
mod stdio;
