//! Whatever goes wrong stays a clear verdict: crashed, silent and damaged
//! servers, files cut short or endless, mcpscope's own bounds where they
//! bite, mutated frames and generated input through every parser.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod bounds;
mod client_bounds;
mod damaged_files;
mod faults;
mod malformed;
mod mutations;
mod properties;
