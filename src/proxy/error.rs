//! What can stop the proxy from starting, or refuse a host's request.

use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("cannot record to {}: {source}", path.display())]
    Record {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `--listen` names an address the proxy may not listen on (`why`, said).
    #[error("--listen {listen}: {why}")]
    Listen {
        listen: SocketAddr,
        #[source]
        why: crate::listen_guard::RemoteBind,
    },
    /// The session registry's directory, where an unnamed trace goes.
    #[error("cannot use the sessions directory: {0}")]
    SessionsDir(#[source] std::io::Error),
    #[error("cannot listen on {listen}: {source}")]
    Bind {
        listen: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// A request body over the limit of one body.
    #[error("length limit exceeded ({limit} bytes)")]
    TooLarge { limit: usize },
    /// The budget of request bodies held at once closed (the proxy stops).
    #[error("{0}")]
    Budget(#[source] tokio::sync::AcquireError),
    /// The request body could not be read (cut, or over the limit).
    #[error("{0}")]
    Body(#[source] Box<dyn std::error::Error + Send + Sync>),
}
