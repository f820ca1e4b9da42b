//! The headless commands through the real binary: `call` and `tools`,
//! `request`, answers to server requests, tasks (both revisions),
//! completions and man pages, mcpscope's own log, what it does to this
//! machine, the order of recorded frames, and the test harness's own
//! guarantees.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

#[path = "../support/mod.rs"]
mod support;

mod answers;
mod baseline;
mod ci_action;
mod diff;
mod docs;
mod export;
mod export_html;
mod ext_tasks;
mod harness;
mod headless;
mod load;
mod local_safety;
mod mcp_server;
mod mock;
mod only;
mod otel_receiver;
mod otlp;
mod otlp_hostile;
mod outputs;
mod redaction;
mod request;
mod sarif;
mod selflog;
mod tasks;
mod test_files;
mod wire_order;
