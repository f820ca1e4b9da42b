//! `mcpscope mock`: a recorded session served as an MCP server, for host
//! authors and CI. The trace (from `call`, the TUI or the proxy) is read
//! into a script ([`recording`]): every message the client sent, with the
//! frames the server sent for it. A host's message is matched against it
//! ([`matching`]) and the matched exchange is played back ([`conn`]) with
//! the host's request id and progress token, at the recorded pace (scaled
//! by `--speed`), waiting for the host's answer to each server→client
//! request, over stdio ([`stdio`]) or Streamable HTTP ([`http`]); a host of
//! the other era than the recording's is served across it ([`era`]).

pub mod conn;
pub mod era;
mod error;
pub mod http;
pub mod matching;
pub mod recording;
pub mod stdio;

pub use conn::Pace;
pub use error::MockError;
pub use recording::{Recording, load};
