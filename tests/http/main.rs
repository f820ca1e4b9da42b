//! HTTP through the real binary: the Streamable HTTP and HTTP+SSE
//! transports against real peers and raw loopback servers, what is forwarded
//! across redirects and origins, and authorization (OAuth) against a loopback
//! server that misbehaves on request.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod auth;
mod auth_safety;
mod transports;
mod trust;
