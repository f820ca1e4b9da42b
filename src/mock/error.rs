//! Why a recording cannot be served, or a pace not kept.

use super::conn::Pace;
use crate::trace::record::TraceReadError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// The trace cannot be read (missing, damaged, foreign).
    #[error(transparent)]
    Trace(#[from] TraceReadError),
    #[error("{}: more than {mib} MiB of frames: too large to serve", path.display())]
    TooLarge { path: PathBuf, mib: usize },
    #[error("{}: the trace holds no message from a client: nothing to serve", path.display())]
    NothingToServe { path: PathBuf },
    #[error(
        "speed {speed}: expected 0 (at once) or {} to {}",
        Pace::MIN,
        Pace::MAX
    )]
    Speed { speed: f64 },
}
