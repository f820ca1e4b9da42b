//! The TUI's tests, in one binary: the App driven by actions, keys and
//! clicks with no terminal (one module per pane and overlay), whole-screen
//! snapshots on a TestBackend, and the real binary end to end in tmux
//! (the `*_e2e` modules, `#[ignore]`d: they need tmux and the peers).
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// The integration suite runs the binary as a Unix process (signals,
// process groups, descriptors); the Windows build is exercised by
// .ci/windows-smoke.sh under Wine instead.
#![cfg(unix)]

// The support every test binary shares, named apart from the TUI's own.
#[path = "../support/mod.rs"]
#[allow(unused_imports)]
mod common;
mod support;

mod asks;
mod browse;
mod browse_e2e;
mod composer;
mod copy_command;
mod e2e;
mod ext_tasks;
mod findings;
mod help;
mod input;
mod intercept;
mod invisible;
mod labels;
mod labels_e2e;
mod layout;
mod layout_e2e;
mod logs;
mod network;
mod otel;
mod otel_e2e;
mod progress;
mod raw;
mod replay;
mod restart;
mod restart_e2e;
mod rounds;
mod save_test_e2e;
mod scope;
mod scope_e2e;
mod shell;
mod snapshots;
mod tasks;
mod tasks_e2e;
mod themes;
mod timeline;
mod tools;
mod wording;
