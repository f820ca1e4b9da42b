//! The built-in demo server (`mcpscope demo-server`) over stdio and
//! Streamable HTTP: its tools and faults, its conformance fixtures, resource
//! subscriptions, and its DNS-rebinding protection.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod fixtures;
mod http;
mod listen_resources;
mod origin;
mod stdio;
