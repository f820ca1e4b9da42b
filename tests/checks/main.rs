//! The rule engine and the commands that report it (`check`, `rules`,
//! `replay --print`): every rule over hand-written event sequences, on real
//! sessions with misbehaving hosts and servers, and its bounded state.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod bounds;
mod cli;
mod client;
mod client_wire;
mod demo;
mod http;
mod injected;
mod rules;
mod servers;
mod tasks;
