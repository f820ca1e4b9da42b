//! Why a baseline cannot be pinned or read.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    // Pinning a session's listings.
    #[error(
        "the {label} listing never ended: its last page (#{seq}) named a next page that never came"
    )]
    NeverEnded { label: &'static str, seq: u64 },
    #[error("the {label} listing holds more than {max} items")]
    TooManyItems { label: &'static str, max: usize },
    /// `name` is shown as it is given (clipped, one line).
    #[error("the {label} listing names {name} twice (#{seq}): its pages went round")]
    NamedTwice {
        label: &'static str,
        name: String,
        seq: u64,
    },
    #[error(
        "the listings make a pin of {mib} MiB, over the {max_mib} MiB a baseline may be read back"
    )]
    PinTooLarge { mib: u64, max_mib: u64 },

    // Reading a baseline file.
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("not an mcpscope baseline (no \"mcpscope_baseline\": 1)")]
    NotBaseline,
    #[error("\"{key}\"[{index}] has no \"{field}\": it pins nothing")]
    Unnamed {
        key: &'static str,
        index: usize,
        field: &'static str,
    },
    #[error("\"{key}\" is not an array")]
    NotArray { key: &'static str },
    /// `keys`: the kinds a baseline may pin, listed.
    #[error("pins nothing: none of {keys} is in it")]
    PinsNothing { keys: String },
    #[error("baseline {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file was read but is not a usable baseline.
    #[error("baseline {}: {source}", path.display())]
    Bad {
        path: PathBuf,
        #[source]
        source: Box<DiffError>,
    },
}
