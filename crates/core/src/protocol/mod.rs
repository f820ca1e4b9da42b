//! JSON-RPC and MCP as mcpscope sees them: a lenient frame model that keeps
//! the exact bytes, method names, protocol revisions and eras, the `_meta`
//! vocabulary, the one task model, the SEP-2243 header encoding, the W3C trace context of `_meta`, and typed
//! views of the params and results the inspector cares about. Depends on
//! serde_json (and base64, which the header encoding is made of) only.

pub mod elicit;
pub mod frame;
pub mod id;
pub mod json_text;
pub mod mcp_param;
pub mod meta;
pub mod methods;
pub mod revision;
pub mod sanitize;
pub mod schema;
pub mod secrets;
pub mod task;
pub mod trace_context;
pub mod views;

pub use frame::{Frame, FrameKind, classify};
pub use id::IdKey;
pub use revision::{Era, Revision};
