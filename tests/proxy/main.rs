//! `mcpscope proxy` (stdio and HTTP) between a raw host and real servers:
//! bytes pass unchanged, recordings keep both directions in wire order;
//! plus `sessions`, `attach` and `wrap`.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod attach_tui;
mod faults;
mod http;
mod intercept;
mod intercept_http;
mod intercept_tui;
mod stdio;
