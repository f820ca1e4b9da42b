//! The TUI tests still say `mod common;`: this is the shared test support
//! (`tests/support`) under that name, until they include it themselves.

#[path = "../support/mod.rs"]
mod support;

#[allow(unused_imports)]
pub use support::*;
