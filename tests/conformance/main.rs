//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! a test peer) against mcpscope: its client scenarios (with authorization)
//! drive the `conformance-client` command, its server scenarios the demo
//! server. Every run needs the peers of `tests/peers/install.sh`.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod client;
mod client_auth;
mod server;
