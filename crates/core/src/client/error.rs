//! What can go wrong talking to a server, and the exit code each means.

use super::{Expiry, Gone};
use crate::transport::TransportError;
use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error("{0}")]
    Gone(Gone),
    #[error("{method} timed out ({} timeout of {secs}s)", expiry.as_str())]
    Timeout {
        method: String,
        expiry: Expiry,
        secs: f64,
    },
    #[error("handshake failed: {0}")]
    Handshake(String),
    /// `initialize` got no answer within the user's limits. It is never
    /// cancelled (the spec forbids it): the caller closes the connection.
    #[error("handshake failed: no answer to initialize within {secs}s ({}); initialize is never cancelled, so the connection is closed", expiry.describe())]
    HandshakeTimeout { expiry: Expiry, secs: f64 },
    #[error("{method} failed: JSON-RPC error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        message: String,
        data: Option<Value>,
    },
    #[error("{0}")]
    Protocol(String),
}

impl ClientError {
    /// The headless exit code (DESIGN §3).
    pub fn exit_code(&self) -> i32 {
        match self {
            ClientError::Timeout { .. } | ClientError::HandshakeTimeout { .. } => 4,
            ClientError::Rpc { .. } => 1,
            _ => 3,
        }
    }
}
