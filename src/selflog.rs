//! mcpscope's log of its own workings (`--log-file PATH` or `MCPSCOPE_LOG`),
//! off by default: what a user attaches to a bug report. Never the terminal:
//! the TUI owns it and headless stderr is a contract.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tracing::level_filters::LevelFilter;

/// Why the log cannot start; `main` says it and exits 2.
#[derive(Debug, thiserror::Error)]
pub enum SelfLogError {
    #[error("cannot open the log file {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Another subscriber is already installed.
    #[error("cannot start the log: {0}")]
    Start(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Start logging to `path`; the level comes from `MCPSCOPE_LOG_LEVEL`.
pub fn init(path: &Path) -> Result<(), SelfLogError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| SelfLogError::Open {
            path: path.to_path_buf(),
            source,
        })?;
    let level = match std::env::var("MCPSCOPE_LOG_LEVEL")
        .unwrap_or_default()
        .to_ascii_lowercase()
        .as_str()
    {
        "error" => LevelFilter::ERROR,
        "warn" => LevelFilter::WARN,
        "info" => LevelFilter::INFO,
        "trace" => LevelFilter::TRACE,
        _ => LevelFilter::DEBUG,
    };
    tracing_subscriber::fmt()
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .with_max_level(level)
        .with_thread_names(true)
        .try_init()
        .map_err(SelfLogError::Start)?;
    tracing::info!(version = env!("CARGO_PKG_VERSION"), argv = ?redacted_argv(), "mcpscope started");
    Ok(())
}

/// The command line with secret values replaced, as the trace records it.
fn redacted_argv() -> Vec<String> {
    let mut v = crate::event::Event::Spawn {
        argv: std::env::args().collect(),
        pid: None,
        cwd: None,
    }
    .to_json();
    crate::protocol::secrets::redact_json(&mut v);
    v["argv"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
