//! Servers and hosts nobody here wrote, as real peers (installed by
//! `tests/peers/install.sh`): server-everything (TypeScript SDK), the
//! Python SDK, FastMCP and rmcp, the SDKs' own clients through the proxy and
//! a real authorization server. A plain `cargo test` runs only the one that
//! needs no peer.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod ask_user;
mod auth;
mod checks;
mod fastmcp_rmcp;
mod faults;
mod mock;
mod modern;
mod otel;
mod otel_export;
mod proxy;
mod stdio;
mod trace_context;
