//! Opening a session, the same way for the TUI (live and replay) and the
//! headless commands: a resolved server ([`spec::ServerSpec`], from the
//! command line or a config entry), the trace it writes to (and the
//! recording of that trace), and the running client session over it.
//!
//! The faces turn their own arguments into a [`Launch`]; nothing here knows
//! about clap or the terminal. [`live`] owns a live session from start to
//! end; [`registry`] lists the live sessions on this machine (the proxies
//! register, `sessions` and `attach` read), and [`follow`] reads a live
//! session's trace as it grows.

pub mod config;
pub mod follow;
pub mod live;
pub mod registry;
pub mod spec;

pub use crate::event::{Event, ExitInfo, Loss};
pub use spec::{ServerSpec, UsageError};

use crate::client::{ClientError, ClientOptions, Session};
use crate::trace::record::{FORMAT_VERSION, Recorder};
use crate::trace::{MonotonicClock, Store, StoreLimits, Trace};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything needed to start a session.
#[derive(Debug, Clone)]
pub struct Launch {
    pub spec: ServerSpec,
    pub options: ClientOptions,
    /// Record the trace to this file as it grows.
    pub record: Option<PathBuf>,
    /// Memory bound of the event store (default [`StoreLimits::default`]).
    pub max_store: Option<usize>,
    /// Authorize HTTP servers that answer `401` (OAuth); `None`: never.
    pub auth: Option<crate::auth::AuthConfig>,
}

impl Launch {
    /// A fresh trace, recording to `record` if given: the recording's header
    /// names the server, secrets redacted unless the options keep them.
    pub fn trace(&self) -> Result<Trace, UsageError> {
        let mut limits = StoreLimits::default();
        if let Some(max) = self.max_store {
            limits.max_bytes = max;
        }
        let mut store = Store::new(limits);
        if let Some(path) = &self.record {
            let header = json!({
                "mcpscope_trace": FORMAT_VERSION,
                // mcpscope was the session's client (see `CheckConfig::for_recording`).
                "recorded_as": "client",
                "version": env!("CARGO_PKG_VERSION"),
                "started": rfc3339_now(),
                "server": self.spec.to_json(self.options.redact),
            });
            let rec = Recorder::create(path, &header)
                .map_err(|e| UsageError(format!("cannot record to {}: {e}", path.display())))?;
            store.set_recorder(rec);
        }
        Ok(Trace::new(store, MonotonicClock::new()))
    }

    /// Start the server's transport over `trace` (the handshake is
    /// separate: [`Session::start`], within `options.handshake`).
    pub fn open(&self, trace: Trace) -> Result<Arc<Session>, ClientError> {
        let opts = self.options.clone();
        match &self.spec {
            ServerSpec::Stdio { cmd, .. } => Session::spawn_stdio(cmd, opts, trace),
            ServerSpec::Http {
                url,
                headers,
                flavor,
                ..
            } => {
                let auth = match &self.auth {
                    Some(cfg) => Some(
                        crate::auth::Authorizer::new(url, cfg.clone())
                            .map_err(|e| ClientError::Protocol(e.to_string()))?
                            as Arc<dyn crate::transport::http::Authorize>,
                    ),
                    None => None,
                };
                Session::connect_http(url, headers, *flavor, opts, trace, auth)
            }
        }
    }
}

pub use crate::format::rfc3339_now;
