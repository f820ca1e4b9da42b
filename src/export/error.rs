//! Why an export could not be made. The messages are the command line's
//! (`export` prints them as a usage error, exit 2).

use crate::protocol::IdKey;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// HAR of a session that never went over HTTP.
    #[error("{}", super::har::NOT_HTTP)]
    NotHttp,
    /// `--call ID` names no request the client sent.
    #[error("--call {0}: the trace has no request with that id sent to the server")]
    NoSuchCall(IdKey),
    /// The HTML page's data could not be compressed.
    #[error("cannot compress the page's data: {0}")]
    Compress(#[from] std::io::Error),
    /// The HTML page's template lost one of its slots (a build defect).
    #[error("the page template lacks {0}")]
    Template(&'static str),
}
