//! Proxy mode: mcpscope between a real host (Claude Desktop, Cursor, an SDK
//! client…) and a server, changing nothing on the wire and observing both
//! directions beside the forwarding path into a trace, which is recorded,
//! checked and followed by `attach`.
//!
//! - `stdio`: the forwarding itself (threads copying, ends and signals);
//! - `http`: the reverse proxy for Streamable HTTP and legacy HTTP+SSE;
//! - `http_observer`: its exchanges into the trace, bounded, never waited for;
//! - `http::intercept`: the HTTP proxy's exchanges under `--intercept`;
//! - `breakpoints`: `--intercept`, holding what a breakpoint selects for
//!   `attach --intercept` (the protocol is `crate::intercept`);
//! - `faults`: changing the stdio traffic on purpose (`--faults`), recorded;
//! - `resumed`: a stream the host resumes recorded on the stream it continues;
//! - `observer`: framing stdio copies into the trace, bounded, never waited for;
//! - `wrap`: a host config entry rewritten to run through the proxy.

pub mod breakpoints;
mod endpoint;
mod error;
pub mod faults;
pub mod http;
pub mod http_observer;
pub mod observer;
mod resumed;
pub mod stdio;
pub mod wrap;

pub use crate::session::registry::Entry;
pub use error::ProxyError;
pub use stdio::{Outcome, StdioProxy};

use crate::session::ServerSpec;
use crate::trace::record::{FORMAT_VERSION, Recorder};
use crate::trace::{MonotonicClock, Store, StoreLimits, Trace};

/// A proxy session's trace, recorded to `path` from its first event: the
/// header names the server (secrets redacted) and the proxy.
pub fn open_trace(
    spec: &ServerSpec,
    name: &str,
    path: &std::path::Path,
    max_store: Option<usize>,
) -> Result<Trace, ProxyError> {
    let mut limits = StoreLimits::default();
    if let Some(max) = max_store {
        limits.max_bytes = max;
    }
    let mut store = Store::new(limits);
    let header = serde_json::json!({
        "mcpscope_trace": FORMAT_VERSION,
        "version": env!("CARGO_PKG_VERSION"),
        "started": crate::session::rfc3339_now(),
        "server": spec.to_json(true),
        "proxy": {"name": name, "pid": std::process::id()},
    });
    let rec = Recorder::create(path, &header).map_err(|source| ProxyError::Record {
        path: path.to_path_buf(),
        source,
    })?;
    store.set_recorder(rec);
    Ok(Trace::new(store, MonotonicClock::new()))
}

/// Say how the proxy's export went: what was lost always (the trace in the
/// backend is incomplete), the rest with `--verbose`.
pub(crate) fn say_export(report: Option<&crate::otel::export::Report>, say: impl Fn(&str)) {
    let Some(report) = report else { return };
    for (i, line) in report.lines().iter().enumerate() {
        if i == 0 && report.complete() {
            say(line);
        } else {
            eprintln!("[mcpscope] {line}");
        }
    }
}
