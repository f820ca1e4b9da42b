//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! a test peer) against mcpscope: its client scenarios (with authorization)
//! drive the `conformance-client` command, its server scenarios the demo
//! server. Every run needs the peers of `tests/peers/install.sh`.

#[path = "../support/mod.rs"]
mod support;

mod client;
mod client_auth;
mod server;
