//! `mcpscope proxy` (stdio and HTTP) between a raw host and real servers:
//! bytes pass unchanged, recordings keep both directions in wire order;
//! plus `sessions`, `attach` and `wrap`.

#[path = "../support/mod.rs"]
mod support;

mod attach_tui;
mod http;
mod stdio;
