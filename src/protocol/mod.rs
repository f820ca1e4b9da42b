//! JSON-RPC and MCP as mcpscope sees them: a lenient frame model that keeps the
//! exact bytes, method names, protocol revisions and eras, and typed views of the
//! params and results the inspector cares about. Depends on serde_json only.

pub mod elicit;
pub mod frame;
pub mod id;
pub mod json_text;
pub mod methods;
pub mod revision;
pub mod sanitize;
pub mod schema;
pub mod secrets;
pub mod views;

pub use frame::{Frame, FrameKind, classify};
pub use id::IdKey;
pub use revision::{Era, Revision};
